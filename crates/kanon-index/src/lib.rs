//! The kanon inverted index: every surface term of a knowledge graph mapped to the set of people it
//! belongs to.
//!
//! - tantivy holds the term dictionary (an FST: exact, prefix and fuzzy lookup; a term's ordinal
//!   is its id), [`IndexBuilder`] writes it;
//! - postings are roaring bitmaps of person ids, decoded once at open into sorted slices, bitmaps
//!   or dense bitsets ([`PostingStore`]), so an intersection count costs microseconds;
//! - the gazetteer ([`Gazetteer`]) finds indexed terms in texts: a trie over word ids (terms are
//!   word sequences), walked from word starts, leftmost-longest;
//! - [`job`]: `kanon index build` as a [`BuildJob`], and the reports the index commands print.
//!
//! The directory is versioned (`meta.json`'s `index_format_version`); a reader refuses another
//! version and names the file.
//!
//! ```
//! use kanon_core::NoProgress;
//! use kanon_index::{Index, IndexBuilder};
//! use kanon_kg::{Fact, KnowledgeGraph, Person, Property};
//!
//! let mut a = Person::new("Q1", "Lilian Albano");
//! a.facts.push(Fact::new(Property::Citizenship, "Austria"));
//! let mut b = Person::new("Q2", "Tomas Albano");
//! b.facts.push(Fact::new(Property::Citizenship, "Austria"));
//! let kg = KnowledgeGraph { people: vec![a, b] };
//!
//! let dir = tempfile::tempdir()?;
//! IndexBuilder::new().build(&kg, &dir.path().join("index"), &NoProgress)?;
//! let index = Index::open(&dir.path().join("index"))?;
//!
//! let albano = index.term_id("Albano").unwrap();
//! let austrian = index.term_id("AUSTRIAN").unwrap();
//! assert_eq!(index.intersection_count(&[albano, austrian], u64::MAX), 2);
//! let found = index.find_terms("L. Albano is Austrian.");
//! assert_eq!(found.len(), 2);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![warn(missing_docs)]

pub mod builder;
/// [`Error`], the one error of the crate.
pub mod error;
pub mod gazetteer;
pub mod index;
pub mod job;
pub mod meta;
pub mod postings;

pub use builder::IndexBuilder;
pub use error::{Error, Result};
pub use gazetteer::{Gazetteer, TermMatch};
pub use index::{Index, IndexStats, IndexedPerson};
pub use job::{BuildJob, BuildSummary, MatchRow, QueryReport};
pub use meta::{INDEX_FORMAT_VERSION, IndexMeta};
pub use postings::{PostingList, PostingStore};
