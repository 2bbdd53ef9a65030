//! Phrase-level labels: a masked KG term widened to the phrase a reader would mask. KG terms are the
//! values of facts ("Oslo", "1955"), while a person masks what the text says: "University of Oslo",
//! "Mayor of Oslo", "23 February 1955", "Anna Maria Weber". The widening reads only the text around
//! a span (casing, month names, day numbers), never the evaluation data.

use kanon_core::EntityType;
use kanon_core::text::{Token, for_each_token};
use kanon_kg::date::{day_of_month, month_number};

use crate::span::{LabeledSpan, merge_overlapping};

/// Words that head an organisation or place name after the place ("Oslo University").
const ORGANISATION_HEADS: &[&str] = &[
    "university",
    "college",
    "school",
    "institute",
    "academy",
    "conservatory",
    "hospital",
    "museum",
    "library",
    "council",
    "club",
    "fc",
    "company",
    "bank",
    "church",
    "cathedral",
    "theatre",
    "theater",
    "orchestra",
    "opera",
    "airport",
    "stadium",
    "society",
    "party",
    "court",
    "parliament",
    "assembly",
    "senate",
    "city",
    "county",
    "province",
    "state",
];

/// Capitalised words that do not belong to the name they precede.
const NOT_NAME_WORDS: &[&str] = &[
    "the",
    "a",
    "an",
    "mr",
    "mrs",
    "ms",
    "dr",
    "sir",
    "dame",
    "lord",
    "lady",
    "professor",
    "prof",
    "president",
    "king",
    "queen",
    "prince",
    "princess",
    "saint",
    "st",
    "general",
    "captain",
    "senator",
    "judge",
    "justice",
    "in",
    "on",
    "at",
    "by",
    "for",
    "from",
    "with",
    "and",
    "but",
    "when",
    "after",
    "before",
    "while",
    "his",
    "her",
    "their",
];

/// A word of the text: character offsets, folded form, and what surrounds it.
struct Word {
    start: usize,
    end: usize,
    folded: String,
    capitalised: bool,
    /// A hard break (sentence end, bracket, colon, line break) separates it from the word before.
    hard_before: bool,
    /// It opens a sentence (first word, or after `.`, `!`, `?`), so its capital says nothing.
    sentence_start: bool,
}

/// The words of a text, for widening.
struct Words {
    words: Vec<Word>,
}

impl Words {
    fn of(text: &str) -> Words {
        let chars: Vec<char> = text.chars().collect();
        let mut words: Vec<Word> = Vec::new();
        let mut hard = false;
        for_each_token(text, |token| match token {
            Token::HardBreak => hard = true,
            Token::Word {
                text: folded,
                start,
                end,
            } => {
                let before = chars[..start].iter().rev().find(|c| !c.is_whitespace());
                words.push(Word {
                    start,
                    end,
                    folded: folded.to_owned(),
                    capitalised: chars[start].is_uppercase(),
                    hard_before: hard,
                    sentence_start: before.is_none_or(|c| matches!(c, '.' | '!' | '?')),
                });
                hard = false;
            }
        });
        Words { words }
    }

    /// The word indices `first..last` (inclusive) a span covers, if it covers whole words.
    fn covered(&self, span: &LabeledSpan) -> Option<(usize, usize)> {
        let first = self.words.partition_point(|w| w.start < span.start);
        let after = self.words.partition_point(|w| w.start < span.end);
        (first < after).then(|| (first, after - 1))
    }
}

fn is_month(word: &Word) -> bool {
    month_number(&word.folded).is_some()
}

fn is_day(word: &Word) -> bool {
    day_of_month(&word.folded).is_some()
}

fn is_year(word: &Word) -> bool {
    (3..=4).contains(&word.folded.len()) && word.folded.bytes().all(|b| b.is_ascii_digit())
}

/// Widens each span to its phrase; spans that come to overlap are joined (the longer keeps its
/// term and type). `spans` are sorted and do not overlap.
pub fn widen(text: &str, spans: Vec<LabeledSpan>) -> Vec<LabeledSpan> {
    if spans.is_empty() {
        return spans;
    }
    let words = Words::of(text);
    let widened = spans
        .into_iter()
        .map(|span| {
            let Some((first, last)) = words.covered(&span) else {
                return span;
            };
            let (first, last) = match span.entity_type {
                EntityType::Datetime => widen_date(&words.words, first, last),
                EntityType::Loc | EntityType::Org => widen_organisation(&words.words, first, last),
                EntityType::Person => widen_name(&words.words, first, last),
                _ => (first, last),
            };
            LabeledSpan {
                start: span.start.min(words.words[first].start),
                end: span.end.max(words.words[last].end),
                ..span
            }
        })
        .collect();
    merge_overlapping(widened)
}

