//! Awards: the kind an award's name states (`… Prize`, `… Medal`, `… Award`), then `an award`;
//! an award kanon's table lists is an award whatever its name (`Oscar`).

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
