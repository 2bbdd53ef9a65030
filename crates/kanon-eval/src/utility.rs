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
//!        "candidates": [], "guesses": [], "reason": "direct-identifier"},
//!       {"start": 23, "end": 29, "original_type": "LOC", "entity": "LOC 1", "replacement": "a European city",
//!        "candidates": [], "guesses": [], "reason": "not-guessed"}]}"#)?;
//! let report = evaluate_utility(&[original], &[sanitized])?;
//! assert_eq!(report.words_changed, 3.0 / 5.0); // Lilian, Albano, Vienna of five words
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::{HashMap, HashSet};

use kanon_core::Document;
use kanon_sanitize::SanitizedDocument;
use serde::Serialize;

use crate::error::{Error, Result};

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
    let by_id: HashMap<&str, &Document> = originals.iter().map(|d| (d.id.as_str(), d)).collect();
    let mut seen = HashSet::new();
    let (mut chars, mut changed_chars, mut words, mut changed_words) = (0, 0, 0, 0);
    let (mut original_length, mut sanitized_length) = (0, 0);
    for doc in sanitized {
        let original = by_id
            .get(doc.id.as_str())
            .ok_or_else(|| Error::UnknownSanitized { id: doc.id.clone() })?;
        if !seen.insert(doc.id.as_str()) {
            return Err(Error::Sanitized {
                id: doc.id.clone(),
                problem: "appears twice".into(),
            });
        }
        let text: Vec<char> = original.text.chars().collect();
        let mut replaced = vec![false; text.len()];
        for edit in &doc.edits {
            if edit.start > edit.end || edit.end > text.len() {
                return Err(Error::Sanitized {
                    id: doc.id.clone(),
                    problem: format!(
                        "edit {}..{} is not a span of the {}-character original: the original is not the sanitized text's",
                        edit.start,
                        edit.end,
                        text.len()
                    ),
                });
            }
            for r in &mut replaced[edit.start..edit.end] {
                *r = true;
            }
        }
        chars += text.len();
        changed_chars += replaced.iter().filter(|r| **r).count();
        let mut i = 0;
        while i < text.len() {
            if !text[i].is_alphanumeric() {
                i += 1;
                continue;
            }
            let start = i;
            while i < text.len() && text[i].is_alphanumeric() {
                i += 1;
            }
            words += 1;
            changed_words += usize::from(replaced[start..i].iter().any(|r| *r));
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
    Ok(UtilityReport {
        documents: sanitized.len(),
        unsanitized_documents: originals
            .iter()
            .filter(|d| !seen.contains(d.id.as_str()))
            .count(),
        chars_changed: share(changed_chars, chars),
        words_changed: share(changed_words, words),
        length_ratio: share(sanitized_length, original_length),
        tps: None,
    })
}
