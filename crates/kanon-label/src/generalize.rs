//! The KG attacker's choice of a generalization: the most specific rung of an entity's hierarchy
//! that Algorithm 1 does not break. A rung stands for everyone any of the terms it covers stands
//! for (`a city in Norway`: everyone born in any Norwegian city the KG knows), and is safe when,
//! beside the document's remaining KG terms and the rungs already chosen for its other entities,
//! no combination of up to `max_arity` of them that includes it is shared by at least one and
//! fewer than `k` people — k-anonymity kept by generalization rather than by suppression
//! (Samarati and Sweeney's generalization hierarchies, applied to text). The check is
//! [`crate::algorithm::decide_lists`]'s, not a second implementation.
//!
//! ```
//! use kanon_index::PostingStore;
//! use kanon_label::algorithm::LabelerConfig;
//! use kanon_label::generalize::choose_rungs;
//!
//! // Ten people; the document still names term 0, which people 0..=5 share.
//! let mut store = PostingStore::new(10, 1);
//! store.push_sorted(&[0, 1, 2, 3, 4, 5]);
//! let config = LabelerConfig { k: 3, max_arity: 2, ..LabelerConfig::default() };
//! // One entity: a rung held by person 5 alone, then one held by people 3..=9.
//! let rungs = vec![vec![vec![5], (3..10).collect::<Vec<u32>>()]];
//! assert_eq!(choose_rungs(&store, &[0], &rungs, &config), [Some(1)]);
//! ```

use kanon_index::{PostingList, PostingStore};

use crate::algorithm::{LabelerConfig, MaskReason, decide_lists, document_rng};

/// For each entity in order, the position of the most specific of its rungs (each the sorted,
/// distinct people it covers, most specific first) that is safe beside the document's remaining
/// `terms` and the rungs chosen for the entities before it; `None` when no rung is (the entity is
/// masked). Terms that break k-anonymity on their own are not the rungs' doing: only offending
/// combinations that include the rung refuse it.
pub fn choose_rungs(
    store: &PostingStore,
    terms: &[u32],
    entities: &[Vec<Vec<u32>>],
    config: &LabelerConfig,
) -> Vec<Option<usize>> {
    let mut chosen: Vec<&[u32]> = Vec::new();
    entities
        .iter()
        .map(|rungs| {
            let pick = rungs
                .iter()
                .position(|rung| rung_is_safe(store, terms, &chosen, rung, config));
            if let Some(at) = pick {
                chosen.push(&rungs[at]);
            }
            pick
        })
        .collect()
}

/// Whether `rung` (the sorted people it covers) takes part in no offending combination with the
/// document's remaining `terms` and the people of the rungs `chosen` for its other entities. It
/// is checked first, so that no mask of another term hides a combination with it.
pub fn rung_is_safe(
    store: &PostingStore,
    terms: &[u32],
    chosen: &[&[u32]],
    rung: &[u32],
    config: &LabelerConfig,
) -> bool {
    let lists: Vec<PostingList<'_>> = std::iter::once(PostingList::Sorted(rung))
        .chain(chosen.iter().map(|people| PostingList::Sorted(people)))
        .chain(
            terms
                .iter()
                .map(|&t| store.get(t).unwrap_or(PostingList::Sorted(&[]))),
        )
        .collect();
    // Greedy masks need no generator; any document's will do.
    let decisions = decide_lists(lists, config, document_rng(config.seed, ""));
    !decisions.masks.iter().any(|mask| match &mask.reason {
        MaskReason::Rare { .. } => mask.term == 0,
        MaskReason::Combination { terms, .. } => terms.contains(&0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Twelve people: term 0 = people 0..6 (a profession), term 1 = people 4..12 (a decade).
    fn store() -> PostingStore {
        let mut store = PostingStore::new(12, 2);
        store.push_sorted(&[0, 1, 2, 3, 4, 5]);
        store.push_sorted(&[4, 5, 6, 7, 8, 9, 10, 11]);
        store
    }

    fn config(k: u64) -> LabelerConfig {
        LabelerConfig {
            k,
            max_arity: 3,
            ..LabelerConfig::default()
        }
    }

    #[test]
    fn a_rung_that_singles_a_person_out_is_refused_and_the_next_one_up_chosen() {
        // `a city in Hordaland` (person 5), `a city in Norway` (2, 5, 7), `a city in Europe`.
        let city = vec![vec![5], vec![2, 5, 7], (0..12).collect()];
        assert_eq!(
            choose_rungs(&store(), &[], std::slice::from_ref(&city), &config(3)),
            [Some(1)]
        );
        // With the document's other terms, Norway's three narrow to one: term 0 with the rung
        // leaves people 2 and 5, fewer than 3.
        assert_eq!(
            choose_rungs(&store(), &[0], std::slice::from_ref(&city), &config(3)),
            [Some(2)]
        );
        // Nothing is safe: masked.
        assert_eq!(
            choose_rungs(&store(), &[0, 1], &[vec![vec![5]]], &config(3)),
            [None]
        );
    }

    #[test]
    fn a_combination_with_an_earlier_choice_counts() {
        // Two entities whose first rungs are each held by four people, two of them shared.
        let first = vec![vec![0, 1, 2, 3], (0..12).collect()];
        let second = vec![vec![2, 3, 8, 9], (0..12).collect()];
        let chosen = choose_rungs(&store(), &[], &[first, second], &config(3));
        assert_eq!(chosen, [Some(0), Some(1)]);
    }

    #[test]
    fn a_term_unsafe_on_its_own_does_not_refuse_a_rung() {
        // Term 0 alone (6 people) is under k = 8, but the rung covers everyone: it adds nothing.
        let everyone = vec![(0..12).collect::<Vec<u32>>()];
        assert_eq!(
            choose_rungs(&store(), &[0], &[everyone], &config(8)),
            [Some(0)]
        );
    }
}
