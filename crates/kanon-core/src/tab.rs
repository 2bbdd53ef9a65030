//! The Text Anonymization Benchmark (TAB) document schema: a JSON array of documents, each with its
//! text and, per annotator, the entity mentions (character offsets) with their identifier type.
//! The spans to mask are the DIRECT and QUASI mentions.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::entity::EntityType;
use crate::error::{Error, PathContext, Result};
use crate::{Document, Span};

/// Whether a mention identifies the person directly, in combination with others, or not at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum IdentifierType {
    /// Identifies the person on its own (a name, a case number).
    Direct,
    /// Identifies the person in combination with other quasi-identifiers (a date, a city, a job).
    Quasi,
    /// Identifies no one: left in the text.
    NoMask,
}

impl IdentifierType {
    /// DIRECT and QUASI mentions are the ones to mask.
    pub fn to_mask(self) -> bool {
        matches!(self, IdentifierType::Direct | IdentifierType::Quasi)
    }
}

/// One annotator's mention of an entity in a TAB document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TabMention {
    /// The mention's TAB category.
    pub entity_type: EntityType,
    /// The mention's first character in the document's text.
    pub start_offset: usize,
    /// One past the mention's last character (`start_offset < end_offset <= ` the text's length,
    /// checked by [`read_tab`]).
    pub end_offset: usize,
    /// The text of the mention as the annotator saw it (not checked against the offsets).
    #[serde(default)]
    pub span_text: String,
    /// Whether the mention is to be masked, and why.
    pub identifier_type: IdentifierType,
    /// Mentions of one entity share it.
    #[serde(default)]
    pub entity_id: Option<String>,
    /// The mention's own id within the annotation, when the file gives one.
    #[serde(default)]
    pub entity_mention_id: Option<String>,
}

impl TabMention {
    /// The mention's offsets as a [`Span`].
    pub fn span(&self) -> Span {
        Span::new(self.start_offset, self.end_offset)
    }
}

/// What one annotator marked in a document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TabAnnotation {
    /// The annotator's mentions, in the order annotated.
    #[serde(default)]
    pub entity_mentions: Vec<TabMention>,
}

/// A document of the TAB schema: its text and every annotator's mentions in it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TabDocument {
    /// The document's id (an ECHR case number in TAB itself).
    pub doc_id: String,
    /// The document's text; offsets count its characters.
    pub text: String,
    /// Annotator name → that annotator's mentions.
    #[serde(default)]
    pub annotations: BTreeMap<String, TabAnnotation>,
    /// The annotation task the document belongs to, when the file says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<String>,
    /// The split (`train`, `dev`, `test`) the document belongs to, when the file says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dataset_type: Option<String>,
}

impl TabDocument {
    /// The document as kanon's plain `Document` (no person, split from `dataset_type`).
    pub fn to_document(&self) -> Document {
        Document {
            id: self.doc_id.clone(),
            person: None,
            text: self.text.clone(),
            split: self.dataset_type.clone(),
        }
    }
}

/// Reads a TAB-schema JSON file, checking every mention's offsets against its text.
pub fn read_tab(path: &Path) -> Result<Vec<TabDocument>> {
    // Read here rather than through `io`: `io` reads TAB files as one of its document formats.
    let bytes = std::fs::read(path).with_path(path)?;
    let docs: Vec<TabDocument> = serde_json::from_slice(&bytes)
        .map_err(|e| Error::parse(path, e.line() as u64, format!("TAB schema: {e}")))?;
    for doc in &docs {
        let chars = doc.text.chars().count();
        for (annotator, annotation) in &doc.annotations {
            for (i, m) in annotation.entity_mentions.iter().enumerate() {
                if m.start_offset >= m.end_offset || m.end_offset > chars {
                    let mention_id = m.entity_mention_id.as_deref();
                    let named = mention_id.map_or_else(String::new, |id| format!(" ({id:?})"));
                    return Err(Error::parse(
                        path,
                        line_of_mention(&bytes, &doc.doc_id, mention_id),
                        format!(
                            "document {:?}, {annotator} mention {i}{named}: `start_offset` = {}, `end_offset` = {} is not a span of its {chars}-character text",
                            doc.doc_id, m.start_offset, m.end_offset
                        ),
                    ));
                }
            }
        }
    }
    Ok(docs)
}

