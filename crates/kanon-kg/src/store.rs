//! A KG directory: `triples.csv` (the native format), `kg.json` (format version, sources, counts)
//! and, when a source brought texts, `docs.jsonl` (documents about the people).

use std::io::Write;
use std::path::{Path, PathBuf};

use kanon_core::Document;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::import::{self, Format, ImportOptions, SourceReport};
use crate::model::{KnowledgeGraph, MergeStats};

/// Version of the KG directory layout; bumped on incompatible changes.
pub const KG_FORMAT_VERSION: u32 = 1;

/// The people and their facts, in the native format.
pub const TRIPLES_FILE: &str = "triples.csv";
/// How the KG was made ([`KgMeta`]).
pub const META_FILE: &str = "kg.json";
/// Documents about the people, when a source brought texts.
pub const DOCS_FILE: &str = "docs.jsonl";

/// `kg.json`: how a KG directory was made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KgMeta {
    /// [`KG_FORMAT_VERSION`] when written; another version is refused on reading.
    pub format_version: u32,
    /// The kanon that wrote the directory (`kanon 0.1.0`).
    pub created_by: String,
    /// People in the KG, after merging.
    pub people: usize,
    /// Facts of those people.
    pub facts: usize,
    /// Documents in `docs.jsonl`.
    pub docs: usize,
    /// Each source's counts, in import order.
    pub sources: Vec<SourceReport>,
    /// How many records the merge folded into earlier people.
    pub merge: MergeStats,
}

/// Writes a KG directory atomically (a temporary directory renamed into place).
pub fn write_kg_dir(
    dir: &Path,
    kg: &KnowledgeGraph,
    docs: &[Document],
    sources: Vec<SourceReport>,
    merge: MergeStats,
) -> Result<KgMeta> {
    let meta = KgMeta {
        format_version: KG_FORMAT_VERSION,
        created_by: format!("kanon {}", env!("CARGO_PKG_VERSION")),
        people: kg.len(),
        facts: kg.num_facts(),
        docs: docs.len(),
        sources,
        merge,
    };
    kanon_core::io::atomic_dir::<Error, _>(dir, |tmp| {
        let triples = tmp.join(TRIPLES_FILE);
        kanon_core::io::atomic_write(&triples, |w| write_triples(w, kg))?;
        if !docs.is_empty() {
            kanon_core::io::atomic_write(&tmp.join(DOCS_FILE), |w| {
                kanon_core::io::write_jsonl(w, docs)
            })?;
        }
        kanon_core::io::write_json(&tmp.join(META_FILE), &meta)?;
        Ok(())
    })?;
    Ok(meta)
}

/// Writes the KG as triples. Fact values with alternate names are written as entities (`_:e1`) with
/// `label` and `alias` rows, so they read back identically.
pub fn write_triples<W: Write>(out: &mut W, kg: &KnowledgeGraph) -> std::io::Result<()> {
    let mut csv = csv::Writer::from_writer(out);
    csv.write_record(["subject", "property", "value"])?;
    let mut entities: FxHashMap<(&str, &[String]), String> = FxHashMap::default();
    let mut entity_rows: Vec<(String, &str, &[String])> = Vec::new();
    for person in &kg.people {
        csv.write_record([person.id.as_str(), "label", person.label.as_str()])?;
        for alias in &person.aliases {
            csv.write_record([person.id.as_str(), "alias", alias])?;
        }
        for id in &person.same_as {
            csv.write_record([person.id.as_str(), "same_as", id])?;
        }
        if person.facts.is_empty() && person.same_as.is_empty() {
            csv.write_record([person.id.as_str(), "type", "person"])?;
        }
        for fact in &person.facts {
            let value = if fact.alternates.is_empty() {
                fact.value.as_str()
            } else {
                let key = (fact.value.as_str(), fact.alternates.as_slice());
                let next = entities.len() + 1;
                entities.entry(key).or_insert_with(|| {
                    let id = format!("_:e{next}");
                    entity_rows.push((id.clone(), &fact.value, &fact.alternates));
                    id
                })
            };
            csv.write_record([person.id.as_str(), fact.property.name(), value])?;
        }
    }
    for (id, label, aliases) in &entity_rows {
        csv.write_record([id.as_str(), "label", label])?;
        for alias in aliases.iter() {
            csv.write_record([id.as_str(), "alias", alias])?;
        }
    }
    csv.flush()
}

/// Reads `kg.json`, checking the format version.
pub fn read_meta(dir: &Path) -> Result<KgMeta> {
    let path = dir.join(META_FILE);
    let file = kanon_core::io::open(&path)?;
    let meta: KgMeta = serde_json::from_reader(file)
        .map_err(|e| kanon_core::Error::format(&path, e.to_string()))?;
    if meta.format_version != KG_FORMAT_VERSION {
        return Err(kanon_core::Error::Version {
            path,
            what: "KG",
            found: meta.format_version,
            expected: KG_FORMAT_VERSION,
            remedy: "re-import the KG",
        }
        .into());
    }
    Ok(meta)
}

/// Reads a KG directory.
pub fn read_kg_dir(dir: &Path) -> Result<(KnowledgeGraph, KgMeta)> {
    let meta = read_meta(dir)?;
    let data = import::import(
        Format::Triples,
        &[dir.join(TRIPLES_FILE)],
        &ImportOptions::default(),
    )?;
    Ok((
        KnowledgeGraph {
            people: data.people,
        },
        meta,
    ))
}

/// The documents of a KG directory, if a source brought any.
pub fn docs_path(dir: &Path) -> Option<PathBuf> {
    let path = dir.join(DOCS_FILE);
    path.exists().then_some(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Fact, Person, Property};

    #[test]
    fn kg_dir_round_trips() {
        let mut a = Person::new("Q1", "Lilian Albano");
        a.aliases.push("Lily Albano".into());
        a.same_as.push("freebase:/m/1".into());
        a.facts.push(Fact::new(Property::BirthDate, "1992-08-05"));
        a.facts.push(
            Fact::new(Property::Citizenship, "Austria")
                .with_alternates(["Republic of Austria".into()]),
        );
        let mut b = Person::new("Q2", "Quiet Person");
        b.facts.clear();
        let mut c = Person::new("Q3", "Mark, Comma \"Quote\"");
        c.facts.push(
            Fact::new(Property::BirthPlace, "Austria")
                .with_alternates(["Republic of Austria".into()]),
        );
        let kg = KnowledgeGraph {
            people: vec![a, b, c],
        };
        let dir = tempfile::tempdir().unwrap();
        let kg_dir = dir.path().join("kg");
        let docs = vec![Document {
            id: "d1".into(),
            person: Some("Q1".into()),
            text: "Lilian Albano is Austrian.".into(),
            split: None,
        }];
        let meta = write_kg_dir(&kg_dir, &kg, &docs, vec![], MergeStats::default()).unwrap();
        assert_eq!((meta.people, meta.facts, meta.docs), (3, 3, 1));
        let (read, read_meta) = read_kg_dir(&kg_dir).unwrap();
        assert_eq!(read, kg);
        assert_eq!(read_meta, meta);
        assert!(docs_path(&kg_dir).is_some());
    }

    #[test]
    fn refuses_other_format_versions() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(META_FILE),
            r#"{"format_version":99,"created_by":"x","people":0,"facts":0,"docs":0,"sources":[],"merge":{"by_identifier":0,"by_name_and_birth_year":0}}"#,
        )
        .unwrap();
        let err = read_meta(dir.path()).unwrap_err().to_string();
        assert!(err.contains("version 99 is not supported"), "{err}");
    }
}
