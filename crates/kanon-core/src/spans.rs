//! The spans interchange record: one JSONL line per document, `{"id", "spans": [{"start", "end",
//! …}]}`, with character offsets. Detectors write it (`kanon detect`); the sanitizer and the
//! evaluation read it, and so can they read a kanon corpus split, whose lines carry the same
//! fields and more. TAB's system format (`{doc_id: [[start, end], …]}`) is read and written here
//! too.
//!
//! ```
//! use kanon_core::spans::{SpanRecord, SpansRecord};
//! use kanon_core::EntityType;
//!
//! let line = r#"{"id": "d1", "spans": [{"start": 0, "end": 9, "label": "MASK", "type": "PERSON", "score": 0.9}]}"#;
//! let record: SpansRecord = serde_json::from_str(line).unwrap();
//! assert_eq!(record.spans[0].entity_type, Some(EntityType::Person));
//! assert_eq!(serde_json::to_string(&record).unwrap(), line.replace(": ", ":").replace(", ", ","));
//! ```

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::{EntityType, Span};

/// One span of a [`SpansRecord`]. Readers need `start` and `end`; the other fields are optional
/// and a line may carry more (a corpus's `term`, `postings`, `reason`), which readers ignore.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpanRecord {
    /// The first character of the span.
    pub start: usize,
    /// One past the last character of the span.
    pub end: usize,
    /// The tag a detector gives (`MASK`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Absent for detectors without types (the tagger's `mask` scheme).
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub entity_type: Option<EntityType>,
    /// Spans of one entity share it (TAB's `entity_id`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entity_id: Option<String>,
    /// The detector's confidence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<f32>,
}

impl SpanRecord {
    /// A span with only its offsets.
    pub fn new(start: usize, end: usize) -> Self {
        SpanRecord {
            start,
            end,
            label: None,
            entity_type: None,
            entity_id: None,
            score: None,
        }
    }

    /// The offsets as a [`Span`] (an `end` before `start` read as an empty span at `start`).
    pub fn span(&self) -> Span {
        Span::new(self.start, self.end.max(self.start))
    }

    /// Whether it is a non-empty span of a text of `chars` characters (`start < end <= chars`),
    /// as every reader of spans from outside checks before sanitizing at them.
    pub fn fits(&self, chars: usize) -> bool {
        self.start < self.end && self.end <= chars
    }
}

/// The spans of one document: a line of a spans file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpansRecord {
    /// The id of the document the spans are in.
    pub id: String,
    /// The document's spans, in the order written (a line may hold none).
    #[serde(default)]
    pub spans: Vec<SpanRecord>,
}

/// Reads a spans file (JSONL), the spans of a document repeated on several lines joined.
pub fn read_spans(path: &Path) -> Result<HashMap<String, Vec<SpanRecord>>> {
    let mut by_id: HashMap<String, Vec<SpanRecord>> = HashMap::new();
    for record in crate::io::read_jsonl::<SpansRecord>(path)? {
        let (_, record) = record?;
        by_id.entry(record.id).or_default().extend(record.spans);
    }
    Ok(by_id)
}

/// Writes spans records as JSONL.
pub fn write_spans<W: Write>(writer: &mut W, records: &[SpansRecord]) -> std::io::Result<()> {
    crate::io::write_jsonl(writer, records)
}

/// TAB's system format, `{doc_id: [[start, end], …]}` (what TAB's evaluation script reads), as
/// read: pairs not yet checked ([`spans_of`] checks them).
pub type SystemFormat = HashMap<String, Vec<[usize; 2]>>;

/// Writes records in TAB's system format, one JSON object and a newline.
pub fn write_system_format<W: Write>(
    writer: &mut W,
    records: &[SpansRecord],
) -> std::io::Result<()> {
    let system: serde_json::Map<String, serde_json::Value> = records
        .iter()
        .map(|record| {
            (
                record.id.clone(),
                record
                    .spans
                    .iter()
                    .map(|s| serde_json::json!([s.start, s.end]))
                    .collect(),
            )
        })
        .collect();
    serde_json::to_writer(&mut *writer, &system)?;
    writer.write_all(b"\n")
}

/// Joins the parts of a sharded `kanon detect --export tab` into `out`: the object one run over
/// all the documents writes (its keys in order, as [`write_system_format`] writes them).
pub fn merge_system_format(set: &crate::shard::ShardSet, out: &Path) -> Result<usize> {
    let mut merged = serde_json::Map::new();
    for (path, record) in &set.parts {
        let part: serde_json::Map<String, serde_json::Value> =
            serde_json::from_reader(crate::io::open(path)?).map_err(|e| {
                Error::parse(
                    path,
                    e.line() as u64,
                    format!("not TAB's system format: {e}"),
                )
            })?;
        if part.len() > record.documents {
            return Err(Error::format(
                path,
                format!(
                    "holds {} documents where its shard record says {}: was it changed after its run?",
                    part.len(),
                    record.documents
                ),
            ));
        }
        merged.extend(part);
    }
    crate::io::atomic_write(out, |w| {
        serde_json::to_writer(&mut *w, &merged)?;
        w.write_all(b"\n")
    })?;
    Ok(merged.len())
}

/// Reads TAB's system format. The pairs are checked by [`spans_of`], so that a caller can tell a
/// file of another format (an error here) from a file of this one with a bad span.
pub fn read_system_format(path: &Path) -> Result<SystemFormat> {
    let reader = crate::io::open(path)?;
    serde_json::from_reader(reader).map_err(|e| {
        Error::format(
            path,
            format!(
                "line {}: expected {{doc_id: [[start, end], …]}}: {e}",
                e.line()
            ),
        )
    })
}

/// Checks `[start, end]` pairs of document `id` read from `path`: each must be a non-empty span.
pub fn spans_of(path: &Path, id: &str, pairs: Vec<[usize; 2]>) -> Result<Vec<Span>> {
    pairs
        .into_iter()
        .map(|[start, end]| {
            if start < end {
                Ok(Span::new(start, end))
            } else {
                Err(Error::format(
                    path,
                    format!("document {id:?}: span [{start}, {end}] is empty or reversed"),
                ))
            }
        })
        .collect()
}
