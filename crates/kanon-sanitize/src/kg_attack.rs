//! The KG attacker: what kanon's knowledge graph, rather than a language model, can infer from a
//! generalization. A candidate stands for everyone any of the KG terms it covers stands for (`a
//! city in Norway`: everyone the KG places in any Norwegian city, found by climbing every indexed
//! term's hierarchy and keeping the terms whose rungs include it), and it is safe when, beside the
//! document's remaining KG terms and the generalizations chosen for its other entities, every
//! combination of up to `max_arity` of them that includes it is shared by no one or by at least
//! `k` people — Algorithm 1's test, by the labeler's own code
//! ([`kanon_label::generalize::rung_is_safe`]). A candidate the KG knows nothing of (a model's
//! phrase no indexed term climbs to) is left to the other attackers.
//!
//! ```
//! use kanon_core::NoProgress;
//! use kanon_index::{Index, IndexBuilder};
//! use kanon_kg::{Fact, KnowledgeGraph, Person, Property};
//! use kanon_sanitize::kg_attack::{KgAttackConfig, KgAttacker};
//!
//! // One person born in Bergen, four in Oslo: "a city in Hordaland" is one person.
//! let mut people = Vec::new();
//! for (i, city) in ["Bergen", "Oslo", "Oslo", "Oslo", "Oslo"].iter().enumerate() {
//!     let mut person = Person::new(format!("Q{i}"), format!("Person {i}"));
//!     person.facts.push(Fact::new(Property::BirthPlace, *city));
//!     people.push(person);
//! }
//! let dir = tempfile::tempdir()?;
//! IndexBuilder::new().build(&KnowledgeGraph { people }, &dir.path().join("index"), &NoProgress)?;
//! let index = Index::open(&dir.path().join("index"))?;
//! let config = KgAttackConfig { k: 2, max_arity: 2, ..KgAttackConfig::default() };
//! let attacker = KgAttacker::new(index, config);
//!
//! assert_eq!(attacker.people_of("a city in Hordaland").map(|p| p.len()), Some(1));
//! assert_eq!(attacker.people_of("a city in Norway").map(|p| p.len()), Some(5));
//! assert!(attacker.people_of("a lovely place").is_none());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::path::Path;
use std::sync::{Arc, Mutex};

use kanon_core::EntityType;
use kanon_core::text::normalize_term;
use kanon_index::Index;
use kanon_label::algorithm::LabelerConfig;
use roaring::RoaringBitmap;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// Date-ladder rungs climbed for each indexed date: more than any config keeps.
const LADDER_RUNGS: usize = 10;

/// How the KG attacker shares a document's room for specificity among its entities.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Allocation {
    /// Per document, `balanced` where it leaves more entities a candidate the KG allows than
    /// `greedy` does, `greedy` otherwise (and on a tie).
    #[default]
    Best,
    /// Entity by entity in document order, the most specific candidate safe beside the choices
    /// before it: an early date's `spring 1982` may leave a later university only its label.
    Greedy,
    /// Every entity starts at its least specific candidate the KG knows, then, round by round
    /// in document order, each climbs down one rung while the document stays k-anonymous: the
    /// specificity the KG allows is spread over the entities. A candidate more specific than
    /// the entity's share is held back (audit: `reserved`). Because a combination no one shares
    /// is safe, broad rungs can break a document that specific ones keep safe: on its own this
    /// loses entities greedy keeps (docs/results/sanitization.md).
    Balanced,
}

kanon_core::named_choices!(
    Allocation,
    "allocation",
    [Best = "best", Greedy = "greedy", Balanced = "balanced"]
);

/// The KG attacker's k-anonymity test. Defaults: the labeler's (k = 5, combinations of up to 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct KgAttackConfig {
    /// Every combination of what the document still says that anyone shares must be shared by at
    /// least this many people of the KG.
    pub k: u64,
    /// The largest combination of terms and generalizations checked.
    pub max_arity: usize,
    /// How the room for specificity is shared among a document's entities.
    pub allocation: Allocation,
}

impl Default for KgAttackConfig {
    fn default() -> Self {
        let labeler = LabelerConfig::default();
        KgAttackConfig {
            k: labeler.k,
            max_arity: labeler.max_arity,
            allocation: Allocation::Best,
        }
    }
}

