//! Posting lists of people, kept in memory once loaded: short lists as sorted `u32` slices in one
//! arena (most terms belong to a handful of people), long ones as roaring bitmaps. Intersections
//! walk the shortest list and probe the others, or intersect bitmaps when every list is long.

use roaring::RoaringBitmap;

/// Lists up to this length are kept as sorted slices; longer ones as roaring bitmaps.
pub const SMALL_LIST_MAX: usize = 1024;

/// The people of one term.
#[derive(Debug, Clone, Copy)]
pub enum PostingList<'a> {
    Sorted(&'a [u32]),
    Bitmap(&'a RoaringBitmap),
}

impl PostingList<'_> {
    pub fn len(&self) -> u64 {
        match self {
            PostingList::Sorted(ids) => ids.len() as u64,
            PostingList::Bitmap(bitmap) => bitmap.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn contains(&self, person: u32) -> bool {
        match self {
            PostingList::Sorted(ids) => ids.binary_search(&person).is_ok(),
            PostingList::Bitmap(bitmap) => bitmap.contains(person),
        }
    }

    pub fn to_bitmap(&self) -> RoaringBitmap {
        match self {
            PostingList::Sorted(ids) => {
                RoaringBitmap::from_sorted_iter(ids.iter().copied()).unwrap_or_default()
            }
            PostingList::Bitmap(bitmap) => (*bitmap).clone(),
        }
    }

    pub fn iter(&self) -> Box<dyn Iterator<Item = u32> + '_> {
        match self {
            PostingList::Sorted(ids) => Box::new(ids.iter().copied()),
            PostingList::Bitmap(bitmap) => Box::new(bitmap.iter()),
        }
    }
}

/// All posting lists of an index, by term id.
#[derive(Debug, Default)]
pub struct PostingStore {
    /// `(offset, len)` into `arena` for short lists; `len == u32::MAX` marks a bitmap whose index is
    /// `offset` in `bitmaps`.
    entries: Vec<(u64, u32)>,
    arena: Vec<u32>,
    bitmaps: Vec<RoaringBitmap>,
    total_postings: u64,
}

const BITMAP_MARK: u32 = u32::MAX;

impl PostingStore {
    pub fn with_capacity(terms: usize) -> Self {
        PostingStore {
            entries: Vec::with_capacity(terms),
            ..PostingStore::default()
        }
    }

    /// Appends the list of the next term id; `people` sorted and without duplicates.
    pub fn push_sorted(&mut self, people: &[u32]) {
        debug_assert!(people.windows(2).all(|w| w[0] < w[1]));
        self.total_postings += people.len() as u64;
        if people.len() <= SMALL_LIST_MAX {
            self.entries
                .push((self.arena.len() as u64, people.len() as u32));
            self.arena.extend_from_slice(people);
        } else {
            self.entries.push((self.bitmaps.len() as u64, BITMAP_MARK));
            self.bitmaps
                .push(RoaringBitmap::from_sorted_iter(people.iter().copied()).unwrap_or_default());
        }
    }

    /// Appends the list of the next term id from a bitmap.
    pub fn push_bitmap(&mut self, bitmap: RoaringBitmap) {
        self.total_postings += bitmap.len();
        if bitmap.len() as usize <= SMALL_LIST_MAX {
            self.entries
                .push((self.arena.len() as u64, bitmap.len() as u32));
            self.arena.extend(bitmap.iter());
        } else {
            self.entries.push((self.bitmaps.len() as u64, BITMAP_MARK));
            self.bitmaps.push(bitmap);
        }
    }

    pub fn num_terms(&self) -> usize {
        self.entries.len()
    }

    /// The number of (term, person) pairs.
    pub fn num_postings(&self) -> u64 {
        self.total_postings
    }

    pub fn get(&self, term: u32) -> Option<PostingList<'_>> {
        let &(offset, len) = self.entries.get(term as usize)?;
        Some(if len == BITMAP_MARK {
            PostingList::Bitmap(&self.bitmaps[offset as usize])
        } else {
            PostingList::Sorted(&self.arena[offset as usize..offset as usize + len as usize])
        })
    }

    /// The number of people in every one of `terms`' lists, counting no further than `cap`
    /// (pass `u64::MAX` for the exact size). Unknown term ids count as empty lists.
    pub fn intersection_count(&self, terms: &[u32], cap: u64) -> u64 {
        let mut lists: Vec<PostingList<'_>> = Vec::with_capacity(terms.len());
        for &t in terms {
            match self.get(t) {
                Some(list) => lists.push(list),
                None => return 0,
            }
        }
        intersection_count(&mut lists, cap)
    }

    /// The people in every one of `terms`' lists.
    pub fn intersection(&self, terms: &[u32]) -> RoaringBitmap {
        let mut lists: Vec<PostingList<'_>> = terms.iter().filter_map(|&t| self.get(t)).collect();
        if lists.len() < terms.len() || lists.is_empty() {
            return RoaringBitmap::new();
        }
        lists.sort_by_key(PostingList::len);
        let mut result = lists[0].to_bitmap();
        for list in &lists[1..] {
            match list {
                PostingList::Bitmap(bitmap) => result &= *bitmap,
                PostingList::Sorted(_) => result.retain(|p| list.contains(p)),
            }
        }
        result
    }
}

