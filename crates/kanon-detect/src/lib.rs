//! kanon's detectors behind one trait, [`Detector`], and one runner, [`job::run`]: the
//! KG-supervised tagger ([`tagger`], wrapping `kanon_tagger`'s inference) and the detectors that
//! need no knowledge graph, which decide which words of a document to mask from the document
//! itself, a language model, or public texts about the document's person — the comparisons a user
//! without a KG (or with one that misses their people) needs beside the tagger. Every detector
//! without a KG masks whole words ([`words::Words`]) and masks a form everywhere in a document
//! once it masks it anywhere.
//!
//! | method | what it masks | needs |
//! | --- | --- | --- |
//! | `tagger` ([`tagger`]) | typed spans (PERSON, ORG, …, with scores) a BERT tagger trained on a KG-labeled corpus finds | a checkpoint (`kanon train`) |
//! | `reid-greedy` ([`reid_greedy`]) | words, greedily, until a re-identification model no longer names the person (Morris et al., 2022) | background texts, each document's `person` |
//! | `ic-threshold` ([`ic`]) | words a language model finds less probable than `p` in context (Albanese et al., 2023) | a scoring LLM |
//! | `idf` ([`idf`]) | the rarest words, up to a share of the words | — |
//! | `ner-lexical` ([`lexical`]) | words the person's background text holds | background texts, `person` |
//!
//! ```
//! use kanon_core::{Document, Span};
//! use kanon_detect::Detector;
//! use kanon_detect::idf::IdfDetector;
//!
//! let corpus = ["Vigdis sang in Oslo", "the singer sang in the city", "the city sang"];
//! let detector = IdfDetector::new(corpus, 0.2);
//! let doc = Document {
//!     id: "d1".into(),
//!     person: None,
//!     text: "Vigdis sang in the city".into(),
//!     split: None,
//! };
//! // One word in five, the rarest: the name.
//! assert_eq!(detector.detect(&doc)?, [Span::new(0, 6)]);
//! # Ok::<(), kanon_detect::Error>(())
//! ```
//!
//! `job::run` runs one over a documents file and writes the spans file `kanon detect` writes
//! (resumable, shardable, as spans JSONL or TAB's system format); `kanon detect [METHOD]` and a
//! run config's `[detect.method]` are its two ways in.

#![warn(missing_docs)]

pub mod error;
pub mod greedy;
pub mod ic;
pub mod idf;
pub mod job;
pub mod lexical;
pub mod reid;
pub mod reid_greedy;
pub mod tagger;
pub mod words;

pub use error::{Error, Result};

use kanon_core::spans::SpanRecord;
use kanon_core::{Document, Span};

/// Decides which words of a document to mask.
pub trait Detector {
    /// The spans to mask, in text order, not overlapping.
    fn detect(&self, doc: &Document) -> Result<Vec<Span>>;

    /// The spans of several documents, as the spans file writes them: by default [`Self::detect`]
    /// on each, every span labeled `MASK`. A detector that types and scores its spans, or that
    /// is faster on many documents at once (the tagger batches their windows), overrides it.
    fn detect_many(&self, docs: &[&Document]) -> Result<Vec<Vec<SpanRecord>>> {
        docs.iter()
            .map(|doc| Ok(self.detect(doc)?.into_iter().map(mask_record).collect()))
            .collect()
    }

    /// How many documents [`job::run`] hands [`Self::detect_many`] at once. One by default: a
    /// slow detector's documents are then each logged (and resumable) as soon as they are done.
    fn batch_size(&self) -> usize {
        1
    }

    /// What the detector runs, for summaries (the tagger: `6 layers, f32`); `None` for a
    /// detector without a model of its own.
    fn model_note(&self) -> Option<String> {
        None
    }
}

/// An untyped span as the spans file writes it, labeled `MASK`.
pub fn mask_record(span: Span) -> SpanRecord {
    SpanRecord {
        label: Some(MASK_LABEL.into()),
        ..SpanRecord::new(span.start, span.end)
    }
}

/// The label of every span a detector writes.
pub const MASK_LABEL: &str = "MASK";