/// A date around a year, month or day: "23 February 1955", "February 23, 1955", "March 1990".
fn widen_date(words: &[Word], mut first: usize, mut last: usize) -> (usize, usize) {
    let part = |w: &Word| is_month(w) || is_day(w) || is_year(w);
    let (start, end) = (first, last);
    for _ in 0..2 {
        if first > 0 && !words[first].hard_before && part(&words[first - 1]) {
            first -= 1;
        }
        if last + 1 < words.len() && !words[last + 1].hard_before && part(&words[last + 1]) {
            last += 1;
        }
    }
    // Only a phrase with a month name is a date; "5 1990" is two numbers.
    if words[first..=last].iter().any(is_month) {
        (first, last)
    } else {
        (start, end)
    }
}

/// An organisation or title phrase around a place: "University of Oslo", "Mayor of Oslo",
/// "Oslo City Council".
fn widen_organisation(words: &[Word], mut first: usize, mut last: usize) -> (usize, usize) {
    let joins = |i: usize| !words[i].hard_before;
    if first >= 2
        && joins(first)
        && joins(first - 1)
        && words[first - 1].folded == "of"
        && words[first - 2].capitalised
        && !NOT_NAME_WORDS.contains(&words[first - 2].folded.as_str())
    {
        first -= 2;
        while first > 0
            && joins(first)
            && words[first - 1].capitalised
            && !words[first - 1].sentence_start
            && !NOT_NAME_WORDS.contains(&words[first - 1].folded.as_str())
        {
            first -= 1;
        }
    }
    while last + 1 < words.len()
        && joins(last + 1)
        && words[last + 1].capitalised
        && ORGANISATION_HEADS.contains(&words[last + 1].folded.as_str())
    {
        last += 1;
    }
    (first, last)
}

/// A name's full form: the capitalised words around a masked name or surname ("Anna Maria" before
/// "Weber"), titles and sentence-opening words aside.
fn widen_name(words: &[Word], mut first: usize, mut last: usize) -> (usize, usize) {
    let name_word =
        |w: &Word| w.capitalised && !is_month(w) && !NOT_NAME_WORDS.contains(&w.folded.as_str());
    for _ in 0..3 {
        if first > 0
            && !words[first].hard_before
            && name_word(&words[first - 1])
            && !words[first - 1].sentence_start
        {
            first -= 1;
        }
        if last + 1 < words.len()
            && !words[last + 1].hard_before
            && !words[last + 1].sentence_start
            && name_word(&words[last + 1])
        {
            last += 1;
        }
    }
    (first, last)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(text: &str, needle: &str, entity_type: EntityType) -> LabeledSpan {
        let byte = text.find(needle).unwrap();
        let start = text[..byte].chars().count();
        LabeledSpan {
            start,
            end: start + needle.chars().count(),
            label: "MASK".into(),
            entity_type,
            term: needle.to_lowercase(),
            postings: 1,
            reason: "rare".into(),
        }
    }

    fn widened(text: &str, spans: Vec<LabeledSpan>) -> Vec<String> {
        widen(text, spans)
            .iter()
            .map(|s| text.chars().skip(s.start).take(s.end - s.start).collect())
            .collect()
    }

    #[test]
    fn a_place_widens_to_its_organisation_or_title() {
        let text = "She studied at the University of Oslo and met the Mayor of Oslo.";
        let oslo = |n: usize| {
            let mut s = span(text, "Oslo", EntityType::Loc);
            let at = text.match_indices("Oslo").nth(n).unwrap().0;
            s.start = at;
            s.end = at + 4;
            s
        };
        assert_eq!(
            widened(text, vec![oslo(0), oslo(1)]),
            ["University of Oslo", "Mayor of Oslo"]
        );
        let text = "He taught at Oslo University. In Oslo he lived alone.";
        let oslo = span(text, "Oslo", EntityType::Loc);
        let spans = vec![oslo];
        assert_eq!(widened(text, spans), ["Oslo University"]);
    }

    #[test]
    fn a_year_or_month_widens_to_the_full_date() {
        let text = "She was born on 23 February 1955 and married on February 3rd, 1980.";
        let spans = vec![
            span(text, "1955", EntityType::Datetime),
            span(text, "February 3rd", EntityType::Datetime),
        ];
        assert_eq!(
            widened(text, spans),
            ["23 February 1955", "February 3rd, 1980"]
        );
        // Numbers without a month stay as they are.
        let text = "Chapter 5 1990 edition";
        assert_eq!(
            widened(text, vec![span(text, "1990", EntityType::Datetime)]),
            ["1990"]
        );
    }

    #[test]
    fn a_surname_widens_to_the_full_name_but_not_to_titles_or_sentence_openers() {
        let text = "Professor Anna Maria Weber taught. Weber retired in 1990.";
        let first = span(text, "Weber", EntityType::Person);
        let second = {
            let at = text.rfind("Weber").unwrap();
            LabeledSpan {
                start: at,
                end: at + 5,
                ..first.clone()
            }
        };
        assert_eq!(
            widened(text, vec![first, second]),
            ["Anna Maria Weber", "Weber"]
        );
    }
}
