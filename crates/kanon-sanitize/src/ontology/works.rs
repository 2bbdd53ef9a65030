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

/// An edition's number: digits, or a Roman numeral in capitals (`II`, `XLV`).
fn is_edition(word: &str) -> bool {
    !word.is_empty() && word.chars().all(|c| c.is_ascii_digit())
        || word.chars().all(|c| c.is_ascii_uppercase()) && roman_numeral(word).is_some()
}

/// The value of a Roman numeral of I, V, X, L and C, whatever its case (`xlv` → 45); none for
/// a word in those letters that is no valid numeral (`civil`: only I before V or X and X before
/// L or C subtract).
pub(super) fn roman_numeral(word: &str) -> Option<u32> {
    let value = |c: char| match c.to_ascii_uppercase() {
        'I' => Some(1),
        'V' => Some(5),
        'X' => Some(10),
        'L' => Some(50),
        'C' => Some(100),
        _ => None,
    };
    let values = word.chars().map(value).collect::<Option<Vec<i64>>>()?;
    let mut total = 0;
    for (i, &v) in values.iter().enumerate() {
        match values.get(i + 1) {
            Some(&next) if v < next => {
                if !matches!((v, next), (1, 5) | (1, 10) | (10, 50) | (10, 100)) {
                    return None;
                }
                total -= v;
            }
            _ => total += v,
        }
    }
    u32::try_from(total).ok().filter(|&total| total > 0)
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
        assert_eq!(roman_numeral("xlv"), Some(45));
        assert_eq!(roman_numeral("IX"), Some(9));
        assert_eq!(roman_numeral("civil"), None);
    }
}
