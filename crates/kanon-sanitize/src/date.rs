//! Dates without a language model: the common written forms are parsed into a value with a
//! precision, and generalized by a ladder that starts one rung above that precision:
//! `5 August 2003` → `August 2003` → `summer 2003` → `2003` → `the early 2000s` → `the 21st century`.
//! A part of a year or a month starts at it (`the first half of 1993` → `1993`), and dates named
//! together, as a period or a list, at the finest period that holds them all (`1520 – February
//! 20, 1567` → `the 16th century`).

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
    /// The turn into a century, the 21st for `the late 20th or early 21st century`: the second
    /// half of the century before and the first half of this one (1950–2049). Above a
    /// century, so that a year whose century alone is rare (a KG of birth years knows few
    /// people born after 2000) still has a period shared by many.
    CenturyTurn(i32),
    /// A span of years written as one (`1981/82`, `1909–10`: a sports season, a financial
    /// year; `1921–1958`), `from` before `to`.
    Years {
        /// Its first year.
        from: i32,
        /// Its last year.
        to: i32,
    },
    /// A part of a year or a month (`the first quarter of 1904`, `the end of October 1997`,
    /// `early 1904`): what is true of the year or month is true of it.
    PartOf {
        /// `None` where the text names none (`the end of October`).
        year: Option<i32>,
        /// 1 for January; `None` for a part of a year.
        month: Option<u32>,
        /// Which part.
        part: Part,
    },
    /// Dates a span names together, as a period from one to another (`1520 – February 20,
    /// 1567`, `between 3 March and 4 May 1993`) or as a list (`8 June, 10 September and 15
    /// December 1998`): the first that starts and the last that ends.
    Across {
        /// The date that starts first.
        first: DatePoint,
        /// The date that ends last.
        last: DatePoint,
    },
}

/// A part of a year or a month.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// `early`.
    Early,
    /// `mid-` or `the middle of`.
    Mid,
    /// `late`.
    Late,
    /// `the beginning of` or `the start of`.
    Beginning,
    /// `the end of`.
    End,
    /// `the first half of` (1) or `the second half of` (2).
    Half(u8),
    /// `the first quarter of` (1) to `the fourth` or `last quarter of` (4).
    Quarter(u8),
}

/// One of the dates a span names together: a year, a month of a year or a day.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DatePoint {
    /// Its year.
    pub year: i32,
    /// 1 for January; `None` for a year.
    pub month: Option<u32>,
    /// Of the month, from 1; only with a month.
    pub day: Option<u32>,
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
    /// becoming `in` (only days take `on`). A period written as its two ends after `between`
    /// or `from` has `in`: its rungs are periods that hold it whole.
    pub preposition: Option<String>,
    /// The noun the date qualifies within the span (`season` in `1981/82 season`): every rung
    /// reads as one in its period (`a season in the early 1990s`).
    pub noun: Option<String>,
    /// The date as precise as it was written.
    pub value: DateValue,
    /// Whether the span leaves out the article its date needs (`first quarter of 1904`, after
    /// `in the`): only rungs with their own article (`the early 1900s`) replace the text's and
    /// read after it; `1904` would read `in the 1904`.
    pub needs_article: bool,
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

