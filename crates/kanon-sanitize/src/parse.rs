//! Strict parsing of a model's answer into a list of short phrases. Models wrap lists in prose,
//! bullets, numbering, quotes and explanations, and a document may try to make them say anything;
//! whatever is not a short phrase is dropped, never passed on.

/// What a phrase may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PhraseLimits {
    /// Phrases kept at most (the first ones).
    pub max_items: usize,
    /// Longer phrases are dropped, not truncated (a truncated phrase may say something else).
    pub max_chars: usize,
    /// Phrases with more words are dropped when they read as a clause (see [`reads_as_clause`]):
    /// they are prose, not a phrase. A phrase without a clause's words (`a military conflict in
    /// the first half of the 1900s`) is bounded by `max_chars` alone.
    pub max_words: usize,
}

/// Lines that introduce or comment on a list rather than belong to it.
const PROSE_OPENINGS: &[&str] = &[
    "here are",
    "here is",
    "here's",
    "sure",
    "note",
    "these are",
    "the following",
    "i ",
    "i'",
    "as an",
    "okay",
    "ok,",
    "of course",
    "example",
    "explanation",
    "certainly",
    "let me",
    "in this",
];

/// Words of instructions and markup: a phrase with one of them is what an injected instruction
/// made the model say, not a generalization or a guess.
const INSTRUCTION_MARKERS: &[&str] = &[
    "ignore",
    "instruction",
    "previous",
    "prompt",
    "system",
    "assistant",
    "disregard",
    "output",
    "you must",
    "respond",
    "reply",
    "http",
    "www.",
    "://",
    "<data",
    "</data",
    // Echoes of the request itself.
    "guess",
    "per line",
    "most specific",
    "most abstract",
];

/// One listed line of an attacker's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedGuess {
    /// The line with its list marker, label and quotes stripped.
    pub text: String,
    /// [`parse_phrase_list`] would drop it: too long, or worded like an instruction.
    pub strict_drop: bool,
}

/// An attacker's answer as guesses: the first `limits.max_items` listed lines, distinct, list
/// markers, labels and quotes stripped; lines that only introduce the list are skipped. Lines the
/// strict phrase parser would drop are kept, as written, and flagged: a guess decides only
/// whether a candidate is used and never reaches the output, so a reader may match it anyway
/// (INTACT) or count it as a recovery (fail closed).
pub fn parse_guesses(answer: &str, limits: &PhraseLimits) -> Vec<ParsedGuess> {
    let mut guesses: Vec<ParsedGuess> = Vec::new();
    for item in items(answer) {
        if guesses.len() == limits.max_items {
            break;
        }
        let trimmed = item.trim();
        let lowered = trimmed.to_lowercase();
        let without_marks = lowered.trim_start_matches(|c: char| !c.is_alphanumeric());
        if trimmed.ends_with(':')
            || PROSE_OPENINGS
                .iter()
                .any(|opening| without_marks.starts_with(opening))
        {
            continue;
        }
        let guess = match clean_item(trimmed, limits) {
            Some(text) => ParsedGuess {
                text,
                strict_drop: false,
            },
            None => {
                let loose: String = strip_label(&strip_list_marker(trimmed))
                    .chars()
                    .filter(|c| !c.is_control())
                    .collect();
                let text = loose.split_whitespace().collect::<Vec<_>>().join(" ");
                if !text.chars().any(char::is_alphanumeric) {
                    continue;
                }
                ParsedGuess {
                    text,
                    strict_drop: true,
                }
            }
        };
        if !guesses
            .iter()
            .any(|kept| kept.text.to_lowercase() == guess.text.to_lowercase())
        {
            guesses.push(guess);
        }
    }
    guesses
}

/// Parses a model's answer into at most `limits.max_items` distinct short phrases, in order.
pub fn parse_phrase_list(answer: &str, limits: &PhraseLimits) -> Vec<String> {
    let mut phrases: Vec<String> = Vec::new();
    for item in items(answer) {
        let Some(phrase) = clean_item(&item, limits) else {
            continue;
        };
        if !phrases
            .iter()
            .any(|kept| kept.to_lowercase() == phrase.to_lowercase())
        {
            phrases.push(phrase);
        }
        if phrases.len() == limits.max_items {
            break;
        }
    }
    phrases
}

