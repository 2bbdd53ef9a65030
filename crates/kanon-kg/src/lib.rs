//! The kanon knowledge graph: people, their names and facts; importers for the native triples CSV,
//! the Wikidata JSON dump, Pantheon, Google-RE and T-REx; facts derived from biographies; the term
//! variants that say how each fact is written in text; and a synthetic population with biographies for the embedded default.
//!
//! ```
//! use kanon_kg::{Fact, Person, Property, TermGenerator, Vocabulary, Whitelist};
//!
//! let mut person = Person::new("Q1", "Lilian Albano");
//! person.facts.push(Fact::new(Property::BirthDate, "1992-08-05"));
//! person.facts.push(Fact::new(Property::Citizenship, "Austria"));
//!
//! let whitelist = Whitelist::english();
//! let terms = TermGenerator::new(Vocabulary::embedded(), &whitelist).terms(&person);
//! let texts: Vec<&str> = terms.iter().map(|t| t.term.as_str()).collect();
//! assert!(texts.contains(&"l albano"));
//! assert!(texts.contains(&"august 5 1992"));
//! assert!(texts.contains(&"austrian"));
//! ```

#![warn(missing_docs)]

pub mod date;
pub mod derive;
/// [`Error`], the one error of the crate.
pub mod error;
pub mod import;
pub mod job;
pub mod model;
pub mod store;
pub mod synth;
pub mod variants;
pub mod vocab;

pub use error::{Error, Result};
pub use job::{ImportJob, ImportSummary, Source, SynthJob, SynthSummary};
pub use model::{Fact, KnowledgeGraph, MergeStats, Person, Property, PropertySet};
pub use variants::{TermGenerator, TypedTerm, Whitelist};
pub use vocab::Vocabulary;