/// A year of three or four digits: in a date span, `258` is a year of the 3rd century (a
/// number of two digits may be a day, an age or a short year, and is none).
fn year(word: &str) -> Option<i32> {
    ((3..=4).contains(&word.len()) && word.bytes().all(|b| b.is_ascii_digit()))
        .then(|| word.parse().ok())
        .flatten()
        .filter(|year| (100..=2999).contains(year))
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
    // ISO 8601 writes four digits: `100-10` is no month.
    let year = year(parts.first().filter(|first| first.len() == 4)?)?;
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
    let parsed = |preposition: Option<String>, value| ParsedDate {
        preposition,
        value,
        noun: None,
        needs_article: false,
    };
    if let Some(value) = iso(rest) {
        return Some(parsed(preposition, value));
    }
    let lowered = rest.to_lowercase();
    let words = words_of(&lowered);
    // `the 1981/82 season`: the span of years qualifies a noun.
    if let [span, noun] = words.as_slice()
        && SPAN_NOUNS.contains(noun)
        && let Some(value) = years_across(span).or_else(|| year(span).map(DateValue::Year))
    {
        return Some(ParsedDate {
            noun: Some((*noun).to_owned()),
            ..parsed(preposition, value)
        });
    }
    if let Some(value) = single(&words) {
        return Some(parsed(preposition, value));
    }
    // `at the end of 1997` is `in 1997`: a period takes no `at`.
    let (at, part_text) = match lowered.strip_prefix("at ") {
        Some(part_text) => (true, part_text),
        None => (false, lowered.as_str()),
    };
    if let Some(part) = part_of(&words_of(part_text)) {
        let preposition = if at {
            Some(if rest.starts_with('A') { "In" } else { "in" }.to_owned())
        } else {
            preposition
        };
        let within = preposition.as_deref().map(str::to_lowercase);
        // `before the end of 1997` is no `before 1997`; `at the end of 1997` before the span
        // would read `at 1997`.
        let reads = match within.as_deref() {
            Some(within) => ["in", "during"].contains(&within),
            None => !part.takes_at,
        };
        if !reads {
            return None;
        }
        return Some(ParsedDate {
            needs_article: part.noun && !part_text.starts_with("the "),
            ..parsed(preposition, part.value)
        });
    }
    let from = preposition
        .as_deref()
        .is_some_and(|word| word.eq_ignore_ascii_case("from"));
    let (value, whole) = several(&lowered, from)?;
    // `Between 3 March 1991 and 4 December 1992` → `In the early 1990s`.
    let preposition = if whole {
        let first = preposition.as_deref().unwrap_or(rest);
        Some(
            if first.starts_with(char::is_uppercase) {
                "In"
            } else {
                "in"
            }
            .to_owned(),
        )
    } else {
        preposition
    };
    Some(parsed(preposition, value))
}

/// The words of a lowercased date without the fillers that every form may carry (`the 5th of
/// August`, `summer of 2003`).
fn words_of(lowered: &str) -> Vec<&str> {
    lowered
        .split(|c: char| c.is_whitespace() || c == ',')
        .map(|word| word.trim_matches(|c: char| c == '.' || c == '\''))
        .filter(|word| !word.is_empty() && *word != "the" && *word != "of")
        .collect()
}

/// One date or period, as [`words_of`] gives its words.
fn single(words: &[&str]) -> Option<DateValue> {
    match words {
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
    }
}

/// A part of a year or a month, as [`part_of`] reads it.
struct PartRead {
    value: DateValue,
    /// Whether it is a noun's (`the first quarter of`), which takes an article.
    noun: bool,
    /// Whether it is one that takes `at` (`at the end of`).
    takes_at: bool,
}

/// `the first quarter of 1904`, `end of October 1997`, `early 1904`, `mid-1904`: a part of a
/// year or a month.
fn part_of(words: &[&str]) -> Option<PartRead> {
    // `mid-1904`, `mid-November 1962`: the part and the period in one word.
    if let [first, rest @ ..] = words
        && let Some((part, period)) = first.split_once('-')
    {
        let words: Vec<&str> = [part, period]
            .into_iter()
            .chain(rest.iter().copied())
            .collect();
        return part_of(&words);
    }
    let (part, noun, rest) = match words {
        [nth, "quarter", rest @ ..] => {
            let n = match *nth {
                "first" => 1,
                "second" => 2,
                "third" => 3,
                "fourth" | "last" => 4,
                _ => return None,
            };
            (Part::Quarter(n), true, rest)
        }
        [nth, "half", rest @ ..] => {
            let n = match *nth {
                "first" => 1,
                "second" => 2,
                _ => return None,
            };
            (Part::Half(n), true, rest)
        }
        ["beginning" | "start", rest @ ..] => (Part::Beginning, true, rest),
        ["middle", rest @ ..] => (Part::Mid, true, rest),
        ["end", rest @ ..] => (Part::End, true, rest),
        ["early", rest @ ..] => (Part::Early, false, rest),
        ["mid", rest @ ..] => (Part::Mid, false, rest),
        ["late", rest @ ..] => (Part::Late, false, rest),
        _ => return None,
    };
    let (year, month) = match single(rest)? {
        DateValue::Year(year) => (Some(year), None),
        // A quarter of a month is no common way to date.
        DateValue::Month { year, month } if !matches!(part, Part::Quarter(_)) => {
            (year, Some(month))
        }
        _ => return None,
    };
    Some(PartRead {
        value: DateValue::PartOf { year, month, part },
        noun,
        takes_at: noun && matches!(part, Part::Beginning | Part::Mid | Part::End),
    })
}

