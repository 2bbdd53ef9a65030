//! Distant supervision for k-anonymity: for documents about people of a knowledge graph, decide which
//! KG terms to mask so that what is left is shared by at least k people, and write the decisions as a
//! labeled corpus with a risk report per document. No human annotation is involved.
//!
//! ```
//! use kanon_index::PostingStore;
//! use kanon_label::{LabelerConfig, MaskReason, decide, document_rng};
//!
//! // Three terms: a name only 1 person has, a city of 40 people, a year of 60; 3 people have both.
//! let mut store = PostingStore::default();
//! store.push_sorted(&[7]);
//! store.push_sorted(&(0..40).collect::<Vec<u32>>());
//! store.push_sorted(&(37..97).collect::<Vec<u32>>());
//! let config = LabelerConfig::default(); // k = 5, max arity 3, greedy
//! let decisions = decide(&store, &[0, 1, 2], &config, document_rng(0, "doc-1"));
//! assert_eq!(decisions.masks[0].reason, MaskReason::Rare { people: 1 });
//! // The city and the year together are shared by 3 < 5 people: the city (40 < 60) is masked.
//! assert_eq!(decisions.masks[1].term, 1);
//! ```

#![warn(missing_docs)]

pub mod algorithm;
pub mod corpus;
pub mod document;
/// [`Error`], the one error of the crate.
pub mod error;
pub mod explain;
pub mod generalize;
pub mod phrase;
pub mod reference;
pub mod span;

pub use algorithm::{
    Decisions, LabelerConfig, Mask, MaskReason, MaskStrategy, decide, document_rng,
};
pub use corpus::{CorpusFormat, LabelJob, LabelSummary, Manifest};
pub use error::{Error, Result};
