//! An opened index: the tantivy term dictionary (exact, prefix and fuzzy lookup), every posting
//! list decoded once into memory, term types, the people table and the gazetteer.

use std::path::{Path, PathBuf};

use kanon_core::EntityType;
use kanon_core::PathContext;
use kanon_core::text::normalize_term;
use kanon_kg::PropertySet;
use roaring::RoaringBitmap;
use rustc_hash::FxHashMap;
use tantivy::directory::FileSlice;
use tantivy::termdict::TermDictionary;
use tantivy_fst::Automaton;

use crate::builder::{POSTINGS_MAGIC, PersonRow};
use crate::error::{Error, Result};
use crate::gazetteer::{Gazetteer, TermMatch};
use crate::meta::{
    GAZETTEER_FILE, IndexMeta, PEOPLE_FILE, POSTINGS_FILE, PROPERTIES_FILE, TERMS_FILE, TYPES_FILE,
};
use crate::postings::{PostingList, PostingStore};

/// A person of the index: the dense id used in postings maps to the KG id and name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexedPerson {
    /// The person's KG id.
    pub id: String,
    /// The person's name in the KG.
    pub label: String,
}

/// Counts printed by `kanon index stats`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct IndexStats {
    /// People indexed.
    pub people: u64,
    /// Distinct normalised terms.
    pub terms: u64,
    /// (term, person) pairs.
    pub postings: u64,
    /// Terms per TAB category, every category listed in [`EntityType::ALL`] order.
    pub terms_by_type: Vec<(EntityType, u64)>,
    /// Terms that only one person has: each of them identifies its person alone.
    pub unique_terms: u64,
    /// Terms per property they are the value of (a term may count under several); empty when
    /// the index predates `properties.bin`.
    pub terms_by_property: Vec<(&'static str, u64)>,
}

/// An index directory opened for reading: the term dictionary, every posting list, the term types,
/// the people and the gazetteer, all in memory. Read-only and shared across threads.
pub struct Index {
    dir: PathBuf,
    meta: IndexMeta,
    terms: TermDictionary,
    postings: PostingStore,
    types: Vec<u8>,
    /// Empty when the index predates `properties.bin`.
    properties: Vec<u32>,
    people: Vec<IndexedPerson>,
    person_ids: FxHashMap<String, u32>,
    gazetteer: Gazetteer,
}

impl std::fmt::Debug for Index {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Index")
            .field("dir", &self.dir)
            .field("people", &self.people.len())
            .field("terms", &self.types.len())
            .finish()
    }
}

impl Index {
    /// Opens an index directory, checking its format version, and loads postings and gazetteer.
    pub fn open(dir: &Path) -> Result<Index> {
        let meta = IndexMeta::read(dir)?;
        let terms_path = dir.join(TERMS_FILE);
        let slice = FileSlice::open(&terms_path).with_path(&terms_path)?;
        let terms = TermDictionary::open(slice).with_path(&terms_path)?;
        if terms.num_terms() as u64 != meta.terms {
            return Err(kanon_core::Error::format(
                &terms_path,
                format!(
                    "{} terms, but meta.json says {}",
                    terms.num_terms(),
                    meta.terms
                ),
            )
            .into());
        }
        let postings = read_postings(&dir.join(POSTINGS_FILE), meta.terms, meta.people)?;
        let types_path = dir.join(TYPES_FILE);
        let types = std::fs::read(&types_path).with_path(&types_path)?;
        if types.len() as u64 != meta.terms
            || types.iter().any(|&t| EntityType::from_u8(t).is_none())
        {
            return Err(kanon_core::Error::format(
                &types_path,
                "does not hold one valid entity type per term",
            )
            .into());
        }
        let properties = read_properties(&dir.join(PROPERTIES_FILE), meta.terms)?;
        let people_path = dir.join(PEOPLE_FILE);
        let mut people = Vec::with_capacity(meta.people as usize);
        for row in kanon_core::io::read_jsonl::<PersonRow>(&people_path)? {
            let (_, row) = row?;
            people.push(IndexedPerson {
                id: row.id,
                label: row.label,
            });
        }
        if people.len() as u64 != meta.people {
            return Err(kanon_core::Error::format(
                &people_path,
                format!(
                    "{} people, but meta.json says {}",
                    people.len(),
                    meta.people
                ),
            )
            .into());
        }
        let person_ids = people
            .iter()
            .enumerate()
            .map(|(i, p)| (p.id.clone(), i as u32))
            .collect();
        let gazetteer_path = dir.join(GAZETTEER_FILE);
        let bytes = std::fs::read(&gazetteer_path).with_path(&gazetteer_path)?;
        let gazetteer = Gazetteer::deserialize(&bytes)
            .map_err(|e| kanon_core::Error::format(&gazetteer_path, e.to_string()))?;
        Ok(Index {
            dir: dir.to_owned(),
            meta,
            terms,
            postings,
            types,
            properties,
            people,
            person_ids,
            gazetteer,
        })
    }

