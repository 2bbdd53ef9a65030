//! Events, agreements and laws whose name states their kind (`2008 Summer Olympics` → `an Olympic
//! Games in the 2000s` → `an Olympic Games in the 21st century` → `an Olympic Games` → `a
//! multi-sport event`; `Treaty of Versailles` → `a treaty` → `an agreement`), with the period a
//! year in the name places them in. The kind words are general knowledge.
//!
//! A title of a work may state a kind it is not (a film called `Civil War`): kinds that titles
//! often borrow (wars, battles, revolutions, games, cups, codes) count only where the name also
//! holds a year, an ordinal, a place, a demonym or `world` (`Vietnam War`, `1998 FIFA World Cup`,
//! `Second Boer War`). Case plays no part.

use kanon_kg::vocab::Vocabulary;

use super::{Rung, RungSource};

/// The rungs of an event, agreement or law its name states, or none.
pub(super) fn rungs(vocabulary: &Vocabulary, name: &str) -> Option<Vec<Rung>> {
    let words: Vec<String> = kanon_core::text::words(name);
    let mut words: Vec<&str> = words.iter().map(String::as_str).collect();
    // An annual event's edition ends its name in a Roman numeral (`Super Bowl XXX`).
    let edition = words.len() > 1 && words.last().is_some_and(|last| edition_number(last));
    if edition {
        words.pop();
    }
    let (kinds, borrowed) = stated(&words)?;
    let year = words
        .iter()
        .filter_map(|w| w.parse::<u32>().ok())
        .find(|y| (1000..=2099).contains(y));
    if borrowed
        && year.is_none()
        && !edition
        && !anchored(vocabulary, &words)
        && !organised_by_initials(name)
    {
        return None;
    }
    let (kind, parents) = kinds.split_first()?;
    let mut texts = Vec::new();
    if let Some(year) = year {
        texts.push(format!("{kind} in the {}s", year / 10 * 10));
        texts.push(format!("{kind} in the {} century", ordinal(year / 100 + 1)));
    }
    texts.push((*kind).to_owned());
    texts.extend(parents.iter().map(|p| (*p).to_owned()));
    Some(Rung::all(RungSource::StatedKind, texts))
}

/// The kinds a name's head states (the last word before `of`, `on`, `for` or `in`, else the last
/// word; or a two-word phrase), and whether titles often borrow them.
fn stated(words: &[&str]) -> Option<(&'static [&'static str], bool)> {
    let cut = words
        .iter()
        .position(|w| matches!(*w, "of" | "on" | "for" | "in" | "against"));
    let end = match cut {
        Some(0) => return None,
        Some(cut) => cut,
        None => words.len(),
    };
    if end >= 2 {
        let pair = [words[end - 2], words[end - 1]];
        let found: Option<(&'static [&'static str], bool)> = match pair {
            ["civil", "war"] => Some((&["a civil war", "a war", "an armed conflict"], true)),
            ["world", "war"] => Some((&["a world war", "a war", "an armed conflict"], false)),
            ["olympic", "games"] | ["summer", "olympics"] | ["winter", "olympics"] => {
                Some((OLYMPICS, false))
            }
            ["world", "cup"] => Some((&["a world cup", "a tournament", "a competition"], false)),
            ["grand", "prix"] => Some((&["a grand prix", "a competition"], false)),
            ["general", "election"] => Some((&["a general election", "an election"], false)),
            ["peace", "treaty"] => Some((&["a peace treaty", "a treaty", "an agreement"], false)),
            _ => None,
        };
        if found.is_some() {
            return found;
        }
    }
    Some(match *words.get(end.checked_sub(1)?)? {
        "war" => (&["a war", "an armed conflict"], true),
        "battle" | "siege" => (&["a battle", "an armed conflict"], true),
        "revolution" => (&["a revolution"], true),
        "uprising" | "rebellion" | "revolt" | "insurrection" => (&["an uprising"], true),
        "massacre" => (&["a massacre"], true),
        "olympics" | "olympiad" => (OLYMPICS, false),
        "games" => (&["a multi-sport event", "a sporting event"], true),
        "championship" | "championships" => (&["a championship", "a competition"], false),
        "cup" => (&["a cup competition", "a competition"], true),
        "bowl" => (&["a bowl game", "a game"], true),
        "tournament" => (&["a tournament", "a competition"], false),
        "competition" | "contest" => (&["a competition"], false),
        "marathon" => (&["a marathon", "a race"], true),
        "festival" => (&["a festival"], false),
        "election" | "elections" => (&["an election"], false),
        "referendum" => (&["a referendum"], false),
        "treaty" => (&["a treaty", "an agreement"], false),
        "accord" | "accords" | "agreement" => (&["an agreement"], false),
        "convention" => (&["a convention"], false),
        "conference" => (&["a conference"], false),
        "summit" => (&["a summit"], false),
        "exhibition" | "exposition" | "expo" => (&["an exhibition"], false),
        "act" => (&["an act of legislation", "a law"], true),
        "code" => (&["a legal code", "a law"], true),
        "constitution" => (&["a constitution"], false),
        "declaration" => (&["a declaration"], false),
        "charter" => (&["a charter"], false),
        "amendment" => (&["an amendment"], false),
        _ => return None,
    })
}

