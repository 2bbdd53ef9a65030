//! kanon's KG-supervised tagger as a [`Detector`]: a [`kanon_tagger::Tagger`] loaded with its
//! [`DetectConfig`]. Its inference stays in `kanon_tagger`; this only hands it documents in
//! batches, whose windows share forward passes, and keeps the types and scores it gives.

use std::path::Path;

use burn::tensor::Device;
use kanon_core::spans::SpanRecord;
use kanon_core::{Document, Span};
use kanon_tagger::{DetectConfig, Tagger};

use crate::{Detector, Error, MASK_LABEL, Result};

/// Documents per call of [`Tagger::predict_many`]: their windows share forward passes, and the
/// progress (and the resumable log) moves between calls.
pub const DOCUMENTS_PER_PASS: usize = 64;

/// A trained tagger and the token budget of its forward passes.
pub struct TaggerDetector {
    tagger: Tagger,
    token_budget: usize,
}

impl std::fmt::Debug for TaggerDetector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaggerDetector")
            .field("token_budget", &self.token_budget)
            .finish_non_exhaustive()
    }
}

impl TaggerDetector {
    /// Loads the checkpoint directory `model` (written by `kanon train`) on `device`, deciding
    /// and tidying as `config` says.
    pub fn load(model: &Path, config: &DetectConfig, device: &Device) -> Result<Self> {
        Ok(TaggerDetector {
            tagger: config.load_tagger(model, device).map_err(Error::Tagger)?,
            token_budget: config.token_budget,
        })
    }
}

impl Detector for TaggerDetector {
    fn model_note(&self) -> Option<String> {
        Some(self.tagger.describe())
    }

    fn detect(&self, doc: &Document) -> Result<Vec<Span>> {
        let mut spans = self.detect_many(&[doc])?;
        Ok(spans
            .pop()
            .unwrap_or_default()
            .iter()
            .map(SpanRecord::span)
            .collect())
    }

    /// Every document's windows batched by padded length; each span typed and scored (its
    /// pieces' mean probability of its type), the same bits whichever documents share the call.
    fn detect_many(&self, docs: &[&Document]) -> Result<Vec<Vec<SpanRecord>>> {
        let texts: Vec<&str> = docs.iter().map(|d| d.text.as_str()).collect();
        let spans_per_doc = self
            .tagger
            .predict_many(&texts, self.token_budget)
            .map_err(Error::Tagger)?;
        Ok(spans_per_doc
            .into_iter()
            .map(|spans| {
                spans
                    .into_iter()
                    .map(|(span, entity_type, score)| SpanRecord {
                        label: Some(MASK_LABEL.into()),
                        entity_type,
                        score: Some(score),
                        ..SpanRecord::new(span.start, span.end)
                    })
                    .collect()
            })
            .collect())
    }

    fn batch_size(&self) -> usize {
        DOCUMENTS_PER_PASS
    }
}