    /// The directory the index was opened from.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// How the index was made (`meta.json`).
    pub fn meta(&self) -> &IndexMeta {
        &self.meta
    }

    /// People indexed: dense ids run from 0 to this, exclusive.
    pub fn num_people(&self) -> u32 {
        self.people.len() as u32
    }

    /// Terms indexed: term ids run from 0 to this, exclusive.
    pub fn num_terms(&self) -> u32 {
        self.types.len() as u32
    }

    /// Every term's posting list, by term id.
    pub fn postings(&self) -> &PostingStore {
        &self.postings
    }

    /// The gazetteer that finds the index's terms in texts.
    pub fn gazetteer(&self) -> &Gazetteer {
        &self.gazetteer
    }

    /// Terms of a text (leftmost-longest, no overlaps); see [`Gazetteer::find`].
    pub fn find_terms(&self, text: &str) -> Vec<TermMatch> {
        self.gazetteer.find(text)
    }

    /// The id of a term as written (it is normalised first), if indexed.
    pub fn term_id(&self, surface: &str) -> Option<u32> {
        let normalized = normalize_term(surface)?;
        self.terms
            .term_ord(normalized.as_bytes())
            .ok()
            .flatten()
            .map(|ord| ord as u32)
    }

    /// The normalised text of a term id.
    pub fn term_text(&self, term: u32) -> Option<String> {
        let mut bytes = Vec::new();
        match self.terms.ord_to_term(u64::from(term), &mut bytes) {
            Ok(true) => String::from_utf8(bytes).ok(),
            _ => None,
        }
    }

    /// The TAB category of a term id; `None` past the last term.
    pub fn term_type(&self, term: u32) -> Option<EntityType> {
        self.types
            .get(term as usize)
            .and_then(|&t| EntityType::from_u8(t))
    }

    /// The properties a term id is the value of, across its people; empty past the last term
    /// and in an index built before they were recorded.
    pub fn term_properties(&self, term: u32) -> PropertySet {
        PropertySet(self.properties.get(term as usize).copied().unwrap_or(0))
    }

    /// The people of a term id; `None` past the last term.
    pub fn posting_list(&self, term: u32) -> Option<PostingList<'_>> {
        self.postings.get(term)
    }

    /// How many people have a term.
    pub fn posting_count(&self, term: u32) -> u64 {
        self.postings.get(term).map_or(0, |l| l.len())
    }

    /// How many people have all of `terms` (capped at `cap`; `u64::MAX` for the exact number).
    pub fn intersection_count(&self, terms: &[u32], cap: u64) -> u64 {
        self.postings.intersection_count(terms, cap)
    }

    /// The people who have all of `terms`; empty for no terms, or when one is not indexed.
    pub fn intersection(&self, terms: &[u32]) -> RoaringBitmap {
        self.postings.intersection(terms)
    }

    /// The KG id and name of a dense person id; `None` past the last person.
    pub fn person(&self, person: u32) -> Option<&IndexedPerson> {
        self.people.get(person as usize)
    }

    /// The dense id of a KG person id.
    pub fn person_id(&self, kg_id: &str) -> Option<u32> {
        self.person_ids.get(kg_id).copied()
    }

    /// Terms starting with `prefix` (normalised), at most `limit`.
    pub fn prefix(&self, prefix: &str, limit: usize) -> Result<Vec<(u32, String)>> {
        let Some(normalized) = normalize_term(prefix) else {
            return Ok(Vec::new());
        };
        let mut upper = normalized.clone().into_bytes();
        upper.push(0xff);
        let stream = self
            .terms
            .range()
            .ge(normalized.as_bytes())
            .lt(&upper)
            .into_stream()
            .with_path(self.dir.join(TERMS_FILE))?;
        Ok(collect_stream(stream, limit))
    }

    /// Terms within Levenshtein `distance` (0–2) of `surface` (normalised), at most `limit`.
    pub fn fuzzy(&self, surface: &str, distance: u8, limit: usize) -> Result<Vec<(u32, String)>> {
        if distance > 2 {
            return Err(Error::Usage("fuzzy distance must be 0, 1 or 2".into()));
        }
        let Some(normalized) = normalize_term(surface) else {
            return Ok(Vec::new());
        };
        let builder = levenshtein_automata::LevenshteinAutomatonBuilder::new(distance, true);
        let automaton = LevenshteinDfa(builder.build_dfa(&normalized));
        let stream = self
            .terms
            .search(automaton)
            .into_stream()
            .with_path(self.dir.join(TERMS_FILE))?;
        Ok(collect_stream(stream, limit))
    }

    /// Counts of the index, for `kanon index stats`.
    pub fn stats(&self) -> IndexStats {
        let mut by_type = [0u64; 8];
        for &t in &self.types {
            by_type[usize::from(t)] += 1;
        }
        let unique_terms = (0..self.num_terms())
            .filter(|&t| self.posting_count(t) == 1)
            .count() as u64;
        let mut by_property: std::collections::BTreeMap<&'static str, u64> = Default::default();
        for &set in &self.properties {
            for name in PropertySet(set).names() {
                *by_property.entry(name).or_default() += 1;
            }
        }
        IndexStats {
            people: self.meta.people,
            terms: self.meta.terms,
            postings: self.postings.num_postings(),
            terms_by_type: EntityType::ALL
                .iter()
                .map(|&t| (t, by_type[usize::from(t.to_u8())]))
                .filter(|(_, n)| *n > 0)
                .collect(),
            unique_terms,
            terms_by_property: by_property.into_iter().collect(),
        }
    }
}

