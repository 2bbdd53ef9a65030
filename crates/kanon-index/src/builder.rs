//! Builds an index from a knowledge graph: terms in parallel (rayon), postings as roaring bitmaps,
//! the term dictionary as a tantivy FST (term ordinal = term id), and the gazetteer automaton.

use std::hash::{Hash, Hasher};
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;
use std::time::Instant;

use kanon_core::{EntityType, Progress};
use kanon_kg::{KnowledgeGraph, PropertySet, TermGenerator, Vocabulary, Whitelist};
use rayon::prelude::*;
use roaring::RoaringBitmap;
use rustc_hash::{FxHashMap, FxHasher};
use tantivy::postings::TermInfo;
use tantivy::termdict::TermDictionaryBuilder;

use crate::error::{Error, Result};
use crate::gazetteer::Gazetteer;
use crate::meta::{
    GAZETTEER_FILE, INDEX_FORMAT_VERSION, IndexMeta, PEOPLE_FILE, POSTINGS_FILE, PROPERTIES_FILE,
    TERMS_FILE, TYPES_FILE,
};

/// Magic bytes at the start of `postings.bin`.
pub(crate) const POSTINGS_MAGIC: &[u8; 8] = b"KNPOSTv1";

const SHARDS: usize = 256;
const CHUNK: usize = 2048;

/// How a term is typed: by the category most of its people have it as.
#[derive(Debug, Default)]
struct TermAccumulator {
    people: Vec<u32>,
    type_counts: [u32; 8],
    properties: PropertySet,
}

/// Builds an index. The default whitelist is the English one of `kg/whitelist.txt`.
#[derive(Debug)]
pub struct IndexBuilder {
    whitelist: Whitelist,
    source: Option<String>,
}

impl Default for IndexBuilder {
    fn default() -> Self {
        IndexBuilder {
            whitelist: Whitelist::english(),
            source: None,
        }
    }
}

/// What a build produced.
#[derive(Debug, Clone, PartialEq)]
pub struct BuildStats {
    /// The `meta.json` written.
    pub meta: IndexMeta,
}

impl IndexBuilder {
    /// A builder with the default English whitelist and no source recorded.
    pub fn new() -> Self {
        Self::default()
    }

    /// Replaces the whitelist of generic terms that are never indexed.
    pub fn whitelist(mut self, whitelist: Whitelist) -> Self {
        self.whitelist = whitelist;
        self
    }

    /// Records where the people came from in `meta.json`.
    pub fn source(mut self, source: impl Into<String>) -> Self {
        self.source = Some(source.into());
        self
    }

    /// Builds the index of `kg` into `out` (atomically: a temporary directory renamed into place).
    pub fn build(
        &self,
        kg: &KnowledgeGraph,
        out: &Path,
        progress: &dyn Progress,
    ) -> Result<IndexMeta> {
        let started = Instant::now();
        if kg.len() >= u32::MAX as usize {
            return Err(Error::Usage(format!(
                "{} people do not fit 32-bit person ids",
                kg.len()
            )));
        }
        let generator = TermGenerator::new(Vocabulary::embedded(), &self.whitelist);
        let shards: Vec<Mutex<FxHashMap<Box<str>, TermAccumulator>>> = (0..SHARDS)
            .map(|_| Mutex::new(FxHashMap::default()))
            .collect();

        progress.stage("terms", kg.len() as u64);
        kg.people
            .par_chunks(CHUNK)
            .enumerate()
            .for_each(|(chunk_index, chunk)| {
                let mut by_shard: Vec<Vec<(String, EntityType, PropertySet, u32)>> =
                    vec![Vec::new(); SHARDS];
                for (offset, person) in chunk.iter().enumerate() {
                    let person_id = (chunk_index * CHUNK + offset) as u32;
                    for term in generator.terms(person) {
                        let mut hasher = FxHasher::default();
                        term.term.hash(&mut hasher);
                        let shard = (hasher.finish() as usize) % SHARDS;
                        by_shard[shard].push((
                            term.term,
                            term.entity_type,
                            term.properties,
                            person_id,
                        ));
                    }
                }
                for (shard, entries) in by_shard.into_iter().enumerate() {
                    if entries.is_empty() {
                        continue;
                    }
                    let mut map = shards[shard]
                        .lock()
                        .expect("no thread panics while holding a shard");
                    for (term, entity_type, properties, person_id) in entries {
                        let acc = map.entry(term.into_boxed_str()).or_default();
                        acc.people.push(person_id);
                        acc.type_counts[usize::from(entity_type.to_u8())] += 1;
                        acc.properties = acc.properties.union(properties);
                    }
                }
                progress.advance(chunk.len() as u64);
            });

        progress.stage("sort terms", 0);
        let mut terms: Vec<(Box<str>, TermAccumulator)> = shards
            .into_iter()
            .flat_map(|m| {
                m.into_inner()
                    .expect("no thread panics while holding a shard")
            })
            .collect();
        terms.par_sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        terms
            .par_iter_mut()
            .for_each(|(_, acc)| acc.people.sort_unstable());

        kanon_core::io::atomic_dir::<Error, _>(out, |dir| {
            let postings = write_postings(dir, &terms, progress)?;
            write_term_dictionary(dir, &terms, &postings)?;
            write_types(dir, &terms)?;
            write_properties(dir, &terms)?;
            write_people(dir, kg)?;
            progress.stage("gazetteer", 0);
            let gazetteer =
                Gazetteer::build(terms.iter().enumerate().map(|(i, (t, _))| (&**t, i as u32)))?;
            let bytes = gazetteer.serialize();
            drop(gazetteer);
            kanon_core::io::atomic_write(&dir.join(GAZETTEER_FILE), |w| w.write_all(&bytes))?;
            let meta = IndexMeta {
                index_format_version: INDEX_FORMAT_VERSION,
                created_by: format!("kanon {}", env!("CARGO_PKG_VERSION")),
                tantivy_version: "0.27".into(),
                people: kg.len() as u64,
                terms: terms.len() as u64,
                postings: terms.iter().map(|(_, a)| a.people.len() as u64).sum(),
                whitelist_terms: self.whitelist.len(),
                source: self.source.clone(),
                build_seconds: started.elapsed().as_secs_f64(),
            };
            meta.write(dir)?;
            Ok(())
        })?;
        let mut meta = IndexMeta::read(out)?;
        meta.build_seconds = started.elapsed().as_secs_f64();
        meta.write(out)?;
        Ok(meta)
    }
}

