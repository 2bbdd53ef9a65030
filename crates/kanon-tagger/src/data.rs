//! The data path between character spans and word pieces: tokenisation with character offsets,
//! span → BIO label alignment, windows for documents longer than the model's input, and the way back
//! from (possibly overlapping) window predictions to character spans.

use std::path::Path;

use kanon_core::{EntityType, Span};
use tokenizers::Tokenizer;
use unicode_normalization::char::is_combining_mark;

use crate::error::{Error, Result};
use crate::labels::{Label, LabelScheme};

/// A tokenizer for tagging: `tokenizer.json` with its padding and truncation turned off (documents are
/// windowed and batched by kanon, not cut at 128 tokens).
#[derive(Debug, Clone)]
pub struct TaggerTokenizer {
    tokenizer: Tokenizer,
    cls: u32,
    sep: u32,
    pad: u32,
}

/// A document's word pieces, without special tokens: ids and character offsets into the text.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Tokenized {
    /// The vocabulary id of each piece.
    pub ids: Vec<u32>,
    /// The characters of the text each piece was read from (a piece of a word split by the
    /// tokenizer covers its part of the word).
    pub offsets: Vec<Span>,
}

impl Tokenized {
    /// The number of pieces.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether the text has no piece (empty, or only whitespace).
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }
}

impl TaggerTokenizer {
    /// Reads a Hugging Face `tokenizer.json`; it must know `[CLS]`, `[SEP]` and `[PAD]`.
    pub fn from_file(path: &Path) -> Result<Self> {
        let tokenizer = Tokenizer::from_file(path).map_err(|source| Error::Tokenizer {
            path: path.to_owned(),
            source,
        })?;
        Self::new(tokenizer)
    }

    /// A tokenizer in memory, its padding and truncation turned off; it must know `[CLS]`,
    /// `[SEP]` and `[PAD]`.
    pub fn new(mut tokenizer: Tokenizer) -> Result<Self> {
        tokenizer.with_padding(None);
        tokenizer.with_truncation(None).map_err(Error::Encode)?;
        let special = |token: &str| {
            tokenizer
                .token_to_id(token)
                .ok_or_else(|| Error::MissingSpecialToken(token.to_owned()))
        };
        Ok(TaggerTokenizer {
            cls: special("[CLS]")?,
            sep: special("[SEP]")?,
            pad: special("[PAD]")?,
            tokenizer,
        })
    }

    /// The id of `[CLS]`, which opens every window.
    pub fn cls(&self) -> u32 {
        self.cls
    }

    /// The id of `[SEP]`, which closes every window.
    pub fn sep(&self) -> u32 {
        self.sep
    }

    /// The id of `[PAD]`, which fills a batch's shorter windows.
    pub fn pad(&self) -> u32 {
        self.pad
    }

    /// The id of a token of the vocabulary (`[MASK]`), if it has it.
    pub fn token_id(&self, token: &str) -> Option<u32> {
        self.tokenizer.token_to_id(token)
    }

    /// The vocabulary's whole words (no continuation pieces, special tokens or punctuation): the
    /// entries of at least `min_chars` letters, sorted.
    pub fn whole_words(&self, min_chars: usize) -> Vec<String> {
        let mut words: Vec<String> = self
            .tokenizer
            .get_vocab(false)
            .into_keys()
            .filter(|w| w.chars().count() >= min_chars && w.chars().all(char::is_alphabetic))
            .collect();
        words.sort_unstable();
        words
    }

    /// Word pieces of a text with character offsets (pieces that cover no character are dropped).
    pub fn tokenize(&self, text: &str) -> Result<Tokenized> {
        let encoding = self
            .tokenizer
            .encode_char_offsets(text, false)
            .map_err(Error::Encode)?;
        let mut out = Tokenized::default();
        for (&id, &(start, end)) in encoding.get_ids().iter().zip(encoding.get_offsets()) {
            if start < end {
                out.ids.push(id);
                out.offsets.push(Span::new(start, end));
            }
        }
        Ok(out)
    }
}

