//! Algorithm 1 of "Bootstrapping Text Anonymization Models with Distant Supervision": which of a
//! document's KG terms to mask so that every combination of up to `max_arity` remaining terms is
//! shared by no one or by at least `k` people.
//!
//! The fast implementation enumerates combinations once, in the same lexicographic order as the plain
//! algorithm (which restarts after every mask), and gives exactly the same decisions: masking a term
//! only removes combinations, so every combination enumerated before the last violation still holds
//! after it and the enumeration can resume where it stopped. On top of that it prunes every extension
//! of a prefix whose people are already disjoint, keeps the prefix's intersection instead of
//! recomputing it, and counts leaf intersections no further than `k`.

use std::str::FromStr;

use kanon_index::{PostingList, PostingStore};
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// How to choose which term of an offending combination to mask.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Strategy {
    /// The term with the shortest posting list (the most identifying); ties go to the term that
    /// occurs first in the document.
    Greedy,
    /// A term drawn uniformly from the combination with the document's seeded generator.
    Random,
}

impl FromStr for Strategy {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "greedy" => Ok(Strategy::Greedy),
            "random" => Ok(Strategy::Random),
            other => Err(format!("unknown strategy {other:?} (expected greedy or random)")),
        }
    }
}

/// The labeler's knobs. Defaults: k = 5, max_arity = 3, greedy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LabelerConfig {
    pub k: u64,
    pub max_arity: usize,
    pub strategy: Strategy,
    pub seed: u64,
}

impl Default for LabelerConfig {
    fn default() -> Self {
        LabelerConfig {
            k: 5,
            max_arity: 3,
            strategy: Strategy::Greedy,
            seed: 0,
        }
    }
}

/// Why a term was masked. Term positions index the document's term list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "reason", rename_all = "lowercase")]
pub enum MaskReason {
    /// Fewer than k people have the term.
    Rare { people: u64 },
    /// The combination (which includes the term) is shared by at least one and fewer than k people.
    Combination { terms: Vec<usize>, people: u64 },
}

/// One masking decision, in the order they were taken.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mask {
    pub term: usize,
    #[serde(flatten)]
    pub reason: MaskReason,
}

impl Mask {
    /// 1 for a rare term, else the size of the combination that forced the mask.
    pub fn arity(&self) -> usize {
        match &self.reason {
            MaskReason::Rare { .. } => 1,
            MaskReason::Combination { terms, .. } => terms.len(),
        }
    }
}

/// Chooses the term of an offending combination to mask.
pub(crate) fn choose(
    combination: &[usize],
    posting_counts: &[u64],
    strategy: Strategy,
    rng: &mut ChaCha8Rng,
) -> usize {
    match strategy {
        Strategy::Greedy => *combination
            .iter()
            .min_by_key(|&&i| (posting_counts[i], i))
            .expect("a combination is never empty"),
        Strategy::Random => combination[rng.random_range(0..combination.len())],
    }
}

/// The people a prefix of a combination has in common.
enum Prefix<'a> {
    List(PostingList<'a>),
    People(Vec<u32>),
}

impl Prefix<'_> {
    fn len(&self) -> u64 {
        match self {
            Prefix::List(list) => list.len(),
            Prefix::People(people) => people.len() as u64,
        }
    }

    fn contains(&self, person: u32) -> bool {
        match self {
            Prefix::List(list) => list.contains(person),
            Prefix::People(people) => people.binary_search(&person).is_ok(),
        }
    }

    fn iter(&self) -> Box<dyn Iterator<Item = u32> + '_> {
        match self {
            Prefix::List(list) => list.iter(),
            Prefix::People(people) => Box::new(people.iter().copied()),
        }
    }

    /// People of the prefix who also have `list`, counted no further than `cap`.
    fn count_with(&self, list: &PostingList<'_>, cap: u64) -> u64 {
        let mut count = 0;
        if self.len() <= list.len() {
            for p in self.iter() {
                if list.contains(p) {
                    count += 1;
                    if count >= cap {
                        break;
                    }
                }
            }
        } else {
            for p in list.iter() {
                if self.contains(p) {
                    count += 1;
                    if count >= cap {
                        break;
                    }
                }
            }
        }
        count
    }

    fn extend(&self, list: &PostingList<'_>) -> Vec<u32> {
        if self.len() <= list.len() {
            self.iter().filter(|&p| list.contains(p)).collect()
        } else {
            list.iter().filter(|&p| self.contains(p)).collect()
        }
    }
}