/// The answer's items: one a line; a one-line answer is split at inline numbering (`1. a 2. b`)
/// or at semicolons and commas.
fn items(answer: &str) -> Vec<String> {
    let lines: Vec<&str> = answer
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect();
    if let [line] = lines.as_slice() {
        let numbered = split_inline_numbering(line);
        if numbered.len() > 1 {
            return numbered;
        }
        for separator in [';', ','] {
            if line.matches(separator).count() >= 2 {
                return line.split(separator).map(str::to_owned).collect();
            }
        }
    }
    lines.into_iter().map(str::to_owned).collect()
}

/// Splits `1. France 2. Europe 3) a country` before each number followed by `.` or `)`.
fn split_inline_numbering(line: &str) -> Vec<String> {
    let chars: Vec<char> = line.chars().collect();
    let mut cuts = vec![0];
    for i in 1..chars.len() {
        if chars[i].is_ascii_digit()
            && chars[i - 1].is_whitespace()
            && matches!(chars.get(i + 1), Some('.' | ')'))
            && chars.get(i + 2).is_none_or(|c| c.is_whitespace())
        {
            cuts.push(i);
        }
    }
    cuts.push(chars.len());
    cuts.windows(2)
        .map(|pair| chars[pair[0]..pair[1]].iter().collect())
        .collect()
}

/// One item as a clean phrase, or `None` when it is prose, an instruction or too long.
fn clean_item(item: &str, limits: &PhraseLimits) -> Option<String> {
    let raw = item.trim();
    if raw.ends_with(':') {
        return None;
    }
    let lowered = raw.to_lowercase();
    let without_marks = lowered.trim_start_matches(|c: char| !c.is_alphanumeric());
    if PROSE_OPENINGS
        .iter()
        .any(|opening| without_marks.starts_with(opening))
    {
        return None;
    }
    let mut phrase = strip_list_marker(raw);
    phrase = strip_label(&phrase);
    phrase = cut_explanation(&phrase);
    let phrase: String = phrase
        .chars()
        .filter(|c| !c.is_control() && !"[]{}<>*_`#|\\".contains(*c))
        .collect();
    let mut phrase = phrase.trim();
    loop {
        let trimmed = phrase
            .trim_matches(|c: char| "\"'“”‘’«»„".contains(c) || c.is_whitespace())
            .trim_end_matches(['.', ',', ';', ':', '!', '?']);
        if trimmed.len() == phrase.len() {
            break;
        }
        phrase = trimmed;
    }
    let phrase = phrase.split_whitespace().collect::<Vec<_>>().join(" ");
    let lowered = phrase.to_lowercase();
    let too_long = phrase.chars().count() > limits.max_chars
        || (phrase.split_whitespace().count() > limits.max_words && reads_as_clause(&phrase));
    let raw_lowered = raw.to_lowercase();
    let instruction = INSTRUCTION_MARKERS
        .iter()
        .any(|marker| lowered.contains(marker))
        // A label stripped from `see https://…` must not hide the link.
        || ["http", "www.", "://"]
            .iter()
            .any(|marker| raw_lowered.contains(marker));
    let has_word = phrase.chars().any(char::is_alphanumeric);
    (!too_long && !instruction && has_word).then_some(phrase)
}

/// Words that make a line a clause rather than a phrase: subject pronouns, the forms of `be`,
/// `have` and `do`, and the modal verbs (`I think it is the University of Oslo`, `he was born in
/// a city in Norway`). A generalization or a guess is a noun or adjective phrase and needs none
/// of them.
const CLAUSE_WORDS: &[&str] = &[
    "i", "you", "he", "she", "it", "we", "they", "is", "are", "was", "were", "am", "be", "been",
    "being", "has", "have", "had", "do", "does", "did", "will", "would", "can", "could", "should",
    "shall", "may", "might", "must",
];

/// Whether a line reads as prose — a clause, or more than one sentence — rather than as a
/// phrase: it has one of [`CLAUSE_WORDS`], or a sentence ends inside it. The word limit holds for
/// such lines only: it is there to drop prose, and a long description without a verb (`a
/// military conflict in the first half of the 1900s`, INTACT's own example) is a phrase.
pub fn reads_as_clause(line: &str) -> bool {
    let sentence_inside = line
        .char_indices()
        .any(|(i, c)| matches!(c, '.' | '!' | '?') && line[i + 1..].starts_with(' '));
    sentence_inside
        || kanon_core::text::words(line)
            .iter()
            .any(|word| CLAUSE_WORDS.contains(&word.as_str()))
}

