//! Dates without a language model: the common written forms are parsed into a value with a
//! precision, and generalized by a ladder that starts one rung above that precision:
//! `5 August 2003` → `August 2003` → `summer 2003` → `2003` → `the early 2000s` → `the 21st century`.

use std::fmt::Write as _;

use kanon_kg::date::{MONTHS, ordinal};

/// A date or period as precise as it was written. Years are optional where English allows leaving
/// them out (`5 August`, `August`, `summer`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DateValue {
    /// `5 August 2003`; `month` 1–12, `day` 1–31.
    Day {
        /// `None` where the text names none (`5 August`).
        year: Option<i32>,
        /// 1 for January.
        month: u32,
        /// Of the month, from 1.
        day: u32,
    },
    /// `August 2003`.
    Month {
        /// `None` where the text names none (`August`).
        year: Option<i32>,
        /// 1 for January.
        month: u32,
    },
    /// `summer 2003`.
    Season {
        /// `None` where the text names none (`summer`).
        year: Option<i32>,
        /// Which season.
        season: Season,
    },
    /// `2003`.
    Year(i32),
    /// The early (…0–3), mid (…4–6) or late (…7–9) part of a decade; `decade` is its first year.
    DecadePart {
        /// Its first year: 1990 for the 1990s.
        decade: i32,
        /// Which part.
        part: DecadePart,
    },
    /// `decade` is its first year: 1990 for the 1990s.
    Decade(i32),
    /// 21 for the 21st century.
    Century(i32),
    /// A span of years written as one (`1981/82`, `1909–10`: a sports season, a financial
    /// year; `1921–1958`), `from` before `to`.
    Years {
        /// Its first year.
        from: i32,
        /// Its last year.
        to: i32,
    },
}

/// A season of a year (`summer 2003`); a month falls in its northern-hemisphere season
/// (March–May spring, December–February winter).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Season {
    /// `winter`.
    Winter,
    /// `spring`.
    Spring,
    /// `summer`.
    Summer,
    /// `autumn` or `fall`.
    Autumn,
}

/// A third of a decade.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecadePart {
    /// Years …0–3.
    Early,
    /// Years …4–6.
    Mid,
    /// Years …7–9.
    Late,
}

/// A parsed date span: its value and the preposition it was written with (`on 5 August 2003`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedDate {
    /// The preposition before the date (`on`), as written; kept in front of every rung, `on`
    /// becoming `in` (only days take `on`).
    pub preposition: Option<String>,
    /// The noun the date qualifies within the span (`season` in `1981/82 season`): every rung
    /// reads as one in its period (`a season in the early 1990s`).
    pub noun: Option<String>,
    /// The date as precise as it was written.
    pub value: DateValue,
}

/// Prepositions a date span may start with; they are kept in front of its generalizations.
const PREPOSITIONS: &[&str] = &[
    "in", "on", "since", "from", "until", "till", "by", "during", "before", "after", "around",
];

const ORDINAL_WORDS: &[(&str, i32)] = &[
    ("first", 1),
    ("tenth", 10),
    ("eleventh", 11),
    ("twelfth", 12),
    ("thirteenth", 13),
    ("fourteenth", 14),
    ("fifteenth", 15),
    ("sixteenth", 16),
    ("seventeenth", 17),
    ("eighteenth", 18),
    ("nineteenth", 19),
    ("twentieth", 20),
];

fn month_number(word: &str) -> Option<u32> {
    kanon_kg::date::month_number(word).map(u32::from)
}

fn season_of(word: &str) -> Option<Season> {
    match word {
        "winter" => Some(Season::Winter),
        "spring" => Some(Season::Spring),
        "summer" => Some(Season::Summer),
        "autumn" | "fall" => Some(Season::Autumn),
        _ => None,
    }
}

fn season_of_month(month: u32) -> Season {
    match month {
        3..=5 => Season::Spring,
        6..=8 => Season::Summer,
        9..=11 => Season::Autumn,
        _ => Season::Winter,
    }
}

