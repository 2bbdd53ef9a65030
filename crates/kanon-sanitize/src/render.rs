//! Writing replacements into a text with grammatical care: `a`/`an` agree with the replacement,
//! no doubled articles or prepositions (`in in 2003`; `the a university` keeps the replacement's
//! own article, `a university`, so an indefinite generalization stays indefinite), no article
//! before a modifier and another article (`the former a state` → `the former state`), no article
//! before a label of a person or a code (`the PERSON 2` → `PERSON 2`), a possessive kept (`Oslo's`
//! → `a city in Norway's`), `on` becomes `in` before a date coarser than a day, a replacement that
//! opens a sentence is capitalised, and a deleted span leaves no double space behind.

use kanon_core::EntityType;

/// One replacement of a character span of the original text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replacement {
    /// First character of the span in the original text.
    pub start: usize,
    /// One past its last character.
    pub end: usize,
    /// The span's entity type: dates and counts are worded by it.
    pub entity_type: EntityType,
    /// What stands in the span's place, before articles and capitals are fitted (empty: the
    /// span is deleted).
    pub text: String,
    /// Wraps the replacement in `[[…]]`: how the attacker is shown the candidate under attack.
    pub bracketed: bool,
    /// A label kanon wrote (`PERSON 2`), not a phrase: a person's takes no article.
    pub label: bool,
    /// The label a generalizing strategy fell back to: where a label would not read as prose, it
    /// is worded (`QUANTITY 1 films` → `a number of films`).
    pub fallback: bool,
}

const PREPOSITIONS: &[&str] = &[
    "in", "on", "at", "of", "from", "to", "for", "by", "with", "during", "since", "until", "into",
    "near", "about", "around", "before", "after",
];

const DETERMINERS: &[&str] = &[
    "a", "an", "the", "his", "her", "their", "its", "our", "my", "your", "this", "that",
];

const ARTICLES: &[&str] = &["a", "an", "the"];

/// Adjectives that stand only before a noun, so a phrase after them loses its article even with
/// no determiner before them (`an actress, former a performer` → `former performer`).
const PRENOMINAL: &[&str] = &[
    "former",
    "fellow",
    "future",
    "erstwhile",
    "onetime",
    "sometime",
];

const SEASONS: &[&str] = &["spring", "summer", "autumn", "fall", "winter"];

/// Whether a phrase is spoken with a vowel sound first, so takes `an`.
pub fn takes_an(phrase: &str) -> bool {
    let Some(word) = phrase.split_whitespace().next() else {
        return false;
    };
    let word = word.trim_matches(|c: char| !c.is_alphanumeric());
    let lower = word.to_lowercase();
    let is_acronym =
        word.chars().count() >= 2 && word.chars().all(|c| c.is_uppercase() || c.is_ascii_digit());
    if is_acronym {
        // Letters named with a vowel sound: F, H, L, M, N, R, S, X, and the vowels but U.
        return word.starts_with(['A', 'E', 'F', 'H', 'I', 'L', 'M', 'N', 'O', 'R', 'S', 'X']);
    }
    if let Some(first) = lower.chars().next()
        && first.is_ascii_digit()
    {
        // 8, 11, 18, 80, 800…: "an eight", "an eleven", "an eighteen".
        return lower.starts_with('8') || lower.starts_with("11") || lower.starts_with("18");
    }
    const VOWEL_SOUND_EXCEPTIONS: &[&str] = &["hour", "honest", "honor", "honour", "heir"];
    const CONSONANT_SOUND_EXCEPTIONS: &[&str] = &[
        "uni", "use", "usu", "uti", "eu", "one", "once", "ure", "uro", "ubi",
    ];
    if VOWEL_SOUND_EXCEPTIONS
        .iter()
        .any(|prefix| lower.starts_with(prefix))
    {
        return true;
    }
    if CONSONANT_SOUND_EXCEPTIONS
        .iter()
        .any(|prefix| lower.starts_with(prefix))
    {
        return false;
    }
    lower.starts_with(['a', 'e', 'i', 'o', 'u'])
}

/// Whether the text after a span goes on, after one space, with a lower-case content word that
/// the span modifies or counts (` suburb` after `Oslo`, ` films` after `87`).
pub(crate) fn followed_by_content_word(rest: &[char]) -> bool {
    let Some((&first, rest)) = rest.split_first() else {
        return false;
    };
    let word: String = rest
        .iter()
        .take_while(|c| c.is_alphabetic() || **c == '-')
        .collect();
    first == ' '
        && word.starts_with(char::is_lowercase)
        && !crate::lemma::is_stopword(&word)
        && !PREPOSITIONS_AND_CONJUNCTIONS.contains(&word.as_str())
}

/// Prepositions and conjunctions the stopword list leaves out: a name before one is a noun
/// phrase of its own (`on ⟨BBC World News⟩ since 2010`), not a modifier of the next word.
const PREPOSITIONS_AND_CONJUNCTIONS: &[&str] = &[
    "since",
    "despite",
    "throughout",
    "whilst",
    "toward",
    "towards",
    "amid",
    "among",
    "amongst",
    "unless",
    "although",
    "though",
    "whereas",
    "except",
    "including",
    "alongside",
    "following",
    "per",
    "onto",
    "beyond",
    "across",
    "along",
    "behind",
    "beside",
    "besides",
    "near",
    "inside",
    "outside",
    "till",
    "versus",
    "vs",
    "v",
    "via",
];

/// Whether a label stands for a person or a code, which takes no article (`the PERSON 2`).
fn labels_a_name(replacement: &Replacement) -> bool {
    matches!(
        replacement.entity_type,
        EntityType::Person | EntityType::Code
    )
}

