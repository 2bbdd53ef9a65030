//! The `substitute` strategy (Albanese et al., 2023, *Text Sanitization Beyond Specific Domains*):
//! each word of a masked span is replaced by a word close to it in meaning, drawn at random among
//! its nearest neighbours in an embedding space, so that the text keeps its shape and some of its
//! sense while the original word is gone; a number keeps its format with other digits.
//!
//! ```
//! use kanon_sanitize::substitute::{Substitutes, substitute};
//! use rand::SeedableRng;
//!
//! /// Neighbours from a table.
//! struct Table;
//! impl Substitutes for Table {
//!     fn nearest(&self, word: &str, n: usize) -> kanon_sanitize::Result<Vec<String>> {
//!         let all = match word {
//!             "oslo" => vec!["bergen", "stockholm"],
//!             _ => vec![],
//!         };
//!         Ok(all.into_iter().take(n).map(String::from).collect())
//!     }
//! }
//! let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
//! let out = substitute("Oslo, 1955", &Table, 2, &mut rng)?;
//! assert!(out.starts_with("Bergen, ") || out.starts_with("Stockholm, "), "{out}");
//! assert_eq!(out.len() - out.find(", ").unwrap(), ", 1955".len());
//! assert!(!out.ends_with("1955"));
//! # Ok::<(), kanon_sanitize::Error>(())
//! ```

use rand::Rng;
use rand::seq::IndexedRandom;

use crate::error::{Error, Result};
use crate::lemma::{is_stopword, lemma};

/// Words close in meaning to a word.
pub trait Substitutes: Send + Sync {
    /// Up to `n` words of its vocabulary closest in meaning to `word` (folded), closest first;
    /// none that holds `word` or shares its lemma.
    fn nearest(&self, word: &str, n: usize) -> Result<Vec<String>>;
}

/// Nearest words by the cosine of sentence-encoder embeddings, over the encoder's own
/// vocabulary of whole words (for all-MiniLM-L6-v2: about 20,000 English words).
pub struct EmbeddingSubstitutes {
    encoder: kanon_tagger::encoder::SentenceEncoder,
    words: Vec<String>,
    /// Unit vectors, `words.len()` rows of `dim`.
    vectors: Vec<f32>,
    dim: usize,
}

impl std::fmt::Debug for EmbeddingSubstitutes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmbeddingSubstitutes")
            .field("words", &self.words.len())
            .field("dim", &self.dim)
            .finish_non_exhaustive()
    }
}

/// Words of the vocabulary considered: at least this many letters.
const MIN_LETTERS: usize = 3;

impl EmbeddingSubstitutes {
    /// Embeds the encoder's vocabulary (a few seconds for MiniLM).
    pub fn new(encoder: kanon_tagger::encoder::SentenceEncoder) -> Result<Self> {
        let words: Vec<String> = encoder
            .tokenizer()
            .whole_words(MIN_LETTERS)
            .into_iter()
            .filter(|w| !is_stopword(w))
            .collect();
        let refs: Vec<&str> = words.iter().map(String::as_str).collect();
        let rows = encoder.embed(&refs).map_err(Error::Encoder)?;
        let dim = rows.first().map_or(0, Vec::len);
        Ok(EmbeddingSubstitutes {
            encoder,
            words,
            vectors: rows.into_iter().flatten().collect(),
            dim,
        })
    }
}

