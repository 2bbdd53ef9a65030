//! `meta.json`: the index format version and how the index was made.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::Result;

/// Version of the on-disk index layout. Bump it on any incompatible change; readers refuse other
/// versions with a message asking for a rebuild.
pub const INDEX_FORMAT_VERSION: u32 = 1;

pub const META_FILE: &str = "meta.json";
pub const TERMS_FILE: &str = "terms.fst";
pub const POSTINGS_FILE: &str = "postings.bin";
pub const TYPES_FILE: &str = "types.bin";
pub const PEOPLE_FILE: &str = "people.jsonl";
pub const GAZETTEER_FILE: &str = "gazetteer.bin";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IndexMeta {
    pub index_format_version: u32,
    pub created_by: String,
    /// The term dictionary is a tantivy FST term dictionary; its layout follows tantivy's version.
    pub tantivy_version: String,
    pub people: u64,
    pub terms: u64,
    pub postings: u64,
    pub whitelist_terms: usize,
    /// Where the people came from (the KG directory), when built by the CLI.
    #[serde(default)]
    pub source: Option<String>,
    pub build_seconds: f64,
}

impl IndexMeta {
    pub fn read(dir: &Path) -> Result<IndexMeta> {
        let path = dir.join(META_FILE);
        let file = kanon_core::io::open(&path)?;
        let value: serde_json::Value = serde_json::from_reader(file)
            .map_err(|e| kanon_core::Error::format(&path, e.to_string()))?;
        let found = value
            .get("index_format_version")
            .and_then(serde_json::Value::as_u64)
            .ok_or_else(|| {
                kanon_core::Error::format(
                    &path,
                    "missing field `index_format_version`: is this a kanon index?",
                )
            })?;
        if found != u64::from(INDEX_FORMAT_VERSION) {
            return Err(kanon_core::Error::Version {
                path,
                what: "index",
                found: found as u32,
                expected: INDEX_FORMAT_VERSION,
                remedy: "rebuild the index with `kanon index build`",
            }
            .into());
        }
        Ok(serde_json::from_value(value)
            .map_err(|e| kanon_core::Error::format(&path, e.to_string()))?)
    }

    pub fn write(&self, dir: &Path) -> Result<()> {
        Ok(kanon_core::io::write_json(&dir.join(META_FILE), self)?)
    }
}
