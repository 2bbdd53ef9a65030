//! How much of a text sanitization changed, from the edit log `kanon sanitize` writes beside
//! each text: the share of the original's characters and words inside replaced spans. The simple
//! figures users ask for first; how much *meaning* survives (TPS, information-weighted and
//! similarity-aware) is measured on top of them.
//!
//! ```
//! use kanon_core::Document;
//! use kanon_eval::utility::evaluate_utility;
//! use kanon_sanitize::SanitizedDocument;
//!
//! let original = Document {
//!     id: "d1".into(),
//!     person: None,
//!     text: "Lilian Albano lives in Vienna.".into(),
//!     split: None,
//! };
//! let sanitized: SanitizedDocument = serde_json::from_str(r#"{"id": "d1",
//!     "text": "PERSON 1 lives in a European city.", "edits": [
//!       {"start": 0, "end": 13, "original_type": "PERSON", "entity": "PERSON 1", "replacement": "PERSON 1",
//!        "reason": "direct-identifier"},
//!       {"start": 23, "end": 29, "original_type": "LOC", "entity": "LOC 1", "replacement": "a European city",
//!        "reason": "not-guessed"}]}"#)?;
//! let report = evaluate_utility(&[original], &[sanitized])?;
//! assert_eq!(report.words_changed, 3.0 / 5.0); // Lilian, Albano, Vienna of five words
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::HashSet;

use kanon_core::Document;
use kanon_sanitize::SanitizedDocument;
use serde::Serialize;

use crate::error::Result;
use crate::sanitized::{paired, replaced_characters};

/// The share of each original the sanitization changed, over all documents.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct UtilityReport {
    /// Sanitized documents measured.
    pub documents: usize,
    /// Originals with no sanitized document, not measured.
    pub unsanitized_documents: usize,
    /// Characters of the originals inside replaced spans, over all their characters.
    pub chars_changed: f64,
    /// Words (runs of letters and digits) of the originals touched by a replaced span.
    pub words_changed: f64,
    /// The sanitized texts' length over the originals'.
    pub length_ratio: f64,
    /// Text preserved similarity, when measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tps: Option<crate::tps::TpsReport>,
}

impl UtilityReport {
    /// The figures as a person reads them (percentages, one decimal), TPS's below.
    pub fn render(&self) -> String {
        let mut out = format!(
            "documents {} ({} originals not sanitized, not measured)\n\
             changed: {:.1} % of the characters, {:.1} % of the words; sanitized length {:.1} % of the original\n",
            self.documents,
            self.unsanitized_documents,
            100.0 * self.chars_changed,
            100.0 * self.words_changed,
            100.0 * self.length_ratio
        );
        if let Some(tps) = &self.tps {
            out += &tps.render();
        }
        out
    }
}

/// Measures the sanitized documents against their originals (by id).
pub fn evaluate_utility(
    originals: &[Document],
    sanitized: &[SanitizedDocument],
) -> Result<UtilityReport> {
    let pairs = paired(originals, sanitized)?;
    let (mut chars, mut changed_chars, mut words_seen, mut changed_words) = (0, 0, 0, 0);
    let (mut original_length, mut sanitized_length) = (0, 0);
    for &(original, doc) in &pairs {
        let text: Vec<char> = original.text.chars().collect();
        let replaced = replaced_characters(doc, text.len())?;
        chars += text.len();
        changed_chars += replaced.iter().filter(|r| **r).count();
        for word in kanon_core::text::word_ranges(&text) {
            words_seen += 1;
            changed_words += usize::from(replaced[word].iter().any(|r| *r));
        }
        original_length += text.len();
        sanitized_length += doc.text.chars().count();
    }
    let share = |part: usize, whole: usize| {
        if whole == 0 {
            0.0
        } else {
            part as f64 / whole as f64
        }
    };
    let measured: HashSet<&str> = pairs.iter().map(|(o, _)| o.id.as_str()).collect();
    Ok(UtilityReport {
        documents: sanitized.len(),
        unsanitized_documents: originals
            .iter()
            .filter(|d| !measured.contains(d.id.as_str()))
            .count(),
        chars_changed: share(changed_chars, chars),
        words_changed: share(changed_words, words_seen),
        length_ratio: share(sanitized_length, original_length),
        tps: None,
    })
}