/// BIO label ids for word pieces: a piece overlapping a span is inside it; the first such piece
/// begins it. Spans should not overlap (the earlier one wins a shared piece).
pub fn align_labels(
    offsets: &[Span],
    spans: &[(Span, Option<EntityType>)],
    scheme: LabelScheme,
) -> Vec<u32> {
    let mut sorted: Vec<&(Span, Option<EntityType>)> = spans.iter().collect();
    sorted.sort_by_key(|(s, _)| (s.start, s.end));
    let mut labels = vec![scheme.id(Label::Outside); offsets.len()];
    let mut taken = vec![false; offsets.len()];
    for (span, entity_type) in sorted {
        let mut began = false;
        for (i, piece) in offsets.iter().enumerate() {
            if taken[i] || !piece.overlaps(span) {
                continue;
            }
            let label = if began {
                Label::Inside(*entity_type)
            } else {
                Label::Begin(*entity_type)
            };
            labels[i] = scheme.id(label);
            taken[i] = true;
            began = true;
        }
    }
    labels
}

/// Character spans from word-piece labels: a `B` starts a span, `I`s of the same type continue it
/// (an `I` after `O` or of another type starts one too). A span runs from its first piece's start to
/// its last piece's end; its score is the mean of its pieces' scores.
pub fn decode_spans(
    offsets: &[Span],
    labels: &[u32],
    scores: &[f32],
    scheme: LabelScheme,
) -> Vec<(Span, Option<EntityType>, f32)> {
    let mut out = Vec::new();
    let mut current: Option<(Span, Option<EntityType>, f32, usize)> = None;
    for (i, (&label, piece)) in labels.iter().zip(offsets).enumerate() {
        let score = scores.get(i).copied().unwrap_or(1.0);
        let continue_with = match scheme.label(label).unwrap_or(Label::Outside) {
            Label::Outside => None,
            Label::Begin(t) => Some((false, t)),
            Label::Inside(t) => Some((true, t)),
        };
        match (continue_with, current.as_mut()) {
            (Some((true, t)), Some((span, current_type, total, n))) if *current_type == t => {
                span.end = piece.end;
                *total += score;
                *n += 1;
            }
            (Some((_, t)), _) => {
                if let Some((span, ty, total, n)) = current.take() {
                    out.push((span, ty, total / n as f32));
                }
                current = Some((*piece, t, score, 1));
            }
            (None, _) => {
                if let Some((span, ty, total, n)) = current.take() {
                    out.push((span, ty, total / n as f32));
                }
            }
        }
    }
    if let Some((span, ty, total, n)) = current {
        out.push((span, ty, total / n as f32));
    }
    out
}