/// The 1-based line of a mention in a TAB file: of its `"entity_mention_id"` after the document's
/// `"doc_id"`, else of the `"doc_id"`; 0 when neither is written as kanon looks for it.
fn line_of_mention(bytes: &[u8], doc_id: &str, mention_id: Option<&str>) -> u64 {
    let text = String::from_utf8_lossy(bytes);
    let Some(doc) = find_field(&text, 0, "doc_id", doc_id) else {
        return 0;
    };
    let at = mention_id
        .and_then(|id| find_field(&text, doc, "entity_mention_id", id))
        .unwrap_or(doc);
    1 + text[..at].matches('\n').count() as u64
}

/// Where `"field": "value"` is written in `text` from byte `from` on (any spacing around the colon).
fn find_field(text: &str, from: usize, field: &str, value: &str) -> Option<usize> {
    let key = format!("\"{field}\"");
    let value = serde_json::to_string(value).ok()?;
    let mut at = from;
    while let Some(found) = text[at..].find(&key) {
        let start = at + found;
        let rest = text[start + key.len()..].trim_start();
        if let Some(rest) = rest.strip_prefix(':')
            && rest.trim_start().starts_with(&value)
        {
            return Some(start);
        }
        at = start + key.len();
    }
    None
}

/// A DIRECT or QUASI mention of a TAB document, the annotators united.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MaskedMention {
    /// Where the mention is; the spans of one annotator's mentions may overlap another's.
    pub span: Span,
    /// The category the annotator gave.
    pub entity_type: EntityType,
    /// DIRECT or QUASI (never NO_MASK).
    pub identifier_type: IdentifierType,
    /// The entity it belongs to, linked across annotators: the key (`annotator\u{1}entity_id`)
    /// of the first of the entities joined by overlapping mentions.
    pub entity: String,
}

impl TabDocument {
    /// The DIRECT and QUASI mentions of each annotator (annotators in name order, mentions as
    /// annotated).
    pub fn masked_mentions_by_annotator(
        &self,
    ) -> impl Iterator<Item = (&str, impl Iterator<Item = &TabMention>)> {
        self.annotations.iter().map(|(annotator, annotation)| {
            (
                annotator.as_str(),
                annotation
                    .entity_mentions
                    .iter()
                    .filter(|m| m.identifier_type.to_mask()),
            )
        })
    }

    /// The DIRECT and QUASI mentions of every annotator: their union (a span one annotator marked
    /// is masked even if another did not). Annotators name entities separately, so their
    /// entities are joined where two of their mentions are one mention told apart by its edges
    /// (same type, sharing at least half of their joint characters: `5 August 2003` and `August
    /// 2003`), never where one merely overlaps another (`Oslo` inside `University of Oslo`), which
    /// would chain distinct entities. Overlapping mentions themselves are all kept (a sanitizer
    /// masks their union).
    pub fn masked_mentions(&self) -> Vec<MaskedMention> {
        let mut mentions: Vec<MaskedMention> = Vec::new();
        for (annotator, annotation) in &self.annotations {
            for (index, mention) in annotation.entity_mentions.iter().enumerate() {
                if !mention.identifier_type.to_mask() {
                    continue;
                }
                let entity = match &mention.entity_id {
                    Some(id) => format!("{annotator}\u{1}{id}"),
                    None => format!("{annotator}\u{1}mention-{index}"),
                };
                mentions.push(MaskedMention {
                    span: mention.span(),
                    entity_type: mention.entity_type,
                    identifier_type: mention.identifier_type,
                    entity,
                });
            }
        }
        // Union-find over entity keys, joined by overlapping mentions.
        let mut keys: Vec<String> = mentions.iter().map(|m| m.entity.clone()).collect();
        keys.sort();
        keys.dedup();
        let index_of: HashMap<&str, usize> = keys
            .iter()
            .enumerate()
            .map(|(i, key)| (key.as_str(), i))
            .collect();
        let mut parent: Vec<usize> = (0..keys.len()).collect();
        fn root(parent: &mut [usize], mut node: usize) -> usize {
            while parent[node] != node {
                parent[node] = parent[parent[node]];
                node = parent[node];
            }
            node
        }
        let mut by_start: Vec<usize> = (0..mentions.len()).collect();
        by_start.sort_by_key(|&i| mentions[i].span.start);
        for (position, &a) in by_start.iter().enumerate() {
            for &b in &by_start[position + 1..] {
                if mentions[b].span.start >= mentions[a].span.end {
                    break;
                }
                if !same_mention(&mentions[a], &mentions[b]) {
                    continue;
                }
                let ra = root(&mut parent, index_of[mentions[a].entity.as_str()]);
                let rb = root(&mut parent, index_of[mentions[b].entity.as_str()]);
                parent[ra.max(rb)] = ra.min(rb);
            }
        }
        let linked: Vec<usize> = mentions
            .iter()
            .map(|m| root(&mut parent, index_of[m.entity.as_str()]))
            .collect();
        for (mention, group) in mentions.iter_mut().zip(linked) {
            mention.entity = keys[group].clone();
        }
        mentions
    }
}