fn year(word: &str) -> Option<i32> {
    (word.len() == 4 && word.bytes().all(|b| b.is_ascii_digit()))
        .then(|| word.parse().ok())
        .flatten()
        .filter(|year| (1000..=2999).contains(year))
}

fn day(word: &str) -> Option<u32> {
    kanon_kg::date::day_of_month(word).map(u32::from)
}

/// `1990s` → 1990.
fn decade(word: &str) -> Option<i32> {
    let year = year(word.strip_suffix('s')?)?;
    (year % 10 == 0).then_some(year)
}

/// `19th` or `nineteenth` → 19.
fn century_ordinal(word: &str) -> Option<i32> {
    if let Some((_, number)) = ORDINAL_WORDS.iter().find(|(name, _)| *name == word) {
        return Some(*number);
    }
    if let Some(rest) = word.strip_prefix("twenty") {
        return match rest.trim_start_matches('-') {
            "first" => Some(21),
            "second" => Some(22),
            _ => None,
        };
    }
    let digits = word.get(..word.len().checked_sub(2)?)?;
    let suffix = word.get(word.len() - 2..)?;
    let number: i32 = digits.parse().ok()?;
    (["st", "nd", "rd", "th"].contains(&suffix) && (1..=30).contains(&number)).then_some(number)
}

fn iso(text: &str) -> Option<DateValue> {
    let parts: Vec<&str> = text.split('-').collect();
    let year = year(parts.first()?)?;
    let two = |part: &&str| {
        (part.len() == 2)
            .then(|| part.parse::<u32>().ok())
            .flatten()
    };
    match parts.len() {
        2 => {
            let month = two(&parts[1]).filter(|m| (1..=12).contains(m))?;
            Some(DateValue::Month {
                year: Some(year),
                month,
            })
        }
        3 => {
            let month = two(&parts[1]).filter(|m| (1..=12).contains(m))?;
            let day = two(&parts[2]).filter(|d| (1..=31).contains(d))?;
            Some(DateValue::Day {
                year: Some(year),
                month,
                day,
            })
        }
        _ => None,
    }
}

