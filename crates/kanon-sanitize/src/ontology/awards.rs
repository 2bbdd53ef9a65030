//! Awards: the kind an award's name states (`… Prize`, `… Medal`, `… Award`), then `an award`;
//! an award kanon's table lists is an award whatever its name (`Oscar`); an award's category
//! (`Best Original Score`); an academic degree (`Doctor of Philosophy` → `a doctorate` → `a
//! degree`).

use kanon_kg::vocab::Vocabulary;

use super::{Rung, RungSource};

/// The rungs of an award, or none when the name states no award and the table lacks it.
pub(super) fn rungs(vocabulary: &Vocabulary, name: &str) -> Option<Vec<Rung>> {
    let kind = stated_kind(name);
    let source = if vocabulary.is_award(name) {
        RungSource::AwardList
    } else if kind.is_some() {
        RungSource::StatedKind
    } else {
        return None;
    };
    let texts = kind
        .filter(|kind| *kind != "an award")
        .into_iter()
        .chain(["an award"])
        .map(str::to_owned);
    Some(Rung::all(source, texts))
}

/// The kind the name's head word states: the word before `for`, `in` or `of` (`Nobel Prize in
/// Literature`), else the last word.
fn stated_kind(name: &str) -> Option<&'static str> {
    let words: Vec<&str> = name.split_whitespace().collect();
    // Award ceremonies name their categories `Best` and a capitalised kind of work or role
    // (`Best Original Score`, `Best Supporting Actor`); a title that opens with `Best` (`Best
    // Friends Forever`) names no such kind.
    if let [first, second, rest @ ..] = words.as_slice()
        && *first == "Best"
        && second.chars().next().is_some_and(char::is_uppercase)
    {
        let phrase = std::iter::once(second)
            .chain(rest)
            .take_while(|word| !matches!(**word, "for" | "in" | "of" | "from" | "at" | "by"));
        let head = phrase.last().map(|word| word.to_lowercase());
        if head.is_some_and(|head| CATEGORY_HEADS.contains(&head.as_str())) {
            return Some("an award category");
        }
    }
    let head = match words.iter().position(|w| matches!(*w, "for" | "in" | "of")) {
        Some(at) if at > 0 => words[at - 1],
        _ => words.last()?,
    };
    Some(match head.to_lowercase().as_str() {
        "prize" => "a prize",
        "medal" => "a medal",
        "trophy" => "a trophy",
        "award" | "awards" => "an award",
        _ => return None,
    })
}

/// What award categories name after `Best`: kinds of works, roles and crafts. A word cut short
/// (`Performanc`) is no category's.
const CATEGORY_HEADS: &[&str] = &[
    "actor",
    "actress",
    "director",
    "direction",
    "picture",
    "film",
    "feature",
    "documentary",
    "short",
    "animation",
    "album",
    "song",
    "single",
    "record",
    "recording",
    "performance",
    "score",
    "soundtrack",
    "screenplay",
    "writing",
    "novel",
    "novella",
    "novelette",
    "story",
    "book",
    "poem",
    "play",
    "musical",
    "series",
    "drama",
    "comedy",
    "artist",
    "vocalist",
    "newcomer",
    "cinematography",
    "editing",
    "design",
    "effects",
    "choreography",
    "video",
    "production",
    "composition",
    "arrangement",
    "presenter",
    "host",
];

/// An academic degree its name states (`Doctor of Philosophy`, `Bachelor of Arts`, `Master of
/// Science in Nursing`, `Juris Doctor`): the level, then `a degree`. Case plays no part.
pub(super) fn degree(name: &str) -> Option<Vec<Rung>> {
    let lower = name.trim().to_lowercase();
    let level = if lower == "juris doctor" || lower.starts_with("doctor of ") {
        "a doctorate"
    } else if lower.starts_with("master of ") {
        "a master's degree"
    } else if lower.starts_with("bachelor of ") {
        "a bachelor's degree"
    } else {
        return None;
    };
    // `Doctor of the Church` is a title, not a degree: the subject follows `of` directly.
    let subject = lower.split_once(" of ").map_or("", |(_, subject)| subject);
    if subject.starts_with("the ") {
        return None;
    }
    Some(Rung::all(
        RungSource::StatedKind,
        [level.to_owned(), "a degree".to_owned()],
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(rungs: Option<Vec<Rung>>) -> Vec<String> {
        rungs
            .unwrap_or_default()
            .into_iter()
            .map(|rung| rung.text)
            .collect()
    }

    #[test]
    fn a_best_category_is_an_award_category() {
        let vocabulary = Vocabulary::embedded();
        assert_eq!(
            texts(rungs(vocabulary, "Best Animated Short Film")),
            ["an award category", "an award"]
        );
        assert_eq!(
            texts(rungs(vocabulary, "Best Jazz Album for Night Trains")),
            ["an award category", "an award"]
        );
        // Not a category: an adjective in running text, or no capitalised kind after it.
        assert!(rungs(vocabulary, "best friends").is_none());
        assert!(rungs(vocabulary, "Best").is_none());
        assert!(rungs(vocabulary, "Best Of The Lowlands").is_none());
        assert!(rungs(vocabulary, "Best Little Fiddler from Halden").is_none());
    }

    #[test]
    fn a_degree_climbs_to_its_level_then_a_degree() {
        assert_eq!(
            texts(degree("Doctor of Divinity")),
            ["a doctorate", "a degree"]
        );
        assert_eq!(
            texts(degree("master of fine arts")),
            ["a master's degree", "a degree"]
        );
        assert_eq!(
            texts(degree("Bachelor of Engineering")),
            ["a bachelor's degree", "a degree"]
        );
        assert!(degree("Doctor of the Church").is_none());
        assert!(degree("Doctor Who").is_none());
    }
}
