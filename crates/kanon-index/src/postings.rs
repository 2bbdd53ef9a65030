//! Posting lists of people, kept in memory once loaded, each in the form that suits its length:
//! short lists as sorted `u32` slices in one arena (most terms belong to a handful of people), long
//! ones as roaring bitmaps, and the lists of very frequent terms (a country, a year: at least 1/16 of
//! everyone) as dense bitsets, which at that density take no more memory than roaring and make
//! membership a bit test and intersection a word-wise AND.

use roaring::RoaringBitmap;

/// Lists up to this length are kept as sorted slices.
pub const SMALL_LIST_MAX: usize = 1024;

/// A list is dense once it holds at least this share (1/n) of the people.
const DENSE_SHARE: u64 = 16;

/// A set of people as one bit per person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DenseSet {
    words: Vec<u64>,
    len: u64,
}

impl DenseSet {
    fn from_iter(universe: u32, people: impl IntoIterator<Item = u32>) -> Self {
        let mut words = vec![0u64; (universe as usize).div_ceil(64)];
        let mut len = 0;
        for p in people {
            if let Some(word) = words.get_mut((p / 64) as usize) {
                *word |= 1 << (p % 64);
                len += 1;
            }
        }
        DenseSet { words, len }
    }

    /// Whether the person is in the set.
    #[inline]
    pub fn contains(&self, person: u32) -> bool {
        self.words
            .get((person / 64) as usize)
            .is_some_and(|w| w >> (person % 64) & 1 == 1)
    }

    /// The people of the set, in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.words.iter().enumerate().flat_map(|(i, &word)| {
            let mut bits = word;
            std::iter::from_fn(move || {
                if bits == 0 {
                    return None;
                }
                let bit = bits.trailing_zeros();
                bits &= bits - 1;
                Some(i as u32 * 64 + bit)
            })
        })
    }
}

/// The people of one term.
#[derive(Debug, Clone, Copy)]
pub enum PostingList<'a> {
    /// A short list: sorted, distinct person ids.
    Sorted(&'a [u32]),
    /// A long list as a roaring bitmap.
    Bitmap(&'a RoaringBitmap),
    /// A list of at least 1/16 of everyone, one bit per person.
    Dense(&'a DenseSet),
}

impl PostingList<'_> {
    /// How many people have the term.
    pub fn len(&self) -> u64 {
        match self {
            PostingList::Sorted(ids) => ids.len() as u64,
            PostingList::Bitmap(bitmap) => bitmap.len(),
            PostingList::Dense(set) => set.len,
        }
    }

    /// Whether nobody has the term.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the person has the term.
    #[inline]
    pub fn contains(&self, person: u32) -> bool {
        match self {
            PostingList::Sorted(ids) => ids.binary_search(&person).is_ok(),
            PostingList::Bitmap(bitmap) => bitmap.contains(person),
            PostingList::Dense(set) => set.contains(person),
        }
    }

    /// The people as a roaring bitmap (a copy, whatever the form).
    pub fn to_bitmap(&self) -> RoaringBitmap {
        match self {
            PostingList::Sorted(ids) => {
                RoaringBitmap::from_sorted_iter(ids.iter().copied()).unwrap_or_default()
            }
            PostingList::Bitmap(bitmap) => (*bitmap).clone(),
            PostingList::Dense(set) => {
                RoaringBitmap::from_sorted_iter(set.iter()).unwrap_or_default()
            }
        }
    }

    /// The people, in increasing order.
    pub fn iter(&self) -> Box<dyn Iterator<Item = u32> + '_> {
        match self {
            PostingList::Sorted(ids) => Box::new(ids.iter().copied()),
            PostingList::Bitmap(bitmap) => Box::new(bitmap.iter()),
            PostingList::Dense(set) => Box::new(set.iter()),
        }
    }
}

