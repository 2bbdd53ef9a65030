//! How surprising each part of a text is to a language model: the log-probability of each of its
//! tokens given the text before it. Information-content measures (TPS, information-weighted
//! precision) are built on it.
//!
//! ```
//! use kanon_llm::score::{ScoredToken, SpanInformation, TextScorer, information_content};
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
//! let text: Vec<char> = "Vienna".chars().collect();
//! let tokens = Coin.token_logprobs("Vienna")?;
//! // "Vienna" is 6 characters, 6 bits: 6 ln 2 nats; its least probable token, 1 bit.
//! let ic = information_content(&text, &tokens, 0, 6, SpanInformation::Sum);
//! assert!((ic - 6.0 * std::f64::consts::LN_2).abs() < 1e-6);
//! let ic = information_content(&text, &tokens, 0, 6, SpanInformation::MinProbability);
//! assert!((ic - std::f64::consts::LN_2).abs() < 1e-6);
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

/// How a span's information content is drawn from the surprisals (−log p) of its tokens.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SpanInformation {
    /// The sum of its tokens' surprisals: −log of the probability of the span as a whole given
    /// the text before it (the chain rule). A token partly outside the span counts in proportion
    /// to the share of its characters inside, whitespace aside. kanon's default.
    #[default]
    Sum,
    /// The surprisal of its least probable token: −log of the minimum token probability over
    /// the span (Pilán et al.'s definition of a term's information content in TPS). Every token
    /// with a character of the span's content counts whole.
    MinProbability,
}

kanon_core::named_choices!(
    SpanInformation,
    "span information",
    [Sum = "sum", MinProbability = "min-probability"]
);

impl SpanInformation {
    /// What it computes, as a report names it.
    pub fn describe(self) -> &'static str {
        match self {
            SpanInformation::Sum => "the sum of its tokens' surprisals",
            SpanInformation::MinProbability => "−log of its least probable token's probability",
        }
    }
}

/// The information content (−log p, in nats) of the characters `[start, end)` of `text`, whose
/// tokens (sorted by position) are `tokens`: by `measure`, the sum of the surprisals of the
/// tokens that overlap those characters, or the largest of them. Whitespace is not content: a
/// token ` Oslo` whose leading space lies before the span counts as wholly inside it, and a token
/// that shares only whitespace with the span does not count. A token of whitespace alone is
/// prorated by its characters.
pub fn information_content(
    text: &[char],
    tokens: &[ScoredToken],
    start: usize,
    end: usize,
    measure: SpanInformation,
) -> f64 {
    let first = tokens.partition_point(|t| t.end <= start);
    let content = |from: usize, to: usize| {
        text.get(from.min(text.len())..to.min(text.len()))
            .map_or(0, |chars| {
                chars.iter().filter(|c| !c.is_whitespace()).count()
            })
    };
    let shares = tokens[first..]
        .iter()
        .take_while(|t| t.start < end)
        .map(|t| {
            let (from, to) = (t.start.max(start), t.end.min(end));
            let inside = content(from, to);
            let whole = content(t.start, t.end);
            let share = if whole == 0 {
                to.saturating_sub(from) as f64 / (t.end - t.start).max(1) as f64
            } else {
                inside as f64 / whole as f64
            };
            (share, -f64::from(t.logprob))
        })
        .filter(|&(share, _)| share > 0.0);
    match measure {
        SpanInformation::Sum => shares.map(|(share, surprisal)| share * surprisal).sum(),
        SpanInformation::MinProbability => {
            shares.map(|(_, surprisal)| surprisal).fold(0.0, f64::max)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{ScoredToken, SpanInformation, information_content};

    /// `She lives in Oslo.` as a BPE model reads it: leading spaces belong to the next word.
    fn oslo() -> (Vec<char>, Vec<ScoredToken>) {
        let text: Vec<char> = "She lives in Oslo.".chars().collect();
        let token = |start, end, logprob| ScoredToken {
            start,
            end,
            logprob,
        };
        let tokens = vec![
            token(0, 3, -1.0),    // She
            token(3, 9, -2.0),    // " lives"
            token(9, 12, -0.5),   // " in"
            token(12, 15, -4.0),  // " Os"
            token(15, 17, -1.5),  // "lo"
            token(17, 18, -0.25), // "."
        ];
        (text, tokens)
    }

    #[test]
    fn a_leading_space_outside_the_span_is_not_content() {
        let (text, tokens) = oslo();
        // `Oslo` is characters 13..17; its first token ` Os` starts at the space before it.
        let sum = information_content(&text, &tokens, 13, 17, SpanInformation::Sum);
        assert!((sum - 5.5).abs() < 1e-9, "{sum}");
        let min = information_content(&text, &tokens, 13, 17, SpanInformation::MinProbability);
        assert!((min - 4.0).abs() < 1e-9, "{min}");
        // `lives` likewise: ` lives` is wholly its token.
        let lives = information_content(&text, &tokens, 4, 9, SpanInformation::Sum);
        assert!((lives - 2.0).abs() < 1e-9, "{lives}");
        // A span that ends in a space does not take the next token's surprisal.
        let with_space = information_content(&text, &tokens, 4, 10, SpanInformation::Sum);
        assert!((with_space - 2.0).abs() < 1e-9, "{with_space}");
        // A token shared with a neighbour still counts by its content inside: `Os` of ` Os`.
        let part = information_content(&text, &tokens, 13, 15, SpanInformation::Sum);
        assert!((part - 4.0).abs() < 1e-9, "{part}");
        let half = information_content(&text, &tokens, 13, 14, SpanInformation::Sum);
        assert!((half - 2.0).abs() < 1e-9, "{half}");
    }

    #[test]
    fn the_paper_takes_the_least_probable_token() {
        let (text, tokens) = oslo();
        // `lives in Oslo`: sum 2 + 0.5 + 4 + 1.5; the least probable token, ` Os` (e^-4).
        let sum = information_content(&text, &tokens, 4, 17, SpanInformation::Sum);
        assert!((sum - 8.0).abs() < 1e-9, "{sum}");
        let min = information_content(&text, &tokens, 4, 17, SpanInformation::MinProbability);
        assert!((min - 4.0).abs() < 1e-9, "{min}");
        assert_eq!(
            information_content(&text, &tokens, 18, 18, SpanInformation::MinProbability),
            0.0
        );
        assert_eq!(
            "min-probability".parse::<SpanInformation>(),
            Ok(SpanInformation::MinProbability)
        );
    }
}
