//! The one text normalisation shared by the index (terms) and the gazetteer (documents), so that a
//! term matches exactly where the same words are written in a text.
//!
//! Rules:
//! - characters are lower-cased and folded to their base letters (NFKD without combining marks, plus
//!   `ß→ss`, `æ→ae`, `ø→o`, `ł→l`, …), so `Zürich`, `ZURICH` and `zurich` are one word;
//! - a *word* is a run of alphanumeric characters; everything else separates words;
//! - separators are *soft* (whitespace other than line breaks, `,`, `-`, `'`, `’`, and `.` after a
//!   word of at most three letters or `Sept`: initials, `St.`, `Aug.`, `Sept.`) or *hard* (everything
//!   else: sentence ends, brackets, quotes, colons, line breaks). A term may span soft separators,
//!   never hard ones: `L. Albano` matches `l albano`, `August 5, 1992` matches `august 5 1992`, but
//!   `Paris. Texas` does not match `paris texas`.

use unicode_normalization::char::{decompose_compatible, is_combining_mark};

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
    matches!(
        c,
        ' ' | '\t' | ',' | '-' | '\'' | '’' | '‘' | '\u{a0}' | '\u{2010}' | '\u{2011}'
    )
}

/// A word of at most three letters may be followed by an abbreviation point without ending the phrase,
/// and so may "Sept." (the one common month abbreviation of four letters).
fn allows_abbreviation_point(word: &str) -> bool {
    if word == "sept" {
        return true;
    }
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
    let bytes = text.as_bytes();
    let mut word = String::new();
    let mut word_start = 0usize;
    let mut in_word = false;
    // The separator seen since the last word (None before the first one).
    let mut gap = Gap::None;
    let mut char_index = 0usize;
    let mut at = 0usize;
    while at < bytes.len() {
        // ASCII first, byte by byte: most text is, and decoding and Unicode tables are slower.
        let byte = bytes[at];
        let (c, len, alphanumeric) = if byte < 0x80 {
            (byte as char, 1, byte.is_ascii_alphanumeric())
        } else {
            let c = text[at..].chars().next().expect("at is on a char boundary");
            (c, c.len_utf8(), c.is_alphanumeric())
        };
        at += len;
        let this_char = char_index;
        char_index += 1;
        if alphanumeric {
            if !in_word {
                in_word = true;
                word_start = this_char;
                word.clear();
            }
            if byte < 0x80 {
                word.push(byte.to_ascii_lowercase() as char);
            } else {
                fold_char(c, &mut word);
            }
            continue;
        }
        if byte >= 0x80 && is_combining_mark(c) {
            // A diacritic: folded away, inside a word or not.
            continue;
        }
        let mut after_word = false;
        if in_word {
            in_word = false;
            // A "word" of marks that all fold away is no word.
            if !word.is_empty() {
                on_word(&word, word_start, this_char, gap);
                gap = Gap::None;
                after_word = true;
            }
        }
        let this_gap = if is_soft_separator(c)
            || (c == '.' && after_word && allows_abbreviation_point(&word))
        {
            Gap::Soft
        } else {
            Gap::Hard
        };
        if gap != Gap::Hard {
            gap = this_gap;
        }
    }
    if in_word && !word.is_empty() {
        on_word(&word, word_start, char_index, gap);
    }
}

/// A token of a text: a folded word with its character offsets, or a hard break between words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Token<'a> {
    /// A word, folded as terms are (lower-case, no diacritics).
    Word {
        /// The folded word (not a slice of the original text: folding may change its length).
        text: &'a str,
        /// The word's first character in the original text.
        start: usize,
        /// One past the word's last character in the original text.
        end: usize,
    },
    /// A hard separator (a sentence end, a bracket, a line break…) between two words: no term spans it.
    HardBreak,
}

/// Tokenises a text the way terms are normalised: folded words, and a [`Token::HardBreak`] between
/// two words that a term may not span (never before the first word or after the last).
pub fn for_each_token(text: &str, mut on_token: impl FnMut(Token<'_>)) {
    let mut first = true;
    for_each_word(text, |word, start, end, gap| {
        if gap == Gap::Hard && !first {
            on_token(Token::HardBreak);
        }
        first = false;
        on_token(Token::Word {
            text: word,
            start,
            end,
        });
    });
}

/// The token that stands for a hard break inside a normalised term.
pub const HARD_BREAK_TOKEN: &str = "\u{1}";

/// Normalises a term (a name, a date form, a place…): its words, folded, joined by single spaces.
/// Returns `None` when the term has no word at all. A hard break inside the term is kept as the
/// token [`HARD_BREAK_TOKEN`] so that the term still matches the same text exactly.
pub fn normalize_term(term: &str) -> Option<String> {
    let mut out = String::with_capacity(term.len());
    for_each_token(term, |token| {
        if !out.is_empty() {
            out.push(' ');
        }
        match token {
            Token::Word { text, .. } => out.push_str(text),
            Token::HardBreak => out.push_str(HARD_BREAK_TOKEN),
        }
    });
    if out.is_empty() { None } else { Some(out) }
}

/// The words of a text, folded: what whitelists and name heuristics compare against.
pub fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_word(text, |word, _, _, _| out.push(word.to_owned()));
    out
}

