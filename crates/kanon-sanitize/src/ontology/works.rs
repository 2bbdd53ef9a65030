//! Titles of works that state their kind in their own words: `The Zorbs Movie` and `Zorbs Movie
//! II: The Return` are films, `Youth Leadership Programme` a program. Only a capitalised head
//! counts (a title's), read before a subtitle and past an edition's number.

use super::{Rung, RungSource};

/// The rungs of a title whose head word states its kind, or none.
pub(super) fn rungs(title: &str) -> Option<Vec<Rung>> {
    // A subtitle follows a colon; an edition's number ends a title (`II`, `2`).
    let main = title.split(':').next()?.trim();
    let mut words: Vec<&str> = main.split_whitespace().collect();
    while words.len() > 1 && words.last().is_some_and(|word| is_edition(word)) {
        words.pop();
    }
    if words.len() < 2 {
        return None;
    }
    let kind = match *words.last()? {
        "Movie" | "Film" => "a film",
        "Program" | "Programme" => "a program",
        _ => return None,
    };
    Some(vec![Rung::new(RungSource::StatedKind, kind)])
}

/// An edition's number: a Roman numeral (`II`, `XLV`) or digits.
pub(super) fn is_edition(word: &str) -> bool {
    !word.is_empty()
        && (word.chars().all(|c| c.is_ascii_digit())
            || word.len() <= 7 && word.chars().all(|c| "IVXLCDM".contains(c)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(title: &str) -> Vec<String> {
        rungs(title)
            .unwrap_or_default()
            .into_iter()
            .map(|rung| rung.text)
            .collect()
    }

    #[test]
    fn a_title_whose_head_states_its_kind() {
        assert_eq!(texts("The Zorbs Movie"), ["a film"]);
        assert_eq!(texts("Zorbs Movie II: The Return"), ["a film"]);
        assert_eq!(texts("Youth Leadership Programme"), ["a program"]);
        // A head in lower case is a common noun phrase's; one word is no title's head.
        assert!(texts("the home movie").is_empty());
        assert!(texts("Movie").is_empty());
        assert!(texts("Film Noir Nights").is_empty());
    }
}
