//! Quantities: a stated count or amount widened to bounds that hold it, the lower one first (more
//! specific), then the next power of ten above it: `87 films` → `more than 80 films` → `fewer
//! than a hundred films`; `$145 million` → `more than $100 million` → `less than $1 billion`;
//! `two` → `fewer than ten`; `45%` → `more than 40%`. Ranges, ordinals, decimals and `one` are
//! left to the other sources.

use kanon_core::text::{ONE_TO_NINETEEN, TENS};

use super::{Rung, RungSource};

const SCALES: [&str; 4] = ["thousand", "million", "billion", "trillion"];

/// A quantity as stated: `$`, 145, `million`, `films`.
struct Stated<'a> {
    currency: &'a str,
    number: u64,
    scale: Option<usize>,
    percent: bool,
    rest: Vec<&'a str>,
}

/// The rungs of a stated quantity, or none when it states no count of two or more.
pub(super) fn ladder(surface: &str) -> Option<Vec<Rung>> {
    let stated = parse(surface)?;
    if stated.number < 2 {
        return None;
    }
    let order = 10u64.pow(stated.number.ilog10());
    let mut texts = Vec::new();
    if stated.number >= 10 {
        let lead = stated.number / order;
        let lower = if lead * order < stated.number {
            lead * order
        } else if lead > 1 {
            (lead - 1) * order
        } else {
            order / 2
        };
        texts.push(format!("more than {}", stated.amount(lower, stated.scale)));
    }
    if !stated.percent {
        let (upper, scale) = match stated.scale {
            Some(scale) if order * 10 == 1000 && scale + 1 < SCALES.len() => (1, Some(scale + 1)),
            scale => (order * 10, scale),
        };
        let fewer = if stated.currency.is_empty() {
            "fewer"
        } else {
            "less"
        };
        texts.push(format!("{fewer} than {}", stated.amount(upper, scale)));
    }
    Some(Rung::all(RungSource::Number, texts))
}

fn parse(surface: &str) -> Option<Stated<'_>> {
    let surface = surface.trim();
    let currency_len = ["US$", "$", "€", "£"]
        .iter()
        .find(|c| surface.starts_with(**c))
        .map_or(0, |c| c.len());
    let (currency, rest) = surface.split_at(currency_len);
    let mut words = rest.split_whitespace();
    let first = words.next()?;
    let (first, percent_sign) = match first.strip_suffix('%') {
        Some(number) => (number, true),
        None => (first, false),
    };
    let number = if first.bytes().all(|b| b.is_ascii_digit() || b == b',') {
        let digits: String = first.chars().filter(char::is_ascii_digit).collect();
        if digits.is_empty() || first.starts_with(',') || first.ends_with(',') {
            return None;
        }
        digits.parse().ok()?
    } else {
        number_word(&first.to_lowercase())?
    };
    let mut rest: Vec<&str> = words.collect();
    let scale = rest
        .first()
        .and_then(|w| SCALES.iter().position(|s| w.eq_ignore_ascii_case(s)));
    if scale.is_some() {
        rest.remove(0);
    }
    let percent_word = rest
        .first()
        .is_some_and(|w| w.eq_ignore_ascii_case("percent") || *w == "%");
    if percent_word {
        rest.remove(0);
    }
    Some(Stated {
        currency,
        number,
        scale,
        percent: percent_sign || percent_word,
        rest,
    })
}

/// `two` → 2, `forty-five` → 45.
fn number_word(word: &str) -> Option<u64> {
    if let Some(i) = ONE_TO_NINETEEN.iter().position(|w| *w == word) {
        return Some(i as u64 + 1);
    }
    let (tens, unit) = word.split_once('-').unwrap_or((word, ""));
    let tens = TENS.iter().position(|w| *w == tens)? as u64 * 10 + 20;
    let unit = match unit {
        "" => 0,
        unit => ONE_TO_NINETEEN[..9].iter().position(|w| *w == unit)? as u64 + 1,
    };
    Some(tens + unit)
}

impl Stated<'_> {
    /// `value` (in units of `scale`) written as the span writes its number: words for ten, a
    /// hundred and a thousand without a currency, digits with separators otherwise.
    fn amount(&self, value: u64, scale: Option<usize>) -> String {
        let number = match (value, self.currency.is_empty(), scale) {
            (10, true, _) => "ten".to_owned(),
            (100, true, _) => "a hundred".to_owned(),
            (1000, true, None) => "a thousand".to_owned(),
            (1, true, Some(_)) => "a".to_owned(),
            _ => with_separators(value),
        };
        let mut out = format!("{}{number}", self.currency);
        if let Some(scale) = scale {
            out.push(' ');
            out.push_str(SCALES[scale]);
        }
        if self.percent {
            out.push('%');
        }
        for word in &self.rest {
            out.push(' ');
            out.push_str(word);
        }
        out
    }
}

/// `4312` → `4,312`.
fn with_separators(value: u64) -> String {
    let digits = value.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(surface: &str) -> Vec<String> {
        ladder(surface)
            .unwrap_or_default()
            .into_iter()
            .map(|rung| rung.text)
            .collect()
    }

    #[test]
    fn counts_widen_to_bounds_that_hold_them() {
        assert_eq!(
            texts("87 films"),
            ["more than 80 films", "fewer than a hundred films"]
        );
        assert_eq!(texts("80"), ["more than 70", "fewer than a hundred"]);
        assert_eq!(texts("two"), ["fewer than ten"]);
        assert_eq!(texts("eleven"), ["more than ten", "fewer than a hundred"]);
        assert_eq!(
            texts("forty-five"),
            ["more than 40", "fewer than a hundred"]
        );
        assert_eq!(
            texts("4,312 employees"),
            ["more than 4,000 employees", "fewer than 10,000 employees"]
        );
        assert_eq!(
            texts("1,200"),
            ["more than a thousand", "fewer than 10,000"]
        );
        assert_eq!(
            texts("$145 million"),
            ["more than $100 million", "less than $1 billion"]
        );
        assert_eq!(texts("45%"), ["more than 40%"]);
        assert_eq!(
            texts("12 million"),
            ["more than ten million", "fewer than a hundred million"]
        );
        assert_eq!(
            texts("300 million"),
            ["more than 200 million", "fewer than a billion"]
        );
    }

    #[test]
    fn what_states_no_count_gives_nothing() {
        for surface in [
            "one",
            "first",
            "12th",
            ".983",
            "$100–130 million",
            "number 31",
            "twice",
            "",
            "1,2,",
        ] {
            assert!(texts(surface).is_empty(), "{surface}");
        }
    }

    #[test]
    fn every_bound_holds_the_stated_value() {
        for n in 2u64..5000 {
            for text in texts(&n.to_string()) {
                let (more, bound) = match text.strip_prefix("more than ") {
                    Some(bound) => (true, bound),
                    None => (false, text.strip_prefix("fewer than ").unwrap()),
                };
                let bound: u64 = match bound {
                    "ten" => 10,
                    "a hundred" => 100,
                    "a thousand" => 1000,
                    digits => digits.replace(',', "").parse().unwrap(),
                };
                assert!(if more { bound < n } else { bound > n }, "{n}: {text}");
            }
        }
    }
}
