//! Whether an attacker's guess recovers the original span: the matching function of the inference
//! attack.
//!
//! A guess matches when
//! - it is the original, normalised;
//! - their lemma sets overlap (stopwords, non-alphabetic tokens and very frequent words excluded;
//!   kanon's variant also excludes the words the candidate itself shows);
//! - for named entities (every type but DATETIME and QUANTITY), two such words share a character
//!   4-gram (`Norway` ~ `Norwegian`; kanon's variant: enough of them, `Gujarati` ~ `Gujarat`);
//! - one is the acronym of the other (`BJP` ~ `Bharatiya Janata Party`);
//! - for dates: both parse to the same date, or all their lemmas (numbers included) agree.

use std::collections::BTreeSet;

use kanon_core::EntityType;
use serde::{Deserialize, Serialize};

use crate::config::NgramMatch;
use crate::{date, lemma};

/// Which rule made a guess match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MatchRule {
    /// The guess is the original, normalised.
    Exact,
    /// They share a lemma (stopwords and very frequent words aside).
    Lemma,
    /// Words of a named entity share character 4-grams (per [`NgramMatch`]).
    CharNgram,
    /// One is the acronym of the other.
    Acronym,
    /// A DATETIME span: both parse to the same date, or (when one does not parse) all their
    /// lemmas, numbers included, agree.
    Date,
}

/// The knobs of the matching function (from [`crate::SanitizerConfig`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MatchConfig {
    /// When two words of a named entity spell the same name.
    pub ngram_match: NgramMatch,
    /// Words the candidate shows do not count when the guess repeats them.
    pub ignore_candidate_words: bool,
}

impl Default for MatchConfig {
    /// INTACT's matching: any shared lemma, any shared 4-gram of a named entity's words.
    fn default() -> Self {
        MatchConfig {
            ngram_match: NgramMatch::AnyShared,
            ignore_candidate_words: false,
        }
    }
}

/// Whether `guess` recovers `original` (a span of type `entity_type` shown to the attacker as
/// `candidate`), and by which rule.
pub fn guess_matches(
    original: &str,
    guess: &str,
    entity_type: EntityType,
    candidate: &str,
    config: &MatchConfig,
) -> Option<MatchRule> {
    let normalized_original = kanon_core::text::words(original);
    if !normalized_original.is_empty() && normalized_original == kanon_core::text::words(guess) {
        return Some(MatchRule::Exact);
    }
    if entity_type == EntityType::Datetime {
        let agree = match date::same_date(original, guess) {
            Some(same) => same,
            None => {
                let lemmas = lemma::all_lemmas(original);
                !lemmas.is_empty() && lemmas == lemma::all_lemmas(guess)
            }
        };
        return agree.then_some(MatchRule::Date);
    }
    let disclosed: BTreeSet<String> = if config.ignore_candidate_words {
        lemma::content_lemmas(candidate)
    } else {
        BTreeSet::new()
    };
    let original_lemmas: BTreeSet<String> = lemma::content_lemmas(original)
        .difference(&disclosed)
        .cloned()
        .collect();
    let guess_lemmas = lemma::content_lemmas(guess);
    if original_lemmas.intersection(&guess_lemmas).next().is_some() {
        return Some(MatchRule::Lemma);
    }
    if is_named(entity_type) && ngram_match(original, guess, &disclosed, config.ngram_match) {
        return Some(MatchRule::CharNgram);
    }
    if acronym_match(original, guess) || acronym_match(guess, original) {
        return Some(MatchRule::Acronym);
    }
    None
}

/// Types whose spans are names, where spelling variants count as recovery.
fn is_named(entity_type: EntityType) -> bool {
    !matches!(entity_type, EntityType::Datetime | EntityType::Quantity)
}

fn char_ngrams(word: &str) -> BTreeSet<&str> {
    let boundaries: Vec<usize> = word
        .char_indices()
        .map(|(i, _)| i)
        .chain([word.len()])
        .collect();
    boundaries
        .windows(5)
        .filter_map(|window| word.get(window[0]..window[4]))
        .collect()
}

/// Two content words (four letters or more, not disclosed by the candidate) that share a 4-gram,
/// or whose 4-gram sets have a Dice coefficient of at least the threshold.
fn ngram_match(
    original: &str,
    guess: &str,
    disclosed: &BTreeSet<String>,
    rule: NgramMatch,
) -> bool {
    let content = |phrase: &str| -> Vec<String> {
        lemma::words(phrase)
            .into_iter()
            .filter(|word| {
                lemma::is_content_word(word)
                    && word.chars().count() >= 4
                    && !disclosed.contains(&lemma::lemma(word))
            })
            .collect()
    };
    let guess_words = content(guess);
    content(original).iter().any(|original_word| {
        let original_grams = char_ngrams(original_word);
        guess_words.iter().any(|guess_word| {
            let guess_grams = char_ngrams(guess_word);
            let shared = original_grams.intersection(&guess_grams).count();
            let total = original_grams.len() + guess_grams.len();
            match rule {
                NgramMatch::AnyShared => shared > 0,
                NgramMatch::Dice { threshold } => {
                    total > 0 && 2.0 * shared as f32 / total as f32 >= threshold
                }
            }
        })
    })
}

/// Whether a token of `short` written in capitals (`BJP`, `U.S.`) is the acronym of `long`'s words:
/// their initials, with or without the stopwords.
fn acronym_match(short: &str, long: &str) -> bool {
    let long_words: Vec<&str> = long
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .collect();
    if long_words.len() < 2 {
        return false;
    }
    let initials = |skip_stopwords: bool| -> String {
        long_words
            .iter()
            .filter(|word| !skip_stopwords || !lemma::is_stopword(&word.to_lowercase()))
            .filter_map(|word| word.chars().next())
            .flat_map(char::to_lowercase)
            .collect()
    };
    let acronyms = [initials(true), initials(false)];
    short
        .split(|c: char| c.is_whitespace() || c == ',' || c == ';')
        .map(|token| token.replace('.', ""))
        .filter(|token| {
            token.chars().count() >= 2
                && token.chars().filter(|c| c.is_uppercase()).count() >= 2
                && token.chars().all(char::is_alphabetic)
        })
        .any(|token| {
            let token = token.to_lowercase();
            acronyms
                .iter()
                .any(|acronym| acronym.len() >= 2 && *acronym == token)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn four_grams_of_short_words() {
        assert_eq!(char_ngrams("oslo").len(), 1);
        assert!(char_ngrams("osl").is_empty());
        assert_eq!(char_ngrams("zürich").len(), 3);
    }
}
