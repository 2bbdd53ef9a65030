//! A labeled span, the unit every labeling step passes on: a KG term's occurrence to mask, with its
//! label and the reason, in character offsets.

use kanon_core::EntityType;
use serde::{Deserialize, Serialize};

/// A labeled span: character offsets, the mask label, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LabeledSpan {
    /// The first character of the span.
    pub start: usize,
    /// One past the last character of the span.
    pub end: usize,
    /// The tag the span gets (`MASK`).
    pub label: String,
    /// The TAB category of the term (of the longest term, for merged spans).
    #[serde(rename = "type")]
    pub entity_type: EntityType,
    /// The normalised KG term that matched.
    pub term: String,
    /// How many people of the KG have the term.
    pub postings: u64,
    /// `rare` (fewer than k people have the term) or `combination` (it completes a combination of
    /// terms shared by fewer than k people).
    pub reason: String,
}

/// Joins overlapping spans (sorted by start) into one, which keeps the term, type and reason of its
/// longest member: "University of Oslo" and the "Oslo" inside it become one span.
pub(crate) fn merge_overlapping(spans: Vec<LabeledSpan>) -> Vec<LabeledSpan> {
    let mut merged: Vec<LabeledSpan> = Vec::with_capacity(spans.len());
    for span in spans {
        match merged.last_mut() {
            Some(last) if span.start < last.end => {
                let (start, end) = (last.start, last.end.max(span.end));
                if span.end - span.start > last.end - last.start {
                    *last = span;
                }
                last.start = start;
                last.end = end;
            }
            _ => merged.push(span),
        }
    }
    merged
}
