//! The plain reference implementation of Algorithm 1, step by step: mask rare terms; then enumerate
//! combinations of arity 2, 3, … in lexicographic order and, at the first that is shared by at least
//! one and fewer than k people, mask one of its terms and start the check again from the beginning.
//! Used by the tests (the fast implementation must decide exactly the same) and by `kanon bench label`
//! (for the speed-up).

use rand_chacha::ChaCha8Rng;

use crate::algorithm::{Decisions, LabelerConfig, Mask, MaskReason, choose};

/// Exact intersection sizes over the terms of one document (by position in its term list).
pub trait Intersections {
    /// How many people have the term at position `term`.
    fn people(&self, term: usize) -> u64;
    /// How many people have every term at the positions `terms`.
    fn intersection(&self, terms: &[usize]) -> u64;
}

/// Every `arity`-combination of `items`, in lexicographic order.
fn combinations(items: &[usize], arity: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut current = Vec::with_capacity(arity);
    fn walk(
        items: &[usize],
        arity: usize,
        start: usize,
        current: &mut Vec<usize>,
        out: &mut Vec<Vec<usize>>,
    ) {
        if current.len() == arity {
            out.push(current.clone());
            return;
        }
        for i in start..items.len() {
            current.push(items[i]);
            walk(items, arity, i + 1, current, out);
            current.pop();
        }
    }
    walk(items, arity, 0, &mut current, &mut out);
    out
}

/// Decides as [`crate::decide`] does, the plain way: the same masks, more intersections.
pub fn decide(
    source: &dyn Intersections,
    num_terms: usize,
    config: &LabelerConfig,
    mut rng: ChaCha8Rng,
) -> Decisions {
    let counts: Vec<u64> = (0..num_terms).map(|t| source.people(t)).collect();
    let mut masked = vec![false; num_terms];
    let mut masks = Vec::new();
    let mut intersections = 0;
    for (t, &people) in counts.iter().enumerate() {
        if people < config.k {
            masked[t] = true;
            masks.push(Mask {
                term: t,
                reason: MaskReason::Rare { people },
            });
        }
    }
    'check: loop {
        let remaining: Vec<usize> = (0..num_terms).filter(|&t| !masked[t]).collect();
        for arity in 2..=config.max_arity {
            for combination in combinations(&remaining, arity) {
                intersections += 1;
                let people = source.intersection(&combination);
                if people >= 1 && people < config.k {
                    let victim = choose(&combination, &counts, config.strategy, &mut rng);
                    masked[victim] = true;
                    masks.push(Mask {
                        term: victim,
                        reason: MaskReason::Combination {
                            terms: combination,
                            people,
                        },
                    });
                    continue 'check;
                }
            }
        }
        break;
    }
    Decisions {
        masks,
        intersections,
    }
}

/// Exact intersections through an index's posting store.
#[derive(Debug)]
pub struct StoreIntersections<'a> {
    /// The index's posting lists.
    pub store: &'a kanon_index::PostingStore,
    /// The document's term ids: position `i` of the trait's methods is `terms[i]`.
    pub terms: &'a [u32],
}

impl Intersections for StoreIntersections<'_> {
    fn people(&self, term: usize) -> u64 {
        self.store.get(self.terms[term]).map_or(0, |l| l.len())
    }

    fn intersection(&self, terms: &[usize]) -> u64 {
        let ids: Vec<u32> = terms.iter().map(|&t| self.terms[t]).collect();
        self.store.intersection_count(&ids, u64::MAX)
    }
}
