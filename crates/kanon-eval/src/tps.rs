//! Text preserved similarity (TPS, Pilán et al., "Truthful Text Sanitization Guided by Inference
//! Attacks"): how much of a document's information survives its sanitization, each term weighted
//! by how informative it is.
//!
//! For each document: its terms are the replaced spans of the edit log (the entities) and every
//! other word that is not a stopword; a term's weight is its information content IC = −log p under
//! a language model; a kept word has similarity 1, a suppressed span (deleted, or replaced by a
//! placeholder with no letter or digit) 0, and a replaced span the cosine of the sentence
//! embeddings of the original and its replacement, clipped to [0, 1]. TPS = Σ IC·sim / Σ IC, and
//! the figure reported is the mean over documents.
//!
//! The information content here comes from a causal language model ([`TextScorer`]): a term's IC
//! is drawn from the surprisals of its tokens given the whole original text before it — their sum
//! (kanon's default: −log of the term's probability as a whole) or, as the paper defines it, the
//! largest (−log of the minimum probability over the term's tokens), by
//! [`TpsEvaluator::information`]; a token's leading space is not part of the term. The paper's masked LM
//! needs every n-th term masked per pass so that a term is predicted from context without seeing
//! itself; a causal model never sees a token before predicting it, so one pass does. Noun phrases
//! are not chunked: a kept phrase counts as its words.
//!
//! ```
//! use kanon_core::Document;
//! use kanon_eval::tps::{TermSimilarity, TpsEvaluator};
//! use kanon_llm::{ModelId, ScoredToken, TextScorer};
//! use kanon_sanitize::SanitizedDocument;
//!
//! /// Every character carries one nat.
//! struct Flat;
//! impl TextScorer for Flat {
//!     fn id(&self) -> ModelId { ModelId::new("test", "flat") }
//!     fn token_logprobs(&self, text: &str) -> kanon_llm::Result<Vec<ScoredToken>> {
//!         Ok((0..text.chars().count()).map(|i| ScoredToken { start: i, end: i + 1, logprob: -1.0 }).collect())
//!     }
//! }
//! /// "a city" keeps half of "Vienna".
//! struct Half;
//! impl TermSimilarity for Half {
//!     fn id(&self) -> String { "half".into() }
//!     fn similarities(&self, pairs: &[(&str, &str)]) -> kanon_eval::Result<Vec<f64>> {
//!         Ok(vec![0.5; pairs.len()])
//!     }
//! }
//! let original = Document { id: "d".into(), person: None, text: "Lilian sang in Vienna".into(), split: None };
//! let sanitized: SanitizedDocument = serde_json::from_str(r#"{"id": "d", "text": "Lilian sang in a city",
//!     "edits": [{"start": 15, "end": 21, "original_type": "LOC", "entity": "LOC 1", "replacement": "a city",
//!                "reason": "not-guessed"}]}"#)?;
//! let report = TpsEvaluator::new(&Flat, &Half).evaluate(&[original], &[sanitized])?;
//! // Terms: Lilian (6 nats, kept), sang (4, kept), Vienna (6, half); "in" is a stopword.
//! assert!((report.tps - (6.0 + 4.0 + 0.5 * 6.0) / 16.0).abs() < 1e-9);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::HashMap;
use std::sync::Mutex;

use kanon_core::Document;
use kanon_llm::score::{SpanInformation, information_content};
use kanon_llm::{ScoredToken, TextScorer};
use kanon_sanitize::{Reason, SanitizedDocument};
use serde::Serialize;

use crate::error::{Error, Result};
use crate::sanitized::{paired, replaced_characters};

/// How similar a replacement is to the text it replaced, in [0, 1].
pub trait TermSimilarity: Send + Sync {
    /// Which model measures: named in every report.
    fn id(&self) -> String;

    /// One similarity in [0, 1] per (original, replacement) pair.
    fn similarities(&self, pairs: &[(&str, &str)]) -> Result<Vec<f64>>;
}

/// The cosine of sentence embeddings, clipped to [0, 1].
impl TermSimilarity for kanon_tagger::encoder::SentenceEncoder {
    fn id(&self) -> String {
        "cosine of mean-pooled sentence embeddings".into()
    }

    fn similarities(&self, pairs: &[(&str, &str)]) -> Result<Vec<f64>> {
        let texts: Vec<&str> = pairs.iter().flat_map(|(a, b)| [*a, *b]).collect();
        let embeddings = self.embed(&texts).map_err(Error::Model)?;
        Ok(embeddings
            .chunks(2)
            .map(|pair| {
                f64::from(kanon_tagger::encoder::cosine(&pair[0], &pair[1])).clamp(0.0, 1.0)
            })
            .collect())
    }
}

/// TPS over a set of sanitized documents, with the estimators that produced it.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct TpsReport {
    /// Mean TPS over the measured documents.
    pub tps: f64,
    /// Documents measured.
    pub documents: usize,
    /// Documents with no term at all (nothing to preserve), not measured.
    pub documents_without_terms: usize,
    /// Terms over all measured documents.
    pub terms: usize,
    /// Of those, terms a span of the edit log replaced.
    pub replaced_terms: usize,
    /// The information-content estimator: the scoring model.
    pub information_content: String,
    /// The similarity estimator.
    pub similarity: String,
}

impl TpsReport {
    /// The figures as a person reads them.
    pub fn render(&self) -> String {
        format!(
            "TPS {:.3} over {} documents ({} without terms, not measured); {} terms, {} replaced\n\
             information content: {}; similarity: {}\n",
            self.tps,
            self.documents,
            self.documents_without_terms,
            self.terms,
            self.replaced_terms,
            self.information_content,
            self.similarity
        )
    }
}

