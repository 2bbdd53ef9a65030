//! The one text normalisation shared by the index (terms) and the gazetteer (documents), so that a
//! term matches exactly where the same words are written in a text.
//!
//! Rules:
//! - characters are lower-cased and folded to their base letters (NFKD without combining marks, plus
//!   `ß→ss`, `æ→ae`, `ø→o`, `ł→l`, …), so `Zürich`, `ZURICH` and `zurich` are one word;
//! - a *word* is a run of alphanumeric characters; everything else separates words;
//! - separators are *soft* (whitespace other than line breaks, `,`, `-`, `'`, `’`, and `.` after a
//!   word of at most three letters: initials, `St.`, `Aug.`) or *hard* (everything else: sentence
//!   ends, brackets, quotes, colons, line breaks). A term may span soft separators, never hard ones:
//!   `L. Albano` matches `l albano`, `August 5, 1992` matches `august 5 1992`, but `Paris. Texas` does
//!   not match `paris texas`.

use unicode_normalization::char::{decompose_compatible, is_combining_mark};

/// Marker for a hard break in a normalised text; never part of a normalised term.
pub const HARD_BREAK: u8 = 0x01;

/// Appends the folded form of `c` (lower-case, no diacritics) to `out`.
#[inline]
pub fn fold_char(c: char, out: &mut String) {
    if c.is_ascii() {
        out.push(c.to_ascii_lowercase());
        return;
    }
    decompose_compatible(c, |d| {
        for lower in d.to_lowercase() {
            match lower {
                'ß' => out.push_str("ss"),
                'æ' => out.push_str("ae"),
                'œ' => out.push_str("oe"),
                'ø' => out.push('o'),
                'ł' => out.push('l'),
                'đ' | 'ð' => out.push('d'),
                'þ' => out.push_str("th"),
                'ı' => out.push('i'),
                l if l.is_alphanumeric() && !is_combining_mark(l) => out.push(l),
                _ => {}
            }
        }
    });
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Gap {
    None,
    Soft,
    Hard,
}

fn is_soft_separator(c: char) -> bool {
    matches!(c, ' ' | '\t' | ',' | '-' | '\'' | '’' | '‘' | '\u{a0}' | '\u{2010}' | '\u{2011}')
}

/// A word of at most three letters may be followed by an abbreviation point without ending the phrase.
fn allows_abbreviation_point(word: &str) -> bool {
    let mut letters = 0;
    for c in word.chars() {
        if !c.is_alphabetic() {
            return false;
        }
        letters += 1;
    }
    letters <= 3
}

/// Walks `text`, calling `on_word(folded_word, char_start, char_end, gap_before)` for every word.
fn for_each_word(text: &str, mut on_word: impl FnMut(&str, usize, usize, Gap)) {
    let mut word = String::new();
    let mut word_start = 0usize;
    let mut in_word = false;
    // The separator seen since the last word (None before the first one).
    let mut gap = Gap::None;
    // Whether the last word ended at the previous character and may take an abbreviation point.
    let mut abbreviation_point_allowed = false;
    let mut char_count = 0usize;
    for (char_index, c) in text.chars().enumerate() {
        char_count = char_index + 1;
        if c.is_alphanumeric() {
            if !in_word {
                in_word = true;
                word_start = char_index;
                word.clear();
            }
            fold_char(c, &mut word);
            continue;
        }
        if is_combining_mark(c) {
            // A diacritic: folded away, inside a word or not.
            continue;
        }
        let mut after_word = false;
        if in_word {
            in_word = false;
            // A "word" of marks that all fold away is no word.
            if !word.is_empty() {
                on_word(&word, word_start, char_index, gap);
                gap = Gap::None;
                after_word = true;
                abbreviation_point_allowed = allows_abbreviation_point(&word);
            }
        }
        let this_gap = if is_soft_separator(c) || (c == '.' && after_word && abbreviation_point_allowed) {
            Gap::Soft
        } else {
            Gap::Hard
        };
        if gap != Gap::Hard {
            gap = this_gap;
        }
    }
    if in_word && !word.is_empty() {
        on_word(&word, word_start, char_count, gap);
    }
}

/// Normalises a term (a name, a date form, a place…): its words, folded, joined by single spaces.
/// Returns `None` when the term has no word at all. A hard break inside the term is kept as
/// [`HARD_BREAK`] so that the term still matches the same text exactly.
pub fn normalize_term(term: &str) -> Option<String> {
    let mut out = String::with_capacity(term.len());
    for_each_word(term, |word, _, _, gap| {
        if !out.is_empty() {
            if gap == Gap::Hard {
                out.push(' ');
                out.push(HARD_BREAK as char);
            }
            out.push(' ');
        }
        out.push_str(word);
    });
    if out.is_empty() { None } else { Some(out) }
}

/// The words of a text, folded: what whitelists and name heuristics compare against.
pub fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_word(text, |word, _, _, _| out.push(word.to_owned()));
    out
}

/// A text normalised for matching: `" w1 w2 \x01 w3 "` — every word with a space on each side, a
/// [`HARD_BREAK`] between words that a term may not span — plus the map back to character offsets.
#[derive(Debug, Default, Clone)]
pub struct NormalizedText {
    bytes: Vec<u8>,
    /// For every normalised byte that starts a word: the character offset where that word starts.
    word_start_char: Vec<u32>,
    /// For every normalised byte that ends a word (exclusive): the character offset where it ends.
    word_end_char: Vec<u32>,
}

impl NormalizedText {
    pub fn new(text: &str) -> Self {
        let mut normalized = NormalizedText::default();
        normalized.reset(text);
        normalized
    }

