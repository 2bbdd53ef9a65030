//! Detectors that need no knowledge graph: they decide which words of a document to mask from the
//! document itself, a language model, or public texts about the document's person — the
//! comparisons a user without a KG (or with one that misses their people) needs beside kanon's
//! KG-supervised tagger. Every detector masks whole words ([`words::Words`]) and masks a form
//! everywhere in a document once it masks it anywhere.
//!
//! | method | what it masks | needs |
//! | --- | --- | --- |
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
//! (resumable); `kanon detect --method` is its command.

#![warn(missing_docs)]

pub mod error;
pub mod greedy;
pub mod ic;
pub mod idf;
pub mod job;
pub mod lexical;
pub mod reid;
pub mod reid_greedy;
pub mod words;

pub use error::{Error, Result};

use kanon_core::{Document, Span};

/// Decides which words of a document to mask.
pub trait Detector {
    /// The spans to mask, in text order, not overlapping.
    fn detect(&self, doc: &Document) -> Result<Vec<Span>>;
}