struct Search<'a> {
    lists: Vec<PostingList<'a>>,
    counts: Vec<u64>,
    masked: Vec<bool>,
    masks: Vec<Mask>,
    config: LabelerConfig,
    rng: ChaCha8Rng,
    combination: Vec<usize>,
    intersections: u64,
}

impl<'a> Search<'a> {
    /// Enumerates the combinations of `arity` that extend `self.combination` with terms from `start`
    /// on. Returns early once a term of the current prefix has been masked.
    fn extend(&mut self, arity: usize, start: usize, prefix: Option<&Prefix<'a>>) {
        let n = self.lists.len();
        let depth = self.combination.len();
        for next in start..n {
            if self.masked[next] {
                continue;
            }
            if n - next < arity - depth {
                return;
            }
            self.combination.push(next);
            if depth + 1 == arity {
                let prefix = prefix.expect("arity >= 2: a leaf has a prefix");
                self.intersections += 1;
                let people = prefix.count_with(&self.lists[next], self.config.k);
                if people >= 1 && people < self.config.k {
                    let victim = choose(&self.combination, &self.counts, self.config.strategy, &mut self.rng);
                    self.masked[victim] = true;
                    self.masks.push(Mask {
                        term: victim,
                        reason: MaskReason::Combination {
                            terms: self.combination.clone(),
                            people,
                        },
                    });
                }
            } else {
                let extended = match prefix {
                    None => Prefix::List(self.lists[next]),
                    Some(prefix) => {
                        self.intersections += 1;
                        Prefix::People(prefix.extend(&self.lists[next]))
                    }
                };
                // People disjoint already: so is every extension.
                if extended.len() > 0 {
                    self.extend(arity, next + 1, Some(&extended));
                }
            }
            self.combination.pop();
            if self.combination.iter().any(|&i| self.masked[i]) {
                return;
            }
        }
    }
}

/// What the labeler decided for one document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decisions {
    pub masks: Vec<Mask>,
    /// Intersections computed (a measure of work).
    pub intersections: u64,
}

/// Decides which of a document's terms (distinct term ids, in order of first occurrence) to mask.
/// `rng` must be the document's own generator (see [`document_rng`]) for `random`.
pub fn decide(store: &PostingStore, terms: &[u32], config: &LabelerConfig, rng: ChaCha8Rng) -> Decisions {
    let lists: Vec<PostingList<'_>> = terms
        .iter()
        .map(|&t| store.get(t).unwrap_or(PostingList::Sorted(&[])))
        .collect();
    let counts: Vec<u64> = lists.iter().map(PostingList::len).collect();
    let mut search = Search {
        masked: vec![false; terms.len()],
        masks: Vec::new(),
        config: *config,
        rng,
        combination: Vec::with_capacity(config.max_arity),
        intersections: 0,
        lists,
        counts,
    };
    for (i, &people) in search.counts.iter().enumerate() {
        if people < config.k {
            search.masked[i] = true;
            search.masks.push(Mask {
                term: i,
                reason: MaskReason::Rare { people },
            });
        }
    }
    for arity in 2..=config.max_arity {
        if search.masked.iter().filter(|m| !**m).count() < arity {
            break;
        }
        search.extend(arity, 0, None);
    }
    Decisions {
        masks: search.masks,
        intersections: search.intersections,
    }
}

/// The generator of one document: the run's seed, and a stream drawn from the document id, so that
/// decisions do not depend on the order or thread in which documents are labeled.
pub fn document_rng(seed: u64, doc_id: &str) -> ChaCha8Rng {
    use rand::SeedableRng;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(fnv1a(doc_id.as_bytes()));
    rng
}

/// FNV-1a: a stable hash (unlike std's, it never changes between Rust versions).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf29ce484222325;
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x100000001b3);
    }
    hash
}
