//! Reading a kanon corpus: the directory `kanon label` writes (`train/dev/test.jsonl` and
//! `manifest.json`). Its format is versioned by the manifest's `corpus_format_version`, checked
//! before any split is read; a line is a [`CorpusDocument`].

use std::path::Path;

use serde::Deserialize;

use crate::error::{Error, Result};
use crate::spans::SpanRecord;
use crate::{EntityType, Span};

/// The corpus format this kanon writes and reads.
pub const CORPUS_FORMAT_VERSION: u32 = 1;
/// The file that says how a corpus was made, and in which format.
pub const MANIFEST_FILE: &str = "manifest.json";

/// A line of a corpus split: a document, the person it is about and the spans to mask in it. A
/// line carries more (the split, each span's `term`, `postings` and `reason`), which readers
/// ignore.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct CorpusDocument {
    /// The document's id, as in the input the corpus was labeled from.
    pub id: String,
    /// The KG id of the person the document is about, as in the input.
    #[serde(default)]
    pub person: Option<String>,
    /// The full text; span offsets count its characters.
    pub text: String,
    /// The spans to mask, in character offsets of `text`.
    #[serde(default)]
    pub spans: Vec<SpanRecord>,
}

impl CorpusDocument {
    /// The non-empty spans with their types.
    pub fn typed_spans(&self) -> Vec<(Span, Option<EntityType>)> {
        self.spans
            .iter()
            .filter(|s| s.start < s.end)
            .map(|s| (Span::new(s.start, s.end), s.entity_type))
            .collect()
    }
}

#[derive(Deserialize)]
struct ManifestVersion {
    corpus_format_version: Option<u32>,
}

/// Checks that `dir` is a corpus of the format this kanon reads.
pub fn check_version(dir: &Path) -> Result<()> {
    let path = dir.join(MANIFEST_FILE);
    if !path.is_file() {
        return Err(Error::format(
            &path,
            "missing: a corpus is a directory written by `kanon label`, whose manifest.json holds \
             its `corpus_format_version`",
        ));
    }
    let manifest: ManifestVersion = serde_json::from_reader(crate::io::open(&path)?)
        .map_err(|e| Error::parse(&path, e.line() as u64, format!("corpus manifest: {e}")))?;
    match manifest.corpus_format_version {
        Some(CORPUS_FORMAT_VERSION) => Ok(()),
        Some(found) => Err(Error::Version {
            path,
            what: "corpus",
            found,
            expected: CORPUS_FORMAT_VERSION,
            remedy: "label the documents again with `kanon label`",
        }),
        None => Err(Error::format(&path, "no `corpus_format_version`")),
    }
}

/// Reads one split (`train`, `dev`, `test`) of a corpus whose version [`check_version`] accepts.
pub fn read_split(dir: &Path, split: &str) -> Result<Vec<CorpusDocument>> {
    check_version(dir)?;
    crate::io::read_jsonl::<CorpusDocument>(&dir.join(format!("{split}.jsonl")))?
        .map(|record| record.map(|(_, doc)| doc))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_split_only_from_a_corpus_of_this_version() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("train.jsonl"),
            r#"{"id":"d1","person":"p","text":"Zoë Ølund","split":"train","spans":[{"start":0,"end":9,"label":"MASK","type":"PERSON","term":"zoe olund","postings":1,"reason":"rare"}]}"#,
        )
        .unwrap();
        let err = read_split(dir.path(), "train").unwrap_err().to_string();
        assert!(err.contains("manifest.json: missing"), "{err}");

        std::fs::write(
            dir.path().join(MANIFEST_FILE),
            r#"{"corpus_format_version": 2, "stats": {}}"#,
        )
        .unwrap();
        let err = read_split(dir.path(), "train").unwrap_err().to_string();
        assert!(
            err.contains("corpus format version 2 is not supported"),
            "{err}"
        );

        std::fs::write(
            dir.path().join(MANIFEST_FILE),
            r#"{"corpus_format_version": 1}"#,
        )
        .unwrap();
        let docs = read_split(dir.path(), "train").unwrap();
        assert_eq!(
            docs[0].typed_spans(),
            vec![(Span::new(0, 9), Some(EntityType::Person))]
        );
    }
}