fn collect_stream<A: Automaton>(
    mut stream: tantivy::termdict::TermStreamer<'_, A>,
    limit: usize,
) -> Vec<(u32, String)> {
    let mut out = Vec::new();
    while out.len() < limit && stream.advance() {
        out.push((
            stream.term_ord() as u32,
            String::from_utf8_lossy(stream.key()).into_owned(),
        ));
    }
    out
}

struct LevenshteinDfa(levenshtein_automata::DFA);

impl Automaton for LevenshteinDfa {
    type State = u32;

    fn start(&self) -> u32 {
        self.0.initial_state()
    }

    fn is_match(&self, state: &u32) -> bool {
        matches!(
            self.0.distance(*state),
            levenshtein_automata::Distance::Exact(_)
        )
    }

    fn can_match(&self, state: &u32) -> bool {
        *state != levenshtein_automata::SINK_STATE
    }

    fn accept(&self, state: &u32, byte: u8) -> u32 {
        self.0.transition(*state, byte)
    }
}

/// Reads `postings.bin` into memory: every bitmap decoded once, never per query.
fn read_postings(path: &Path, expected_terms: u64, people: u64) -> Result<PostingStore> {
    let bytes = std::fs::read(path).with_path(path)?;
    let corrupt = |what: &str| -> Error {
        kanon_core::Error::format(path, format!("corrupt postings file: {what}")).into()
    };
    if bytes.len() < 16 || &bytes[..8] != POSTINGS_MAGIC {
        return Err(corrupt(
            "bad magic (not a kanon postings file, or another format version)",
        ));
    }
    let read_u64 = |at: usize| -> Option<u64> {
        bytes
            .get(at..at + 8)
            .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
    };
    let count = read_u64(8).ok_or_else(|| corrupt("truncated header"))?;
    if count != expected_terms {
        return Err(corrupt(&format!(
            "{count} terms, but meta.json says {expected_terms}"
        )));
    }
    let universe = u32::try_from(people).map_err(|_| corrupt("more people than 32-bit ids"))?;
    let mut store = PostingStore::new(universe, count as usize);
    let mut sorted = Vec::new();
    for i in 0..count as usize {
        let start = read_u64(16 + 8 * i).ok_or_else(|| corrupt("truncated offsets"))? as usize;
        let end = read_u64(16 + 8 * (i + 1)).ok_or_else(|| corrupt("truncated offsets"))? as usize;
        let slice = bytes
            .get(start..end)
            .filter(|_| start <= end)
            .ok_or_else(|| corrupt(&format!("term {i} out of bounds")))?;
        let bitmap = RoaringBitmap::deserialize_from(slice)
            .map_err(|e| corrupt(&format!("term {i}: {e}")))?;
        if bitmap.max().is_some_and(|p| p >= universe) {
            return Err(corrupt(&format!(
                "term {i} names a person beyond the {people} of the index"
            )));
        }
        if bitmap.len() as usize <= crate::postings::SMALL_LIST_MAX {
            sorted.clear();
            sorted.extend(bitmap.iter());
            store.push_sorted(&sorted);
        } else {
            store.push_bitmap(bitmap);
        }
    }
    Ok(store)
}

/// `properties.bin`, when there: one little-endian `u32` per term.
fn read_properties(path: &Path, terms: u64) -> Result<Vec<u32>> {
    let bytes = match std::fs::read(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        read => read.with_path(path)?,
    };
    if bytes.len() as u64 != 4 * terms {
        return Err(kanon_core::Error::format(
            path,
            format!("{} bytes, not 4 for each of {terms} terms", bytes.len()),
        )
        .into());
    }
    Ok(bytes
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect())
}