/// Spans as a person marks them. Each span loses the punctuation a word piece dragged in at its
/// edges ("Baltimore," → "Baltimore"), is widened to whole words (a word piece inside "Mahabharata"
/// masks the word), over a number's own separators ("67.1", "1919–20"; two full years stay two
/// dates), to a title's mid-sentence "The" ("starred in The Adjustment Bureau"), to the currency
/// sign before an amount ("$145 million"), to the full stop of an abbreviation ("U.S.", "Jr.") and
/// to the unit after a number ("seven years", "1.80 m"); spans are joined when they overlap, or when only spaces separate two
/// spans of one type ("Mahmoud" and "Ahmadinejad"), or a comma and spaces separate two dates ("June
/// 5" and "1965"), or "of", "of the", "for" or "de" comes before a capitalised span ("Minister" and
/// "Diaspora Affairs"). Other neighbours of different types stay apart ("American" and "John
/// Smith" are two mentions, as an annotator marks them); untyped spans (the mask scheme) join any
/// neighbour. The joined span takes the type of its longest part and the length-weighted mean
/// score. Last, a span is cut into the mentions it holds ([`split_mentions`]: list items, a range's
/// ends, a common noun before a name), and a PERSON part with a common noun in it becomes MISC.
/// `spans` are character offsets into `text`, in order.
pub fn tidy_spans(
    text: &str,
    spans: Vec<(Span, Option<EntityType>, f32)>,
) -> Vec<(Span, Option<EntityType>, f32)> {
    let chars: Vec<char> = text.chars().collect();
    // A combining mark (a Devanagari virama, a Burmese asat) belongs to the letter before it: the
    // word-piece tokenizer strips marks, so a span's last piece can end before them.
    let is_word = |i: usize| {
        chars
            .get(i)
            .is_some_and(|&c| c.is_alphanumeric() || is_combining_mark(c))
    };
    let in_number = |i: usize| is_word(i) || joins_number(&chars, i);
    let mut out: Vec<(Span, Option<EntityType>, f32, usize)> = Vec::with_capacity(spans.len());
    for (span, ty, score) in spans {
        if span.end > chars.len() || span.start >= span.end {
            continue;
        }
        let Some(mut span) = trim_punctuation(&chars, span) else {
            continue;
        };
        while span.start > 0 && in_number(span.start) && in_number(span.start - 1) {
            span.start -= 1;
        }
        while span.end < chars.len() && in_number(span.end - 1) && in_number(span.end) {
            span.end += 1;
        }
        // A fraction written without its zero (".983", a batting average).
        if span.start > 0
            && chars[span.start - 1] == '.'
            && chars[span.start].is_ascii_digit()
            && (span.start == 1 || !chars[span.start - 2].is_alphanumeric())
        {
            span.start -= 1;
        }
        if starts_after_title_article(&chars, span.start) {
            span.start -= 4;
        }
        if span.start > 0 && CURRENCY.contains(&chars[span.start - 1]) {
            span.start -= 1;
        }
        if chars.get(span.end) == Some(&'.') && ends_in_abbreviation(&chars[span.start..span.end]) {
            span.end += 1;
        }
        span.end = unit_end(&chars, span);
        let len = span.end - span.start;
        if let Some((last, last_ty, last_score, last_longest)) = out.last_mut() {
            let gap: String = chars
                .get(last.end.min(span.start)..span.start)
                .map(|g| g.iter().collect())
                .unwrap_or_default();
            let spaces_only = gap.chars().all(|c| c == ' ' || c == '\u{a0}');
            let dates = *last_ty == Some(EntityType::Datetime) && ty == Some(EntityType::Datetime);
            let date_comma = dates && gap.trim_matches(' ') == ",";
            let one_type = last_ty.is_none() || ty.is_none() || *last_ty == ty;
            // "Minister" + "of" + "Diaspora Affairs": a name's own preposition, whatever the
            // parts' types.
            let name_of = matches!(gap.trim_matches(' '), "of" | "of the" | "for" | "de")
                && gap.starts_with(' ')
                && gap.ends_with(' ')
                && chars.get(span.start).is_some_and(|c| c.is_uppercase());
            if span.start <= last.end || (one_type && (spaces_only || date_comma)) || name_of {
                let last_len = last.end - last.start;
                let end = last.end.max(span.end);
                *last_score =
                    (*last_score * last_len as f32 + score * len as f32) / (last_len + len) as f32;
                if len > *last_longest {
                    *last_ty = ty;
                    *last_longest = len;
                }
                last.end = end;
                continue;
            }
        }
        out.push((span, ty, score, len));
    }
    let chars = chars.as_slice();
    out.into_iter()
        .flat_map(|(span, ty, score, _)| {
            split_mentions(chars, span, ty)
                .into_iter()
                .map(move |part| {
                    // Names are written capitalised: a mention with a common noun in it is
                    // masked, but it is not a person.
                    let common_noun =
                        ty == Some(EntityType::Person) && has_common_noun(chars, part);
                    let ty = if common_noun {
                        Some(EntityType::Misc)
                    } else {
                        ty
                    };
                    (part, ty, score)
                })
        })
        .collect()
}

/// Words inside a name that are not capitalised ("University of Oslo", "Ludwig van Beethoven").
const NAME_PARTICLES: [&str; 22] = [
    "of", "the", "and", "for", "on", "in", "at", "de", "del", "della", "di", "da", "do", "dos",
    "du", "la", "le", "van", "von", "der", "y", "al",
];

