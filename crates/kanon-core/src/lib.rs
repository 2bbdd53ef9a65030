//! Shared types of kanon: documents and spans (character offsets), the eight TAB entity types,
//! the one text normalisation that the index and the gazetteer share, and file IO helpers
//! (JSONL with line-numbered errors, atomic writes).
//!
//! ```
//! use kanon_core::text::normalize_term;
//!
//! assert_eq!(normalize_term("Zoë  O'Brien-Smith").as_deref(), Some("zoe o brien smith"));
//! assert_eq!(normalize_term("August 5, 1992").as_deref(), Some("august 5 1992"));
//! ```

#![warn(missing_docs)]

pub mod background;
pub mod choices;
pub mod config;
pub mod corpus;
pub mod document;
pub mod entity;
pub mod error;
pub mod io;
pub mod progress;
pub mod shard;
pub mod spans;
pub mod tab;
pub mod testing;
pub mod text;

pub use document::{Document, Span};
pub use entity::EntityType;
pub use error::{Error, PathContext, Result};
pub use progress::{NoProgress, Progress};