impl Substitutes for EmbeddingSubstitutes {
    fn nearest(&self, word: &str, n: usize) -> Result<Vec<String>> {
        let query = self
            .encoder
            .embed(&[word])
            .map_err(Error::Encoder)?
            .remove(0);
        let mut scored: Vec<(f32, usize)> = self
            .vectors
            .chunks_exact(self.dim.max(1))
            .map(|row| row.iter().zip(&query).map(|(a, b)| a * b).sum::<f32>())
            .zip(0..)
            .collect();
        let own = lemma(word);
        // A word that holds the original (or is held by it) gives it away: `judgement`.
        scored.retain(|&(_, i)| {
            let candidate = &self.words[i];
            !candidate.contains(word)
                && !word.contains(candidate.as_str())
                && lemma(candidate) != own
        });
        let n = n.min(scored.len());
        if n > 0 {
            scored.select_nth_unstable_by(n - 1, |a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        }
        scored.truncate(n);
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        Ok(scored
            .into_iter()
            .map(|(_, i)| self.words[i].clone())
            .collect())
    }
}

/// `text` with each word replaced by one of the `top` nearest words of `substitutes` (at random,
/// the case of the original kept) and each digit by another digit (a leading non-zero digit
/// stays non-zero); everything else is kept. A word without a neighbour becomes `***`.
pub fn substitute(
    text: &str,
    substitutes: &dyn Substitutes,
    top: usize,
    rng: &mut impl Rng,
) -> Result<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut kept_to = 0;
    for range in kanon_core::text::word_ranges(&chars) {
        out.extend(&chars[kept_to..range.start]);
        kept_to = range.end;
        let word: String = chars[range].iter().collect();
        if word.chars().any(|c| c.is_ascii_digit()) {
            out += &other_digits(&word, rng);
            continue;
        }
        let nearest = substitutes.nearest(&word.to_lowercase(), top)?;
        match nearest.choose(rng) {
            Some(choice) => out += &with_case_of(choice, &word),
            None => out += "***",
        }
    }
    out.extend(&chars[kept_to..]);
    Ok(out)
}

/// Every ASCII digit replaced by a random one, never by itself; a number's first digit stays
/// non-zero.
fn other_digits(word: &str, rng: &mut impl Rng) -> String {
    let mut previous_digit = false;
    word.chars()
        .map(|c| {
            let leading = !previous_digit;
            previous_digit = c.is_ascii_digit();
            let Some(d) = c.to_digit(10) else {
                return c;
            };
            let low = if leading && d != 0 { 1 } else { 0 };
            loop {
                let new = rng.random_range(low..10);
                if new != d {
                    return char::from_digit(new, 10).unwrap_or(c);
                }
            }
        })
        .collect()
}

/// `word` written in the case pattern of `model`: all capitals, a capital first, or lower.
fn with_case_of(word: &str, model: &str) -> String {
    let letters: Vec<char> = model.chars().filter(|c| c.is_alphabetic()).collect();
    if letters.len() > 1 && letters.iter().all(|c| c.is_uppercase()) {
        word.to_uppercase()
    } else if letters.first().is_some_and(|c| c.is_uppercase()) {
        let mut chars = word.chars();
        chars
            .next()
            .map(|c| c.to_uppercase().chain(chars).collect())
            .unwrap_or_default()
    } else {
        word.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    struct Table;
    impl Substitutes for Table {
        fn nearest(&self, word: &str, n: usize) -> Result<Vec<String>> {
            let all = match word {
                "oslo" => vec!["bergen", "stockholm", "helsinki"],
                "nasa" => vec!["esa"],
                _ => vec![],
            };
            Ok(all.into_iter().take(n).map(String::from).collect())
        }
    }

    #[test]
    fn words_take_a_neighbour_in_the_original_case_and_numbers_keep_their_format() {
        let mut seen = std::collections::BTreeSet::new();
        for seed in 0..40 {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            let out = substitute("Oslo (NASA) 1,250 km, 07 May", &Table, 2, &mut rng).unwrap();
            let (city, rest) = out.split_once(' ').unwrap();
            assert!(["Bergen", "Stockholm"].contains(&city), "{out}");
            seen.insert(city.to_owned());
            assert!(rest.starts_with("(ESA) "), "{out}");
            let number = &rest[6..11];
            assert!(
                number.as_bytes()[0] != b'0' && number.as_bytes()[1] == b',',
                "{out}"
            );
            assert_ne!(number, "1,250");
            assert!(rest.ends_with(" ***"), "{out}");
        }
        // The choice is random among the top two.
        assert_eq!(seen.len(), 2);
        // Same seed, same text.
        let run = |seed| {
            substitute(
                "Oslo 1955",
                &Table,
                3,
                &mut rand_chacha::ChaCha8Rng::seed_from_u64(seed),
            )
            .unwrap()
        };
        assert_eq!(run(3), run(3));
    }
}