/// Parses the common English forms of dates and periods; `None` when no rule applies.
pub fn parse_date(text: &str) -> Option<ParsedDate> {
    let trimmed = text.trim().trim_end_matches(['.', ',']);
    let (preposition, rest) = match trimmed.split_once(char::is_whitespace) {
        Some((first, rest)) if PREPOSITIONS.contains(&first.to_lowercase().as_str()) => {
            (Some(first.to_owned()), rest.trim())
        }
        _ => (None, trimmed),
    };
    if let Some(value) = iso(rest) {
        return Some(ParsedDate {
            preposition,
            value,
            noun: None,
        });
    }
    let lowered = rest.to_lowercase();
    // Words without the fillers that every form may carry ("the 5th of August", "summer of 2003").
    let words: Vec<&str> = lowered
        .split(|c: char| c.is_whitespace() || c == ',')
        .map(|word| word.trim_matches(|c: char| c == '.' || c == '\''))
        .filter(|word| !word.is_empty() && *word != "the" && *word != "of")
        .collect();
    // `the 1981/82 season`: the span of years qualifies a noun.
    if let [span, noun] = words.as_slice()
        && SPAN_NOUNS.contains(noun)
        && let Some(value) = years_across(span).or_else(|| year(span).map(DateValue::Year))
    {
        return Some(ParsedDate {
            preposition,
            value,
            noun: Some((*noun).to_owned()),
        });
    }
    let value = match words.as_slice() {
        [d, m, y] => match (day(d), month_number(m), year(y)) {
            (Some(day), Some(month), Some(year)) => Some(DateValue::Day {
                year: Some(year),
                month,
                day,
            }),
            _ => match (month_number(d), day(m), year(y)) {
                (Some(month), Some(day), Some(year)) => Some(DateValue::Day {
                    year: Some(year),
                    month,
                    day,
                }),
                _ => None,
            },
        },
        [a, b] => {
            if let (Some(day), Some(month)) = (day(a), month_number(b)) {
                Some(DateValue::Day {
                    year: None,
                    month,
                    day,
                })
            } else if let (Some(month), Some(day)) = (month_number(a), day(b)) {
                Some(DateValue::Day {
                    year: None,
                    month,
                    day,
                })
            } else if let (Some(month), Some(year)) = (month_number(a), year(b)) {
                Some(DateValue::Month {
                    year: Some(year),
                    month,
                })
            } else if let (Some(season), Some(year)) = (season_of(a), year(b)) {
                Some(DateValue::Season {
                    year: Some(year),
                    season,
                })
            } else if let (Some(century), true) = (century_ordinal(a), *b == "century") {
                Some(DateValue::Century(century))
            } else {
                decade_part(a, b)
            }
        }
        [single] => {
            if let Some(year) = year(single) {
                Some(DateValue::Year(year))
            } else if let Some(years) = years_across(single) {
                Some(years)
            } else if let Some(decade) = decade(single) {
                Some(DateValue::Decade(decade))
            } else if let Some(month) = month_number(single) {
                Some(DateValue::Month { year: None, month })
            } else if let Some(season) = season_of(single) {
                Some(DateValue::Season { year: None, season })
            } else {
                // `mid-1990s` is one word to the splitter above.
                single
                    .split_once('-')
                    .and_then(|(part, decade)| decade_part(part, decade))
            }
        }
        _ => None,
    }?;
    Some(ParsedDate {
        preposition,
        value,
        noun: None,
    })
}

/// Nouns a year or a span of years qualifies inside a date span (`the 1981/82 season`).
const SPAN_NOUNS: &[&str] = &["season", "campaign"];

/// A span of years written as one word: `1981/82`, `1909–10`, `1975-6`, `1921–1958`; the short
/// form counts on from the first year (`1999/00` is 1999 to 2000).
fn years_across(word: &str) -> Option<DateValue> {
    let (first, second) = word.split_once(['/', '–', '-'])?;
    let from = year(first)?;
    let to = match second.len() {
        4 => year(second)?,
        1 | 2 if second.bytes().all(|b| b.is_ascii_digit()) => {
            let modulus = 10_i32.pow(second.len() as u32);
            let mut to = from - from.rem_euclid(modulus) + second.parse::<i32>().ok()?;
            if to <= from {
                to += modulus;
            }
            to
        }
        _ => return None,
    };
    (to > from).then_some(DateValue::Years { from, to })
}

fn decade_part(part: &str, decade_word: &str) -> Option<DateValue> {
    let part = match part {
        "early" => DecadePart::Early,
        "mid" => DecadePart::Mid,
        "late" => DecadePart::Late,
        _ => return None,
    };
    Some(DateValue::DecadePart {
        decade: decade(decade_word)?,
        part,
    })
}

impl DateValue {
    /// The value one level coarser, or `None` at the top (or where the year is unknown).
    pub fn coarser(&self) -> Option<DateValue> {
        let decade_of = |year: i32| year - year.rem_euclid(10);
        match *self {
            DateValue::Day { year, month, .. } => Some(DateValue::Month { year, month }),
            DateValue::Month { year, month } => Some(DateValue::Season {
                year,
                season: season_of_month(month),
            }),
            DateValue::Season { year, .. } => year.map(DateValue::Year),
            DateValue::Year(year) => Some(DateValue::DecadePart {
                decade: decade_of(year),
                part: match year.rem_euclid(10) {
                    0..=3 => DecadePart::Early,
                    4..=6 => DecadePart::Mid,
                    _ => DecadePart::Late,
                },
            }),
            DateValue::DecadePart { decade, .. } => Some(DateValue::Decade(decade)),
            // Common usage: the 2000s belong to the 21st century, like 2000 itself.
            DateValue::Decade(decade) => Some(DateValue::Century(decade.div_euclid(100) + 1)),
            DateValue::Century(_) => None,
            // The finest period that holds both ends.
            DateValue::Years { from, to } => {
                let (mut first, mut last) = (
                    DateValue::Year(from).coarser()?,
                    DateValue::Year(to).coarser()?,
                );
                while first != last {
                    first = first.coarser()?;
                    last = last.coarser()?;
                }
                Some(first)
            }
        }
    }