/// Measures TPS; the originals' token scores are kept, so evaluating several sanitizations of
/// the same documents scores each original once.
pub struct TpsEvaluator<'a> {
    scorer: &'a dyn TextScorer,
    similarity: &'a dyn TermSimilarity,
    information: SpanInformation,
    scored: Mutex<HashMap<String, Vec<ScoredToken>>>,
}

impl std::fmt::Debug for TpsEvaluator<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TpsEvaluator")
            .field("scorer", &self.scorer.id())
            .field("similarity", &self.similarity.id())
            .field("information", &self.information)
            .finish_non_exhaustive()
    }
}

/// A term of an original: its characters, and what replaced it (`None` when kept).
struct Term<'d> {
    start: usize,
    end: usize,
    replaced_by: Option<&'d kanon_sanitize::Edit>,
}

impl<'a> TpsEvaluator<'a> {
    /// Information content from `scorer`'s log-probabilities (a term's tokens' surprisals
    /// summed, kanon's default), similarity from `similarity`.
    pub fn new(scorer: &'a dyn TextScorer, similarity: &'a dyn TermSimilarity) -> Self {
        TpsEvaluator {
            scorer,
            similarity,
            information: SpanInformation::default(),
            scored: Mutex::new(HashMap::new()),
        }
    }

    /// How a term's information content is drawn from its tokens: [`SpanInformation::Sum`]
    /// (kanon's default) or [`SpanInformation::MinProbability`] (the paper's).
    pub fn information(mut self, information: SpanInformation) -> Self {
        self.information = information;
        self
    }

    fn token_scores(&self, original: &Document) -> Result<Vec<ScoredToken>> {
        let key = &original.text;
        if let Some(tokens) = self
            .scored
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(key)
        {
            return Ok(tokens.clone());
        }
        let tokens = self
            .scorer
            .token_logprobs(&original.text)
            .map_err(|source| Error::Scorer {
                id: original.id.clone(),
                source,
            })?;
        self.scored
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(key.clone(), tokens.clone());
        Ok(tokens)
    }

    /// TPS of the sanitized documents against their originals (by id). A sanitized document
    /// whose id is not an original's, or whose edits do not fit the original, is an error.
    pub fn evaluate(
        &self,
        originals: &[Document],
        sanitized: &[SanitizedDocument],
    ) -> Result<TpsReport> {
        let model = self.scorer.id();
        let mut report = TpsReport {
            information_content: format!(
                "{} {} (causal LM, −log p given the text before each term; a term's: {})",
                model.backend,
                model.model,
                self.information.describe()
            ),
            similarity: self.similarity.id(),
            ..TpsReport::default()
        };
        let mut sum = 0.0;
        for (original, doc) in paired(originals, sanitized)? {
            let chars: Vec<char> = original.text.chars().collect();
            let terms = terms(&chars, doc)?;
            if terms.is_empty() {
                report.documents_without_terms += 1;
                continue;
            }
            let tokens = self.token_scores(original)?;
            let phrase = |start: usize, end: usize| chars[start..end].iter().collect::<String>();
            let replaced: Vec<(String, &str)> = terms
                .iter()
                .filter_map(|t| {
                    let edit = t.replaced_by?;
                    kept_information(edit)
                        .then(|| (phrase(t.start, t.end), edit.replacement.as_str()))
                })
                .collect();
            let pairs: Vec<(&str, &str)> = replaced.iter().map(|(a, b)| (a.as_str(), *b)).collect();
            let mut similarities = self.similarity.similarities(&pairs)?.into_iter();
            let (mut weighted, mut total) = (0.0, 0.0);
            for term in &terms {
                let ic =
                    information_content(&chars, &tokens, term.start, term.end, self.information);
                let similarity = match term.replaced_by {
                    None => 1.0,
                    Some(edit) if kept_information(edit) => {
                        similarities.next().unwrap_or(0.0).clamp(0.0, 1.0)
                    }
                    Some(_) => 0.0,
                };
                weighted += ic * similarity;
                total += ic;
            }
            report.terms += terms.len();
            report.replaced_terms += terms.iter().filter(|t| t.replaced_by.is_some()).count();
            if total > 0.0 {
                sum += weighted / total;
                report.documents += 1;
            } else {
                report.documents_without_terms += 1;
            }
        }
        report.tps = if report.documents == 0 {
            0.0
        } else {
            sum / report.documents as f64
        };
        Ok(report)
    }
}

/// Whether a replacement says anything at all: not a deletion, not a placeholder of symbols.
fn kept_information(edit: &kanon_sanitize::Edit) -> bool {
    !matches!(edit.reason, Reason::Suppressed | Reason::Placeholder)
        && edit.replacement.chars().any(char::is_alphanumeric)
}

/// The terms of an original: each edit's span, then each word outside every edit that is not a
/// stopword, in text order.
fn terms<'d>(chars: &[char], doc: &'d SanitizedDocument) -> Result<Vec<Term<'d>>> {
    let replaced = replaced_characters(doc, chars.len())?;
    let mut terms: Vec<Term<'d>> = doc
        .edits
        .iter()
        .filter(|edit| edit.start < edit.end)
        .map(|edit| Term {
            start: edit.start,
            end: edit.end,
            replaced_by: Some(edit),
        })
        .collect();
    for word in kanon_core::text::word_ranges(chars) {
        if replaced[word.clone()].iter().any(|r| *r) {
            continue;
        }
        let text: String = chars[word.clone()]
            .iter()
            .collect::<String>()
            .to_lowercase();
        if !kanon_sanitize::lemma::is_stopword(&text) {
            terms.push(Term {
                start: word.start,
                end: word.end,
                replaced_by: None,
            });
        }
    }
    terms.sort_by_key(|t| (t.start, t.end));
    Ok(terms)
}