/// A year, a month (of a year or not), a day (of a month, a year or neither) or, before a later
/// date that lends it the rest (`14` in `14 and 27 July 1999`), a day of the month alone.
#[derive(Debug, Clone, Copy)]
struct Partial {
    year: Option<i32>,
    month: Option<u32>,
    day: Option<u32>,
}

impl Partial {
    fn read(text: &str) -> Option<Partial> {
        let lowered = text.trim().to_lowercase();
        let words = words_of(&lowered);
        if let [word] = words.as_slice()
            && let Some(day) = day(word)
        {
            return Some(Partial {
                year: None,
                month: None,
                day: Some(day),
            });
        }
        match single(&words)? {
            DateValue::Year(year) => Some(Partial {
                year: Some(year),
                month: None,
                day: None,
            }),
            DateValue::Month { year, month } => Some(Partial {
                year,
                month: Some(month),
                day: None,
            }),
            DateValue::Day { year, month, day } => Some(Partial {
                year,
                month: Some(month),
                day: Some(day),
            }),
            _ => None,
        }
    }

    /// The date, with what it leaves out taken from `later` (`1 March` before `31 December
    /// 1998` is in 1998; `14` before `27 July 1999` is in July 1999).
    fn completed(self, later: Partial) -> Option<DatePoint> {
        let (year, month) = match (self.year, self.month, self.day) {
            (Some(year), month, _) => (year, month),
            (None, Some(month), _) => (later.year?, Some(month)),
            (None, None, Some(_)) if later.day.is_some() => (later.year?, Some(later.month?)),
            _ => return None,
        };
        Some(DatePoint {
            year,
            month,
            day: self.day.filter(|_| month.is_some()),
        })
    }
}

/// Dates a span names together (see [`DateValue::Across`]), and whether they are a period from
/// the one to the other after its `between` or `from` (read as `in` the period that holds it).
/// A pair after `to` or `and` alone is left to no rule: `from` or `between` may stand before the
/// span, before which no rung reads (`between the early 1990s`).
fn several(lowered: &str, from: bool) -> Option<(DateValue, bool)> {
    if let Some(inner) = lowered.strip_prefix("between ") {
        let (first, last) = inner.split_once(" and ")?;
        return Some((period(first, last)?, true));
    }
    let ends: &[&str] = if from {
        &[
            " to ", " until ", " till ", " – ", " — ", " - ", "–", "—", "-",
        ]
    } else {
        // `30 September/1 October 2002` reads as one date of the two.
        &[" – ", " — ", " - ", "–", "—", "/", "-"]
    };
    for separator in ends {
        if let Some((first, last)) = lowered.split_once(separator)
            && let Some(value) = period(first, last)
        {
            return Some((value, from));
        }
    }
    list(lowered).map(|value| (value, false))
}

/// A period from `first` to `last`, the one before the other; the first may leave out what the
/// last states (`1 March` to `31 December 1998`).
fn period(first: &str, last: &str) -> Option<DateValue> {
    let later = Partial::read(last)?;
    let last = later.completed(later)?;
    let first = Partial::read(first)?.completed(later)?;
    if first.start() >= last.start() {
        return None;
    }
    Some(match (first.month, last.month) {
        (None, None) => DateValue::Years {
            from: first.year,
            to: last.year,
        },
        _ => DateValue::Across { first, last },
    })
}