/// How a word is written, by its first letter; name particles ("van", "of") and words without
/// letters are neutral.
#[derive(Debug, PartialEq, Clone, Copy)]
enum WordCase {
    Upper,
    Lower,
    Neutral,
}

fn word_case(word: &str) -> WordCase {
    let folded = word.to_lowercase();
    if NAME_PARTICLES.contains(&folded.trim_matches(|c: char| !c.is_alphanumeric())) {
        return WordCase::Neutral;
    }
    match word.chars().find(|c| c.is_alphabetic()) {
        Some(c) if c.is_uppercase() => WordCase::Upper,
        Some(c) if c.is_lowercase() => WordCase::Lower,
        _ => WordCase::Neutral,
    }
}

/// Whether a word of `span` begins in lower case and is no name particle ("actor", not "van").
fn has_common_noun(chars: &[char], span: Span) -> bool {
    let text: String = chars[span.start..span.end].iter().collect();
    text.split_whitespace()
        .any(|word| word_case(word) == WordCase::Lower)
}

/// The mentions within one tidied span: a list or range splits at its separators ("Vichy, Allier",
/// "1888 – 1952"), a bracket starts or ends one, and a common noun and a name are two mentions
/// ("British actor" + "Charles Quartermaine"). Dates keep "June 5, 1965" together.
fn split_mentions(chars: &[char], span: Span, ty: Option<EntityType>) -> Vec<Span> {
    let mut tokens: Vec<Span> = Vec::new();
    let mut i = span.start;
    while i < span.end {
        if chars[i].is_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        while i < span.end && !chars[i].is_whitespace() {
            i += 1;
        }
        tokens.push(Span::new(start, i));
    }
    let text = |s: Span| -> String { chars[s.start..s.end].iter().collect() };
    let number = |s: &str| s.parse::<u32>().ok();
    let cased = !matches!(ty, Some(EntityType::Datetime | EntityType::Quantity));
    let mut parts: Vec<Span> = Vec::new();
    let mut current: Option<Span> = None;
    let mut last_case = WordCase::Neutral;
    let mut previous: Option<Span> = None;
    for token in tokens {
        let word = text(token);
        if matches!(word.as_str(), "-" | "\u{2013}" | "\u{2014}") {
            // A spaced dash separates a range's ends or a list's items.
            parts.extend(current.take());
            last_case = WordCase::Neutral;
            previous = None;
            continue;
        }
        let mut boundary = word.starts_with('(') && !word.contains(')');
        if let Some(prev) = previous {
            let prev_word = text(prev);
            if prev_word.ends_with(',') || prev_word.ends_with(';') {
                let day =
                    number(prev_word.trim_end_matches(',')).is_some_and(|d| (1..=31).contains(&d));
                let year_word = word.trim_end_matches(|c: char| !c.is_alphanumeric());
                let year = year_word.len() == 4 && number(year_word).is_some();
                boundary |= !(ty == Some(EntityType::Datetime) && day && year);
            }
            boundary |= prev_word.ends_with(')') && !prev_word.contains('(');
        }
        let case = word_case(&word);
        // A common noun before a name is a mention of its own ("actor" + "James Gleason"); a
        // capitalised word before a common noun usually qualifies it ("American politician").
        boundary |= cased && case == WordCase::Upper && last_case == WordCase::Lower;
        if boundary {
            parts.extend(current.take());
        }
        current = Some(match current {
            Some(part) => Span::new(part.start, token.end),
            None => token,
        });
        if case != WordCase::Neutral {
            last_case = case;
        }
        previous = Some(token);
    }
    parts.extend(current);
    parts
        .into_iter()
        .filter_map(|part| trim_punctuation(chars, part))
        .collect()
}

/// Characters that join the digits of one number ("67.1", "1,200", "1990/91", "1919–20").
const NUMBER_JOINERS: [char; 5] = ['.', ',', '/', '-', '\u{2013}'];

