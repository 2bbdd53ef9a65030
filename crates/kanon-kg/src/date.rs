//! Dates at their stated precision, and the ways English texts write them.

use std::fmt;

/// The English month names, January first: `MONTHS[m - 1]` is month `m`.
pub const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// The three-letter English month abbreviations, `Jan` first (no trailing point).
pub const MONTH_ABBREVIATIONS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// A calendar date known to the year, the month or the day. Years before the common era are negative
/// (astronomical numbering is not used: -384 is 384 BC).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Date {
    /// The year; negative before the common era, never 0.
    pub year: i32,
    /// The month, 1 to 12, when known.
    pub month: Option<u8>,
    /// The day of the month, from 1, when known; never set without the month.
    pub day: Option<u8>,
}

impl Date {
    /// Parses the KG's date values: `1992-08-05`, `1992-08`, `1992`, `-384`. Anything else (decades
    /// like `1990s`, free text) is not a date and is kept as a plain value by the caller.
    pub fn parse(value: &str) -> Option<Date> {
        let value = value.trim();
        let (negative, rest) = match value.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, value.strip_prefix('+').unwrap_or(value)),
        };
        let mut parts = rest.split('-');
        let year_str = parts.next()?;
        if year_str.is_empty()
            || year_str.len() > 4
            || !year_str.bytes().all(|b| b.is_ascii_digit())
        {
            return None;
        }
        let year: i32 = year_str.parse().ok()?;
        if year == 0 {
            return None;
        }
        let year = if negative { -year } else { year };
        let month = match parts.next() {
            None => None,
            Some(m) => Some(parse_bounded(m, 12)?),
        };
        let day = match parts.next() {
            None => None,
            Some(d) => Some(parse_bounded(d, days_in_month(year, month?))?),
        };
        if parts.next().is_some() {
            return None;
        }
        Some(Date { year, month, day })
    }

    /// The English forms a text may use, each a separate term:
    /// `1992-08-05` → `5 August 1992`, `August 5, 1992`, `5 Aug 1992`, `Aug 5, 1992`, the ordinal
    /// forms `5th August 1992` and `August 5th, 1992`, `1992-08-05`, the day and month without the
    /// year (`5 August`, `August 5`, `5th August`, `Aug 5`…), `August 1992`, `Aug 1992`, `1992`;
    /// September also as `Sept`.
    pub fn surface_forms(&self) -> Vec<String> {
        let year = if self.year < 0 {
            format!("{} BC", -self.year)
        } else {
            self.year.to_string()
        };
        let mut forms = Vec::new();
        if let Some(month) = self.month {
            let full = MONTHS[usize::from(month - 1)];
            let mut months = vec![full];
            let abbr = MONTH_ABBREVIATIONS[usize::from(month - 1)];
            if abbr != full {
                months.push(abbr);
            }
            if month == 9 {
                months.push("Sept");
            }
            if let Some(day) = self.day {
                let ordinal = ordinal(i32::from(day));
                for name in &months {
                    forms.push(format!("{day} {name} {year}"));
                    forms.push(format!("{name} {day}, {year}"));
                }
                forms.push(format!("{ordinal} {full} {year}"));
                forms.push(format!("{full} {ordinal}, {year}"));
                if self.year > 0 {
                    forms.push(format!("{:04}-{month:02}-{day:02}", self.year));
                }
                for name in &months {
                    forms.push(format!("{day} {name}"));
                    forms.push(format!("{name} {day}"));
                }
                forms.push(format!("{ordinal} {full}"));
                forms.push(format!("{full} {ordinal}"));
            }
            for name in &months {
                forms.push(format!("{name} {year}"));
            }
        }
        forms.push(year);
        forms
    }
}

/// The month (1–12) a word names: its full name or three-letter abbreviation, or `Sept`; case
/// ignored, a trailing abbreviation point allowed.
pub fn month_number(word: &str) -> Option<u8> {
    let word = word.trim_end_matches('.');
    let index = if word.eq_ignore_ascii_case("sept") {
        Some(8)
    } else {
        MONTHS
            .iter()
            .zip(MONTH_ABBREVIATIONS)
            .position(|(month, abbreviation)| {
                month.eq_ignore_ascii_case(word) || abbreviation.eq_ignore_ascii_case(word)
            })
    };
    index.map(|i| i as u8 + 1)
}

/// The day of a month (1–31) a word gives: one or two digits, with or without an ordinal suffix
/// (`5`, `05`, `5th`, `23rd`).
pub fn day_of_month(word: &str) -> Option<u8> {
    let digits = ["st", "nd", "rd", "th"]
        .iter()
        .find_map(|suffix| word.strip_suffix(suffix))
        .unwrap_or(word);
    if !(1..=2).contains(&digits.len()) || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok().filter(|day| (1..=31).contains(day))
}

