//! Truthful text sanitization: every detected span is replaced by the most informative
//! generalization that an inference attack cannot invert (the method of *Truthful Text
//! Sanitization Guided by Inference Attacks*, INTACT), with baseline strategies beside it.
//!
//! - Mentions of one entity are grouped ([`group`]) and get one replacement.
//! - Direct identifiers (PERSON, CODE) get numbered labels (`PERSON 1`), never generated names.
//! - Dates climb a rule-based ladder ([`date`]): `5 August 2003` → `August 2003` → … → `the 21st
//!   century`.
//! - Other spans: kanon's hierarchies ([`ontology`]) and a model propose generalizations, most
//!   specific first ([`prompt`], parsed strictly by [`parse`]); a model's candidate is used only
//!   where the hierarchies confirm it ([`verify`]: a small model's are mostly false); the KG
//!   attacker and an attacker model guess the original from each candidate in turn, and the
//!   first candidate neither recovers ([`matching`]) wins.
//!
//! ```
//! use kanon_core::EntityType;
//! use kanon_llm::ScriptedModel;
//! use kanon_sanitize::{Mention, Sanitizer, SanitizerConfig};
//!
//! let text = "Lilian Trosterud moved to Bergen on 5 August 2003. Trosterud, Lilian liked it.";
//! let mentions = [
//!     Mention::new(0, 16, EntityType::Person),
//!     Mention::new(26, 32, EntityType::Loc),
//!     Mention::new(36, 49, EntityType::Datetime),
//!     Mention::new(51, 68, EntityType::Person),
//! ];
//! // The generalizer answers the prompt naming `Bergen`: its first phrase is confirmed by the
//! // place hierarchy (`a city in Norway`), its second, true as it is, by nothing, so dropped.
//! // The hierarchy's most specific rung comes first; the attacker guesses capitals.
//! let model = ScriptedModel::new("demo")
//!     .reply("Phrase: Bergen", "1. a Norwegian city\n2. a city in Scandinavia")
//!     .fallback("1. Oslo\n2. Stockholm");
//! let sanitizer = Sanitizer::new(SanitizerConfig::default()).unwrap().with_model(&model);
//! let sanitized = sanitizer.sanitize("d1", text, &mentions).unwrap();
//! assert_eq!(
//!     sanitized.document.text,
//!     "PERSON 1 moved to a city in Hordaland in August 2003. PERSON 1 liked it."
//! );
//! assert_eq!(sanitized.stats.chosen, vec![2]); // the city and the date took candidate 1
//! ```

#![warn(missing_docs)]

pub mod audit;
pub mod config;
pub mod context;
pub mod coverage;
pub mod date;
pub mod edit;
pub mod error;
pub mod group;
pub mod job;
pub mod kg_attack;
pub mod lemma;
pub mod matching;
pub mod ontology;
pub mod parse;
pub mod prompt;
pub mod render;
pub mod sanitizer;
pub mod substitute;
pub mod summary;
pub mod verify;

pub use audit::{AuditDocument, AuditEntity};
pub use config::{DirectStyle, SanitizerConfig, SanitizerConfigBuilder, Strategy};
pub use edit::{Edit, Reason, SanitizedDocument};
pub use error::{Error, Result};
pub use group::{EntityGroup, Mention, group_mentions};
pub use job::{SanitizeJob, SanitizeSettings, SpanSource};
pub use matching::{MatchConfig, MatchRule, guess_matches};
pub use sanitizer::{Constraints, SanitizeStats, Sanitized, Sanitizer};
pub use summary::SanitizeSummary;