/// Whether the word starting at byte `start` of `out` follows a determiner: `the former ⟨here⟩`.
fn after_determiner_and_modifier(out: &str, start: usize) -> bool {
    let before = &out[..start];
    match previous_word(before) {
        Some((s, e)) => {
            let word = before[s..e].to_lowercase();
            let modifier = out[start..].trim_end().to_lowercase();
            // `the novels ⟨a novel⟩`: a kind in the plural heads a list, it modifies nothing.
            let heads_a_list =
                crate::context::kind_noun(&modifier).is_some_and(|(_, plural)| plural);
            // `at the end of the season ⟨Genoa⟩ was relegated`: after a time, a new clause.
            let a_time = [
                "season", "year", "month", "week", "day", "summer", "winter", "spring", "autumn",
                "decade", "century", "time", "night",
            ]
            .contains(&modifier.as_str());
            DETERMINERS.contains(&word.as_str())
                && !heads_a_list
                && !a_time
                && !PREPOSITIONS.contains(&modifier.as_str())
                && !DETERMINERS.contains(&modifier.as_str())
                && !["and", "or", "but", "is", "was", "are", "were", "be"]
                    .contains(&modifier.as_str())
        }
        None => false,
    }
}

/// Whether the word at byte `start` of `out` is a capitalised modifier after a determiner, with
/// at most one more modifier between: `the United States ⟨…⟩`, `a former Nigerian ⟨…⟩`.
fn after_determiner_and_proper_adjectives(out: &str, start: usize) -> bool {
    let capitalised = |at: usize| out[at..].starts_with(char::is_uppercase);
    if !capitalised(start) {
        return false;
    }
    let mut at = start;
    if let Some((word_start, _)) = previous_word(&out[..at])
        && capitalised(word_start)
        && !opens_sentence(&out[..word_start])
    {
        at = word_start;
    }
    after_determiner_and_modifier(out, at)
        || previous_word(&out[..at])
            .is_some_and(|(word_start, _)| after_determiner_and_modifier(out, word_start))
}

/// The last word of `out` with its byte range, when `out` ends in a word and whitespace.
fn previous_word(out: &str) -> Option<(usize, usize)> {
    let trimmed = out.trim_end();
    if trimmed.len() == out.len() {
        return None;
    }
    let start = trimmed
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_alphabetic())
        .last()
        .map(|(i, _)| i)?;
    Some((start, trimmed.len()))
}

/// Whether `out` ends in a name's possessive (`Ohio's `, `LOC 4's `) or in a determiner
/// and a number (`the 1987 `), which determine the noun after them as an article would.
fn ends_in_a_determining_phrase(out: &str) -> bool {
    let trimmed = out.trim_end();
    if trimmed.len() == out.len() {
        return false;
    }
    if let Some(owner) = trimmed
        .strip_suffix("'s")
        .or_else(|| trimmed.strip_suffix("’s"))
    {
        let word = owner.rsplit(' ').next().unwrap_or("");
        // A name or a label, not a pronoun's `is` (`It's`, `He's`).
        // A year's or a decade's (`1986's`, `the 1980s's`) too.
        return word.ends_with(|c: char| c.is_ascii_digit())
            || word.starts_with(|c: char| c.is_ascii_digit())
            || word.starts_with(char::is_uppercase)
                && !["It", "He", "She", "That", "There", "What", "Who", "Here"].contains(&word);
    }
    let Some((before, last)) = trimmed.rsplit_once(' ') else {
        return false;
    };
    // A year or a number (`the 1987 `), or a rank (`the 15th `, `its fourth `).
    let number = !last.is_empty() && last.chars().all(|c| c.is_ascii_digit());
    if !number && crate::ontology::rank(last).is_none() {
        return false;
    }
    let word = before.rsplit(' ').next().unwrap_or("").to_lowercase();
    DETERMINERS.contains(&word.as_str())
}

/// Whether `open` and `close` are an opening and a closing quote of one kind.
fn quotes_pair(open: char, close: char) -> bool {
    matches!(
        (open, close),
        ('"', '"') | ('\'', '\'') | ('“', '”') | ('‘', '’') | ('«', '»')
    )
}

fn first_word(phrase: &str) -> &str {
    phrase.split_whitespace().next().unwrap_or("")
}

fn without_first_word(phrase: &str) -> &str {
    phrase
        .trim_start()
        .split_once(char::is_whitespace)
        .map_or("", |(_, rest)| rest.trim_start())
}