/// Intersection size of several lists, capped. Walks the shortest list when it is short; intersects
/// bitmaps when all are long.
pub fn intersection_count(lists: &mut [PostingList<'_>], cap: u64) -> u64 {
    match lists.len() {
        0 => return 0,
        1 => return lists[0].len().min(cap),
        _ => {}
    }
    lists.sort_unstable_by_key(PostingList::len);
    let (first, rest) = lists.split_first().expect("at least two lists");
    match first {
        PostingList::Sorted(ids) if matches!(rest[0], PostingList::Sorted(_)) => {
            // Two short lists: merge them, then probe the others with the (few) survivors.
            let PostingList::Sorted(second) = rest[0] else {
                unreachable!("matched above")
            };
            let mut count = 0;
            let (mut i, mut j) = (0, 0);
            while i < ids.len() && j < second.len() {
                match ids[i].cmp(&second[j]) {
                    std::cmp::Ordering::Less => i += 1,
                    std::cmp::Ordering::Greater => j += 1,
                    std::cmp::Ordering::Equal => {
                        if rest[1..].iter().all(|l| l.contains(ids[i])) {
                            count += 1;
                            if count >= cap {
                                break;
                            }
                        }
                        i += 1;
                        j += 1;
                    }
                }
            }
            count
        }
        PostingList::Sorted(ids) => {
            let mut count = 0;
            for &p in *ids {
                if rest.iter().all(|l| l.contains(p)) {
                    count += 1;
                    if count >= cap {
                        break;
                    }
                }
            }
            count
        }
        PostingList::Bitmap(first) => {
            // Every list is a bitmap (sorted slices are shorter than any bitmap).
            let bitmaps: Vec<&RoaringBitmap> = rest
                .iter()
                .filter_map(|l| match l {
                    PostingList::Bitmap(b) => Some(*b),
                    PostingList::Sorted(_) => None,
                })
                .collect();
            if bitmaps.len() == 1 {
                return first.intersection_len(bitmaps[0]).min(cap);
            }
            let mut acc = *first & bitmaps[0];
            for b in &bitmaps[1..bitmaps.len() - 1] {
                acc &= *b;
            }
            acc.intersection_len(bitmaps[bitmaps.len() - 1]).min(cap)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    proptest::proptest! {
        #[test]
        fn intersections_match_brute_force_sets(
            lists in proptest::collection::vec(proptest::collection::btree_set(0u32..5000, 0..2500), 1..5),
            cap in 1u64..3000,
        ) {
            let mut store = PostingStore::default();
            for list in &lists {
                store.push_sorted(&list.iter().copied().collect::<Vec<_>>());
            }
            let ids: Vec<u32> = (0..lists.len() as u32).collect();
            let mut expected: BTreeSet<u32> = lists[0].clone();
            for list in &lists[1..] {
                expected = expected.intersection(list).copied().collect();
            }
            proptest::prop_assert_eq!(store.intersection_count(&ids, u64::MAX), expected.len() as u64);
            proptest::prop_assert_eq!(store.intersection_count(&ids, cap), (expected.len() as u64).min(cap));
            let got: BTreeSet<u32> = store.intersection(&ids).iter().collect();
            proptest::prop_assert_eq!(got, expected);
            for (i, list) in lists.iter().enumerate() {
                proptest::prop_assert_eq!(store.get(i as u32).unwrap().len(), list.len() as u64);
            }
        }
    }

    #[test]
    fn unknown_terms_are_empty() {
        let mut store = PostingStore::default();
        store.push_sorted(&[1, 2, 3]);
        assert_eq!(store.intersection_count(&[0, 7], u64::MAX), 0);
        assert!(store.intersection(&[0, 7]).is_empty());
        assert_eq!(store.num_postings(), 3);
    }
}