/// Strips bullets and numbering: `- x`, `* x`, `• x`, `1. x`, `2) x`, `(3) x`, `#4 x`, `5: x`.
fn strip_list_marker(item: &str) -> String {
    let mut rest = item.trim_start_matches(|c: char| "-*•–—·>+".contains(c) || c.is_whitespace());
    let unparenthesised = rest.strip_prefix('(').unwrap_or(rest);
    let unhashed = unparenthesised.strip_prefix('#').unwrap_or(unparenthesised);
    let digits = unhashed.chars().take_while(char::is_ascii_digit).count();
    if (1..=2).contains(&digits) {
        let after = &unhashed[digits..];
        if let Some(after) = after
            .strip_prefix(['.', ')', ':', ']'])
            .or_else(|| after.strip_prefix(" -"))
        {
            rest = after;
        } else if after.starts_with(char::is_whitespace) && unhashed.len() != unparenthesised.len()
        {
            rest = after;
        }
    }
    rest.trim_start_matches(|c: char| ")-:".contains(c) || c.is_whitespace())
        .to_owned()
}

/// Strips a leading label of one or two words and an optional number: `Guess 2: x`,
/// `Generalization: x`, `Answer - x`.
fn strip_label(item: &str) -> String {
    if let Some((label, rest)) = item.split_once(':') {
        let words: Vec<&str> = label.split_whitespace().collect();
        let is_label = (1..=3).contains(&words.len())
            && words[0].chars().next().is_some_and(char::is_alphabetic)
            && words
                .iter()
                .skip(1)
                .all(|word| word.chars().all(|c| c.is_ascii_digit()) || words.len() == 2);
        if is_label && !rest.trim().is_empty() {
            return rest.trim().to_owned();
        }
    }
    item.to_owned()
}

/// Cuts an explanation after the phrase: `a university (more general)`, `a city - less specific`.
fn cut_explanation(item: &str) -> String {
    let mut end = item.len();
    for separator in [" (", " - ", " – ", " — ", " because "] {
        if let Some(index) = item.find(separator)
            && index > 0
        {
            end = end.min(index);
        }
    }
    item[..end].to_owned()
}

/// Whether `haystack` contains `needle` as a run of whole words, after kanon's normalisation
/// (case, diacritics and punctuation do not matter).
pub fn contains_phrase(haystack: &str, needle: &str) -> bool {
    let haystack = kanon_core::text::words(haystack);
    let needle = kanon_core::text::words(needle);
    !needle.is_empty()
        && haystack
            .windows(needle.len())
            .any(|window| window == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: PhraseLimits = PhraseLimits {
        max_items: 5,
        max_chars: 60,
        max_words: 8,
    };

    #[test]
    fn strips_markers() {
        for (item, phrase) in [
            ("1. a Norwegian city", "a Norwegian city"),
            ("(2) a city", "a city"),
            ("#3 Europe", "Europe"),
            ("- \"a capital\"", "a capital"),
            ("Guess 4: Oslo", "Oslo"),
            ("**a port city**", "a port city"),
            ("2003 elections", "2003 elections"),
        ] {
            assert_eq!(clean_item(item, &LIMITS).as_deref(), Some(phrase), "{item}");
        }
    }

    #[test]
    fn the_word_limit_drops_prose_not_long_phrases() {
        // INTACT's own example: ten words, no verb — a phrase.
        let long_phrase = "a military conflict in the first half of the 1900s";
        assert_eq!(
            clean_item(long_phrase, &LIMITS).as_deref(),
            Some(long_phrase)
        );
        for prose in [
            "He was born in a city in the west of Norway",
            "this would be a city in Norway or in Sweden",
            "A city. It lies in the west of Norway, by the sea",
        ] {
            assert!(reads_as_clause(prose), "{prose}");
            assert_eq!(clean_item(prose, &LIMITS), None, "{prose}");
        }
        // Within the word limit, a clause is not dropped for its length.
        assert_eq!(
            clean_item("a city that was a capital", &LIMITS).as_deref(),
            Some("a city that was a capital")
        );
        // The character limit holds for every line.
        let limits = PhraseLimits {
            max_chars: 40,
            ..LIMITS
        };
        assert_eq!(clean_item(long_phrase, &limits), None);
    }

    #[test]
    fn whole_word_containment() {
        assert!(contains_phrase(
            "the University of Oslo, Norway",
            "university of oslo"
        ));
        assert!(!contains_phrase("Osloer Straße", "Oslo"));
    }
}
