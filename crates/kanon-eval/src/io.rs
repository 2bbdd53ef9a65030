//! Gold and predictions from the files kanon and TAB use.
//!
//! - gold: a TAB-schema JSON array (the DIRECT and QUASI mentions are the spans to mask) or a TAB
//!   system-format object `{doc_id: [[start, end], …]}`;
//! - predictions: spans JSONL ([`kanon_core::spans::SpansRecord`]: `kanon detect`'s output, a
//!   kanon corpus split) or the TAB system format.

use std::path::Path;

use kanon_core::Span;
use kanon_core::io::starts_with_json_array;
use kanon_core::spans::{SpansRecord, read_system_format, spans_of};
use kanon_core::tab::read_tab;
use rustc_hash::FxHashMap;

use crate::error::Result;
use crate::gold::{GoldDocument, GoldMention};

/// Reads gold annotations. The system format has no texts: character coverage is then measured up
/// to the furthest gold offset (predicted characters beyond it count as outside the gold).
pub fn read_gold(path: &Path) -> Result<Vec<GoldDocument>> {
    if starts_with_json_array(path)? {
        return Ok(read_tab(path)?
            .into_iter()
            .map(|doc| GoldDocument {
                annotators: doc
                    .masked_mentions_by_annotator()
                    .map(|(_, mentions)| {
                        mentions
                            .map(|m| GoldMention {
                                span: m.span(),
                                identifier: Some(m.identifier_type),
                                entity: m.entity_id.clone(),
                                entity_type: Some(m.entity_type),
                            })
                            .collect()
                    })
                    .collect(),
                unmasked_mentions: doc
                    .annotations
                    .values()
                    .flat_map(|a| &a.entity_mentions)
                    .filter(|m| !m.identifier_type.to_mask())
                    .count(),
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
                            entity_type: None,
                        })
                        .collect(),
                ],
                unmasked_mentions: 0,
                id,
            })
        })
        .collect::<Result<_>>()?;
    docs.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(docs)
}

/// Reads predictions: spans JSONL, or the TAB system format.
pub fn read_predictions(path: &Path) -> Result<FxHashMap<String, Vec<Span>>> {
    // A system-format file is one JSON object; a JSONL file is several (or one with an `id`).
    if let Ok(map) = read_system_format(path) {
        return map
            .into_iter()
            .map(|(id, pairs)| Ok((id.clone(), spans_of(path, &id, pairs)?)))
            .collect();
    }
    let mut out: FxHashMap<String, Vec<Span>> = FxHashMap::default();
    for record in kanon_core::io::read_jsonl::<SpansRecord>(path)? {
        let (_, doc) = record?;
        let pairs = doc.spans.iter().map(|s| [s.start, s.end]).collect();
        let spans = spans_of(path, &doc.id, pairs)?;
        out.entry(doc.id).or_default().extend(spans);
    }
    Ok(out)
}
