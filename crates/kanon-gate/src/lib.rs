//! kanon's release gate: no sanitized document leaves until the KG and the attackers fail on
//! it, and each one leaves with a certificate.
//!
//! For each document the gate sanitizes it (the sanitizer's own rendering), then attacks the
//! *output*: the KG attacker ([`kg`]: Algorithm 1 of the labeler on the KG terms the output
//! still holds, replacements included) and the re-identification attackers ([`reid`]: BM25 and
//! the neural classifier over a background). While one succeeds it escalates — the entity
//! whose removal helps Algorithm 1 most climbs a rung of its candidates (or becomes its label),
//! or the words the attackers together lean on most are masked — and re-renders through
//! [`kanon_sanitize::Sanitizer::sanitize_constrained`], never past `max_words_changed` of the
//! words. The [`Certificate`] says what was reached, against whom, and what was done; a
//! capped document is never silently released ([`job::unsafe_documents`]).
//!
//! ```
//! use kanon_core::EntityType;
//! use kanon_gate::{Gate, GateConfig, GateInput, KgAttacker, Status};
//! use kanon_index::{Index, IndexBuilder};
//! use kanon_kg::{Fact, KnowledgeGraph, Person, Property};
//! use kanon_sanitize::{Mention, Sanitizer, SanitizerConfig, Strategy};
//!
//! // Six chemists of Austria; only one of them was born in Graz.
//! let mut people = Vec::new();
//! for (i, name) in ["Lilian Albano", "Tomas Berger", "Anna Huber", "Eva Gruber", "Max Wagner", "Paul Bauer"]
//!     .into_iter()
//!     .enumerate()
//! {
//!     let mut person = Person::new(format!("Q{i}"), name);
//!     person.facts.push(Fact::new(Property::Occupation, "chemist"));
//!     person.facts.push(Fact::new(Property::Citizenship, "Austria"));
//!     person.facts.push(Fact::new(Property::BirthPlace, if i == 0 { "Graz" } else { "Vienna" }));
//!     people.push(person);
//! }
//! let dir = tempfile::tempdir()?;
//! IndexBuilder::new().build(&KnowledgeGraph { people }, &dir.path().join("index"), &kanon_core::NoProgress)?;
//! let index = Index::open(&dir.path().join("index"))?;
//!
//! // The detector found the name only.
//! let text = "Lilian Albano is a chemist from Austria, born in Graz.";
//! let mentions = [Mention::new(0, 13, EntityType::Person)];
//! let sanitizer = Sanitizer::new(SanitizerConfig::builder().strategy(Strategy::Label).build()?)?;
//! let config = GateConfig::builder().attackers(vec![kanon_gate::AttackerKind::Kg]).k(3).build()?;
//! let kg = KgAttacker::new(&index, config.labeler());
//! let gate = Gate::new(config, &sanitizer, Some(kg), Vec::new(), None)?;
//! let gated = gate.certify(&[GateInput { id: "d1", text, mentions: &mentions, person: None }])?;
//!
//! // Graz names one person of the KG: the gate masked it and re-rendered.
//! assert_eq!(gated[0].document.text, "PERSON is a chemist from Austria, born in ***.");
//! let certificate = &gated[0].certificate;
//! assert_eq!(certificate.status, Status::Escalated);
//! assert_eq!(certificate.kg.as_ref().unwrap().k_reached, Some(6));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![warn(missing_docs)]

pub mod certificate;
pub mod config;
pub mod error;
pub mod gate;
pub mod job;
pub mod kg;
pub mod reid;
pub mod summary;

pub use certificate::{CapReason, Certificate, Escalation, Status};
pub use config::{AttackerKind, GateConfig, GateConfigBuilder};
pub use error::{Error, Result};
pub use gate::{Gate, GateInput, Gated};
pub use job::{BackgroundSource, GateJob};
pub use kg::KgAttacker;
pub use summary::GateSummary;