/// What the KG attacker concluded about one candidate (for the audit).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct KgVerdict {
    /// How many people of the KG the candidate stands for.
    pub people: u64,
    /// Whether it keeps the document k-anonymous against the KG.
    pub safe: bool,
    /// Safe beside the entities before it, but more specific than its entity's share under the
    /// balanced allocation: held back so that the document's later entities keep theirs.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reserved: bool,
}

/// The KG and, for each generalization phrase, the indexed terms that climb to it.
pub struct KgAttacker {
    index: Index,
    labeler: LabelerConfig,
    /// A rung's normalised phrase → the terms whose hierarchy reaches it.
    covers: FxHashMap<String, Vec<u32>>,
    /// A rung's normalised phrase → the place terms inside a place it names the kind of
    /// ([`crate::ontology::containing_rungs`]): they add to whom the rung stands for, but it is
    /// no generalization of them (`a state in the United States` is not true of Louisville).
    within: FxHashMap<String, Vec<u32>>,
    /// How a document's room for specificity is shared among its entities.
    allocation: Allocation,
    /// People per phrase, computed on first use.
    people: Mutex<FxHashMap<String, Option<Arc<Vec<u32>>>>>,
}

impl std::fmt::Debug for KgAttacker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KgAttacker")
            .field("index", &self.index.dir())
            .field("labeler", &self.labeler)
            .field("phrases", &self.covers.len())
            .finish()
    }
}

impl KgAttacker {
    /// Opens the index at `dir` (`kanon index build`'s output).
    pub fn open(dir: &Path, config: KgAttackConfig) -> Result<Self> {
        let index = Index::open(dir).map_err(|source| Error::Index {
            path: dir.to_owned(),
            source,
        })?;
        Ok(Self::new(index, config))
    }

    /// Climbs every indexed term's hierarchy once (the kanon hierarchies for places, kinds of
    /// people, organisations, awards and quantities; the date ladder for dates).
    pub fn new(index: Index, config: KgAttackConfig) -> Self {
        let mut covers: FxHashMap<String, Vec<u32>> = FxHashMap::default();
        let mut within: FxHashMap<String, Vec<u32>> = FxHashMap::default();
        for term in 0..index.num_terms() {
            let (Some(text), Some(entity_type)) = (index.term_text(term), index.term_type(term))
            else {
                continue;
            };
            let kinds = crate::ontology::fact_kind_rungs(entity_type, index.term_properties(term));
            let kinds = kinds.into_iter().map(|rung| rung.text);
            record(
                &mut covers,
                generalizations(entity_type, &text).into_iter().chain(kinds),
                term,
            );
            record(
                &mut within,
                crate::ontology::containing_rungs(entity_type, &text),
                term,
            );
        }
        KgAttacker {
            index,
            labeler: LabelerConfig {
                k: config.k.max(1),
                max_arity: config.max_arity.max(1),
                ..LabelerConfig::default()
            },
            covers,
            within,
            allocation: config.allocation,
            people: Mutex::new(FxHashMap::default()),
        }
    }

    /// How it shares a document's room for specificity among the entities.
    pub fn allocation(&self) -> Allocation {
        self.allocation
    }

    /// The index it attacks with.
    pub fn index(&self) -> &Index {
        &self.index
    }

    /// The kind the KG's facts say `surface` is, when it is an indexed term
    /// ([`crate::ontology::fact_kind_rungs`]): rungs for names no table of kanon's lists.
    pub fn fact_kinds(&self, entity_type: EntityType, surface: &str) -> Vec<crate::ontology::Rung> {
        self.index
            .term_id(crate::ontology::bare_name(surface))
            .map(|term| {
                crate::ontology::fact_kind_rungs(entity_type, self.index.term_properties(term))
            })
            .unwrap_or_default()
    }

    /// The people (dense ids, sorted) a phrase stands for: everyone of the terms whose hierarchy
    /// climbs to it, and of the term it names itself (a model may write `Norway`); `None` when
    /// the KG knows nothing of it.
    pub fn people_of(&self, phrase: &str) -> Option<Arc<Vec<u32>>> {
        let key = normalize_term(phrase)?;
        let mut cache = self
            .people
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(found) = cache.get(&key) {
            return found.clone();
        }
        let within = self.within.get(&key).map_or(&[][..], Vec::as_slice);
        let terms = self.terms_of(&key, phrase);
        let found = (terms.is_some() || !within.is_empty()).then(|| {
            let (covered, named) =
                terms.map_or((&[][..], None), |terms| (terms.covered, terms.named));
            let mut union = RoaringBitmap::new();
            for term in covered.iter().chain(within).copied().chain(named) {
                union |= self.index.intersection(&[term]);
            }
            Arc::new(union.into_iter().collect::<Vec<u32>>())
        });
        cache.insert(key, found.clone());
        found
    }