/// Whether two overlapping mentions (of one annotator or two) are the same mention: one type, and
/// their shared characters at least half of the characters either covers.
fn same_mention(a: &MaskedMention, b: &MaskedMention) -> bool {
    let shared = a
        .span
        .end
        .min(b.span.end)
        .saturating_sub(a.span.start.max(b.span.start));
    let joint = a.span.end.max(b.span.end) - a.span.start.min(b.span.start);
    a.entity_type == b.entity_type && 2 * shared >= joint
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = r#"[{"doc_id": "d1", "text": "Zoë Ølund was born in 1990.", "dataset_type": "test",
        "annotations": {"annotator1": {"entity_mentions": [
          {"entity_type": "PERSON", "entity_mention_id": "m1", "start_offset": 0, "end_offset": 9,
           "span_text": "Zoë Ølund", "identifier_type": "DIRECT", "entity_id": "e1", "edit_type": "check"},
          {"entity_type": "DATETIME", "start_offset": 22, "end_offset": 26, "span_text": "1990",
           "identifier_type": "QUASI", "entity_id": "e2"},
          {"entity_type": "MISC", "start_offset": 10, "end_offset": 13, "identifier_type": "NO_MASK"}]}}}]"#;

    #[test]
    fn reads_mentions_with_char_offsets() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tab.json");
        std::fs::write(&path, DOC).unwrap();
        let docs = read_tab(&path).unwrap();
        let mentions = &docs[0].annotations["annotator1"].entity_mentions;
        assert_eq!(mentions.len(), 3);
        assert_eq!(mentions[0].span().slice(&docs[0].text), Some("Zoë Ølund"));
        assert!(mentions[1].identifier_type.to_mask() && !mentions[2].identifier_type.to_mask());
        assert_eq!(docs[0].to_document().split.as_deref(), Some("test"));
    }

    #[test]
    fn out_of_range_offsets_name_the_document() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tab.json");
        std::fs::write(
            &path,
            DOC.replace("\"end_offset\": 26", "\"end_offset\": 99"),
        )
        .unwrap();
        let err = read_tab(&path).unwrap_err().to_string();
        // The line of the document (its mention has no id), the values as written.
        assert!(
            err.contains("tab.json:1: document \"d1\", annotator1 mention 1: `start_offset` = 22, `end_offset` = 99 is not a span of its 27-character text"),
            "{err}"
        );
        // A mention with an id: its own line.
        std::fs::write(
            &path,
            DOC.replace("\"end_offset\": 9", "\"end_offset\": 3")
                .replace("\"start_offset\": 0", "\"start_offset\": 7"),
        )
        .unwrap();
        let err = read_tab(&path).unwrap_err().to_string();
        assert!(
            err.contains("tab.json:3: document \"d1\", annotator1 mention 0 (\"m1\"): `start_offset` = 7, `end_offset` = 3"),
            "{err}"
        );
        std::fs::write(&path, "[{\"doc_id\": 1}]").unwrap();
        let err = read_tab(&path).unwrap_err().to_string();
        assert!(
            err.contains("tab.json:1:") && err.contains("TAB schema"),
            "{err}"
        );
    }

    #[test]
    fn masked_mentions_unite_annotators_and_link_entities_by_overlap() {
        let doc: Vec<TabDocument> = serde_json::from_str(
            r#"[{"doc_id": "t1", "text": "Lilian Trosterud met L. Trosterud in Bergen.",
              "annotations": {
                "a1": {"entity_mentions": [
                  {"entity_type": "PERSON", "start_offset": 0, "end_offset": 16, "identifier_type": "DIRECT", "entity_id": "e1"},
                  {"entity_type": "LOC", "start_offset": 37, "end_offset": 43, "identifier_type": "NO_MASK", "entity_id": "e3"}]},
                "a2": {"entity_mentions": [
                  {"entity_type": "PERSON", "start_offset": 0, "end_offset": 16, "identifier_type": "DIRECT", "entity_id": "x1"},
                  {"entity_type": "PERSON", "start_offset": 21, "end_offset": 33, "identifier_type": "DIRECT", "entity_id": "x1"},
                  {"entity_type": "LOC", "start_offset": 37, "end_offset": 43, "identifier_type": "QUASI"}]}}}]"#,
        )
        .unwrap();
        let by_annotator: Vec<(&str, usize)> = doc[0]
            .masked_mentions_by_annotator()
            .map(|(annotator, mentions)| (annotator, mentions.count()))
            .collect();
        assert_eq!(by_annotator, [("a1", 1), ("a2", 3)]);
        let mentions = doc[0].masked_mentions();
        let entities: Vec<&str> = mentions.iter().map(|m| m.entity.as_str()).collect();
        // a2's x1 is a1's e1 through the shared first mention; an unnamed entity is its mention.
        assert_eq!(
            entities,
            ["a1\u{1}e1", "a1\u{1}e1", "a1\u{1}e1", "a2\u{1}mention-2"]
        );
        assert_eq!(mentions[3].span, Span::new(37, 43));
    }

    #[test]
    fn a_place_inside_an_organisation_does_not_chain_their_entities() {
        // a1: the university (ORG) and, later, the city; a2: the city inside the university's
        // name and a second university. Linking by mere overlap would make one entity of all.
        let doc: Vec<TabDocument> = serde_json::from_str(
            r#"[{"doc_id": "t2", "text": "University of Oslo, in Oslo; University of Bergen.",
              "annotations": {
                "a1": {"entity_mentions": [
                  {"entity_type": "ORG", "start_offset": 0, "end_offset": 18, "identifier_type": "QUASI", "entity_id": "u"},
                  {"entity_type": "LOC", "start_offset": 23, "end_offset": 27, "identifier_type": "QUASI", "entity_id": "c"}]},
                "a2": {"entity_mentions": [
                  {"entity_type": "LOC", "start_offset": 14, "end_offset": 18, "identifier_type": "QUASI", "entity_id": "oslo"},
                  {"entity_type": "LOC", "start_offset": 23, "end_offset": 27, "identifier_type": "QUASI", "entity_id": "oslo"},
                  {"entity_type": "ORG", "start_offset": 29, "end_offset": 49, "identifier_type": "QUASI", "entity_id": "u"},
                  {"entity_type": "ORG", "start_offset": 0, "end_offset": 17, "identifier_type": "QUASI", "entity_id": "u"}]}}}]"#,
        )
        .unwrap();
        let mentions = doc[0].masked_mentions();
        let entity_of = |start: usize, end: usize| {
            mentions
                .iter()
                .find(|m| m.span == Span::new(start, end))
                .map(|m| m.entity.as_str())
                .unwrap()
        };
        // The city is one entity across annotators (same span, same type) …
        assert_eq!(entity_of(23, 27), "a1\u{1}c");
        assert_eq!(entity_of(14, 18), "a1\u{1}c");
        // … the university is another, joined to a2's `u` by the near-identical span, and so
        // a2's second university (the same id) joins it too; the city stays apart.
        assert_eq!(entity_of(0, 18), "a1\u{1}u");
        assert_eq!(entity_of(0, 17), "a1\u{1}u");
        assert_eq!(entity_of(29, 49), "a1\u{1}u");
        assert_ne!(entity_of(0, 18), entity_of(14, 18));
    }
}
