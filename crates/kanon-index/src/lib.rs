//! The kanon inverted index: every surface term of a knowledge graph mapped to the set of people it
//! belongs to. tantivy holds the term dictionary (an FST: exact, prefix and fuzzy lookup; a term's
//! ordinal is its id), postings are roaring bitmaps of person ids decoded once at open, and a
//! double-array Aho-Corasick automaton finds indexed terms in texts (the gazetteer).
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

pub mod builder;
pub mod error;
pub mod gazetteer;
pub mod index;
pub mod meta;
pub mod postings;

pub use builder::IndexBuilder;
pub use error::{Error, Result};
pub use gazetteer::{Gazetteer, TermMatch};
pub use index::{Index, IndexStats, IndexedPerson};
pub use meta::{INDEX_FORMAT_VERSION, IndexMeta};
pub use postings::{PostingList, PostingStore};