/// `1st`, `2nd`, `3rd`, `4th`, `11th`, `12th`, `13th`, `21st`…
pub fn ordinal(number: i32) -> String {
    let suffix = match (number % 10, number % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{number}{suffix}")
}

impl fmt::Display for Date {
    /// The KG's canonical form: `1992-08-05`, `1992-08` or `1992`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.year < 0 {
            write!(f, "-{}", -self.year)?;
        } else {
            write!(f, "{:04}", self.year)?;
        }
        if let Some(month) = self.month {
            write!(f, "-{month:02}")?;
            if let Some(day) = self.day {
                write!(f, "-{day:02}")?;
            }
        }
        Ok(())
    }
}

fn parse_bounded(s: &str, max: u8) -> Option<u8> {
    if s.is_empty() || s.len() > 2 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let v: u8 = s.parse().ok()?;
    (1..=max).contains(&v).then_some(v)
}

/// Days in `month` (1 to 12) of `year` in the Gregorian calendar, leap years counted.
pub fn days_in_month(year: i32, month: u8) -> u8 {
    match month {
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_month_names_and_days_of_month() {
        for (word, month) in [
            ("January", 1),
            ("jan", 1),
            ("Sept.", 9),
            ("SEP", 9),
            ("dec.", 12),
        ] {
            assert_eq!(month_number(word), Some(month), "{word}");
        }
        for word in ["Ja", "Janu", "Mayday", ""] {
            assert_eq!(month_number(word), None, "{word}");
        }
        for (word, day) in [("5", 5), ("05", 5), ("5th", 5), ("23rd", 23), ("31", 31)] {
            assert_eq!(day_of_month(word), Some(day), "{word}");
        }
        for word in ["0", "32", "005", "th", "5x", "11stth", "-1"] {
            assert_eq!(day_of_month(word), None, "{word}");
        }
    }

    #[test]
    fn parses_each_precision() {
        assert_eq!(
            Date::parse("1992-08-05"),
            Some(Date {
                year: 1992,
                month: Some(8),
                day: Some(5)
            })
        );
        assert_eq!(
            Date::parse("1992-08"),
            Some(Date {
                year: 1992,
                month: Some(8),
                day: None
            })
        );
        assert_eq!(
            Date::parse("-384"),
            Some(Date {
                year: -384,
                month: None,
                day: None
            })
        );
        for bad in [
            "1992-13",
            "1992-02-30",
            "1990s",
            "",
            "abc",
            "1992-08-05-01",
            "0",
        ] {
            assert_eq!(Date::parse(bad), None, "{bad}");
        }
        assert!(Date::parse("2000-02-29").is_some());
        assert!(Date::parse("1900-02-29").is_none());
    }

    #[test]
    fn surface_forms_of_a_day() {
        let forms = Date::parse("1992-08-05").unwrap().surface_forms();
        for expected in [
            "5 August 1992",
            "August 5, 1992",
            "5 Aug 1992",
            "Aug 5, 1992",
            "August 1992",
            "1992",
            "1992-08-05",
            "5th August 1992",
            "August 5th, 1992",
            "5 August",
            "August 5",
            "Aug 5",
            "5th August",
        ] {
            assert!(
                forms.contains(&expected.to_owned()),
                "{expected} missing from {forms:?}"
            );
        }
        assert_eq!(Date::parse("-384").unwrap().surface_forms(), vec!["384 BC"]);
        let september = Date::parse("1992-09-21").unwrap().surface_forms();
        for expected in [
            "Sept 21, 1992",
            "21st September 1992",
            "Sept 1992",
            "Sept 21",
        ] {
            assert!(
                september.contains(&expected.to_owned()),
                "{expected} missing from {september:?}"
            );
        }
        let ordinals: Vec<String> = [1, 2, 3, 4, 11, 12, 13, 22, 31]
            .into_iter()
            .map(ordinal)
            .collect();
        assert_eq!(
            ordinals,
            [
                "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "22nd", "31st"
            ]
        );
        assert_eq!(
            Date::parse("1990-05").unwrap().surface_forms(),
            vec!["May 1990".to_owned(), "1990".to_owned()]
        );
    }

    #[test]
    fn display_round_trips() {
        for s in ["1992-08-05", "1992-08", "1992", "-384", "0987"] {
            assert_eq!(Date::parse(s).unwrap().to_string(), s);
        }
    }
}