#[derive(Debug, Clone, Copy)]
enum Entry {
    /// `(offset, len)` in the arena.
    Sorted(u64, u32),
    Bitmap(u32),
    Dense(u32),
}

/// All posting lists of an index, by term id.
#[derive(Debug, Default)]
pub struct PostingStore {
    /// The number of people (person ids are below it); 0 keeps every list sparse.
    universe: u32,
    entries: Vec<Entry>,
    arena: Vec<u32>,
    bitmaps: Vec<RoaringBitmap>,
    dense: Vec<DenseSet>,
    total_postings: u64,
}

impl PostingStore {
    /// A store for lists of people below `universe` (the number of people of the index).
    pub fn new(universe: u32, terms: usize) -> Self {
        PostingStore {
            universe,
            entries: Vec::with_capacity(terms),
            ..PostingStore::default()
        }
    }

    fn is_dense(&self, len: u64) -> bool {
        self.universe > 0
            && len as usize > SMALL_LIST_MAX
            && len * DENSE_SHARE >= u64::from(self.universe)
    }

    /// Appends the list of the next term id; `people` sorted and without duplicates.
    pub fn push_sorted(&mut self, people: &[u32]) {
        debug_assert!(people.windows(2).all(|w| w[0] < w[1]));
        self.total_postings += people.len() as u64;
        let len = people.len() as u64;
        let entry = if people.len() <= SMALL_LIST_MAX {
            let entry = Entry::Sorted(self.arena.len() as u64, people.len() as u32);
            self.arena.extend_from_slice(people);
            entry
        } else if self.is_dense(len) {
            self.dense
                .push(DenseSet::from_iter(self.universe, people.iter().copied()));
            Entry::Dense(self.dense.len() as u32 - 1)
        } else {
            self.bitmaps
                .push(RoaringBitmap::from_sorted_iter(people.iter().copied()).unwrap_or_default());
            Entry::Bitmap(self.bitmaps.len() as u32 - 1)
        };
        self.entries.push(entry);
    }

    /// Appends the list of the next term id from a bitmap.
    pub fn push_bitmap(&mut self, bitmap: RoaringBitmap) {
        let len = bitmap.len();
        self.total_postings += len;
        let entry = if len as usize <= SMALL_LIST_MAX {
            let entry = Entry::Sorted(self.arena.len() as u64, len as u32);
            self.arena.extend(bitmap.iter());
            entry
        } else if self.is_dense(len) {
            self.dense
                .push(DenseSet::from_iter(self.universe, bitmap.iter()));
            Entry::Dense(self.dense.len() as u32 - 1)
        } else {
            self.bitmaps.push(bitmap);
            Entry::Bitmap(self.bitmaps.len() as u32 - 1)
        };
        self.entries.push(entry);
    }

    /// Posting lists held: one per term id.
    pub fn num_terms(&self) -> usize {
        self.entries.len()
    }

    /// The number of (term, person) pairs.
    pub fn num_postings(&self) -> u64 {
        self.total_postings
    }

    /// The posting list of a term id; `None` past the last one.
    pub fn get(&self, term: u32) -> Option<PostingList<'_>> {
        Some(match *self.entries.get(term as usize)? {
            Entry::Sorted(offset, len) => {
                PostingList::Sorted(&self.arena[offset as usize..offset as usize + len as usize])
            }
            Entry::Bitmap(i) => PostingList::Bitmap(&self.bitmaps[i as usize]),
            Entry::Dense(i) => PostingList::Dense(&self.dense[i as usize]),
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
                _ => result.retain(|p| list.contains(p)),
            }
        }
        result
    }
}

