//! Algorithm 1: the fast `decide` against the plain reference (over the posting store and over a
//! brute-force set implementation), the invariants of its decisions, and each rule on hand-built
//! posting lists.
#![allow(clippy::unwrap_used, clippy::print_stderr)]

use std::collections::BTreeSet;

use kanon_index::PostingStore;
use kanon_label::reference::{self, Intersections, StoreIntersections};
use kanon_label::{Decisions, LabelerConfig, Mask, MaskReason, MaskStrategy, decide, document_rng};
use proptest::prelude::{
    Just, ProptestConfig, TestCaseError, any, prop_assert, prop_assert_eq, proptest,
};
use proptest::strategy::Strategy as _;

/// A store whose term `i` has `lists[i]`.
fn store_of(lists: &[BTreeSet<u32>]) -> PostingStore {
    let mut store = PostingStore::default();
    for list in lists {
        store.push_sorted(&list.iter().copied().collect::<Vec<u32>>());
    }
    store
}

/// Intersections computed on plain sets, independently of [`PostingStore`]: the people of each
/// document term (by position; an unknown term id has nobody).
struct BruteForce {
    sets: Vec<BTreeSet<u32>>,
}

impl BruteForce {
    fn new(lists: &[BTreeSet<u32>], doc: &[u32]) -> Self {
        BruteForce {
            sets: doc
                .iter()
                .map(|&t| lists.get(t as usize).cloned().unwrap_or_default())
                .collect(),
        }
    }

    fn people_of(&self, terms: &[usize]) -> BTreeSet<u32> {
        let (first, rest) = terms.split_first().expect("a combination is never empty");
        let mut people = self.sets[*first].clone();
        for &t in rest {
            people.retain(|p| self.sets[t].contains(p));
        }
        people
    }
}

impl Intersections for BruteForce {
    fn people(&self, term: usize) -> u64 {
        self.sets[term].len() as u64
    }

    fn intersection(&self, terms: &[usize]) -> u64 {
        self.people_of(terms).len() as u64
    }
}

fn config(k: u64, max_arity: usize, strategy: MaskStrategy) -> LabelerConfig {
    LabelerConfig {
        k,
        max_arity,
        strategy,
        seed: 0,
        ..LabelerConfig::default()
    }
}

/// Every `arity`-combination of `items`, in lexicographic order.
fn combinations(items: &[usize], arity: usize) -> Vec<Vec<usize>> {
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
    let mut out = Vec::new();
    walk(items, arity, 0, &mut Vec::new(), &mut out);
    out
}

/// The first combination (arity 1..=max_arity) of `kept` shared by at least one and fewer than k
/// people, if any.
fn violation(
    source: &BruteForce,
    kept: &[usize],
    k: u64,
    max_arity: usize,
) -> Option<(Vec<usize>, u64)> {
    (1..=max_arity)
        .flat_map(|arity| combinations(kept, arity))
        .map(|c| {
            let people = source.intersection(&c);
            (c, people)
        })
        .find(|(_, people)| *people >= 1 && *people < k)
}

fn masked_positions(decisions: &Decisions, n: usize) -> Vec<bool> {
    let mut masked = vec![false; n];
    for mask in &decisions.masks {
        masked[mask.term] = true;
    }
    masked
}

/// Posting lists by term id, k, max arity, the document's term ids, the seed.
type Case = (Vec<BTreeSet<u32>>, u64, usize, Vec<u32>, u64);

/// A random small "KG" as posting lists, a k, a max arity and a document: distinct term ids in random
/// order, sometimes including an id the store does not know (an empty list).
fn case() -> impl proptest::strategy::Strategy<Value = Case> {
    (
        proptest::collection::vec(proptest::collection::btree_set(0u32..60, 0..40), 1..10),
        1u64..8,
        1usize..=4,
        any::<u64>(),
    )
        .prop_flat_map(|(lists, k, max_arity, seed)| {
            let ids: Vec<u32> = (0..=lists.len() as u32).collect();
            let n = ids.len();
            (
                Just(lists),
                Just(k),
                Just(max_arity),
                Just(ids).prop_shuffle(),
                0..=n,
                Just(seed),
            )
        })
        .prop_map(|(lists, k, max_arity, ids, len, seed)| {
            (lists, k, max_arity, ids[..len].to_vec(), seed)
        })
}

