//! `ic-threshold` (Albanese et al., 2023, *Text Sanitization Beyond Specific Domains*): a language
//! model reads the document and gives each word its probability in context (the product of its
//! tokens' probabilities given the text before them); a word less probable than a threshold
//! carries information the context does not predict, and is masked.

use kanon_core::{Document, Span};
use kanon_llm::score::{SpanInformation, TextScorer, information_content};

use crate::words::Words;
use crate::{Detector, Error, Result};

/// Masks the words whose in-context probability is below `min_probability`.
pub struct InformationThreshold<S> {
    scorer: S,
    min_probability: f64,
}

impl<S> std::fmt::Debug for InformationThreshold<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InformationThreshold")
            .field("min_probability", &self.min_probability)
            .finish_non_exhaustive()
    }
}

impl<S: TextScorer> InformationThreshold<S> {
    /// `min_probability` in `(0, 1)`: 1e-5 masks a word a model finds rarer than one in 100,000.
    pub fn new(scorer: S, min_probability: f64) -> Result<Self> {
        if !(min_probability > 0.0 && min_probability < 1.0) {
            return Err(Error::Setting(format!(
                "the probability threshold must be in (0, 1), not {min_probability}"
            )));
        }
        Ok(InformationThreshold {
            scorer,
            min_probability,
        })
    }
}

impl<S: TextScorer> Detector for InformationThreshold<S> {
    fn detect(&self, doc: &Document) -> Result<Vec<Span>> {
        let tokens = self
            .scorer
            .token_logprobs(&doc.text)
            .map_err(|source| Error::Scorer {
                id: doc.id.clone(),
                source,
            })?;
        let words = Words::of(&doc.text);
        let chars: Vec<char> = doc.text.chars().collect();
        // −ln p > −ln threshold: compared in nats, no underflow for long words. A word's
        // probability is the product of its tokens' (the sum of their surprisals).
        let max_information = -self.min_probability.ln();
        let mut masked: Vec<bool> = words
            .spans
            .iter()
            .map(|s| {
                information_content(&chars, &tokens, s.start, s.end, SpanInformation::Sum)
                    > max_information
            })
            .collect();
        words.propagate(&mut masked);
        Ok(words.spans_of(&masked, &doc.text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kanon_llm::ModelId;
    use kanon_llm::score::ScoredToken;

    /// A model that finds capitalised words improbable (one token per character).
    struct Capitals;
    impl TextScorer for Capitals {
        fn id(&self) -> ModelId {
            ModelId::new("test", "capitals")
        }
        fn token_logprobs(&self, text: &str) -> kanon_llm::Result<Vec<ScoredToken>> {
            let mut in_capital_word = false;
            Ok(text
                .chars()
                .enumerate()
                .map(|(i, c)| {
                    if !c.is_alphanumeric() {
                        in_capital_word = false;
                    } else if c.is_uppercase() {
                        in_capital_word = true;
                    }
                    ScoredToken {
                        start: i,
                        end: i + 1,
                        logprob: if in_capital_word { -3.0 } else { -0.1 },
                    }
                })
                .collect())
        }
    }

    #[test]
    fn words_below_the_threshold_are_masked_everywhere() {
        let doc = Document {
            id: "d".into(),
            person: None,
            text: "the singer Vigdis met Ola in Oslo; vigdis sang".into(),
            split: None,
        };
        // Ola: 9 nats, Oslo 12, Vigdis 18: a threshold of e^-10 keeps Ola.
        let detector = InformationThreshold::new(Capitals, (-10.0f64).exp()).unwrap();
        let spans = detector.detect(&doc).unwrap();
        assert_eq!(
            spans,
            [Span::new(11, 17), Span::new(29, 33), Span::new(35, 41)]
        );
        let strict = InformationThreshold::new(Capitals, (-5.0f64).exp()).unwrap();
        assert_eq!(strict.detect(&doc).unwrap().len(), 4);
        assert!(InformationThreshold::new(Capitals, 0.0).is_err());
    }

    /// A model that reads words as BPE does, each with its leading space, and finds capitalised
    /// words improbable: e^-10 for the whole token.
    struct LeadingSpaces;
    impl TextScorer for LeadingSpaces {
        fn id(&self) -> ModelId {
            ModelId::new("test", "leading-spaces")
        }
        fn token_logprobs(&self, text: &str) -> kanon_llm::Result<Vec<ScoredToken>> {
            let chars: Vec<char> = text.chars().collect();
            let mut tokens = Vec::new();
            let mut start = 0;
            while start < chars.len() {
                let mut end = start;
                while end < chars.len() && chars[end] == ' ' {
                    end += 1;
                }
                let capital = chars.get(end).is_some_and(|c| c.is_uppercase());
                while end < chars.len() && chars[end] != ' ' {
                    end += 1;
                }
                tokens.push(ScoredToken {
                    start,
                    end,
                    logprob: if capital { -10.0 } else { -0.1 },
                });
                start = end;
            }
            Ok(tokens)
        }
    }

    #[test]
    fn a_token_s_leading_space_is_not_part_of_the_word() {
        let doc = Document {
            id: "d".into(),
            person: None,
            text: "we met in Oslo".into(),
            split: None,
        };
        // ` Oslo` carries all of its 10 nats: the word is masked at e^-9 (not 4/5 of them).
        let detector = InformationThreshold::new(LeadingSpaces, (-9.0f64).exp()).unwrap();
        assert_eq!(detector.detect(&doc).unwrap(), [Span::new(10, 14)]);
    }
}
