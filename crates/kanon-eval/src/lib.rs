//! Evaluation: what kanon detects against gold annotations ([`spans`], [`tab`]), what its
//! sanitizations keep ([`utility`], [`tps`]) and how often attackers still name the person
//! behind them ([`privacy`]), compared in one report ([`report`]).
//!
//! ```
//! use kanon_core::Span;
//! use kanon_eval::{GoldDocument, GoldMention, evaluate_spans};
//!
//! let gold = vec![GoldDocument {
//!     id: "d1".into(),
//!     text: Some("Lilian Albano was born in Vienna.".into()),
//!     annotators: vec![vec![
//!         GoldMention { span: Span::new(0, 13), identifier: None, entity: None, entity_type: None },
//!         GoldMention { span: Span::new(26, 32), identifier: None, entity: None, entity_type: None },
//!     ]],
//!     unmasked_mentions: 0,
//! }];
//! let predicted = [("d1".to_owned(), vec![Span::new(0, 6), Span::new(26, 32)])].into_iter().collect();
//! let report = evaluate_spans(&gold, &predicted);
//! assert_eq!(report.exact.recall, 0.5);
//! assert_eq!(report.partial.recall, 1.0);
//! ```

#![warn(missing_docs)]

pub mod error;
pub mod gold;
pub mod io;
pub mod job;
pub mod kg_background;
pub mod privacy;
pub mod report;
mod sanitized;
pub mod spans;
pub mod tab;
pub mod tps;
pub mod types;
pub mod utility;

pub use error::{Error, Result};
pub use gold::{GoldDocument, GoldMention};
pub use io::{read_gold, read_predictions};
pub use job::EvalJob;
pub use privacy::PrivacyReport;
pub use spans::{PrecisionRecall, SpanReport, evaluate_spans};
pub use tab::{TabReport, evaluate_tab};
pub use utility::UtilityReport;