/// Posting lists long enough to be stored as roaring bitmaps (more than 1024 people), drawn as
/// arithmetic progressions so that they are cheap to generate and still intersect irregularly.
fn long_case() -> impl proptest::strategy::Strategy<Value = Case> {
    (
        proptest::collection::vec((0u32..400, 1u32..5, 0u32..2500), 1..7),
        1u64..1500,
        1usize..=4,
        any::<u64>(),
    )
        .prop_flat_map(|(progressions, k, max_arity, seed)| {
            let lists: Vec<BTreeSet<u32>> = progressions
                .iter()
                .map(|&(start, step, len)| (0..len).map(|i| start + step * i).collect())
                .collect();
            let ids: Vec<u32> = (0..lists.len() as u32).collect();
            (
                Just(lists),
                Just(k),
                Just(max_arity),
                Just(ids).prop_shuffle(),
                Just(seed),
            )
        })
}

/// Dense lists: each of 48 people has each term with probability 1/2, so pairs are shared by about 12
/// people, triples by 6 and quadruples by 3: violations at arity 3 and 4 are common.
fn dense_case() -> impl proptest::strategy::Strategy<Value = Case> {
    (
        proptest::collection::vec(proptest::bits::u64::masked((1 << 48) - 1), 4..10),
        2u64..9,
        3usize..=4,
        any::<u64>(),
    )
        .prop_flat_map(|(bits, k, max_arity, seed)| {
            let lists: Vec<BTreeSet<u32>> = bits
                .iter()
                .map(|b| (0..48).filter(|p| b >> p & 1 == 1).collect())
                .collect();
            let ids: Vec<u32> = (0..lists.len() as u32).collect();
            (
                Just(lists),
                Just(k),
                Just(max_arity),
                Just(ids).prop_shuffle(),
                Just(seed),
            )
        })
}

/// The fast and the plain implementation (over the store and over sets) decide the same, for both
/// strategies.
fn check_same_decisions(
    lists: &[BTreeSet<u32>],
    k: u64,
    max_arity: usize,
    doc: &[u32],
    seed: u64,
) -> Result<(), TestCaseError> {
    let store = store_of(lists);
    let brute = BruteForce::new(lists, doc);
    let through_store = StoreIntersections {
        store: &store,
        terms: doc,
    };
    for strategy in [MaskStrategy::Greedy, MaskStrategy::Random] {
        let config = LabelerConfig {
            seed,
            ..config(k, max_arity, strategy)
        };
        let fast = decide(&store, doc, &config, document_rng(seed, "doc"));
        let plain = reference::decide(
            &through_store,
            doc.len(),
            &config,
            document_rng(seed, "doc"),
        );
        let plain_sets = reference::decide(&brute, doc.len(), &config, document_rng(seed, "doc"));
        prop_assert_eq!(
            &fast.masks,
            &plain.masks,
            "fast vs reference over the store ({:?})",
            strategy
        );
        prop_assert_eq!(
            &fast.masks,
            &plain_sets.masks,
            "fast vs reference over sets ({:?})",
            strategy
        );
    }
    Ok(())
}