const OLYMPICS: &[&str] = &[
    "an Olympic Games",
    "a multi-sport event",
    "a sporting event",
];

/// A Roman numeral of two letters or more, from 2 to 100, whatever its case (`ii`, `XLV`): an
/// edition's number. Words spelt in its letters are mostly no valid numeral (`mid`, `civil`,
/// `dim`) or a larger one (`mix`).
fn edition_number(word: &str) -> bool {
    word.chars().count() >= 2
        && super::works::roman_numeral(word).is_some_and(|value| (2..=100).contains(&value))
}

/// Whether the name opens with its organiser's initials (`ABU Cup`, `CONCACAF Gold Cup`): two
/// to eight capitals, as governing bodies abbreviate their names and titles of works seldom open.
fn organised_by_initials(name: &str) -> bool {
    name.split_whitespace().next().is_some_and(|first| {
        (2..=8).contains(&first.len()) && first.chars().all(|c| c.is_ascii_uppercase())
    })
}

/// Whether the name holds what a work's title seldom does: a place, a demonym, an ordinal or
/// `world`.
fn anchored(vocabulary: &Vocabulary, words: &[&str]) -> bool {
    words.iter().any(|word| {
        *word == "world"
            || ORDINALS.contains(word)
            || (!vocabulary.is_common_word_place(word)
                && (vocabulary.country(word).is_some()
                    || vocabulary.country_of_demonym(word).is_some()
                    || vocabulary.first_level_region(word).is_some()
                    || vocabulary.city(word).is_some()))
    }) || words.windows(2).any(|pair| {
        let two = pair.join(" ");
        vocabulary.country(&two).is_some()
            || vocabulary.country_of_demonym(&two).is_some()
            || vocabulary.city(&two).is_some()
    })
}

const ORDINALS: &[&str] = &[
    "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
];

/// `21` → `21st`.
fn ordinal(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(name: &str) -> Vec<String> {
        rungs(Vocabulary::embedded(), name)
            .unwrap_or_default()
            .into_iter()
            .map(|rung| rung.text)
            .collect()
    }

    #[test]
    fn events_state_their_kind_and_period() {
        assert_eq!(
            texts("2008 Summer Olympics"),
            [
                "an Olympic Games in the 2000s",
                "an Olympic Games in the 21st century",
                "an Olympic Games",
                "a multi-sport event",
                "a sporting event"
            ]
        );
        assert_eq!(texts("Vietnam War"), ["a war", "an armed conflict"]);
        assert_eq!(texts("second boer war")[0], "a war");
        assert_eq!(texts("Treaty of Versailles"), ["a treaty", "an agreement"]);
        assert_eq!(
            texts("1998 FIFA World Cup")[..2],
            [
                "a world cup in the 1990s",
                "a world cup in the 20th century"
            ]
        );
        assert_eq!(texts("the Convention"), ["a convention"]);
    }

    #[test]
    fn kinds_titles_borrow_need_an_anchor() {
        // A film, as likely as a war.
        assert!(texts("Civil War").is_empty());
        assert!(texts("The Last Battle").is_empty());
        assert!(texts("The Da Vinci Code").is_empty());
        assert!(texts("Titanic").is_empty());
        assert_eq!(texts("American Civil War")[0], "a civil war");
        // A demonym of two words anchors it too.
        assert_eq!(texts("Sri Lankan Civil War")[0], "a civil war");
    }

    #[test]
    fn a_cup_its_organisers_initials_open_is_a_competition_and_a_contest_one() {
        assert_eq!(texts("XYZF Cup"), ["a cup competition", "a competition"]);
        assert_eq!(
            texts("9th Annual Northfield Poetry Contest"),
            ["a competition"]
        );
        // A title that borrows the kind names no organiser.
        assert!(texts("The Silver Cup").is_empty());
        // An edition's Roman numeral marks an annual event.
        assert_eq!(texts("Harvest Bowl XIV"), ["a bowl game", "a game"]);
        assert!(texts("Harvest Bowl").is_empty());
        assert!(edition_number("xlv") && edition_number("II") && edition_number("XC"));
        assert!(!edition_number("mix") && !edition_number("civil") && !edition_number("I"));
        assert!(texts("A Cup").is_empty());
    }
}