/// Counts the people of `candidates` that every one of `others` contains, no further than `cap`.
fn probe(candidates: impl Iterator<Item = u32>, others: &[PostingList<'_>], cap: u64) -> u64 {
    let mut count = 0;
    for p in candidates {
        if others.iter().all(|l| l.contains(p)) {
            count += 1;
            if count >= cap {
                break;
            }
        }
    }
    count
}

/// Intersection size of several lists, capped. Sorted by length, the shortest list leads: short
/// lists are merged or probed into the others, roaring bitmaps intersected with roaring's own
/// operations, dense sets AND-ed word by word.
pub fn intersection_count(lists: &mut [PostingList<'_>], cap: u64) -> u64 {
    match lists.len() {
        0 => return 0,
        1 => return lists[0].len().min(cap),
        _ => {}
    }
    lists.sort_unstable_by_key(PostingList::len);
    let (first, rest) = lists.split_first().expect("at least two lists");
    match *first {
        PostingList::Sorted(ids) => match rest[0] {
            PostingList::Sorted(second) => {
                // Two short lists: merge them, then probe the others with the (few) survivors.
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
            _ => probe(ids.iter().copied(), rest, cap),
        },
        PostingList::Bitmap(first) => {
            // The others are bitmaps or dense sets (lists are sorted by length).
            let bitmaps: Vec<&RoaringBitmap> = rest
                .iter()
                .filter_map(|l| match l {
                    PostingList::Bitmap(b) => Some(*b),
                    _ => None,
                })
                .collect();
            let dense: Vec<PostingList<'_>> = rest
                .iter()
                .filter(|l| matches!(l, PostingList::Dense(_)))
                .copied()
                .collect();
            match (bitmaps.len(), dense.is_empty()) {
                (0, _) => probe(first.iter(), &dense, cap),
                (1, true) => first.intersection_len(bitmaps[0]).min(cap),
                _ => {
                    let mut acc = first & bitmaps[0];
                    for b in &bitmaps[1..] {
                        acc &= *b;
                    }
                    if dense.is_empty() {
                        acc.len().min(cap)
                    } else {
                        probe(acc.iter(), &dense, cap)
                    }
                }
            }
        }
        PostingList::Dense(_) => {
            // Every list is dense.
            let sets: Vec<&DenseSet> = lists
                .iter()
                .filter_map(|l| match l {
                    PostingList::Dense(s) => Some(*s),
                    _ => None,
                })
                .collect();
            let words = sets.iter().map(|s| s.words.len()).min().unwrap_or(0);
            let mut count = 0u64;
            for w in 0..words {
                let and = sets.iter().fold(u64::MAX, |acc, s| acc & s.words[w]);
                count += u64::from(and.count_ones());
                if count >= cap {
                    return cap;
                }
            }
            count
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
            dense in proptest::collection::vec(0u32..5000, 0..4000),
            universe_dense in proptest::bool::ANY,
            cap in 1u64..3000,
        ) {
            // Sometimes a list dense enough for a bitset, over a small universe.
            let mut lists = lists;
            if universe_dense {
                lists.push(dense.into_iter().collect());
            }
            for universe in [0, 5000] {
                let mut store = PostingStore::new(universe, lists.len());
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
                    let stored = store.get(i as u32).unwrap();
                    proptest::prop_assert_eq!(stored.len(), list.len() as u64);
                    proptest::prop_assert_eq!(stored.iter().collect::<BTreeSet<u32>>(), list.clone());
                }
            }
        }
    }

    #[test]
    fn representation_follows_length() {
        let mut store = PostingStore::new(100_000, 3);
        store.push_sorted(&[1, 2, 3]);
        store.push_sorted(&(0..5000).collect::<Vec<u32>>());
        store.push_bitmap((0..50_000).step_by(2).collect());
        assert!(matches!(store.get(0), Some(PostingList::Sorted(_))));
        assert!(matches!(store.get(1), Some(PostingList::Bitmap(_))));
        assert!(matches!(store.get(2), Some(PostingList::Dense(_))));
        assert_eq!(store.intersection_count(&[1, 2], u64::MAX), 2500);
        assert_eq!(store.num_postings(), 3 + 5000 + 25_000);
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
