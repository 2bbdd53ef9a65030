//! kanon's token tagger. This crate holds what every tagger shares: label schemes, tokenisation with
//! character offsets (the `tokenizers` crate), span ↔ word-piece label alignment, windows for long
//! documents and the merge of their predictions.
//!
//! ```
//! use kanon_core::{EntityType, Span};
//! use kanon_tagger::data::{align_labels, decode_spans};
//! use kanon_tagger::LabelScheme;
//!
//! // Word pieces of "Zoë Ølund lives" (character offsets), and the name as a PERSON span.
//! let pieces = [Span::new(0, 3), Span::new(4, 6), Span::new(6, 9), Span::new(10, 15)];
//! let labels = align_labels(&pieces, &[(Span::new(0, 9), Some(EntityType::Person))], LabelScheme::Typed);
//! assert_eq!(LabelScheme::Typed.names()[labels[1] as usize], "I-PERSON");
//! let spans = decode_spans(&pieces, &labels, &[], LabelScheme::Typed);
//! assert_eq!(spans, vec![(Span::new(0, 9), Some(EntityType::Person), 1.0)]);
//! ```

pub mod data;
pub mod dataset;
pub mod error;
pub mod inference;
pub mod labels;
pub mod model;
pub mod train;
pub mod training;
pub mod weights;

pub use error::{Error, Result};
pub use labels::{Label, LabelScheme};