fn capitalise(phrase: &str) -> String {
    let mut chars = phrase.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Keeps the case pattern of `template` (`The`, `THE`, `the`) on `word`.
fn same_case(template: &str, word: &str) -> String {
    if template.chars().count() > 1 && template.chars().all(char::is_uppercase) {
        word.to_uppercase()
    } else if template.starts_with(char::is_uppercase) {
        capitalise(word)
    } else {
        word.to_owned()
    }
}

fn opens_sentence(out: &str) -> bool {
    let trimmed = out.trim_end();
    let abbreviated = trimmed
        .rsplit(|c: char| c.is_whitespace() || c == '(')
        .next()
        .is_some_and(|word| ABBREVIATIONS.contains(&word));
    trimmed.is_empty()
        || trimmed.ends_with(['.', '!', '?', ':']) && !abbreviated
        || out[trimmed.len()..].contains('\n')
}

/// `such radio programs as` before a list left out whole: the text up to `as`.
fn such_kinds_as(before: &str) -> Option<&str> {
    let rest = before.strip_suffix(" as")?;
    let words: Vec<&str> = rest.rsplit(' ').take(5).collect();
    words
        .iter()
        .skip(1)
        .any(|word| word.eq_ignore_ascii_case("such"))
        .then_some(rest)
}

/// Abbreviations whose period ends no sentence (`Alpha vs. ⟨a team⟩`).
const ABBREVIATIONS: &[&str] = &[
    "vs.", "v.", "e.g.", "i.e.", "cf.", "c.", "ca.", "approx.", "No.", "Nos.", "St.", "Dr.", "Mr.",
    "Mrs.", "Ms.", "Jr.", "Sr.", "Lt.", "Gen.", "Col.", "Capt.", "Prof.",
];

/// A date phrase coarser than a day (`August 2003`, `the early 2000s`), which takes `in`, not `on`.
fn coarser_than_day(phrase: &str) -> bool {
    match crate::date::parse_date(phrase) {
        Some(parsed) => !matches!(parsed.value, crate::date::DateValue::Day { .. }),
        None => phrase.trim_start().to_lowercase().starts_with("the "),
    }
}

/// Writes `replacements` (sorted by start, non-overlapping, character offsets) into `text`.
pub fn render(text: &str, replacements: &[Replacement]) -> String {
    render_with_ranges(text, replacements).0
}

/// [`render`], with where each replacement landed: the character range of the output it occupies
/// (empty for a deletion; the first's for the second end of a period both ends of which one
/// phrase says), one per replacement, in order.
pub fn render_with_ranges(
    text: &str,
    replacements: &[Replacement],
) -> (String, Vec<std::ops::Range<usize>>) {
    let chars: Vec<char> = text.chars().collect();
    let mut output = Output {
        text: String::with_capacity(text.len()),
        ranges: Vec::with_capacity(replacements.len()),
        list_left_out: false,
    };
    let mut cursor = 0;
    for (index, replacement) in replacements.iter().enumerate() {
        output
            .text
            .extend(&chars[cursor..replacement.start.min(chars.len())]);
        cursor = replacement.end.min(chars.len());
        let phrase = replacement.text.trim().to_owned();
        if phrase.is_empty() {
            let next = replacements
                .get(index + 1)
                .map(|next| (next.start, next.text.trim().is_empty()));
            output.delete(&chars, &mut cursor, next);
            continue;
        }
        let phrase = phrase_in_place(replacement, phrase, &chars, &mut cursor);
        let previous = index.checked_sub(1).map(|previous| &replacements[previous]);
        if output.one_period_for_both_ends(previous, replacement, &phrase) {
            continue;
        }
        let phrase = output.join_articles(replacement, phrase);
        let phrase = century_as_modifier(replacement, phrase, &chars[cursor.min(chars.len())..]);
        let next_start = replacements.get(index + 1).map(|next| next.start);
        let phrase = place_said_after(replacement, phrase, &chars, cursor, next_start);
        output.agree_with_previous_word(replacement, &phrase);
        output.preposition_for_a_period(replacement, &phrase);
        output.push(replacement, phrase);
    }
    output.text.extend(chars.get(cursor..).unwrap_or(&[]));
    output.into_char_ranges()
}

/// The phrase as it must read where the span stood: a count fallen back to its label reads `a
/// number of` before the word it counts, a possessive inside the span (`Todd Hollenbach's`)
/// stays with the replacement, and one written with an apostrophe alone after a name ending in
/// `s` (`Wales' opening match`) takes the phrase's own (`a team's`; `cursor` then passes it).
fn phrase_in_place(
    replacement: &Replacement,
    mut phrase: String,
    chars: &[char],
    cursor: &mut usize,
) -> String {
    let cursor_at = *cursor;
    let original: String = chars[replacement.start.min(chars.len())..cursor_at]
        .iter()
        .collect();
    // Not a single-quoted title ending in `s` (`'Songs'`).
    let quoted = replacement
        .start
        .checked_sub(1)
        .and_then(|before| chars.get(before))
        .is_some_and(|before| ['\'', '‘', '’'].contains(before));
    let apostrophe_alone = matches!(chars.get(cursor_at), Some('\'' | '’'))
        && !chars
            .get(cursor_at + 1)
            .is_some_and(|next| next.is_alphanumeric())
        && original.ends_with(['s', 'S'])
        && !quoted;
    if apostrophe_alone && !replacement.bracketed && !phrase.ends_with(['s', 'S']) {
        // The document's own apostrophe, straight or curly.
        phrase.push(chars[cursor_at]);
        phrase.push('s');
        *cursor += 1;
        return phrase;
    }
    let original = original.trim_end();
    if replacement.fallback
        && replacement.entity_type == EntityType::Quantity
        && counts_alone(original)
        // `one daughter` is no number of daughters.
        && !["one", "1"].contains(&original.to_lowercase().as_str())
        && followed_by_content_word(&chars[cursor_at.min(chars.len())..])
    {
        phrase = "a number of".to_owned();
    }
    if !replacement.bracketed
        && (original.ends_with("'s") || original.ends_with("’s"))
        && !phrase.ends_with("'s")
        && !phrase.ends_with("’s")
    {
        phrase.push_str("'s");
    }
    phrase
}

/// A century that modifies the noun after it is one hyphenated word (`her 1993 single` → `her
/// 20th-century single`, where `her 20th century single` reads as a century that is single).
fn century_as_modifier(replacement: &Replacement, phrase: String, rest: &[char]) -> String {
    let century = phrase.strip_suffix(" century").filter(|ordinal| {
        replacement.entity_type == EntityType::Datetime
            && !ordinal.contains(' ')
            && ordinal.starts_with(|c: char| c.is_ascii_digit())
    });
    match century {
        Some(ordinal) if followed_by_content_word(rest) => format!("{ordinal}-century"),
        _ => phrase,
    }
}

/// A phrase's place that the text names right after it goes (`born in Mumbai, India` → `a city,
/// India`, not `a city in India, India`): the text says it, and saying it once says less. Not
/// where the place after the comma is itself a span, which the phrase may then be the only one
/// to name.
fn place_said_after(
    replacement: &Replacement,
    phrase: String,
    chars: &[char],
    cursor: usize,
    next_start: Option<usize>,
) -> String {
    if replacement.bracketed
        || replacement.label
        || !matches!(replacement.entity_type, EntityType::Loc | EntityType::Org)
    {
        return phrase;
    }
    let Some((kind, place)) = phrase.rsplit_once(" in ") else {
        return phrase;
    };
    let place_words = place.strip_prefix("the ").unwrap_or(place);
    let rest: String = chars
        .get(cursor..)
        .unwrap_or(&[])
        .iter()
        .take(place.chars().count() + 8)
        .collect();
    let Some(after_comma) = rest.strip_prefix(", ") else {
        return phrase;
    };
    let (article, after_article) = match after_comma.strip_prefix("the ") {
        Some(after) => (4, after),
        None => (0, after_comma),
    };
    let said = after_article
        .strip_prefix(place_words)
        .is_some_and(|end| !end.starts_with(|c: char| c.is_alphanumeric()));
    let place_end = cursor + 2 + article + place_words.chars().count();
    let stays_original = next_start.is_none_or(|next| next >= place_end);
    if said && stays_original {
        kind.to_owned()
    } else {
        phrase
    }
}

/// Whether a span is a number alone (`87`, `forty-five`, `two hundred`), which counts the noun
/// after it, and not a measure with its unit (`80 kg event`), before which `a number of` would
/// not read.
pub(crate) fn counts_alone(original: &str) -> bool {
    original.split_whitespace().all(|word| {
        let word = word.to_lowercase();
        word.bytes()
            .all(|b| b.is_ascii_digit() || b == b',' || b == b'.')
            || word.split('-').all(|part| {
                kanon_core::text::ONE_TO_NINETEEN.contains(&part)
                    || kanon_core::text::TENS.contains(&part)
                    || [
                        "hundred", "thousand", "million", "billion", "dozen", "dozens",
                    ]
                    .contains(&part)
            })
    })
}

/// The text written so far, and the byte range each replacement took in it.
struct Output {
    text: String,
    /// Byte ranges in `text`; shifted when a touch-up before a later replacement changes length.
    ranges: Vec<std::ops::Range<usize>>,
    /// Whether the last deletion took the separator before the next replacement, a deletion
    /// too: a list is being left out.
    list_left_out: bool,
}

impl Output {
    /// Replaces the bytes `at` of the text written so far, shifting the ranges after them.
    fn touch_up(&mut self, at: std::ops::Range<usize>, with: &str) {
        let delta = with.len() as isize - (at.end - at.start) as isize;
        self.text.replace_range(at.clone(), with);
        // A point inside the bytes replaced (a deletion's empty range) stays inside what
        // replaces them.
        let moved = |point: usize| {
            if point >= at.end {
                (point as isize + delta) as usize
            } else if point > at.start {
                at.start + (point - at.start).min(with.len())
            } else {
                point
            }
        };
        for range in self.ranges.iter_mut() {
            range.start = moved(range.start);
            range.end = moved(range.end);
        }
    }

    /// A suppressed span: no double space and no space before punctuation left behind; at the
    /// start of a line, the spaces after it go too (`cursor` moves past them). Words that only
    /// introduced it go with it: a naming word (`an album titled`), and, once a list has no
    /// member left, its separators, brackets and opener (`albums (…)`, `albums, including …`).
    /// `next`: where the next replacement starts, and whether it is a deletion too.
    fn delete(&mut self, chars: &[char], cursor: &mut usize, next: Option<(usize, bool)>) {
        let in_a_list = std::mem::take(&mut self.list_left_out);
        // Quotes that held only the span go with it (`the film "…"`).
        let written_by_a_replacement =
            |text: &str, ranges: &[std::ops::Range<usize>], at: usize| {
                ranges.last().is_some_and(|range| range.end > at) || at > text.len()
            };
        if let (Some(open), Some(&close)) = (self.text.chars().last(), chars.get(*cursor))
            && quotes_pair(open, close)
            && !written_by_a_replacement(
                &self.text,
                &self.ranges,
                self.text.len() - open.len_utf8(),
            )
        {
            self.text.pop();
            *cursor += 1;
        } else if let (Some(open), Some(&close)) = (
            self.text.chars().last(),
            cursor.checked_sub(1).and_then(|last| chars.get(last)),
        ) && quotes_pair(open, close)
            && !written_by_a_replacement(
                &self.text,
                &self.ranges,
                self.text.len() - open.len_utf8(),
            )
        {
            // The span took its closing quote (`"Alpha"` marked as `Alpha"`).
            self.text.pop();
        }
        self.drop_original_words_before(|before| {
            crate::context::NAMING_WORDS
                .iter()
                .chain(&["known as"])
                .find_map(|word| {
                    before
                        .trim_end()
                        .strip_suffix(word)
                        .filter(|rest| rest.ends_with(' '))
                })
                .map(str::len)
        });
        // The separator between this member of a list and the next goes when the next is left
        // out too, or this one followed others left out; the next member's opening quote
        // stays, to go with it.
        if let Some((next_start, next_deleted)) = next
            && (next_deleted || in_a_list)
            && next_start > *cursor
            && let Some(between) = chars.get(*cursor..next_start)
        {
            let unquoted: String = between
                .iter()
                .filter(|c| !crate::context::is_quote(**c))
                .collect();
            if crate::context::is_list_separator(&unquoted) {
                self.list_left_out = next_deleted;
                *cursor = next_start;
                while *cursor > 0 && crate::context::is_quote(chars[*cursor - 1]) {
                    *cursor -= 1;
                }
            }
        }
        // Brackets that held only the list go with it.
        if chars.get(*cursor) == Some(&')') {
            let length = self.text.len();
            self.drop_original_words_before(|before| {
                before.trim_end().strip_suffix('(').map(str::len)
            });
            if self.text.len() < length {
                *cursor += 1;
            }
        }
        let next = chars.get(*cursor).copied();
        let closes = next.is_none_or(|c| c.is_whitespace() || ",.;:!?)".contains(c));
        let before_punctuation = next.is_none_or(|c| ",.;:!?)".contains(c));
        if before_punctuation {
            // Nothing of the list is left after its separator or opener.
            self.drop_original_words_before(|before| {
                let before = before.trim_end();
                [",", ":", " and", " or", " including", " like", " such as"]
                    .iter()
                    .find_map(|word| before.strip_suffix(word))
                    .or_else(|| such_kinds_as(before))
                    .map(|rest| rest.trim_end_matches(',').len())
            });
        }
        if self.text.ends_with(char::is_whitespace) && closes {
            let trimmed = self.text.trim_end_matches([' ', '\t']).len();
            self.truncate(trimmed);
        }
        let out = &mut self.text;
        if out.is_empty() || out.ends_with('\n') {
            while chars.get(*cursor).is_some_and(|c| *c == ' ' || *c == '\t') {
                *cursor += 1;
            }
        }
        self.article_before_next_word(chars, *cursor);
        self.ranges.push(self.text.len()..self.text.len());
    }

    /// Truncates the text to the length `keep` gives for it, where the bytes it drops are the
    /// original's (no replacement wrote them).
    fn drop_original_words_before(&mut self, keep: impl Fn(&str) -> Option<usize>) {
        let Some(length) = keep(&self.text) else {
            return;
        };
        let written = self
            .ranges
            .iter()
            .rev()
            .any(|range| range.start < range.end && range.end > length);
        if !written && length < self.text.len() {
            self.truncate(length);
        }
    }

    /// Truncates the text to `length` bytes; a deletion's empty range past it moves back to it.
    fn truncate(&mut self, length: usize) {
        self.text.truncate(length);
        for range in self.ranges.iter_mut().rev() {
            if range.end <= length {
                break;
            }
            range.start = range.start.min(length);
            range.end = range.end.min(length);
        }
    }

    /// `an Oslo suburb` with `Oslo` left out: the article agrees with the word that now follows
    /// it (`a suburb`).
    fn article_before_next_word(&mut self, chars: &[char], cursor: usize) {
        let trimmed = self.text.trim_end();
        let Some(start) = trimmed
            .char_indices()
            .rev()
            .take_while(|(_, c)| c.is_alphabetic())
            .last()
            .map(|(i, _)| i)
        else {
            return;
        };
        let end = trimmed.len();
        let before = self.text[start..end].to_owned();
        let preceded_by_letter = self.text[..start]
            .chars()
            .last()
            .is_some_and(char::is_alphanumeric);
        // An article a replacement wrote is its own.
        let written = self.ranges.last().is_some_and(|range| range.end > start);
        if written || preceded_by_letter || !["a", "an"].contains(&before.to_lowercase().as_str()) {
            return;
        }
        let next: String = chars[cursor.min(chars.len())..]
            .iter()
            .skip_while(|c| c.is_whitespace())
            .take_while(|c| !c.is_whitespace())
            .collect();
        if next.is_empty() {
            return;
        }
        let article = if takes_an(&next) { "an" } else { "a" };
        let with = same_case(&before, article);
        self.touch_up(start..end, &with);
    }

    /// One article or preposition where the text so far and the phrase would give two: a
    /// doubled preposition loses the phrase's, the phrase's own article (or a label's none)
    /// replaces the text's, and after another determiner the phrase's article goes.
    fn join_articles(&mut self, replacement: &Replacement, mut phrase: String) -> String {
        if ARTICLES.contains(&first_word(&phrase).to_lowercase().as_str())
            && ends_in_a_determining_phrase(&self.text)
        {
            // `Ohio's a district` → `Ohio's district`; `the 1987 a world cup` → `the
            // 1987 world cup`.
            return without_first_word(&phrase).to_owned();
        }
        let Some((start, end)) = previous_word(&self.text) else {
            return phrase;
        };
        let before = self.text[start..end].to_owned();
        let before_lower = before.to_lowercase();
        let first = first_word(&phrase).to_lowercase();
        let doubled_preposition =
            PREPOSITIONS.contains(&before_lower.as_str()) && first == before_lower;
        let phrase_article = ARTICLES.contains(&first.as_str());
        if doubled_preposition {
            phrase = without_first_word(&phrase).to_owned();
        } else if ARTICLES.contains(&before_lower.as_str())
            && (phrase_article || replacement.label && labels_a_name(replacement))
        {
            // The replacement's own article wins (`the` + `a university` → `a university`:
            // definiteness is the generalization's), and a label takes none.
            let through_space = self.text.len();
            self.touch_up(start..through_space, "");
        } else if phrase_article
            && (DETERMINERS.contains(&before_lower.as_str())
                || PRENOMINAL.contains(&before_lower.as_str())
                // `awarded the applicant ⟨a six-figure sum⟩`: an amount follows its receiver.
                || replacement.entity_type != EntityType::Quantity
                    && after_determiner_and_modifier(&self.text, start)
                || after_determiner_and_proper_adjectives(&self.text, start))
        {
            // `his a university` → `his university`; `the former a state` → `the former state`.
            phrase = without_first_word(&phrase).to_owned();
        }
        phrase
    }

    /// The word before the phrase agrees with it: `on` becomes `in` before a date coarser than a
    /// day, and `a`/`an` follow the phrase's first sound.
    fn agree_with_previous_word(&mut self, replacement: &Replacement, phrase: &str) {
        let Some((start, end)) = previous_word(&self.text) else {
            return;
        };
        let before = self.text[start..end].to_owned();
        let before_lower = before.to_lowercase();
        if replacement.entity_type == EntityType::Datetime
            && before_lower == "on"
            && coarser_than_day(phrase)
        {
            let with = same_case(&before, "in");
            self.touch_up(start..end, &with);
        } else if (before_lower == "a" || before_lower == "an") && !phrase.is_empty() {
            // A label is read as the word it abbreviates (`a MISC 1`, `an ORG 1`), not spelled.
            let vowel_sound = if replacement.label && phrase == replacement.text.trim() {
                phrase.starts_with(['A', 'E', 'I', 'O', 'U'])
            } else {
                takes_an(phrase)
            };
            let article = if vowel_sound { "an" } else { "a" };
            let with = same_case(&before, article);
            self.touch_up(start..end, &with);
        }
    }

    /// The two ends of a period that climbed to one rung (`from 1942 to 1945` → `from the 20th
    /// century to the 20th century`) say it once: `in the 20th century`, `(about 1805)`. True,
    /// as a rung is a period, so every year between two on it is on it too. Returns whether
    /// `phrase` was folded into the one before (its range is then that one's).
    fn one_period_for_both_ends(
        &mut self,
        previous: Option<&Replacement>,
        replacement: &Replacement,
        phrase: &str,
    ) -> bool {
        let a_date_rung = |replacement: &Replacement| {
            replacement.entity_type == EntityType::Datetime
                && !replacement.bracketed
                && !replacement.label
                && !replacement.fallback
        };
        if !a_date_rung(replacement) || !previous.is_some_and(a_date_rung) {
            return false;
        }
        let Some(first) = self.ranges.last().cloned() else {
            return false;
        };
        if first.is_empty() || !self.text[first.clone()].eq_ignore_ascii_case(phrase) {
            return false;
        }
        let connector = self.text[first.end..].trim().to_lowercase();
        let opener = previous_word(&self.text[..first.start])
            .map(|(start, end)| (start..end, self.text[start..end].to_lowercase()));
        let opened_by = |word: &str| opener.as_ref().is_some_and(|(_, opener)| opener == word);
        let one_period = match connector.as_str() {
            "–" | "—" | "-" => true,
            "to" | "until" | "till" => opened_by("from"),
            "and" => opened_by("between"),
            _ => false,
        };
        if !one_period {
            return false;
        }
        self.text.truncate(first.end);
        if let Some((at, word)) = opener
            && (word == "from" || word == "between")
        {
            let with = same_case(&self.text[at.clone()], "in");
            self.touch_up(at, &with);
        }
        // The second end stands where the first does: the phrase says both.
        let both = self.ranges.last().cloned().unwrap_or(first);
        self.ranges.push(both);
        true
    }

    /// `born 1962` may stand without a preposition, `born the early 1960s` may not: a date's
    /// period (a decade, a century, a season) after a verb's participle takes `in`.
    fn preposition_for_a_period(&mut self, replacement: &Replacement, phrase: &str) {
        if replacement.entity_type != EntityType::Datetime || replacement.bracketed {
            return;
        }
        let Some((start, end)) = previous_word(&self.text) else {
            return;
        };
        let before = self.text[start..end].to_lowercase();
        let participle = before == "born" || (before.len() > 3 && before.ends_with("ed"));
        let first = first_word(phrase).to_lowercase();
        let period = first == "the" || SEASONS.contains(&first.as_str());
        if participle && period {
            self.text.push_str("in ");
        }
    }

    /// Writes the phrase (capitalised when it opens a sentence, in `[[…]]` when bracketed) and
    /// records its range.
    fn push(&mut self, replacement: &Replacement, mut phrase: String) {
        if opens_sentence(&self.text) {
            phrase = capitalise(&phrase);
        }
        if replacement.bracketed {
            self.text.push_str("[[");
        }
        let from = self.text.len();
        self.text.push_str(&phrase);
        self.ranges.push(from..self.text.len());
        if replacement.bracketed {
            self.text.push_str("]]");
        }
    }

    /// The text, and its byte ranges as character ranges.
    fn into_char_ranges(self) -> (String, Vec<std::ops::Range<usize>>) {
        let Output { text, ranges, .. } = self;
        let mut char_ranges = Vec::with_capacity(ranges.len());
        let (mut byte, mut chars_before) = (0, 0);
        for range in ranges {
            chars_before += text[byte..range.start].chars().count();
            byte = range.start;
            let length = text[range.start..range.end].chars().count();
            char_ranges.push(chars_before..chars_before + length);
        }
        (text, char_ranges)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_preposition_after_a_name_is_no_noun_it_modifies() {
        let rest = |text: &str| text.chars().collect::<Vec<char>>();
        assert!(followed_by_content_word(&rest(" television network")));
        for text in [
            " since 2010",
            " despite it",
            " near the sea",
            " versus Alpha",
            " vs. the Alpha Vikings",
            " v. Alpha",
            " via Alpha",
        ] {
            assert!(!followed_by_content_word(&rest(text)), "{text}");
        }
    }

    #[test]
    fn articles_by_sound() {
        assert!(!takes_an("European union"));
        assert!(takes_an("hour"));
        assert!(takes_an("FBI agent"));
        assert!(!takes_an("university"));
        assert!(takes_an("island"));
        assert!(takes_an("80-year-old"));
    }

    fn deletion(start: usize, end: usize) -> Replacement {
        Replacement {
            start,
            end,
            entity_type: EntityType::Loc,
            text: String::new(),
            bracketed: false,
            label: false,
            fallback: false,
        }
    }

    #[test]
    fn a_left_out_modifier_leaves_an_article_that_agrees() {
        let text = "She lives in an Oslo suburb. He was a Apple engineer.";
        let oslo = text.find("Oslo").unwrap();
        let apple = text.find("Apple").unwrap();
        let out = render(
            text,
            &[deletion(oslo, oslo + 4), deletion(apple, apple + 5)],
        );
        assert_eq!(out, "She lives in a suburb. He was an engineer.");
    }

    fn date(start: usize, end: usize, text: &str) -> Replacement {
        Replacement {
            entity_type: EntityType::Datetime,
            text: text.to_owned(),
            ..deletion(start, end)
        }
    }

    /// Character offset of `word`'s first occurrence in `text` (a dash or a curly apostrophe
    /// is one character, several bytes).
    fn char_offset(text: &str, word: &str) -> usize {
        text[..text.find(word).unwrap()].chars().count()
    }

    /// A date span at `year`'s first occurrence in `text`, replaced by `rung`.
    fn year(text: &str, year: &str, rung: &str) -> Replacement {
        let start = char_offset(text, year);
        date(start, start + year.chars().count(), rung)
    }

    #[test]
    fn a_period_after_a_participle_takes_in() {
        let text = "He was born 1962, the firm founded 1990, from 1995 to 1999.";
        let out = render(
            text,
            &[
                year(text, "1962", "the early 1960s"),
                year(text, "1990", "summer 1990"),
                year(text, "1995", "the mid-1990s"),
                year(text, "1999", "1999"),
            ],
        );
        assert_eq!(
            out,
            "He was born in the early 1960s, the firm founded in summer 1990, from the mid-1990s to 1999."
        );
        let born_a_year = render(text, &[year(text, "1962", "1962")]);
        assert_eq!(born_a_year, text);
    }

    #[test]
    fn a_possessive_apostrophe_after_an_s_takes_the_phrases_own() {
        let text = "During Wales' opening match, James’ coach met the 'Songs' fans.";
        let at = |word: &str| char_offset(text, word);
        let phrase = |word: &str, with: &str| Replacement {
            entity_type: EntityType::Org,
            text: with.to_owned(),
            ..deletion(at(word), at(word) + word.len())
        };
        let label = Replacement {
            label: true,
            entity_type: EntityType::Person,
            ..phrase("James", "PERSON 1")
        };
        let out = render(
            text,
            &[phrase("Wales", "a team"), label, phrase("Songs", "a song")],
        );
        assert!(
            out.starts_with("During a team's opening match, PERSON 1’s coach"),
            "{out}"
        );
        // A single-quoted title keeps its closing quote.
        assert!(out.contains("'a song' fans"), "{out}");
        // A phrase ending in `s` keeps the apostrophe alone.
        assert_eq!(
            render(text, &[phrase("Wales", "the islands")]),
            text.replacen("Wales", "the islands", 1)
        );
    }

    #[test]
    fn a_place_the_text_names_right_after_the_phrase_is_said_once() {
        let text = "Born in Mumbai, India, she studied in Oslo, the United States and Norway.";
        let at = |word: &str| text.find(word).unwrap();
        let loc = |word: &str, with: &str| Replacement {
            entity_type: EntityType::Loc,
            text: with.to_owned(),
            ..deletion(at(word), at(word) + word.len())
        };
        assert_eq!(
            render(text, &[loc("Mumbai", "a city in India")]),
            "Born in a city, India, she studied in Oslo, the United States and Norway."
        );
        // Not a place that differs, nor one that is a span itself.
        assert_eq!(
            render(text, &[loc("Oslo", "a city in Norway")]),
            "Born in Mumbai, India, she studied in a city in Norway, the United States and Norway."
        );
        assert_eq!(
            render(
                text,
                &[loc("Mumbai", "a city in India"), loc("India", "a country")]
            ),
            "Born in a city in India, a country, she studied in Oslo, the United States and Norway."
        );
        assert_eq!(
            render(text, &[loc("Oslo", "a city in the United States")]),
            "Born in Mumbai, India, she studied in a city, the United States and Norway."
        );
    }

    #[test]
    fn a_century_before_the_noun_it_modifies_is_hyphenated() {
        let text = "Her 1993 single was a hit in 1994 and 1995 saw a tour.";
        let out = render(
            text,
            &[
                year(text, "1993", "the 20th century"),
                year(text, "1994", "the 20th century"),
                year(text, "1995", "the 20th century"),
            ],
        );
        assert_eq!(
            out,
            "Her 20th-century single was a hit in the 20th century and the 20th century saw a tour."
        );
    }

    #[test]
    fn two_ends_of_a_period_on_one_rung_say_it_once() {
        let text = "She served from 1942 to 1945. He reigned (1804–1806), between 1950 and 1953, \
                    moved from 1960 to 1969 and was away 1970 to 1974.";
        let year = |word: &str, rung: &str| year(text, word, rung);
        let replacements = [
            year("1942", "the 20th century"),
            year("1945", "the 20th century"),
            year("1804", "about 1805"),
            year("1806", "about 1805"),
            year("1950", "the early 1950s"),
            year("1953", "the early 1950s"),
            // Ends on different rungs keep both.
            year("1960", "the early 1960s"),
            year("1969", "the late 1960s"),
            // `to` without `from` may be no period (`postponed 1970 to 1974`).
            year("1970", "the 1970s"),
            year("1974", "the 1970s"),
        ];
        let (out, ranges) = render_with_ranges(text, &replacements);
        assert_eq!(
            out,
            "She served in the 20th century. He reigned (about 1805), in the early 1950s, \
             moved from the early 1960s to the late 1960s and was away the 1970s to the 1970s."
        );
        let shown = |index: usize| {
            out.chars()
                .skip(ranges[index].start)
                .take(ranges[index].len())
                .collect::<String>()
        };
        assert_eq!(shown(0), "the 20th century");
        assert!(ranges[1] == ranges[0] && ranges[3] == ranges[2] && ranges[5] == ranges[4]);
        assert_eq!(shown(4), "the early 1950s");
        // The attacker is shown each candidate where it stands.
        let bracketed: Vec<Replacement> = replacements[..2]
            .iter()
            .map(|replacement| Replacement {
                bracketed: true,
                ..replacement.clone()
            })
            .collect();
        assert_eq!(
            render(text, &bracketed),
            text.replacen("1942", "[[the 20th century]]", 1).replacen(
                "1945",
                "[[the 20th century]]",
                1
            )
        );
    }

    #[test]
    fn a_phrase_after_a_time_opens_a_clause_and_keeps_its_article() {
        let text = "At the end of the season Zorblax was relegated; the former Alpha stayed.";
        let at = |word: &str| text.find(word).unwrap();
        let phrase = |start: usize, end: usize, text: &str| Replacement {
            entity_type: EntityType::Org,
            text: text.to_owned(),
            ..deletion(start, end)
        };
        let out = render(
            text,
            &[
                phrase(at("Zorblax"), at("Zorblax") + 7, "a sports team"),
                phrase(at("Alpha"), at("Alpha") + 5, "a club"),
            ],
        );
        assert_eq!(
            out,
            "At the end of the season a sports team was relegated; the former club stayed."
        );
        // An amount after its receiver keeps its article.
        let text = "The court awarded the applicant EUR 5,000.";
        let at = text.find("EUR").unwrap();
        let amount = Replacement {
            entity_type: EntityType::Quantity,
            text: "a four-figure sum".to_owned(),
            ..deletion(at, at + 9)
        };
        assert_eq!(
            render(text, &[amount]),
            "The court awarded the applicant a four-figure sum."
        );
    }

    #[test]
    fn an_article_after_a_determiner_and_proper_adjectives_goes() {
        let text = "He is a former Nigerian senator and the United States envoy.";
        let at = |word: &str| text.find(word).unwrap();
        let phrase = |start: usize, end: usize, text: &str| Replacement {
            entity_type: EntityType::Dem,
            text: text.to_owned(),
            ..deletion(start, end)
        };
        let out = render(
            text,
            &[
                phrase(at("senator"), at("senator") + 7, "a legislator"),
                phrase(at("envoy"), at("envoy") + 5, "a diplomat"),
            ],
        );
        assert_eq!(
            out,
            "He is a former Nigerian legislator and the United States diplomat."
        );
    }

    #[test]
    fn labels_take_the_article_of_their_word_and_units_keep_their_label() {
        let text =
            "when a dove appeared, an actress, former model, in the 80 kg event with 12 rivals";
        let at = |word: &str| text.find(word).unwrap();
        let label = |start: usize, end: usize, entity_type: EntityType, text: &str| Replacement {
            entity_type,
            text: text.to_owned(),
            label: true,
            fallback: true,
            ..deletion(start, end)
        };
        let out = render(
            text,
            &[
                label(at("dove"), at("dove") + 4, EntityType::Misc, "MISC 1"),
                Replacement {
                    entity_type: EntityType::Dem,
                    text: "a performer".to_owned(),
                    ..deletion(at("model"), at("model") + 5)
                },
                label(
                    at("80 kg"),
                    at("80 kg") + 5,
                    EntityType::Quantity,
                    "QUANTITY 1",
                ),
                label(at("12"), at("12") + 2, EntityType::Quantity, "QUANTITY 2"),
            ],
        );
        assert_eq!(
            out,
            "when a MISC 1 appeared, an actress, former performer, in the QUANTITY 1 event with a number of rivals"
        );
        let org = render("an angel", &[label(3, 8, EntityType::Org, "ORG 1")]);
        assert_eq!(org, "an ORG 1");
    }

    #[test]
    fn a_possessive_or_a_determiner_and_a_number_takes_the_article() {
        let phrase = |text: &str, span: &str, with: &str| {
            let start = text.find(span).unwrap();
            Replacement {
                text: with.to_owned(),
                ..deletion(start, start + span.len())
            }
        };
        let text = "from Ohio's 9th district in 2000";
        assert_eq!(
            render(
                text,
                &[phrase(text, "9th district", "a congressional district")]
            ),
            "from Ohio's congressional district in 2000"
        );
        let text = "during the 1987 Cricket World Cup.";
        assert_eq!(
            render(text, &[phrase(text, "Cricket World Cup", "a world cup")]),
            "during the 1987 world cup."
        );
        let text = "in 1986's Zorbs Movie.";
        assert_eq!(
            render(text, &[phrase(text, "Zorbs Movie", "a film")]),
            "in 1986's film."
        );
        let text = "was the 15th Chief Engineer and its fourth Head Warden.";
        assert_eq!(
            render(
                text,
                &[
                    phrase(text, "Chief Engineer", "an engineer"),
                    phrase(text, "Head Warden", "a warden")
                ]
            ),
            "was the 15th engineer and its fourth warden."
        );
        // A pronoun's `is` and a number alone keep it.
        let text = "He said it's Oslo.";
        assert_eq!(
            render(text, &[phrase(text, "Oslo", "a city")]),
            "He said it's a city."
        );
        let text = "in 1991 Oslo grew.";
        assert_eq!(
            render(text, &[phrase(text, "Oslo", "a city")]),
            "in 1991 a city grew."
        );
    }

    #[test]
    fn a_count_fallen_back_reads_a_number_of_except_for_one() {
        let fallback = |text: &str, span: &str| {
            let start = text.find(span).unwrap();
            Replacement {
                text: "QUANTITY 1".to_owned(),
                entity_type: EntityType::Quantity,
                label: true,
                fallback: true,
                ..deletion(start, start + span.len())
            }
        };
        let text = "has 12 sons";
        assert_eq!(
            render(text, &[fallback(text, "12")]),
            "has a number of sons"
        );
        let text = "has one daughter";
        assert_eq!(
            render(text, &[fallback(text, "one")]),
            "has QUANTITY 1 daughter"
        );
    }

    #[test]
    fn a_phrase_after_an_abbreviation_opens_no_sentence() {
        let phrase = |text: &str, span: &str| {
            let start = text.find(span).unwrap();
            Replacement {
                text: "a team".to_owned(),
                ..deletion(start, start + span.len())
            }
        };
        let text = "a win vs. the Oslo Vikings. Zorblax won.";
        assert_eq!(
            render(
                text,
                &[phrase(text, "the Oslo Vikings"), phrase(text, "Zorblax")]
            ),
            "a win vs. a team. A team won."
        );
    }

    #[test]
    fn quotes_around_a_left_out_name_go_with_it() {
        let text = "the film \"Alpha\" won";
        let start = text.find("Alpha").unwrap();
        assert_eq!(render(text, &[deletion(start, start + 5)]), "the film won");
    }

    /// Deletions of each of `names` in `text` (each found after the previous one).
    fn deletions(text: &str, names: &[&str]) -> Vec<Replacement> {
        let mut from = 0;
        names
            .iter()
            .map(|name| {
                let byte = from + text[from..].find(name).unwrap();
                from = byte + name.len();
                let start = text[..byte].chars().count();
                deletion(start, start + name.chars().count())
            })
            .collect()
    }

    #[test]
    fn a_list_left_out_takes_its_separators_brackets_and_opener() {
        for (text, names, expected) in [
            (
                "He wrote the films Alpha, Beta Gamma, and Delta, and directed Omega.",
                &["Alpha", "Beta Gamma", "Delta"][..],
                "He wrote the films, and directed Omega.",
            ),
            (
                "on her two latest albums (Alpha, Beta and Gamma).",
                &["Alpha", "Beta", "Gamma"][..],
                "on her two latest albums.",
            ),
            (
                "He has recorded six albums, including Alpha and Beta; he tours.",
                &["Alpha", "Beta"][..],
                "He has recorded six albums; he tours.",
            ),
            (
                "the tracks \"Alpha\", \"Beta\" and \"Gamma\". Then",
                &["Alpha", "Beta", "Gamma"][..],
                "the tracks. Then",
            ),
            (
                "the tracks \"Alpha\", \"Beta\" and \"Gamma\". Then",
                &["Alpha", "Beta\"", "Gamma"][..],
                "the tracks. Then",
            ),
            (
                "a second album entitled Alpha, which",
                &["Alpha"][..],
                "a second album, which",
            ),
            (
                "a five-track EP titled \"Alpha\" and a tour",
                &["Alpha"][..],
                "a five-track EP and a tour",
            ),
            // Two names apart without a list separator keep what is between them.
            (
                "In the film Alpha, Beta plays.",
                &["Alpha"][..],
                "In the film, Beta plays.",
            ),
        ] {
            assert_eq!(render(text, &deletions(text, names)), expected, "{text}");
        }
        // The separators before a member that stays are kept.
        let text = "the films Alpha, Beta and Gamma.";
        let mut replacements = deletions(text, &["Alpha", "Beta"]);
        let start = text.find("Gamma").unwrap();
        replacements.push(Replacement {
            text: "MISC 3".to_owned(),
            label: true,
            ..deletion(start, start + 5)
        });
        assert_eq!(render(text, &replacements), "the films MISC 3.");
        let (_, ranges) = render_with_ranges(text, &replacements);
        assert_eq!(ranges.len(), 3);
        assert!(ranges.windows(2).all(|pair| pair[0].end <= pair[1].start));
    }
}