/// Whether the character at `i` joins the digits of one number: "67.1", "1,200", "2013-09-25", a
/// season "1919–20", a range "289–296". Two full years ("1885–1962") are two dates, and stay apart.
fn joins_number(chars: &[char], i: usize) -> bool {
    if i == 0 || !NUMBER_JOINERS.contains(&chars[i]) {
        return false;
    }
    let digits_before = chars[..i]
        .iter()
        .rev()
        .take_while(|c| c.is_ascii_digit())
        .count();
    let digits_after = chars[i + 1..]
        .iter()
        .take_while(|c| c.is_ascii_digit())
        .count();
    let two_years = matches!(chars[i], '-' | '\u{2013}') && digits_before == 4 && digits_after == 4;
    digits_before > 0 && digits_after > 0 && !two_years
}

/// Whether a word is a number a quantity's unit follows ("seven years", "a dozen eggs").
fn is_number_word(word: &str) -> bool {
    use kanon_core::text::{ONE_TO_NINETEEN, TENS};
    ONE_TO_NINETEEN.contains(&word)
        || TENS.contains(&word)
        || matches!(word, "hundred" | "thousand" | "dozen")
}

/// Units that belong to the number before them: a duration ("18 months"), an amount ("$145
/// million"), a measure ("1.80 m", "80 kg"). Counted things ("108 games") are not units.
const UNITS: [&str; 29] = [
    "year", "years", "month", "months", "week", "weeks", "day", "days", "hour", "hours", "minute",
    "minutes", "million", "billion", "trillion", "thousand", "hundred", "percent", "%", "m", "cm",
    "km", "mm", "kg", "lb", "lbs", "ft", "mile", "miles",
];

/// The end of `span` taken over the unit that follows it when the span ends in a number.
fn unit_end(chars: &[char], span: Span) -> usize {
    let last_word: String = last_token(&chars[span.start..span.end]).iter().collect();
    let numeric = last_word.chars().any(|c| c.is_ascii_digit())
        && last_word
            .chars()
            .all(|c| c.is_ascii_digit() || NUMBER_JOINERS.contains(&c) || CURRENCY.contains(&c));
    let number_word = is_number_word(&last_word.to_lowercase());
    if !(numeric || number_word) {
        return span.end;
    }
    match chars.get(span.end) {
        Some('%') => return span.end + 1,
        Some(' ') => {}
        _ => return span.end,
    }
    let unit_start = span.end + 1;
    let mut unit_stop = unit_start;
    while chars
        .get(unit_stop)
        .is_some_and(|c| c.is_alphanumeric() || *c == '%')
    {
        unit_stop += 1;
    }
    let unit: String = chars[unit_start..unit_stop].iter().collect();
    // "Four Years" is a duration too; "5 M" (a size, a grade) is no measure.
    let folded = unit.to_lowercase();
    if UNITS.contains(&unit.as_str()) || (unit.len() > 2 && UNITS.contains(&folded.as_str())) {
        unit_stop
    } else {
        span.end
    }
}