/// The decisions are k-anonymous and each one is justified by the state it was taken in.
fn check_invariants(
    lists: &[BTreeSet<u32>],
    k: u64,
    max_arity: usize,
    doc: &[u32],
    strategy: MaskStrategy,
) -> Result<(), TestCaseError> {
    let store = store_of(lists);
    let brute = BruteForce::new(lists, doc);
    let n = doc.len();
    let decisions = decide(
        &store,
        doc,
        &config(k, max_arity, strategy),
        document_rng(7, "doc"),
    );

    // Each term is masked at most once; rare terms first, in document order, and exactly those
    // with fewer than k people.
    let masked = masked_positions(&decisions, n);
    prop_assert_eq!(
        masked.iter().filter(|m| **m).count(),
        decisions.masks.len(),
        "a term masked twice"
    );
    let rare: Vec<&Mask> = decisions
        .masks
        .iter()
        .take_while(|m| matches!(m.reason, MaskReason::Rare { .. }))
        .collect();
    let expected_rare: Vec<usize> = (0..n).filter(|&t| brute.people(t) < k).collect();
    prop_assert_eq!(
        rare.iter().map(|m| m.term).collect::<Vec<_>>(),
        expected_rare
    );
    for mask in &rare {
        prop_assert_eq!(
            &mask.reason,
            &MaskReason::Rare {
                people: brute.people(mask.term)
            }
        );
        prop_assert_eq!(mask.arity(), 1);
    }

    // Each combination mask: a violation among the terms still unmasked at that point, containing
    // the masked term, with its exact number of people; greedy picks the shortest list, then the
    // earliest term.
    let mut masked_so_far = vec![false; n];
    for mask in &rare {
        masked_so_far[mask.term] = true;
    }
    for mask in &decisions.masks[rare.len()..] {
        let MaskReason::Combination { terms, people } = &mask.reason else {
            return Err(TestCaseError::fail(format!(
                "a rare mask after a combination mask: {mask:?}"
            )));
        };
        prop_assert!(
            terms.len() >= 2 && terms.len() <= max_arity,
            "arity {} of {:?}",
            terms.len(),
            terms
        );
        prop_assert!(
            terms.windows(2).all(|w| w[0] < w[1]),
            "combination not in document order: {:?}",
            terms
        );
        prop_assert!(terms.contains(&mask.term));
        prop_assert!(
            terms.iter().all(|&t| !masked_so_far[t]),
            "{:?} uses a masked term",
            terms
        );
        prop_assert_eq!(*people, brute.intersection(terms));
        prop_assert!(*people >= 1 && *people < k);
        // It is the first violation in lexicographic order (arity first) of the terms left.
        let kept: Vec<usize> = (0..n).filter(|&t| !masked_so_far[t]).collect();
        prop_assert_eq!(
            violation(&brute, &kept, k, max_arity),
            Some((terms.clone(), *people))
        );
        if strategy == MaskStrategy::Greedy {
            let best = terms.iter().copied().min_by_key(|&t| (brute.people(t), t));
            prop_assert_eq!(Some(mask.term), best);
        }
        masked_so_far[mask.term] = true;
    }

    // The final state is k-anonymous: every combination of up to max_arity kept terms is shared by
    // nobody or by at least k people; and masking any further term keeps it so.
    let kept: Vec<usize> = (0..n).filter(|&t| !masked[t]).collect();
    prop_assert_eq!(violation(&brute, &kept, k, max_arity), None);
    for extra in &kept {
        let fewer: Vec<usize> = kept.iter().copied().filter(|t| t != extra).collect();
        prop_assert_eq!(violation(&brute, &fewer, k, max_arity), None);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn fast_decisions_equal_the_reference((lists, k, max_arity, doc, seed) in case()) {
        check_same_decisions(&lists, k, max_arity, &doc, seed)?;
    }

    #[test]
    fn decisions_are_k_anonymous_and_justified((lists, k, max_arity, doc, _seed) in case()) {
        check_invariants(&lists, k, max_arity, &doc, MaskStrategy::Greedy)?;
        check_invariants(&lists, k, max_arity, &doc, MaskStrategy::Random)?;
    }

    #[test]
    fn with_k_1_only_empty_terms_are_masked((lists, _k, max_arity, doc, seed) in case()) {
        let store = store_of(&lists);
        for strategy in [MaskStrategy::Greedy, MaskStrategy::Random] {
            let decisions = decide(&store, &doc, &config(1, max_arity, strategy), document_rng(seed, "doc"));
            let expected: Vec<Mask> = doc
                .iter()
                .enumerate()
                .filter(|(_, t)| lists.get(**t as usize).is_none_or(BTreeSet::is_empty))
                .map(|(term, _)| Mask { term, reason: MaskReason::Rare { people: 0 } })
                .collect();
            prop_assert_eq!(decisions.masks, expected);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn fast_decisions_equal_the_reference_at_high_arity((lists, k, max_arity, doc, seed) in dense_case()) {
        check_same_decisions(&lists, k, max_arity, &doc, seed)?;
        check_invariants(&lists, k, max_arity, &doc, MaskStrategy::Greedy)?;
        check_invariants(&lists, k, max_arity, &doc, MaskStrategy::Random)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn fast_decisions_equal_the_reference_on_bitmap_lists((lists, k, max_arity, doc, seed) in long_case()) {
        check_same_decisions(&lists, k, max_arity, &doc, seed)?;
        check_invariants(&lists, k, max_arity, &doc, MaskStrategy::Greedy)?;
    }
}

// ---------------------------------------------------------------------------------------------
// Each rule on hand-built stores.

fn set(people: impl IntoIterator<Item = u32>) -> BTreeSet<u32> {
    people.into_iter().collect()
}

fn greedy(lists: &[BTreeSet<u32>], doc: &[u32], k: u64, max_arity: usize) -> Vec<Mask> {
    let store = store_of(lists);
    let fast = decide(
        &store,
        doc,
        &config(k, max_arity, MaskStrategy::Greedy),
        document_rng(0, "doc"),
    );
    let plain = reference::decide(
        &StoreIntersections {
            store: &store,
            terms: doc,
        },
        doc.len(),
        &config(k, max_arity, MaskStrategy::Greedy),
        document_rng(0, "doc"),
    );
    assert_eq!(fast.masks, plain.masks, "fast and reference disagree");
    fast.masks
}

fn combination(term: usize, terms: &[usize], people: u64) -> Mask {
    Mask {
        term,
        reason: MaskReason::Combination {
            terms: terms.to_vec(),
            people,
        },
    }
}

#[test]
fn a_rare_term_is_masked_with_its_people() {
    let lists = [set([3, 9]), set(0..10)];
    let masks = greedy(&lists, &[1, 0], 5, 3);
    assert_eq!(
        masks,
        vec![Mask {
            term: 1,
            reason: MaskReason::Rare { people: 2 }
        }]
    );
    assert_eq!(masks[0].arity(), 1);
    // Exactly k people is enough.
    assert_eq!(greedy(&[set(0..5)], &[0], 5, 3), vec![]);
    // A term the store does not know has nobody.
    assert_eq!(
        greedy(&lists, &[1, 7], 5, 3),
        vec![Mask {
            term: 1,
            reason: MaskReason::Rare { people: 0 }
        }]
    );
}

#[test]
fn a_pair_shared_by_fewer_than_k_masks_its_shorter_list() {
    // 10 and 20 people, 3 (7, 8, 9) in common.
    let lists = [set(0..10), set(7..27)];
    let masks = greedy(&lists, &[0, 1], 5, 3);
    assert_eq!(masks, vec![combination(0, &[0, 1], 3)]);
    assert_eq!(masks[0].arity(), 2);
    // Positions follow the document, not term ids: the shorter list is now the second term.
    assert_eq!(
        greedy(&lists, &[1, 0], 5, 3),
        vec![combination(1, &[0, 1], 3)]
    );
    // With k = 3 the pair is fine.
    assert_eq!(greedy(&lists, &[0, 1], 3, 3), vec![]);
}

#[test]
fn a_tie_on_list_length_masks_the_earliest_term() {
    // 10 people each, 3 in common.
    let lists = [set(0..10), set(7..17)];
    assert_eq!(
        greedy(&lists, &[0, 1], 5, 3),
        vec![combination(0, &[0, 1], 3)]
    );
    assert_eq!(
        greedy(&lists, &[1, 0], 5, 3),
        vec![combination(0, &[0, 1], 3)]
    );
}

/// Three terms whose pairs are each shared by exactly 5 people, and all three by 1 (person 0); the
/// first has 11 people, the second 10, the third 9.
fn triple() -> [BTreeSet<u32>; 3] {
    [
        set([0, 1, 2, 3, 4, 5, 6, 7, 8, 20, 21]),
        set([0, 1, 2, 3, 4, 9, 10, 11, 12, 22]),
        set([0, 5, 6, 7, 8, 9, 10, 11, 12]),
    ]
}

#[test]
fn a_triple_violation_is_found_at_arity_3() {
    let lists = triple();
    let brute = BruteForce::new(&lists, &[0, 1, 2]);
    for pair in combinations(&[0, 1, 2], 2) {
        assert_eq!(brute.intersection(&pair), 5, "pair {pair:?}");
    }
    let masks = greedy(&lists, &[0, 1, 2], 5, 3);
    assert_eq!(masks, vec![combination(2, &[0, 1, 2], 1)]);
    assert_eq!(masks[0].arity(), 3);
    // Ahead of a term that everyone has, with arity 4 allowed: the triple is still the first
    // violation (arity 3 comes before arity 4), and the three pairs with the new term are fine.
    let mut four = lists.to_vec();
    four.push(set(0..30));
    assert_eq!(
        greedy(&four, &[3, 0, 1, 2], 5, 4),
        vec![combination(3, &[1, 2, 3], 1)]
    );
}

#[test]
fn max_arity_2_ignores_a_triple_violation() {
    assert_eq!(greedy(&triple(), &[0, 1, 2], 5, 2), vec![]);
    assert_eq!(greedy(&triple(), &[0, 1, 2], 5, 1), vec![]);
}

#[test]
fn a_combination_shared_by_nobody_never_forces_a_mask() {
    // Two disjoint pairs of terms: every combination across them is shared by nobody.
    let lists = [set(0..5), set(10..15), set(0..6), set(10..16)];
    assert_eq!(greedy(&lists, &[0, 1, 2, 3], 5, 4), vec![]);
    // A triple shared by nobody although each pair is shared by at least k.
    let lists = [
        set(0..10),
        set(5..15),
        set([0, 1, 2, 3, 4, 10, 11, 12, 13, 14]),
    ];
    let brute = BruteForce::new(&lists, &[0, 1, 2]);
    assert_eq!(brute.intersection(&[0, 1, 2]), 0);
    assert_eq!(greedy(&lists, &[0, 1, 2], 5, 3), vec![]);
}

#[test]
fn masking_restarts_the_check() {
    // Pair (0, 1) is shared by 2 people: term 1 (8 people) goes. Then pair (0, 2) by 3: term 0 goes.
    let lists = [
        set(0..10),
        set([0, 1, 20, 21, 22, 23, 24, 25]),
        set([7, 8, 9, 30, 31, 32, 33, 34, 35, 36, 37]),
    ];
    let masks = greedy(&lists, &[0, 1, 2], 5, 3);
    assert_eq!(
        masks,
        vec![combination(1, &[0, 1], 2), combination(0, &[0, 2], 3)]
    );
}

#[test]
fn an_empty_document_has_no_masks() {
    let store = store_of(&[set(0..3)]);
    for strategy in [MaskStrategy::Greedy, MaskStrategy::Random] {
        let decisions = decide(&store, &[], &config(5, 3, strategy), document_rng(0, "doc"));
        assert_eq!(
            decisions,
            Decisions {
                masks: vec![],
                intersections: 0
            }
        );
        let plain = reference::decide(
            &StoreIntersections {
                store: &store,
                terms: &[],
            },
            0,
            &config(5, 3, strategy),
            document_rng(0, "doc"),
        );
        assert!(plain.masks.is_empty());
    }
}

#[test]
fn random_choice_is_reproducible_per_seed_and_document() {
    let lists = [set(0..10), set(7..27)];
    let store = store_of(&lists);
    let random = |seed: u64, doc_id: &str| {
        let config = LabelerConfig {
            seed,
            ..config(5, 3, MaskStrategy::Random)
        };
        let masks = decide(&store, &[0, 1], &config, document_rng(seed, doc_id)).masks;
        assert_eq!(masks.len(), 1, "{masks:?}");
        let MaskReason::Combination { terms, people } = &masks[0].reason else {
            panic!("not a combination mask: {masks:?}");
        };
        assert_eq!((terms.as_slice(), *people), (&[0, 1][..], 3));
        masks[0].term
    };
    for seed in 0..16 {
        assert_eq!(random(seed, "doc-a"), random(seed, "doc-a"), "seed {seed}");
    }
    // Both terms get drawn for some seed (odds of failing: 2 × 2^-64).
    let first = random(0, "doc-a");
    let other_seed = (1..64).find(|&seed| random(seed, "doc-a") != first);
    assert!(other_seed.is_some(), "the same term for 64 seeds");
    // And for some document id under one seed.
    let other_doc = (0..64).find(|i| random(0, &format!("doc-{i}")) != first);
    assert!(other_doc.is_some(), "the same term for 64 documents");
}

#[test]
fn documents_longer_than_the_empty_set_memo_agree_with_the_reference() {
    // 150 distinct terms (the memo of empty combinations covers 128), each a sliding window of 20
    // people: terms 6 apart share 2 people (fewer than k), terms 7 or more apart no one.
    let lists: Vec<BTreeSet<u32>> = (0..150u32).map(|t| set(t * 3..t * 3 + 20)).collect();
    let doc: Vec<u32> = (0..150).collect();
    let masks = greedy(&lists, &doc, 5, 3);
    assert!(!masks.is_empty());
}
