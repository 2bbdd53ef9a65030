//! Algorithm 1 of "Bootstrapping Text Anonymization Models with Distant Supervision": which of a
//! document's KG terms to mask so that every combination of up to `max_arity` remaining terms is
//! shared by no one or by at least `k` people.
//!
//! The fast implementation enumerates combinations once, in the same lexicographic order as the plain
//! algorithm (which restarts after every mask), and gives exactly the same decisions: masking a term
//! only removes combinations, so every combination enumerated before the last violation still holds
//! after it and the enumeration can resume where it stopped. On top of that it remembers which
//! combinations have no one in common and skips all their supersets (never counting them), and counts
//! intersections no further than `k`.

use kanon_index::postings::intersection_count;
use kanon_index::{PostingList, PostingStore};
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use rustc_hash::FxHashSet;
use serde::{Deserialize, Serialize};

/// How to choose which term of an offending combination to mask.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MaskStrategy {
    /// The term with the shortest posting list (the most identifying); ties go to the term that
    /// occurs first in the document.
    Greedy,
    /// A term drawn uniformly from the combination with the document's seeded generator.
    Random,
}

kanon_core::named_choices!(
    MaskStrategy,
    "strategy",
    [Greedy = "greedy", Random = "random"]
);

/// The labeler's knobs. Defaults: k = 5, max_arity = 3, greedy, case kept for names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LabelerConfig {
    /// The k of k-anonymity: every combination of unmasked terms that anyone shares must be shared by
    /// at least k people (at least 1).
    pub k: u64,
    /// The largest combination of terms checked (at least 1; 1 checks single terms only).
    pub max_arity: usize,
    /// Which term of an offending combination is masked.
    pub strategy: MaskStrategy,
    /// The run's seed: with the document id, it seeds the `random` strategy's choices.
    pub seed: u64,
    /// Names, places and organisations match only where the text writes them capitalised
    /// (first word, particles like "van" aside, and last word), so that people surnamed Little do not
    /// make "attracted little attention" a name. Texts with no capital letter at all are matched
    /// whatever their case.
    pub match_case: bool,
    /// Widen each masked term to the phrase a reader would mask ("Oslo" in "University of Oslo",
    /// "1955" in "23 February 1955"); see [`crate::phrase`]. Off: spans are the KG terms.
    pub phrases: bool,
}

impl Default for LabelerConfig {
    fn default() -> Self {
        LabelerConfig {
            k: 5,
            max_arity: 3,
            strategy: MaskStrategy::Greedy,
            seed: 0,
            match_case: true,
            phrases: false,
        }
    }
}

/// Why a term was masked. Term positions index the document's term list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "reason", rename_all = "lowercase")]
pub enum MaskReason {
    /// Fewer than k people have the term.
    Rare {
        /// How many people have the term (fewer than k).
        people: u64,
    },
    /// The combination (which includes the term) is shared by at least one and fewer than k people.
    Combination {
        /// The offending combination: positions in the document's term list, ascending.
        terms: Vec<usize>,
        /// How many people share it (at least 1, fewer than k).
        people: u64,
    },
}

/// One masking decision, in the order they were taken.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mask {
    /// The masked term: its position in the document's term list.
    pub term: usize,
    /// Why it was masked.
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
    strategy: MaskStrategy,
    rng: &mut ChaCha8Rng,
) -> usize {
    match strategy {
        MaskStrategy::Greedy => *combination
            .iter()
            .min_by_key(|&&i| (posting_counts[i], i))
            .expect("a combination is never empty"),
        MaskStrategy::Random => combination[rng.random_range(0..combination.len())],
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
    /// Combinations (as bit sets of term positions) whose people are disjoint: every superset is too.
    /// Only kept for documents of at most 128 terms.
    empty: FxHashSet<u128>,
    remember_empty: bool,
    scratch: Vec<PostingList<'a>>,
    intersections: u64,
}

impl Search<'_> {
    fn bits(&self) -> u128 {
        if !self.remember_empty {
            return 0;
        }
        self.combination
            .iter()
            .fold(0u128, |bits, &i| bits | (1u128 << i))
    }

    /// Whether the current combination is known to have no one in common: it, or a subset one term
    /// smaller, was found empty before.
    fn known_empty(&self, bits: u128) -> bool {
        self.remember_empty
            && (self.empty.contains(&bits)
                || (self.combination.len() > 2
                    && self
                        .combination
                        .iter()
                        .any(|&i| self.empty.contains(&(bits & !(1u128 << i))))))
    }

    /// Enumerates the combinations of `arity` that extend `self.combination` with terms from `start`
    /// on. Returns early once a term of the current prefix has been masked.
    fn extend(&mut self, arity: usize, start: usize) {
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
            let bits = self.bits();
            if !self.known_empty(bits) {
                if depth + 1 == arity {
                    self.check(bits);
                } else {
                    self.extend(arity, next + 1);
                }
            }
            self.combination.pop();
            if self.combination.iter().any(|&i| self.masked[i]) {
                return;
            }
        }
    }

    /// Counts the people of the current (full-size) combination, no further than k, and masks a term
    /// when they are at least one and fewer than k.
    fn check(&mut self, bits: u128) {
        self.scratch.clear();
        self.scratch
            .extend(self.combination.iter().map(|&i| self.lists[i]));
        self.intersections += 1;
        let people = intersection_count(&mut self.scratch, self.config.k);
        if people == 0 {
            if self.remember_empty {
                self.empty.insert(bits);
            }
        } else if people < self.config.k {
            let victim = choose(
                &self.combination,
                &self.counts,
                self.config.strategy,
                &mut self.rng,
            );
            self.masked[victim] = true;
            self.masks.push(Mask {
                term: victim,
                reason: MaskReason::Combination {
                    terms: self.combination.clone(),
                    people,
                },
            });
        }
    }
}

/// What the labeler decided for one document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decisions {
    /// The masks, in the order they were decided; a term is masked at most once.
    pub masks: Vec<Mask>,
    /// Intersections computed (a measure of work).
    pub intersections: u64,
}

/// Decides which of a document's terms (distinct term ids, in order of first occurrence) to mask.
/// `rng` must be the document's own generator (see [`document_rng`]) for `random`.
pub fn decide(
    store: &PostingStore,
    terms: &[u32],
    config: &LabelerConfig,
    rng: ChaCha8Rng,
) -> Decisions {
    let lists: Vec<PostingList<'_>> = terms
        .iter()
        .map(|&t| store.get(t).unwrap_or(PostingList::Sorted(&[])))
        .collect();
    decide_lists(lists, config, rng)
}

/// [`decide`] over the people of each term directly: a term of the index, or a generalization
/// standing for everyone any of its terms covers (`crate::generalize`). Positions in the masks
/// index `lists`.
pub fn decide_lists(
    lists: Vec<PostingList<'_>>,
    config: &LabelerConfig,
    rng: ChaCha8Rng,
) -> Decisions {
    let n = lists.len();
    let counts: Vec<u64> = lists.iter().map(PostingList::len).collect();
    let mut search = Search {
        masked: vec![false; n],
        masks: Vec::new(),
        config: *config,
        rng,
        combination: Vec::with_capacity(config.max_arity),
        empty: FxHashSet::default(),
        remember_empty: n <= 128,
        scratch: Vec::with_capacity(config.max_arity),
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
        search.extend(arity, 0);
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
