//! The document a stage reads and the character-offset [`Span`] every stage's output is in.

use serde::{Deserialize, Serialize};

/// A document about one person: the input of the labeler and the detectors.
///
/// JSONL form: `{"id": "...", "person": "...", "text": "..."}`; `person` is the KG id of the person the
/// document is about and `split` (train/dev/test) is optional.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Document {
    /// Unique within a file: outputs (spans, sanitized texts, reports) are keyed by it.
    pub id: String,
    /// The KG id of the person the document is about, when known (a labeled corpus needs it, a text to
    /// sanitize does not).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub person: Option<String>,
    /// The raw text; every span over it is in character offsets.
    pub text: String,
    /// `train`, `dev` or `test` when the input assigns one; the labeler otherwise derives it from the id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub split: Option<String>,
}

/// A half-open span `[start, end)` in **character** (Unicode scalar value) offsets, as TAB and Python use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Span {
    /// The first character of the span.
    pub start: usize,
    /// One past the last character of the span (`start <= end`).
    pub end: usize,
}

impl Span {
    /// The span `[start, end)`; `start` must not exceed `end` (checked in debug builds).
    pub fn new(start: usize, end: usize) -> Self {
        debug_assert!(start <= end);
        Span { start, end }
    }

    /// Characters in the span.
    pub fn len(&self) -> usize {
        self.end - self.start
    }

    /// Whether the span covers no character.
    pub fn is_empty(&self) -> bool {
        self.start == self.end
    }

    /// Whether the two spans share a character (touching spans, `[0, 3)` and `[3, 5)`, do not).
    pub fn overlaps(&self, other: &Span) -> bool {
        self.start < other.end && other.start < self.end
    }

    /// The text of this span, or `None` when it is out of bounds.
    pub fn slice<'a>(&self, text: &'a str) -> Option<&'a str> {
        let mut indices = text.char_indices().map(|(i, _)| i).chain([text.len()]);
        let start = indices.nth(self.start)?;
        let end = if self.end == self.start {
            start
        } else {
            indices.nth(self.end - self.start - 1)?
        };
        text.get(start..end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_by_characters_not_bytes() {
        let text = "Zoë Ølund in Zürich";
        assert_eq!(Span::new(0, 3).slice(text), Some("Zoë"));
        assert_eq!(Span::new(4, 9).slice(text), Some("Ølund"));
        assert_eq!(Span::new(13, 19).slice(text), Some("Zürich"));
        assert_eq!(Span::new(19, 19).slice(text), Some(""));
        assert_eq!(Span::new(13, 20).slice(text), None);
    }

    #[test]
    fn overlap_is_half_open() {
        assert!(Span::new(0, 3).overlaps(&Span::new(2, 4)));
        assert!(!Span::new(0, 3).overlaps(&Span::new(3, 4)));
    }

    #[test]
    fn document_json_omits_missing_fields() {
        let doc: Document = serde_json::from_str(r#"{"id":"d1","text":"x"}"#).unwrap();
        assert_eq!(doc.person, None);
        assert_eq!(
            serde_json::to_string(&doc).unwrap(),
            r#"{"id":"d1","text":"x"}"#
        );
    }
}