/// `postings.bin`: magic, term count, `terms + 1` little-endian u64 offsets, then each term's people
/// as a roaring bitmap (the portable roaring format). Returns each term's byte range.
fn write_postings(
    dir: &Path,
    terms: &[(Box<str>, TermAccumulator)],
    progress: &dyn Progress,
) -> Result<Vec<std::ops::Range<usize>>> {
    progress.stage("postings", terms.len() as u64);
    // Each chunk: its terms' bitmaps back to back, and each bitmap's length.
    let serialized: Vec<(Vec<u8>, Vec<usize>)> = terms
        .par_chunks(8192)
        .map(|chunk| {
            let mut buf = Vec::new();
            let mut lens = Vec::with_capacity(chunk.len());
            for (_, acc) in chunk {
                let before = buf.len();
                RoaringBitmap::from_sorted_iter(acc.people.iter().copied())
                    .expect("people are sorted")
                    .serialize_into(&mut buf)
                    .expect("writing to a Vec cannot fail");
                lens.push(buf.len() - before);
            }
            progress.advance(chunk.len() as u64);
            (buf, lens)
        })
        .collect();
    let header_len = 8 + 8 + 8 * (terms.len() + 1);
    let mut ranges = Vec::with_capacity(terms.len());
    let mut offset = header_len;
    for len in serialized.iter().flat_map(|(_, lens)| lens) {
        ranges.push(offset..offset + len);
        offset += len;
    }
    kanon_core::io::atomic_write(&dir.join(POSTINGS_FILE), |w| {
        w.write_all(POSTINGS_MAGIC)?;
        w.write_all(&(terms.len() as u64).to_le_bytes())?;
        for range in &ranges {
            w.write_all(&(range.start as u64).to_le_bytes())?;
        }
        w.write_all(&(offset as u64).to_le_bytes())?;
        for (chunk, _) in &serialized {
            w.write_all(chunk)?;
        }
        Ok(())
    })?;
    Ok(ranges)
}

/// The tantivy FST term dictionary; each term's [`TermInfo`] holds its people count and the byte range
/// of its bitmap in `postings.bin`. Terms are inserted sorted, so a term's ordinal is its id.
fn write_term_dictionary(
    dir: &Path,
    terms: &[(Box<str>, TermAccumulator)],
    ranges: &[std::ops::Range<usize>],
) -> Result<()> {
    kanon_core::io::atomic_write(&dir.join(TERMS_FILE), |w| {
        let mut builder = TermDictionaryBuilder::create(w)?;
        for ((term, acc), range) in terms.iter().zip(ranges) {
            let info = TermInfo {
                doc_freq: acc.people.len() as u32,
                postings_range: range.clone(),
                positions_range: 0..0,
            };
            builder.insert(term.as_bytes(), &info)?;
        }
        builder.finish()?;
        Ok(())
    })?;
    Ok(())
}

/// `properties.bin`: per term, the little-endian `u32` of its [`PropertySet`].
fn write_properties(dir: &Path, terms: &[(Box<str>, TermAccumulator)]) -> Result<()> {
    kanon_core::io::atomic_write(&dir.join(PROPERTIES_FILE), |w| {
        for (_, acc) in terms {
            w.write_all(&acc.properties.0.to_le_bytes())?;
        }
        Ok(())
    })?;
    Ok(())
}

/// `types.bin`: one byte per term, the [`EntityType`] most of its people have it as.
fn write_types(dir: &Path, terms: &[(Box<str>, TermAccumulator)]) -> Result<()> {
    kanon_core::io::atomic_write(&dir.join(TYPES_FILE), |w| {
        let bytes: Vec<u8> = terms
            .iter()
            .map(|(_, acc)| {
                let mut best = 0;
                for (i, &count) in acc.type_counts.iter().enumerate() {
                    if count > acc.type_counts[best] {
                        best = i;
                    }
                }
                best as u8
            })
            .collect();
        w.write_all(&bytes)
    })?;
    Ok(())
}

#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) struct PersonRow {
    pub id: String,
    pub label: String,
}

/// `people.jsonl`: the KG id and name of each person id, in order.
fn write_people(dir: &Path, kg: &KnowledgeGraph) -> Result<()> {
    kanon_core::io::atomic_write(&dir.join(PEOPLE_FILE), |w| {
        kanon_core::io::write_jsonl(
            w,
            kg.people.iter().map(|p| PersonRow {
                id: p.id.clone(),
                label: p.label.clone(),
            }),
        )
    })?;
    Ok(())
}
