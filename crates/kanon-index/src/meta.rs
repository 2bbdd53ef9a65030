//! `meta.json`: the index format version and how the index was made.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::Result;

/// Version of the on-disk index layout. Bump it on any incompatible change; readers refuse other
/// versions with a message asking for a rebuild.
pub const INDEX_FORMAT_VERSION: u32 = 1;

/// [`IndexMeta`] as JSON.
pub const META_FILE: &str = "meta.json";
/// The term dictionary: tantivy's FST, a term's ordinal its id.
pub const TERMS_FILE: &str = "terms.fst";
/// The posting lists (roaring bitmaps), by term id.
pub const POSTINGS_FILE: &str = "postings.bin";
/// Each term's [`kanon_core::EntityType`] code, one byte per term id.
pub const TYPES_FILE: &str = "types.bin";
/// Each term's [`kanon_kg::PropertySet`], a little-endian `u32` per term id: the properties it
/// is the value of. Optional: an index built before it was written has none (its terms' kinds
/// unknown), and reads as before.
pub const PROPERTIES_FILE: &str = "properties.bin";
/// The people (KG id and name), one JSON line per dense person id.
pub const PEOPLE_FILE: &str = "people.jsonl";
/// The serialised [`crate::Gazetteer`].
pub const GAZETTEER_FILE: &str = "gazetteer.bin";

/// `meta.json`: the format version of an index directory and how it was made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IndexMeta {
    /// [`INDEX_FORMAT_VERSION`] when written; [`IndexMeta::read`] refuses another.
    pub index_format_version: u32,
    /// The kanon that built the index (`kanon 0.1.0`).
    pub created_by: String,
    /// The term dictionary is a tantivy FST term dictionary; its layout follows tantivy's version.
    pub tantivy_version: String,
    /// People indexed.
    pub people: u64,
    /// Distinct normalised terms indexed.
    pub terms: u64,
    /// (term, person) pairs.
    pub postings: u64,
    /// Generic terms of the whitelist, never indexed.
    pub whitelist_terms: usize,
    /// Where the people came from (the KG directory), when built by the CLI.
    #[serde(default)]
    pub source: Option<String>,
    /// Wall-clock seconds of the build, writing included.
    pub build_seconds: f64,
}

impl IndexMeta {
    /// Reads `dir`'s `meta.json`, refusing an index of another format version (the error says to
    /// rebuild).
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

    /// Writes `dir`'s `meta.json` atomically.
    pub fn write(&self, dir: &Path) -> Result<()> {
        Ok(kanon_core::io::write_json(&dir.join(META_FILE), self)?)
    }
}
