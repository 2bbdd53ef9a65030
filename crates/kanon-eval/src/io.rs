//! Gold and predictions from the files kanon and TAB use.
//!
//! - gold: a TAB-schema JSON array (the DIRECT and QUASI mentions are the spans to mask) or a TAB
//!   system-format object `{doc_id: [[start, end], …]}`;
//! - predictions: `kanon detect` / corpus JSONL (`{"id", "spans": [{"start", "end", …}]}` a line) or
//!   the TAB system format.

use std::path::Path;

use kanon_core::Span;
use kanon_core::tab::read_tab;
use rustc_hash::FxHashMap;
use serde::Deserialize;

use crate::error::{Error, Result};
use crate::spans::{GoldDocument, GoldMention};

type SystemFormat = FxHashMap<String, Vec<[usize; 2]>>;

fn first_byte(path: &Path) -> Result<Option<u8>> {
    let bytes = std::fs::read(path).map_err(|e| kanon_core::Error::io(path, e))?;
    Ok(bytes.iter().copied().find(|b| !b.is_ascii_whitespace()))
}

fn spans_of(path: &Path, id: &str, pairs: Vec<[usize; 2]>) -> Result<Vec<Span>> {
    pairs
        .into_iter()
        .map(|[start, end]| {
            if start < end {
                Ok(Span::new(start, end))
            } else {
                Err(Error::Format {
                    path: path.to_owned(),
                    message: format!("document {id:?}: span [{start}, {end}] is empty or reversed"),
                })
            }
        })
        .collect()
}

fn read_system_format(path: &Path) -> Result<SystemFormat> {
    let reader = kanon_core::io::open(path)?;
    serde_json::from_reader(reader).map_err(|e| Error::Format {
        path: path.to_owned(),
        message: format!(
            "line {}: expected {{doc_id: [[start, end], …]}}: {e}",
            e.line()
        ),
    })
}

/// Reads gold annotations. The system format has no texts: character coverage is then measured up
/// to the furthest gold offset (predicted characters beyond it count as outside the gold).
pub fn read_gold(path: &Path) -> Result<Vec<GoldDocument>> {
    if first_byte(path)? == Some(b'[') {
        return Ok(read_tab(path)?
            .into_iter()
            .map(|doc| GoldDocument {
                annotators: doc
                    .annotations
                    .values()
                    .map(|a| {
                        a.entity_mentions
                            .iter()
                            .filter(|m| m.identifier_type.to_mask())
                            .map(|m| GoldMention {
                                span: m.span(),
                                identifier: Some(m.identifier_type),
                                entity: m.entity_id.clone(),
                            })
                            .collect()
                    })
                    .collect(),
                id: doc.doc_id,
                text: doc.text,
            })
            .collect());
    }
    let mut docs: Vec<GoldDocument> = read_system_format(path)?
        .into_iter()
        .map(|(id, pairs)| {
            let spans = spans_of(path, &id, pairs)?;
            let length = spans.iter().map(|s| s.end).max().unwrap_or(0);
            Ok(GoldDocument {
                // No text in this format: a stand-in as long as the furthest span.
                text: " ".repeat(length),
                annotators: vec![
                    spans
                        .into_iter()
                        .map(|span| GoldMention {
                            span,
                            identifier: None,
                            entity: None,
                        })
                        .collect(),
                ],
                id,
            })
        })
        .collect::<Result<_>>()?;
    docs.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(docs)
}

#[derive(Deserialize)]
struct PredictedSpan {
    start: usize,
    end: usize,
}

#[derive(Deserialize)]
struct PredictedDocument {
    id: String,
    #[serde(default)]
    spans: Vec<PredictedSpan>,
}

/// Reads predictions: JSONL with `id` and `spans`, or the TAB system format.
pub fn read_predictions(path: &Path) -> Result<FxHashMap<String, Vec<Span>>> {
    // A system-format file is one JSON object; a JSONL file is several (or one with an `id`).
    if let Ok(map) = read_system_format(path) {
        return map
            .into_iter()
            .map(|(id, pairs)| Ok((id.clone(), spans_of(path, &id, pairs)?)))
            .collect();
    }
    let mut out: FxHashMap<String, Vec<Span>> = FxHashMap::default();
    for record in kanon_core::io::read_jsonl::<PredictedDocument>(path)? {
        let (_, doc) = record?;
        let pairs = doc.spans.iter().map(|s| [s.start, s.end]).collect();
        let spans = spans_of(path, &doc.id, pairs)?;
        out.entry(doc.id).or_default().extend(spans);
    }
    Ok(out)
}
