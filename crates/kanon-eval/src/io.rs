//! Gold and predictions from the files kanon and TAB use.
//!
//! - gold: a TAB-schema JSON array (the DIRECT and QUASI mentions are the spans to mask) or a TAB
//!   system-format object `{doc_id: [[start, end], …]}`, whose texts come from the documents
//!   (`--docs`);
//! - predictions: spans JSONL ([`kanon_core::spans::SpansRecord`]: `kanon detect`'s output, a
//!   kanon corpus split) or the TAB system format.
//!
//! A span that is empty, reversed or past the end of its document's text is an error that names
//! the file, the line and the values as written.

use std::collections::HashMap;
use std::path::Path;

use kanon_core::Span;
use kanon_core::io::starts_with_json_array;
use kanon_core::spans::{SpansRecord, read_system_format};
use kanon_core::tab::read_tab;
use rustc_hash::FxHashMap;

use crate::error::Result;
use crate::gold::{GoldDocument, GoldMention};

/// Reads gold annotations with each document's text: TAB-schema gold has its own; the system
/// format has none and takes each document's from `docs` (any documents file), by id. A gold
/// document left without a text has `text` `None`, and the character scores are not computed.
pub fn read_gold(path: &Path, docs: Option<&Path>) -> Result<Vec<GoldDocument>> {
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
                text: Some(doc.text),
            })
            .collect());
    }
    let mut texts: HashMap<String, String> = match docs {
        Some(docs) => kanon_core::io::read_documents(docs)?
            .docs
            .into_iter()
            .map(|doc| (doc.id, doc.text))
            .collect(),
        None => HashMap::new(),
    };
    let lines = SystemLines::read(path)?;
    let mut gold: Vec<GoldDocument> = read_system_format(path)?
        .into_iter()
        .map(|(id, pairs)| {
            let text = texts.remove(&id);
            let length = text.as_ref().map(|text| text.chars().count());
            let line = lines.of(&id);
            let spans = pairs
                .into_iter()
                .enumerate()
                .map(|(index, pair)| check_pair(path, line, &id, index, pair, length))
                .collect::<Result<Vec<Span>>>()?;
            Ok(GoldDocument {
                text,
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
    gold.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(gold)
}

/// Reads predictions: spans JSONL, or the TAB system format. A span of a document whose length
/// `length_of` gives (the gold's documents with a text) must lie inside that text.
pub fn read_predictions(
    path: &Path,
    length_of: &dyn Fn(&str) -> Option<usize>,
) -> Result<FxHashMap<String, Vec<Span>>> {
    // A system-format file is one JSON object; a JSONL file is several (or one with an `id`).
    if let Ok(map) = read_system_format(path) {
        let lines = SystemLines::read(path)?;
        return map
            .into_iter()
            .map(|(id, pairs)| {
                let (line, length) = (lines.of(&id), length_of(&id));
                let spans = pairs
                    .into_iter()
                    .enumerate()
                    .map(|(index, pair)| check_pair(path, line, &id, index, pair, length))
                    .collect::<Result<Vec<Span>>>()?;
                Ok((id, spans))
            })
            .collect();
    }
    let mut out: FxHashMap<String, Vec<Span>> = FxHashMap::default();
    for record in kanon_core::io::read_jsonl::<SpansRecord>(path)? {
        let (line, doc) = record?;
        let length = length_of(&doc.id);
        let spans = doc
            .spans
            .iter()
            .enumerate()
            .map(|(index, s)| {
                let given = format!("`start` = {}, `end` = {}", s.start, s.end);
                check_span(path, line, &doc.id, index, &given, [s.start, s.end], length)
            })
            .collect::<Result<Vec<Span>>>()?;
        out.entry(doc.id).or_default().extend(spans);
    }
    Ok(out)
}

/// Checks a system-format `[start, end]` pair.
fn check_pair(
    path: &Path,
    line: u64,
    id: &str,
    index: usize,
    [start, end]: [usize; 2],
    length: Option<usize>,
) -> Result<Span> {
    let given = format!("[{start}, {end}]");
    check_span(path, line, id, index, &given, [start, end], length)
}

/// Span `index` of document `id`, at `line` of `path`, written as `given`: an error when it is
/// empty or reversed, or ends past the document's `length` characters (when known).
fn check_span(
    path: &Path,
    line: u64,
    id: &str,
    index: usize,
    given: &str,
    [start, end]: [usize; 2],
    length: Option<usize>,
) -> Result<Span> {
    let problem = if start >= end {
        "is empty or reversed".to_owned()
    } else if let Some(length) = length.filter(|&length| end > length) {
        format!("ends past its document's {length}-character text")
    } else {
        return Ok(Span::new(start, end));
    };
    Err(kanon_core::Error::parse(
        path,
        line,
        format!("document {id:?}, span {index}: {given} {problem}"),
    )
    .into())
}

/// The line of each document's key in a system-format file (`{doc_id: [[start, end], …]}`,
/// where the only strings are the keys).
struct SystemLines {
    text: String,
}

impl SystemLines {
    fn read(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path).map_err(|e| kanon_core::Error::io(path, e))?;
        Ok(SystemLines { text })
    }

    /// The 1-based line of `"id":` (0 when the key is written in another escaping).
    fn of(&self, id: &str) -> u64 {
        let key = serde_json::to_string(id).unwrap_or_default();
        let mut from = 0;
        while let Some(found) = self.text[from..].find(&key) {
            let at = from + found;
            let after = self.text[at + key.len()..].trim_start();
            if after.starts_with(':') {
                return 1 + self.text[..at].matches('\n').count() as u64;
            }
            from = at + key.len();
        }
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn system_format_keys_are_found_on_their_lines() {
        let lines = SystemLines {
            text: "{\n  \"d1\": [[0, 5]],\n  \"d\\\"2\" : [],\n  \"d3\": [[1, 2]]\n}\n".into(),
        };
        assert_eq!(lines.of("d1"), 2);
        assert_eq!(lines.of("d\"2"), 3);
        assert_eq!(lines.of("d3"), 4);
        assert_eq!(lines.of("d4"), 0);
    }
}