    /// The value as English (without a preposition).
    pub fn to_phrase(&self) -> String {
        let with_year = |mut phrase: String, year: Option<i32>| {
            if let Some(year) = year {
                let _ = write!(phrase, " {year}");
            }
            phrase
        };
        match *self {
            DateValue::Day { year, month, day } => with_year(
                format!("{day} {}", MONTHS[(month as usize).saturating_sub(1) % 12]),
                year,
            ),
            DateValue::Month { year, month } => with_year(
                MONTHS[(month as usize).saturating_sub(1) % 12].to_owned(),
                year,
            ),
            DateValue::Season { year, season } => with_year(
                match season {
                    Season::Winter => "winter",
                    Season::Spring => "spring",
                    Season::Summer => "summer",
                    Season::Autumn => "autumn",
                }
                .to_owned(),
                year,
            ),
            DateValue::Year(year) => year.to_string(),
            DateValue::DecadePart { decade, part } => match part {
                DecadePart::Early => format!("the early {decade}s"),
                DecadePart::Mid => format!("the mid-{decade}s"),
                DecadePart::Late => format!("the late {decade}s"),
            },
            DateValue::Decade(decade) => format!("the {decade}s"),
            DateValue::Century(century) => format!("the {} century", ordinal(century)),
            DateValue::Years { from, to } => format!("{from}–{to}"),
        }
    }
}

impl ParsedDate {
    /// Up to `max` generalizations, most specific first, starting one rung above the original. When
    /// there are more rungs than `max`, the bare decade goes first and the century is kept (unless
    /// `max` is 1):
    /// `5 August 2003` gives exactly `August 2003`, `summer 2003`, `2003`, `the early 2000s`,
    /// `the 21st century`.
    pub fn ladder(&self, max: usize) -> Vec<String> {
        let mut rungs = Vec::new();
        let mut value = self.value;
        while let Some(coarser) = value.coarser() {
            rungs.push(coarser);
            value = coarser;
        }
        if rungs.len() > max
            && let Some(index) = rungs
                .iter()
                .position(|rung| matches!(rung, DateValue::Decade(_)))
        {
            rungs.remove(index);
        }
        while rungs.len() > max && rungs.len() > 2 {
            // Keep the coarsest rung (the century): drop from just below it.
            rungs.remove(rungs.len() - 2);
        }
        rungs.truncate(max);
        // `the 1981/82 season` → `a season in the early 1980s`.
        let with_noun = |phrase: String| match &self.noun {
            Some(noun) => format!("a {noun} in {phrase}"),
            None => phrase,
        };
        rungs
            .iter()
            .map(|rung| with_noun(rung.to_phrase()))
            .map(|rung| match &self.preposition {
                // `on 5 August 2003` → `in August 2003`: only days take `on`.
                Some(preposition) if preposition.eq_ignore_ascii_case("on") => {
                    let in_ = if preposition.starts_with('O') {
                        "In"
                    } else {
                        "in"
                    };
                    format!("{in_} {rung}")
                }
                Some(preposition) => format!("{preposition} {rung}"),
                None => rung,
            })
            .collect()
    }
}

/// Whether two date phrases denote the same value, when both parse.
pub fn same_date(a: &str, b: &str) -> Option<bool> {
    Some(parse_date(a)?.value == parse_date(b)?.value)
}