/// Spans widened leftwards over the capitalised words just before them ("Best Supporting" +
/// "Actress", "Sony Music" + "Taiwan", "Chief" + "Minister of Tamil Nadu"): names and titles are
/// written capitalised, so a span that starts inside one takes the rest of it. Not across a
/// sentence's first word (capitalised anyway), a possessive ("Wilco's" + "John Stirratt": another
/// entity), a word ending in punctuation, a single letter ("A", "I"), or a word with a sentence
/// break in it ("City.In"). Spans that come to overlap are joined, typed by the one that was longer
/// before widening, scores weighted by those lengths. Run after
/// the min scores, so that a common noun's capitalised neighbour ("Italian" + "goalkeeper") does
/// not change how the noun is judged.
pub fn widen_names_leftwards(
    text: &str,
    spans: Vec<(Span, Option<EntityType>, f32)>,
) -> Vec<(Span, Option<EntityType>, f32)> {
    let chars: Vec<char> = text.chars().collect();
    // The length each span had before widening: the words taken over carry no score of their own.
    let mut widened: Vec<(Span, Option<EntityType>, f32, usize)> = spans
        .into_iter()
        .map(|(mut span, ty, score)| {
            let scored = span.end - span.start;
            while let Some(word_start) = capitalised_word_before(&chars, span.start) {
                span.start = word_start;
            }
            (span, ty, score, scored)
        })
        .collect();
    widened.sort_by_key(|(span, ..)| (span.start, std::cmp::Reverse(span.end)));
    let mut out: Vec<(Span, Option<EntityType>, f32, usize)> = Vec::with_capacity(widened.len());
    for (span, ty, score, scored) in widened {
        if let Some((last, last_ty, last_score, last_scored)) = out.last_mut()
            && span.start < last.end
        {
            *last_score = (*last_score * *last_scored as f32 + score * scored as f32)
                / (*last_scored + scored) as f32;
            if scored > *last_scored {
                *last_ty = ty;
            }
            *last_scored += scored;
            last.end = last.end.max(span.end);
            continue;
        }
        out.push((span, ty, score, scored));
    }
    out.into_iter()
        .map(|(span, ty, score, _)| (span, ty, score))
        .collect()
}

/// Where the capitalised word one space before `start` begins, when a name may go on over it
/// (see [`widen_names_leftwards`]).
fn capitalised_word_before(chars: &[char], start: usize) -> Option<usize> {
    if start < 3 || chars[start - 1] != ' ' {
        return None;
    }
    let end = start - 1;
    let word = last_token(&chars[..end]);
    let begin = end - word.len();
    let last = *word.last()?;
    let possessive =
        word.len() > 2 && matches!(word[word.len() - 2], '\'' | '\u{2019}') && last == 's';
    let sentence_break = word
        .windows(3)
        .any(|w| w[0].is_lowercase() && matches!(w[1], '.' | '!' | '?') && w[2].is_uppercase());
    if word.len() < 2
        || !word[0].is_uppercase()
        || last.is_ascii_punctuation()
        || possessive
        || sentence_break
        || opens_sentence(chars, begin)
    {
        return None;
    }
    Some(begin)
}

/// Whether the word at `at` opens the text, a sentence or a line: it is capitalised whatever it is.
fn opens_sentence(chars: &[char], at: usize) -> bool {
    match chars[..at].iter().rposition(|c| !c.is_whitespace()) {
        None => true,
        Some(i) => {
            matches!(chars[i], '.' | '!' | '?')
                || chars[i + 1..at].iter().any(|c| matches!(c, '\n' | '\r'))
        }
    }
}

/// Whether a capitalised "The" opens the mention at `start` in mid-sentence: it is then part of a
/// title ("starred in The Adjustment Bureau"); at a sentence's start it is not told apart.
fn starts_after_title_article(chars: &[char], start: usize) -> bool {
    if start < 4 || chars[start - 4..start] != ['T', 'h', 'e', ' '] {
        return false;
    }
    if start > 4 && chars[start - 5].is_alphanumeric() {
        return false;
    }
    !opens_sentence(chars, start - 4)
}

/// Currency signs that belong to the amount they precede ("$145 million").
const CURRENCY: [char; 5] = ['$', '\u{20ac}', '\u{a3}', '\u{a5}', '\u{20b9}'];

