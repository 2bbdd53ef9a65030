//! How surprising each part of a text is to a language model: the log-probability of each of its
//! tokens given the text before it. Information-content measures (TPS, information-weighted
//! precision) are built on it.
//!
//! ```
//! use kanon_llm::score::{ScoredToken, TextScorer, information_content};
//! use kanon_llm::ModelId;
//!
//! /// Every character is a token of probability ½.
//! struct Coin;
//! impl TextScorer for Coin {
//!     fn id(&self) -> ModelId { ModelId::new("test", "coin") }
//!     fn token_logprobs(&self, text: &str) -> kanon_llm::Result<Vec<ScoredToken>> {
//!         Ok((0..text.chars().count())
//!             .map(|i| ScoredToken { start: i, end: i + 1, logprob: -std::f32::consts::LN_2 })
//!             .collect())
//!     }
//! }
//! let tokens = Coin.token_logprobs("Vienna")?;
//! // "Vienna" is 6 characters, 6 bits: 6 ln 2 nats.
//! let ic = information_content(&tokens, 0, 6);
//! assert!((ic - 6.0 * std::f64::consts::LN_2).abs() < 1e-6);
//! # Ok::<(), kanon_llm::Error>(())
//! ```

use serde::{Deserialize, Serialize};

use crate::{ModelId, Result};

/// One token of a scored text: its characters `[start, end)` in the text and its log-probability
/// (natural log) given everything before it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ScoredToken {
    /// The token's first character in the text.
    pub start: usize,
    /// One past the token's last character in the text.
    pub end: usize,
    /// The natural log of the token's probability given the text before it (≤ 0).
    pub logprob: f32,
}

/// A language model that scores a given text rather than writing one.
pub trait TextScorer: Send + Sync {
    /// Which model scores: part of any cache key and of every report that uses its figures.
    fn id(&self) -> ModelId;

    /// The text's tokens in order, covering it, each with its log-probability given the tokens
    /// before it (the first given only the start of a text).
    fn token_logprobs(&self, text: &str) -> Result<Vec<ScoredToken>>;
}

impl<S: TextScorer + ?Sized> TextScorer for std::sync::Arc<S> {
    fn id(&self) -> ModelId {
        (**self).id()
    }
    fn token_logprobs(&self, text: &str) -> Result<Vec<ScoredToken>> {
        (**self).token_logprobs(text)
    }
}

/// The information content (−log p, in nats) of the characters `[start, end)`: the surprisal of
/// every token that overlaps them, a token shared with a neighbour counted in proportion to the
/// share of its characters inside. `tokens` must be sorted by position.
pub fn information_content(tokens: &[ScoredToken], start: usize, end: usize) -> f64 {
    let first = tokens.partition_point(|t| t.end <= start);
    tokens[first..]
        .iter()
        .take_while(|t| t.start < end)
        .map(|t| {
            let inside = t.end.min(end).saturating_sub(t.start.max(start));
            let share = inside as f64 / (t.end - t.start).max(1) as f64;
            -f64::from(t.logprob) * share
        })
        .sum()
}