/// The English number words from one to nineteen, in order: `ONE_TO_NINETEEN[n - 1]` is `n`.
pub const ONE_TO_NINETEEN: [&str; 19] = [
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
];

/// The English tens from twenty to ninety, in order: `TENS[n - 2]` is `10 n`.
pub const TENS: [&str; 8] = [
    "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
];

/// English function words (folded): what word-level measures and detectors skip.
pub const STOPWORDS: &[&str] = &[
    "a",
    "about",
    "above",
    "after",
    "again",
    "against",
    "all",
    "also",
    "am",
    "an",
    "and",
    "any",
    "are",
    "around",
    "as",
    "at",
    "be",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "but",
    "by",
    "can",
    "could",
    "did",
    "do",
    "does",
    "doing",
    "down",
    "during",
    "each",
    "either",
    "few",
    "for",
    "from",
    "further",
    "had",
    "has",
    "have",
    "having",
    "he",
    "her",
    "here",
    "hers",
    "herself",
    "him",
    "himself",
    "his",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "itself",
    "just",
    "me",
    "more",
    "most",
    "my",
    "myself",
    "neither",
    "no",
    "nor",
    "not",
    "of",
    "off",
    "on",
    "once",
    "one",
    "only",
    "or",
    "other",
    "our",
    "ours",
    "out",
    "over",
    "own",
    "same",
    "she",
    "should",
    "so",
    "some",
    "such",
    "than",
    "that",
    "the",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "through",
    "to",
    "too",
    "under",
    "until",
    "up",
    "upon",
    "very",
    "via",
    "was",
    "we",
    "were",
    "what",
    "when",
    "where",
    "which",
    "while",
    "who",
    "whom",
    "whose",
    "why",
    "will",
    "with",
    "within",
    "without",
    "would",
    "you",
    "your",
    "yours",
    "s",
    "t",
    "st",
    "de",
    "la",
    "le",
    "del",
    "der",
    "van",
    "von",
];

/// Whether a folded word is an English function word.
pub fn is_stopword(word: &str) -> bool {
    STOPWORDS.contains(&word)
}

/// The words of a text (its characters) as character ranges: maximal runs of letters and digits
/// — how the evaluation counts words changed, and what word-level detectors mask.
pub fn word_ranges(chars: &[char]) -> Vec<std::ops::Range<usize>> {
    let mut words = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if !chars[i].is_alphanumeric() {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && chars[i].is_alphanumeric() {
            i += 1;
        }
        words.push(start..i);
    }
    words
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
        assert_eq!(norm("Sept. 21, 1990").as_deref(), Some("sept 21 1990"));
        assert_eq!(
            norm("Jean-Paul O’Neil").as_deref(),
            Some("jean paul o neil")
        );
        assert_eq!(norm("Paris. Texas").as_deref(), Some("paris \u{1} texas"));
        assert_eq!(norm("born 1990. He").as_deref(), Some("born 1990 \u{1} he"));
        assert_eq!(norm("a (b)").as_deref(), Some("a \u{1} b"));
        assert_eq!(norm("(Paris)").as_deref(), Some("paris"));
        assert_eq!(norm(" ,.- "), None);
    }

    #[test]
    fn tokens_carry_char_offsets_and_hard_breaks() {
        let mut tokens = Vec::new();
        for_each_token("Zoë Ølund, born in Zürich. Paris", |t| {
            tokens.push(match t {
                Token::Word { text, start, end } => format!("{text}@{start}..{end}"),
                Token::HardBreak => "|".to_owned(),
            })
        });
        assert_eq!(
            tokens,
            vec![
                "zoe@0..3",
                "olund@4..9",
                "born@11..15",
                "in@16..18",
                "zurich@19..25",
                "|",
                "paris@27..32"
            ]
        );
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
        fn a_text_tokenises_to_its_normalised_term(s in "[a-zA-Zà-ÿ .,'()-]{1,30}") {
            let mut joined = Vec::new();
            let mut offsets_ok = true;
            let chars = s.chars().count();
            for_each_token(&s, |t| joined.push(match t {
                Token::Word { text, start, end } => {
                    offsets_ok &= start < end && end <= chars;
                    text.to_owned()
                }
                Token::HardBreak => HARD_BREAK_TOKEN.to_owned(),
            }));
            proptest::prop_assert!(offsets_ok);
            let joined = if joined.is_empty() { None } else { Some(joined.join(" ")) };
            proptest::prop_assert_eq!(joined, normalize_term(&s));
        }
    }
}