/// A span without the punctuation a word piece dragged in at its edges ("Baltimore," → "Baltimore",
/// ", Ariel" → "Ariel"); brackets and quotes stay when the span holds their partner. `None` when
/// nothing but punctuation is left.
fn trim_punctuation(chars: &[char], mut span: Span) -> Option<Span> {
    let holds = |span: Span, c: char| chars[span.start..span.end].contains(&c);
    while span.start < span.end {
        let c = chars[span.start];
        let keep = c.is_alphanumeric()
            || CURRENCY.contains(&c)
            || matches!(c, '#' | '@')
            || (c == '.' && chars.get(span.start + 1).is_some_and(char::is_ascii_digit))
            || (c == '(' && holds(span, ')'))
            || (c == '[' && holds(span, ']'))
            || (matches!(c, '"' | '\u{201c}' | '\u{ab}')
                && chars[span.start + 1..span.end]
                    .iter()
                    .any(|d| matches!(d, '"' | '\u{201d}' | '\u{bb}')));
        if keep {
            break;
        }
        span.start += 1;
    }
    while span.start < span.end {
        let c = chars[span.end - 1];
        let keep = c.is_alphanumeric()
            || is_combining_mark(c)
            || matches!(c, '%' | '\u{b0}')
            || (c == ')' && holds(span, '('))
            || (c == ']' && holds(span, '['))
            || (c == '.' && ends_in_abbreviation(&chars[span.start..span.end - 1]))
            || (matches!(c, '"' | '\u{201d}' | '\u{bb}')
                && chars[span.start..span.end - 1]
                    .iter()
                    .any(|d| matches!(d, '"' | '\u{201c}' | '\u{ab}')));
        if keep {
            break;
        }
        span.end -= 1;
    }
    (span.start < span.end).then_some(span)
}

/// The last whitespace-separated token of `text` (all of it when it has no whitespace).
fn last_token(text: &[char]) -> &[char] {
    let start = text
        .iter()
        .rposition(|c| c.is_whitespace())
        .map_or(0, |i| i + 1);
    &text[start..]
}

/// Name suffixes, titles and company forms written with a full stop ("Gerald Ford Jr.", "Dr.").
const ABBREVIATED_WORDS: [&str; 14] = [
    "Jr", "Sr", "Dr", "Mr", "Mrs", "Ms", "Prof", "St", "Mt", "Ft", "Inc", "Ltd", "Corp", "Bros",
];

/// Whether `word`'s last whitespace-separated token is an abbreviation a full stop belongs to: an
/// initial ("F"), letters separated by full stops ("U.S", "D.C") or one of [`ABBREVIATED_WORDS`].
fn ends_in_abbreviation(word: &[char]) -> bool {
    let token = last_token(word);
    let token_text: String = token.iter().collect();
    if ABBREVIATED_WORDS.contains(&token_text.as_str()) {
        return true;
    }
    match token {
        [c] => c.is_uppercase(),
        [] => false,
        _ => {
            token.contains(&'.')
                && token
                    .split(|&c| c == '.')
                    .all(|part| part.len() == 1 && part[0].is_alphabetic())
        }
    }
}

/// Token ranges `[start, end)` of at most `max_tokens` pieces, consecutive windows sharing `overlap`
/// pieces, covering all `n_tokens`.
pub fn windows(n_tokens: usize, max_tokens: usize, overlap: usize) -> Vec<std::ops::Range<usize>> {
    let max_tokens = max_tokens.max(1);
    let step = max_tokens.saturating_sub(overlap).max(1);
    let mut out = Vec::new();
    let mut start = 0;
    loop {
        let end = (start + max_tokens).min(n_tokens);
        out.push(start..end);
        if end >= n_tokens {
            return out;
        }
        start += step;
    }
}

/// One prediction per piece from overlapping windows: each piece takes the prediction of the window
/// in which it lies furthest from an edge (where the model saw the most context on both sides).
/// `predictions[w][i]` is window `w`'s `(label, score)` for its `i`-th piece.
pub fn merge_windows(
    n_tokens: usize,
    windows: &[std::ops::Range<usize>],
    predictions: &[Vec<(u32, f32)>],
) -> Vec<(u32, f32)> {
    let mut best: Vec<Option<(usize, (u32, f32))>> = vec![None; n_tokens];
    for (window, predicted) in windows.iter().zip(predictions) {
        for (offset, &prediction) in predicted.iter().enumerate().take(window.len()) {
            let token = window.start + offset;
            let context = offset.min(window.len() - 1 - offset);
            if best[token].is_none_or(|(c, _)| context > c) {
                best[token] = Some((context, prediction));
            }
        }
    }
    best.into_iter()
        .map(|b| b.map_or((0, 0.0), |(_, p)| p))
        .collect()
}