    /// Re-normalises into the same buffers (no allocation on the hot path once they are big enough).
    pub fn reset(&mut self, text: &str) {
        self.bytes.clear();
        self.word_start_char.clear();
        self.word_end_char.clear();
        self.bytes.push(b' ');
        let bytes = &mut self.bytes;
        let starts = &mut self.word_start_char;
        let ends = &mut self.word_end_char;
        starts.push(u32::MAX);
        ends.push(u32::MAX);
        let mut first = true;
        for_each_word(text, |word, start, end, gap| {
            if gap == Gap::Hard && !first {
                bytes.push(HARD_BREAK);
                bytes.push(b' ');
                starts.extend([u32::MAX, u32::MAX]);
                ends.extend([u32::MAX, u32::MAX]);
            }
            first = false;
            let word_pos = bytes.len();
            bytes.extend_from_slice(word.as_bytes());
            bytes.push(b' ');
            starts.resize(bytes.len(), u32::MAX);
            ends.resize(bytes.len(), u32::MAX);
            starts[word_pos] = start as u32;
            ends[word_pos + word.len()] = end as u32;
        });
        // Position one past the final space, so a match ending there can be looked up.
        starts.push(u32::MAX);
        ends.push(u32::MAX);
    }

    /// The normalised bytes, starting and ending with a space.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Maps a match of `" term "` at normalised bytes `[start, end)` back to character offsets.
    /// Returns `None` unless the match starts and ends on word boundaries.
    pub fn char_span(&self, start: usize, end: usize) -> Option<(usize, usize)> {
        if start >= end || end > self.bytes.len() {
            return None;
        }
        let first = *self.word_start_char.get(start + 1)?;
        let last = *self.word_end_char.get(end - 1)?;
        if first == u32::MAX || last == u32::MAX {
            return None;
        }
        Some((first as usize, last as usize))
    }
}

/// The byte pattern that finds a normalised term in a [`NormalizedText`]: `" term "`.
pub fn term_pattern(normalized_term: &str) -> Vec<u8> {
    let mut pattern = Vec::with_capacity(normalized_term.len() + 2);
    pattern.push(b' ');
    pattern.extend_from_slice(normalized_term.as_bytes());
    pattern.push(b' ');
    pattern
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(s: &str) -> Option<String> {
        normalize_term(s)
    }

    #[test]
    fn folds_case_and_diacritics() {
        assert_eq!(norm("ZÜRICH").as_deref(), Some("zurich"));
        assert_eq!(norm("Straße").as_deref(), Some("strasse"));
        assert_eq!(norm("Ærø Łódź").as_deref(), Some("aero lodz"));
        assert_eq!(norm("Cafe\u{301}").as_deref(), Some("cafe"));
        assert_eq!(norm("İstanbul").as_deref(), Some("istanbul"));
    }

    #[test]
    fn soft_and_hard_separators() {
        assert_eq!(norm("L. Albano").as_deref(), Some("l albano"));
        assert_eq!(norm("St. Louis").as_deref(), Some("st louis"));
        assert_eq!(norm("5 Aug. 1992").as_deref(), Some("5 aug 1992"));
        assert_eq!(norm("Jean-Paul O’Neil").as_deref(), Some("jean paul o neil"));
        assert_eq!(norm("Paris. Texas").as_deref(), Some("paris \u{1} texas"));
        assert_eq!(norm("born 1990. He").as_deref(), Some("born 1990 \u{1} he"));
        assert_eq!(norm("a (b)").as_deref(), Some("a \u{1} b"));
        assert_eq!(norm(" ,.- "), None);
    }

    #[test]
    fn normalized_text_maps_back_to_char_offsets() {
        let text = "Zoë Ølund, born in Zürich.";
        let n = NormalizedText::new(text);
        assert_eq!(n.as_bytes(), b" zoe olund born in zurich ");
        let hay = n.as_bytes();
        let find = |pat: &str| {
            let p = term_pattern(pat);
            let pos = hay.windows(p.len()).position(|w| w == p.as_slice()).unwrap();
            n.char_span(pos, pos + p.len()).unwrap()
        };
        assert_eq!(find("zoe olund"), (0, 9));
        assert_eq!(find("zurich"), (19, 25));
    }

    #[test]
    fn hard_breaks_are_marked_in_texts() {
        let n = NormalizedText::new("Paris. Texas");
        assert_eq!(n.as_bytes(), b" paris \x01 texas ");
    }

    #[test]
    fn char_span_rejects_non_boundaries() {
        let n = NormalizedText::new("anna");
        assert_eq!(n.char_span(1, 3), None);
        assert_eq!(n.char_span(0, 6), Some((0, 4)));
    }

    proptest::proptest! {
        #[test]
        fn normalizing_a_term_is_idempotent(s in "\\PC{0,40}") {
            if let Some(n) = normalize_term(&s) {
                let again = normalize_term(&n.replace('\u{1}', "|"));
                proptest::prop_assert_eq!(again, Some(n));
            }
        }

        #[test]
        fn every_term_is_found_in_its_own_text(s in "[a-zA-Zà-ÿ .,'-]{1,30}") {
            if let Some(term) = normalize_term(&s) {
                let n = NormalizedText::new(&s);
                let p = term_pattern(&term);
                let hay = n.as_bytes();
                let pos = hay.windows(p.len()).position(|w| w == p.as_slice());
                proptest::prop_assert!(pos.is_some(), "{:?} not in {:?}", term, String::from_utf8_lossy(hay));
                let (start, end) = n.char_span(pos.unwrap(), pos.unwrap() + p.len()).unwrap();
                proptest::prop_assert!(start < end && end <= s.chars().count());
            }
        }
    }
}