/// `8 June, 10 September and 15 December 1998`, `1994, 1995 and 1997`: three dates or more
/// (two may follow a `between` outside the span), the last lending the others what they leave
/// out.
fn list(lowered: &str) -> Option<DateValue> {
    let (head, last) = lowered.rsplit_once(" and ")?;
    let mut dates: Vec<Partial> = Vec::new();
    for piece in head.trim_end_matches(',').split(',') {
        let date = Partial::read(piece)?;
        // `May 5, 1990, June 6, 1991 and …`: a year after a month without one is its year.
        if let (Some(year), None) = (date.year, date.month)
            && let Some(previous) = dates.last_mut()
            && previous.year.is_none()
            && previous.month.is_some()
        {
            previous.year = Some(year);
            continue;
        }
        dates.push(date);
    }
    let later = Partial::read(last)?;
    dates.push(later);
    if dates.len() < 3 {
        return None;
    }
    let points = dates
        .into_iter()
        .map(|date| date.completed(later))
        .collect::<Option<Vec<DatePoint>>>()?;
    let first = *points.iter().min_by_key(|point| point.start())?;
    let last = *points.iter().max_by_key(|point| point.end())?;
    Some(DateValue::Across { first, last })
}

impl DatePoint {
    fn value(self) -> DateValue {
        match (self.month, self.day) {
            (Some(month), Some(day)) => DateValue::Day {
                year: Some(self.year),
                month,
                day,
            },
            (Some(month), None) => DateValue::Month {
                year: Some(self.year),
                month,
            },
            _ => DateValue::Year(self.year),
        }
    }

    /// Its first day, as (year, month, day), for order.
    fn start(self) -> (i32, u32, u32) {
        (self.year, self.month.unwrap_or(1), self.day.unwrap_or(1))
    }

    /// Its last day, as (year, month, day), for order (any month ends by the 31st).
    fn end(self) -> (i32, u32, u32) {
        (self.year, self.month.unwrap_or(12), self.day.unwrap_or(31))
    }
}

/// Nouns a year or a span of years qualifies inside a date span (`the 1981/82 season`).
const SPAN_NOUNS: &[&str] = &["season", "campaign"];

/// A span of years written as one word: `1981/82`, `1909–10`, `1975-6`, `1921–1958`; the short
/// form counts on from the first year (`1999/00` is 1999 to 2000).
fn years_across(word: &str) -> Option<DateValue> {
    let (first, second) = word.split_once(['/', '–', '-'])?;
    let from = year(first)?;
    let to = match second.len() {
        3 | 4 => year(second)?,
        // `100-10` may be a score: a short end only after four digits.
        1 | 2 if first.len() == 4 && second.bytes().all(|b| b.is_ascii_digit()) => {
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
            DateValue::Century(_) | DateValue::CenturyTurn(_) => None,
            DateValue::PartOf { year, month, .. } => match (year, month) {
                (year, Some(month)) => Some(DateValue::Month { year, month }),
                (Some(year), None) => Some(DateValue::Year(year)),
                (None, None) => None,
            },
            // The finest period that holds both ends, and so every day between them.
            DateValue::Across { first, last } => {
                let theirs = chain(last.value());
                chain(first.value()).into_iter().find(|period| {
                    // Winter holds a year's January and its December, not the months between.
                    let winter_split = matches!(
                        period,
                        DateValue::Season {
                            season: Season::Winter,
                            ..
                        }
                    ) && (first.month == Some(12)) != (last.month == Some(12));
                    theirs.contains(period) && !winter_split
                })
            }
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
            // `the 1900s` reads as a century before 2000, and `the mid-1900s` as the 1950s: the
            // middle and the end of a century's first decade are said as the years they centre
            // on (`the early 1900s` is true either way).
            DateValue::DecadePart {
                decade,
                part: part @ (DecadePart::Mid | DecadePart::Late),
            } if decade.rem_euclid(100) == 0 && decade < 2000 => {
                let centre = if part == DecadePart::Mid { 5 } else { 8 };
                format!("about {}", decade + centre)
            }
            DateValue::DecadePart { decade, part } => match part {
                DecadePart::Early => format!("the early {decade}s"),
                DecadePart::Mid => format!("the mid-{decade}s"),
                DecadePart::Late => format!("the late {decade}s"),
            },
            DateValue::Decade(decade) => format!("the {decade}s"),
            DateValue::Century(century) => format!("the {} century", ordinal(century)),
            DateValue::CenturyTurn(century) => format!(
                "the late {} or early {} century",
                ordinal(century - 1),
                ordinal(century)
            ),
            DateValue::Years { from, to } => format!("{from}–{to}"),
            DateValue::PartOf { year, month, part } => {
                let whole = match month {
                    Some(month) => DateValue::Month { year, month }.to_phrase(),
                    None => year.map(|year| year.to_string()).unwrap_or_default(),
                };
                let nth = |n: u8| match n {
                    1 => "first",
                    2 => "second",
                    3 => "third",
                    _ => "fourth",
                };
                match part {
                    Part::Early => format!("early {whole}"),
                    Part::Mid => format!("mid-{whole}"),
                    Part::Late => format!("late {whole}"),
                    Part::Beginning => format!("the beginning of {whole}"),
                    Part::End => format!("the end of {whole}"),
                    Part::Half(n) => format!("the {} half of {whole}", nth(n)),
                    Part::Quarter(n) => format!("the {} quarter of {whole}", nth(n)),
                }
            }
            DateValue::Across { first, last } => format!(
                "{} – {}",
                first.value().to_phrase(),
                last.value().to_phrase()
            ),
        }
    }
}