    /// Whether `phrase` is true of an original the KG resolves: one of `originals` is an
    /// indexed term that climbs to `phrase` (or is named by it). `None` when no original is a KG
    /// term (the KG cannot tell), or the KG knows nothing of the phrase.
    pub fn true_of(&self, phrase: &str, originals: &[&str]) -> Option<bool> {
        let resolved: Vec<u32> = originals
            .iter()
            .filter_map(|original| self.index.term_id(original))
            .collect();
        if resolved.is_empty() {
            return None;
        }
        let terms = self.terms_of(&normalize_term(phrase)?, phrase)?;
        Some(
            resolved.iter().any(|&term| {
                terms.named == Some(term) || terms.covered.binary_search(&term).is_ok()
            }),
        )
    }

    /// The indexed terms `phrase` (normalised: `key`) stands for; `None` when the KG knows
    /// neither a term that climbs to it nor one it names.
    fn terms_of(&self, key: &str, phrase: &str) -> Option<PhraseTerms<'_>> {
        let covered = self.covers.get(key).map_or(&[][..], Vec::as_slice);
        // An indefinite phrase (`a team`) names no one thing: it is no term's name, even where
        // the KG holds a name spelt like its noun (a band called `Team`).
        let lower = phrase.trim_start().to_lowercase();
        let indefinite = lower.starts_with("a ") || lower.starts_with("an ");
        let named = if indefinite {
            None
        } else {
            self.index.term_id(phrase)
        };
        (!covered.is_empty() || named.is_some()).then_some(PhraseTerms { covered, named })
    }

    /// The distinct KG terms `text` still shows outside `masked` (character ranges that will be
    /// replaced), in order of first occurrence, as the labeler matches them.
    pub fn remaining_terms(&self, text: &str, masked: &[std::ops::Range<usize>]) -> Vec<u32> {
        let matches: Vec<_> =
            kanon_label::document::document_matches(&self.index, text, &self.labeler)
                .into_iter()
                .filter(|found| {
                    !masked
                        .iter()
                        .any(|range| found.start < range.end && range.start < found.end)
                })
                .collect();
        kanon_label::document::document_terms(&matches)
    }

    /// Whether `people` (a candidate's) keep the document k-anonymous beside its remaining
    /// `terms` and the people of the generalizations already `chosen` for its other entities.
    pub fn verdict(&self, terms: &[u32], chosen: &[Arc<Vec<u32>>], people: &[u32]) -> KgVerdict {
        let chosen: Vec<&[u32]> = chosen.iter().map(|people| people.as_slice()).collect();
        KgVerdict {
            people: people.len() as u64,
            reserved: false,
            safe: kanon_label::generalize::rung_is_safe(
                self.index.postings(),
                terms,
                &chosen,
                people,
                &self.labeler,
            ),
        }
    }
}

/// Adds `term` to the terms of each of `phrases` (normalised) in `map`, once.
fn record(
    map: &mut FxHashMap<String, Vec<u32>>,
    phrases: impl IntoIterator<Item = String>,
    term: u32,
) {
    for phrase in phrases {
        if let Some(key) = normalize_term(&phrase) {
            let terms = map.entry(key).or_default();
            if terms.last() != Some(&term) {
                terms.push(term);
            }
        }
    }
}

/// The terms a phrase stands for: those whose hierarchy climbs to it (ascending), and the term
/// it names itself.
struct PhraseTerms<'a> {
    covered: &'a [u32],
    named: Option<u32>,
}

/// Every phrase a term of `entity_type` generalizes to.
fn generalizations(entity_type: EntityType, text: &str) -> Vec<String> {
    if entity_type == EntityType::Datetime {
        return crate::date::parse_date(text)
            .map(|date| date.ladder(LADDER_RUNGS))
            .unwrap_or_default();
    }
    crate::ontology::kg_candidates(entity_type, text)
}