/// The century whose turn holds the decade starting `decade`: its own in its first half (the
/// 2000s: the 21st), the next in its second (the 1980s: the 21st too).
fn century_turn_of(decade: i32) -> i32 {
    let century = decade.div_euclid(100) + 1;
    if decade.rem_euclid(100) >= 50 {
        century + 1
    } else {
        century
    }
}

/// `value` and every period coarser than it, finest first.
fn chain(value: DateValue) -> Vec<DateValue> {
    let mut periods = vec![value];
    let mut value = value;
    while let Some(coarser) = value.coarser() {
        periods.push(coarser);
        value = coarser;
    }
    periods
}

impl ParsedDate {
    /// Up to `max` generalizations, most specific first, starting one rung above the original. When
    /// there are more rungs than `max`, the bare decade goes first and the century is kept (unless
    /// `max` is 1):
    /// `5 August 2003` gives exactly `August 2003`, `summer 2003`, `2003`, `the early 2000s`,
    /// `the 21st century`. A ladder through a decade that has room left ends one rung above its
    /// century, at the turn of centuries (`2003` → … → `the late 20th or early 21st century`).
    pub fn ladder(&self, max: usize) -> Vec<String> {
        let mut rungs = Vec::new();
        let mut value = self.value;
        while let Some(coarser) = value.coarser() {
            rungs.push(coarser);
            value = coarser;
        }
        if self.needs_article {
            rungs.retain(|rung| {
                matches!(
                    rung,
                    DateValue::DecadePart { .. } | DateValue::Decade(_) | DateValue::Century(_)
                )
            });
        }
        let turn = std::iter::once(self.value)
            .chain(rungs.iter().copied())
            .find_map(|rung| match rung {
                DateValue::Decade(decade) => Some(decade),
                _ => None,
            })
            .map(century_turn_of)
            .filter(|&century| century >= 2);
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
        // Only where there is room: the turn says less than every rung before it.
        if let Some(century) = turn
            && rungs.len() < max
        {
            rungs.push(DateValue::CenturyTurn(century));
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn ladder(text: &str) -> Vec<String> {
        parse_date(text)
            .map(|date| date.ladder(5))
            .unwrap_or_default()
    }

    #[test]
    fn a_century_turn_holds_the_halves_either_side_of_it() {
        // The 2000s and the 1980s share a turn; the 1940s belong to the one before.
        for (text, turn) in [
            ("2003", "the late 20th or early 21st century"),
            ("1985", "the late 20th or early 21st century"),
            ("1949", "the late 19th or early 20th century"),
            ("the 1950s", "the late 20th or early 21st century"),
        ] {
            assert_eq!(
                ladder(text).last().map(String::as_str),
                Some(turn),
                "{text}"
            );
        }
        // Only where there is room below the limit: a day's five rungs keep their century.
        assert_eq!(
            ladder("5 August 2003"),
            [
                "August 2003",
                "summer 2003",
                "2003",
                "the early 2000s",
                "the 21st century"
            ]
        );
        // A century alone says nothing of its half; nor does a span across decades.
        assert_eq!(ladder("the 19th century"), Vec::<String>::new());
        assert_eq!(ladder("1612 – March 3, 1688"), ["the 17th century"]);
    }

    #[test]
    fn the_middle_and_end_of_a_centurys_first_decade_are_years_not_a_misread_century() {
        // `the mid-1900s` would read as the 1950s; `the early 1900s` is true either way.
        assert_eq!(
            ladder("1905"),
            [
                "about 1905",
                "the 1900s",
                "the 20th century",
                "the late 19th or early 20th century"
            ]
        );
        assert_eq!(ladder("1808")[0], "about 1808");
        assert_eq!(ladder("1902")[0], "the early 1900s");
        // The 2000s are read as a decade.
        assert_eq!(ladder("2005")[0], "the mid-2000s");
        assert_eq!(ladder("1955")[0], "the mid-1950s");
    }

    #[test]
    fn a_year_of_three_digits_climbs_to_its_century() {
        assert_eq!(
            ladder("345"),
            [
                "the mid-340s",
                "the 340s",
                "the 4th century",
                "the late 3rd or early 4th century"
            ]
        );
        assert_eq!(
            ladder("May 612"),
            [
                "spring 612",
                "612",
                "the early 610s",
                "the 610s",
                "the 7th century"
            ]
        );
        assert_eq!(ladder("3 June 612")[0], "June 612");
        assert_eq!(
            ladder("251–259"),
            [
                "the 250s",
                "the 3rd century",
                "the late 3rd or early 4th century"
            ]
        );
        // Two digits may be a day, an age or a short year; ISO 8601 writes four.
        for text in ["47", "100-10", "100-10-10", "1234567"] {
            assert_eq!(parse_date(text), None, "{text}");
        }
    }

    #[test]
    fn a_part_of_a_year_or_month_climbs_from_it() {
        // With its article, the year itself reads in the span's place.
        assert_eq!(
            ladder("the second half of 1878"),
            [
                "1878",
                "the late 1870s",
                "the 1870s",
                "the 19th century",
                "the late 19th or early 20th century"
            ]
        );
        assert_eq!(
            ladder("in the last quarter of 2011"),
            [
                "in 2011",
                "in the early 2010s",
                "in the 2010s",
                "in the 21st century",
                "in the late 20th or early 21st century"
            ]
        );
        // Without it, the text's `the` stands before the span: only rungs with their own.
        assert_eq!(
            ladder("second half of 1878"),
            [
                "the late 1870s",
                "the 1870s",
                "the 19th century",
                "the late 19th or early 20th century"
            ]
        );
        assert_eq!(ladder("first quarter of May 1962"), Vec::<String>::new());
        assert_eq!(
            ladder("first half of March 1962"),
            [
                "the early 1960s",
                "the 1960s",
                "the 20th century",
                "the late 20th or early 21st century"
            ]
        );
        assert_eq!(ladder("first half of May"), Vec::<String>::new());
        // `at the end of 1962` is `in 1962`; without its `at`, the span would leave it before
        // the rung (`at the early 1960s`), and another preposition may not hold (`before the
        // end of 1962` is no `before 1962`).
        assert_eq!(
            ladder("At the end of March 1962")[..2],
            ["In March 1962", "In spring 1962"]
        );
        assert_eq!(ladder("in the middle of 1962")[0], "in 1962");
        for text in [
            "end of March 1962",
            "the beginning of 1962",
            "before the end of 1962",
            "by the first half of 1962",
        ] {
            assert_eq!(parse_date(text), None, "{text}");
        }
        // An adjective needs no article.
        assert_eq!(ladder("late 1962")[0], "1962");
        assert_eq!(
            ladder("mid-November 1962")[..2],
            ["November 1962", "autumn 1962"]
        );
        assert_eq!(ladder("early October")[0], "October");
        assert_eq!(parse_date("third quarter of March 1990"), None);
        assert_eq!(parse_date("fifth half of 1990"), None);
    }

    #[test]
    fn a_period_between_two_dates_climbs_from_what_holds_both() {
        // Decades apart: only the century holds both ends.
        assert_eq!(ladder("1612 – March 3, 1688"), ["the 17th century"]);
        assert_eq!(
            ladder("1903 – May 1, 1909"),
            [
                "the 1900s",
                "the 20th century",
                "the late 19th or early 20th century"
            ]
        );
        assert_eq!(
            ladder("Between 2 May 1971 and 9 June 1972"),
            [
                "In the early 1970s",
                "In the 1970s",
                "In the 20th century",
                "In the late 20th or early 21st century"
            ]
        );
        assert_eq!(
            ladder("from 4 to 19 June 1955"),
            [
                "in June 1955",
                "in summer 1955",
                "in 1955",
                "in the mid-1950s",
                "in the 20th century"
            ]
        );
        assert_eq!(
            ladder("between 333 and 339"),
            [
                "in the 330s",
                "in the 4th century",
                "in the late 3rd or early 4th century"
            ]
        );
        assert_eq!(ladder("6-8 April 1955")[0], "April 1955");
        assert_eq!(
            ladder("31 December 1977/1 January 1978"),
            [
                "the late 1970s",
                "the 1970s",
                "the 20th century",
                "the late 20th or early 21st century"
            ]
        );
        // January and December share a winter's name, not the months between them.
        assert_eq!(
            ladder("between 10 January and 5 December 1983")[0],
            "in 1983"
        );
        for text in [
            // After a `from` or `between` outside the span, no rung would read.
            "2 and 9 June 1955",
            "3 to 9 June 1955",
            // Backwards, or with no year to lend.
            "between 1990 and 1985",
            "from 9 June to 2 May 1955",
            "between 5 and 9",
            "between 4 March and 5 May",
        ] {
            assert_eq!(ladder(text), Vec::<String>::new(), "{text}");
        }
    }

    #[test]
    fn a_list_of_dates_climbs_from_what_holds_them_all() {
        assert_eq!(
            ladder("4 March, 9 July and 2 November 1966"),
            [
                "1966",
                "the mid-1960s",
                "the 1960s",
                "the 20th century",
                "the late 20th or early 21st century"
            ]
        );
        assert_eq!(ladder("on 3, 5 and 30 April 1966")[0], "in April 1966");
        assert_eq!(
            ladder("1971, 1973 and 1978"),
            [
                "the 1970s",
                "the 20th century",
                "the late 20th or early 21st century"
            ]
        );
        // The year after an American date's comma is its own.
        assert_eq!(
            ladder("May 5, 1981, June 6, 1982, and July 7, 1983")[0],
            "the early 1980s"
        );
        assert_eq!(parse_date("3 March, on 4 May and 5 June 1966"), None);
    }

    #[test]
    fn odd_text_parses_to_nothing() {
        for text in [
            "between",
            "between and",
            "Between  and 1990",
            "–",
            "-",
            "/",
            "from to",
            "from 1990 to",
            ", and ",
            ", , and 1990",
            "at ",
            "mid-",
            "a-b-c",
            "first quarter of",
            "end of the",
            "1990 – – 1995",
            "31 – 1 – 1990",
        ] {
            assert_eq!(ladder(text), Vec::<String>::new(), "{text}");
        }
    }
}
