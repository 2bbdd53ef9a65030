//! The gazetteer: finds every indexed term in a text, on word boundaries, with the index's own
//! normalisation.
//!
//! Terms are sequences of folded words, so the automaton is a trie over *word ids*: a text is
//! tokenised once, each word looked up once in the word table, and the trie is walked only from word
//! starts. This is much smaller than a byte-level automaton over millions of terms and touches memory
//! once per word rather than once per byte.

use std::cell::RefCell;

use kanon_core::text::{HARD_BREAK_TOKEN, Token, for_each_token};
use rustc_hash::FxHashMap;

use crate::error::{Error, Result};

/// A term found in a text: character offsets `[start, end)` and the term id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TermMatch {
    /// The first character of the match.
    pub start: usize,
    /// One past the last character of the match.
    pub end: usize,
    /// The id of the term matched (its ordinal in the term dictionary).
    pub term: u32,
}

const ROOT: u32 = 0;
const NO_TERM: u32 = u32::MAX;
/// Word id of a hard break between words.
const HARD: u32 = u32::MAX - 1;
/// Word id of a text word that no term contains.
const UNKNOWN: u32 = u32::MAX;

const MAGIC: &[u8; 8] = b"KNGAZv1\0";

/// Finds indexed terms in texts: a trie over word ids, walked from every word start, keeping the
/// leftmost-longest match. Built once with the index and loaded from `gazetteer.bin`.
#[derive(Default)]
pub struct Gazetteer {
    /// The words of all terms, by id (what is serialised).
    words: Vec<Box<str>>,
    /// The hot lookup, one probe per text word: the word's id, the trie node it leads to from the
    /// root, and the term ending there.
    lookup: WordTable,
    /// Transitions below the root, each with the term ending at its child.
    edges: EdgeTable,
    /// Term id ending at each node, or `NO_TERM` (kept for serialisation).
    terminal: Vec<u32>,
}

impl std::fmt::Debug for Gazetteer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gazetteer")
            .field("words", &self.words.len())
            .field("nodes", &self.terminal.len())
            .finish()
    }
}

/// A word's 64-bit xxh3 hash (the slot and a 32-bit tag) and a cheap check on its shape (length and
/// last bytes): two different words agree on all of it with odds of about 2^-64 × the odds their
/// shapes agree.
fn fingerprint(word: &str) -> (u64, u32) {
    let bytes = word.as_bytes();
    let mut check = (bytes.len() as u32 & 0xff) << 24;
    for (shift, &b) in bytes.iter().rev().take(3).enumerate() {
        check |= u32::from(b) << (8 * shift);
    }
    (xxhash_rust::xxh3::xxh3_64(bytes), check)
}

/// 20 bytes: the tag and check confirm the word, the rest is what the walk needs from the root.
#[derive(Debug, Clone, Copy)]
struct WordEntry {
    /// The high half of the word's hash (the low half picks the slot).
    tag: u32,
    check: u32,
    word: u32,
    /// The root's child for this word, or `ROOT` when no term starts with it.
    root_child: u32,
    /// The term ending at `root_child`, or `NO_TERM`.
    root_term: u32,
    /// Whether `root_child` has children (a longer term goes on from it).
    root_child_continues: bool,
    /// Whether the word appears after the first word of some term: if not, no walk goes on with it.
    continues_terms: bool,
}

const EMPTY: u32 = u32::MAX;

/// Open addressing with linear probing, at most half full: a lookup touches one cache line in the
/// common case (a general-purpose map touches its control bytes, then its bucket).
#[derive(Debug, Default)]
struct WordTable {
    slots: Vec<WordEntry>,
    mask: usize,
}

impl WordTable {
    fn with_capacity(n: usize) -> Self {
        let size = (n.max(4) * 2).next_power_of_two();
        let empty = WordEntry {
            tag: 0,
            check: 0,
            word: EMPTY,
            root_child: ROOT,
            root_term: NO_TERM,
            root_child_continues: false,
            continues_terms: false,
        };
        WordTable {
            slots: vec![empty; size],
            mask: size - 1,
        }
    }

    /// Inserts; returns false when a word with the same fingerprint is already present.
    fn insert(&mut self, key: u64, mut entry: WordEntry) -> bool {
        entry.tag = (key >> 32) as u32;
        let mut i = (key as usize) & self.mask;
        loop {
            let slot = &mut self.slots[i];
            if slot.word == EMPTY {
                *slot = entry;
                return true;
            }
            if slot.tag == entry.tag && slot.check == entry.check {
                return false;
            }
            i = (i + 1) & self.mask;
        }
    }

    fn get(&self, key: u64, check: u32) -> Option<&WordEntry> {
        let tag = (key >> 32) as u32;
        let mut i = (key as usize) & self.mask;
        loop {
            let slot = &self.slots[i];
            if slot.word == EMPTY {
                return None;
            }
            if slot.tag == tag && slot.check == check {
                return Some(slot);
            }
            i = (i + 1) & self.mask;
        }
    }

    fn values(&self) -> impl Iterator<Item = &WordEntry> {
        self.slots.iter().filter(|s| s.word != EMPTY)
    }
}

/// A transition `(node, word) → child`, the term ending at the child, and whether the child has
/// children of its own.
#[derive(Debug, Clone, Copy)]
struct Edge {
    node: u32,
    word: u32,
    child: u32,
    term: u32,
    child_continues: bool,
}

/// Transitions below the root, open addressing as [`WordTable`].
#[derive(Debug, Default)]
struct EdgeTable {
    slots: Vec<Edge>,
    mask: usize,
    len: usize,
}

/// Mixes both halves of the key into the low bits (the table masks them): a plain multiplicative
/// hash would leave the node out of the low bits and pile up every edge of a common word.
fn edge_slot(node: u32, word: u32) -> usize {
    let h = edge_key(node, word).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (h ^ (h >> 29) ^ (h >> 47)) as usize
}

impl EdgeTable {
    fn with_capacity(n: usize) -> Self {
        let size = (n.max(4) * 2).next_power_of_two();
        let empty = Edge {
            node: EMPTY,
            word: 0,
            child: 0,
            term: NO_TERM,
            child_continues: false,
        };
        EdgeTable {
            slots: vec![empty; size],
            mask: size - 1,
            len: 0,
        }
    }

    fn insert(&mut self, edge: Edge) {
        let mut i = edge_slot(edge.node, edge.word) & self.mask;
        while self.slots[i].node != EMPTY {
            i = (i + 1) & self.mask;
        }
        self.slots[i] = edge;
        self.len += 1;
    }

    fn get(&self, node: u32, word: u32) -> Option<&Edge> {
        let mut i = edge_slot(node, word) & self.mask;
        loop {
            let slot = &self.slots[i];
            if slot.node == EMPTY {
                return None;
            }
            if slot.node == node && slot.word == word {
                return Some(slot);
            }
            i = (i + 1) & self.mask;
        }
    }

    fn iter(&self) -> impl Iterator<Item = &Edge> {
        self.slots.iter().filter(|s| s.node != EMPTY)
    }
}

#[derive(Debug, Clone, Copy)]
struct TextToken {
    word: u32,
    root_child: u32,
    root_term: u32,
    root_child_continues: bool,
    continues_terms: bool,
    key: u64,
    check: u32,
    start: u32,
    end: u32,
}

thread_local! {
    static TOKENS: RefCell<Vec<TextToken>> = const { RefCell::new(Vec::new()) };
}

fn edge_key(node: u32, word: u32) -> u64 {
    (u64::from(node) << 32) | u64::from(word)
}

impl Gazetteer {
    /// Builds the trie from `(normalised term, term id)` pairs; terms must be distinct.
    pub fn build<'a>(terms: impl IntoIterator<Item = (&'a str, u32)>) -> Result<Self> {
        let mut word_ids: FxHashMap<&'a str, u32> = FxHashMap::default();
        let mut words: Vec<Box<str>> = Vec::new();
        let mut edges: FxHashMap<u64, u32> = FxHashMap::default();
        let mut terminal = vec![NO_TERM];
        for (term, id) in terms {
            let mut node = ROOT;
            for word in term.split(' ') {
                let word_id = if word == HARD_BREAK_TOKEN {
                    HARD
                } else {
                    *word_ids.entry(word).or_insert_with(|| {
                        words.push(word.into());
                        words.len() as u32 - 1
                    })
                };
                let next_node = terminal.len() as u32;
                node = *edges.entry(edge_key(node, word_id)).or_insert(next_node);
                if node == next_node {
                    terminal.push(NO_TERM);
                }
            }
            if node == ROOT {
                return Err(Error::Automaton(format!("empty term for id {id}")));
            }
            if terminal[node as usize] != NO_TERM {
                return Err(Error::Automaton(format!("duplicate term {term:?}")));
            }
            terminal[node as usize] = id;
        }
        let edges = edges
            .into_iter()
            .map(|(k, child)| ((k >> 32) as u32, k as u32, child));
        Self::from_parts(words, edges, terminal)
    }

    /// Lays the trie out for lookups: root transitions into the word table, the others into the edge
    /// table, each with the term ending at its child.
    fn from_parts(
        words: Vec<Box<str>>,
        edges: impl Iterator<Item = (u32, u32, u32)>,
        terminal: Vec<u32>,
    ) -> Result<Self> {
        let edges: Vec<(u32, u32, u32)> = edges.collect();
        let mut has_children = vec![false; terminal.len()];
        let mut continues_terms = vec![false; words.len()];
        for &(node, word, _) in &edges {
            has_children[node as usize] = true;
            if node != ROOT && word != HARD {
                continues_terms[word as usize] = true;
            }
        }
        let mut root_children = vec![ROOT; words.len()];
        let mut below: Vec<Edge> = Vec::new();
        for (node, word, child) in edges {
            let term = terminal[child as usize];
            if node == ROOT {
                root_children[word as usize] = child;
            } else {
                let child_continues = has_children[child as usize];
                below.push(Edge {
                    node,
                    word,
                    child,
                    term,
                    child_continues,
                });
            }
        }
        let mut lookup = WordTable::with_capacity(words.len());
        for (id, word) in words.iter().enumerate() {
            let (key, check) = fingerprint(word);
            let root_child = root_children[id];
            let root_term = if root_child == ROOT {
                NO_TERM
            } else {
                terminal[root_child as usize]
            };
            let entry = WordEntry {
                tag: 0,
                check,
                word: id as u32,
                root_child,
                root_term,
                root_child_continues: root_child != ROOT && has_children[root_child as usize],
                continues_terms: continues_terms[id],
            };
            if !lookup.insert(key, entry) {
                return Err(Error::Automaton(format!(
                    "fingerprint collision on {word:?}"
                )));
            }
        }
        let mut table = EdgeTable::with_capacity(below.len());
        for edge in below {
            table.insert(edge);
        }
        Ok(Gazetteer {
            words,
            lookup,
            edges: table,
            terminal,
        })
    }

    /// Every occurrence of every term, overlapping ones included, sorted by start then longest first.
    pub fn find_all(&self, text: &str) -> Vec<TermMatch> {
        TOKENS.with(|tokens| {
            let mut tokens = tokens.borrow_mut();
            tokens.clear();
            // Fingerprint every word first, then look them all up: the lookups are independent, so
            // the processor overlaps their cache misses.
            for_each_token(text, |token| {
                let (key, check, start, end, word) = match token {
                    Token::Word { text, start, end } => {
                        let (key, check) = fingerprint(text);
                        (key, check, start as u32, end as u32, UNKNOWN)
                    }
                    Token::HardBreak => (0, 0, 0, 0, HARD),
                };
                tokens.push(TextToken {
                    word,
                    root_child: ROOT,
                    root_term: NO_TERM,
                    root_child_continues: false,
                    // A hard break goes on only with the (few) terms that contain one.
                    continues_terms: word == HARD,
                    key,
                    check,
                    start,
                    end,
                });
            });
            for token in tokens.iter_mut().filter(|t| t.word != HARD) {
                if let Some(entry) = self.lookup.get(token.key, token.check) {
                    token.word = entry.word;
                    token.root_child = entry.root_child;
                    token.root_term = entry.root_term;
                    token.root_child_continues = entry.root_child_continues;
                    token.continues_terms = entry.continues_terms;
                }
            }
            let mut matches = Vec::new();
            for (i, first) in tokens.iter().enumerate() {
                if first.root_child == ROOT {
                    continue;
                }
                let (mut node, mut term, mut goes_on) = (
                    first.root_child,
                    first.root_term,
                    first.root_child_continues,
                );
                let mut j = i;
                loop {
                    if term != NO_TERM {
                        matches.push(TermMatch {
                            start: first.start as usize,
                            end: tokens[j].end as usize,
                            term,
                        });
                    }
                    j += 1;
                    // Most walks end here without touching the edge table: the node is a leaf, or
                    // the next word continues no term at all.
                    let next = match tokens.get(j) {
                        Some(next) if goes_on && next.continues_terms => next,
                        _ => break,
                    };
                    match self.edges.get(node, next.word) {
                        Some(edge) => {
                            (node, term, goes_on) = (edge.child, edge.term, edge.child_continues)
                        }
                        None => break,
                    }
                }
            }
            // Walks from one start already yield shortest first: order longest first.
            matches.sort_unstable_by(|a, b| a.start.cmp(&b.start).then(b.end.cmp(&a.end)));
            matches
        })
    }

    /// The leftmost-longest occurrences, without overlaps: where terms overlap ("New York" and "York
    /// City" in "New York City"), the one starting first wins, and of those the longest.
    pub fn find(&self, text: &str) -> Vec<TermMatch> {
        let mut last_end = 0;
        self.find_all(text)
            .into_iter()
            .filter(|m| {
                let keep = m.start >= last_end;
                if keep {
                    last_end = m.end;
                }
                keep
            })
            .collect()
    }

    /// The trie as bytes: magic, the words, the edges `(parent, word, child)`, the terminal term ids.
    pub fn serialize(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(16 + self.edges.len * 12 + self.terminal.len() * 4);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&(self.words.len() as u64).to_le_bytes());
        for word in &self.words {
            out.extend_from_slice(&(word.len() as u32).to_le_bytes());
            out.extend_from_slice(word.as_bytes());
        }
        let mut edges: Vec<(u64, u32)> = self
            .edges
            .iter()
            .map(|e| (edge_key(e.node, e.word), e.child))
            .collect();
        for entry in self.lookup.values().filter(|e| e.root_child != ROOT) {
            edges.push((edge_key(ROOT, entry.word), entry.root_child));
        }
        edges.sort_unstable();
        out.extend_from_slice(&(edges.len() as u64).to_le_bytes());
        for (key, child) in edges {
            out.extend_from_slice(&((key >> 32) as u32).to_le_bytes());
            out.extend_from_slice(&(key as u32).to_le_bytes());
            out.extend_from_slice(&child.to_le_bytes());
        }
        out.extend_from_slice(&(self.terminal.len() as u64).to_le_bytes());
        for &t in &self.terminal {
            out.extend_from_slice(&t.to_le_bytes());
        }
        out
    }

    /// Reads a gazetteer written by [`Gazetteer::serialize`]; [`Error::Automaton`] when the bytes are not one.
    pub fn deserialize(bytes: &[u8]) -> Result<Self> {
        let mut reader = Reader { bytes, at: 0 };
        if reader.take(8)? != MAGIC {
            return Err(Error::Automaton("not a kanon gazetteer (bad magic)".into()));
        }
        let n_words = reader.u64()? as usize;
        let mut words = Vec::with_capacity(n_words.min(bytes.len()));
        for id in 0..n_words {
            let len = reader.u32()? as usize;
            let word = std::str::from_utf8(reader.take(len)?)
                .map_err(|e| Error::Automaton(format!("word {id}: {e}")))?;
            words.push(word.into());
        }
        let n_edges = reader.u64()? as usize;
        let mut triples = Vec::with_capacity(n_edges.min(bytes.len() / 12));
        for _ in 0..n_edges {
            triples.push((reader.u32()?, reader.u32()?, reader.u32()?));
        }
        let n_nodes = reader.u64()? as usize;
        let mut terminal = Vec::with_capacity(n_nodes.min(bytes.len() / 4));
        for _ in 0..n_nodes {
            terminal.push(reader.u32()?);
        }
        if reader.at != bytes.len() {
            return Err(Error::Automaton(format!(
                "{} trailing bytes",
                bytes.len() - reader.at
            )));
        }
        for &(parent, word, child) in &triples {
            let word_ok = word == HARD || (word as usize) < n_words;
            if parent as usize >= n_nodes || child as usize >= n_nodes || !word_ok {
                return Err(Error::Automaton("edge out of range".into()));
            }
        }
        Self::from_parts(words, triples.into_iter(), terminal)
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let end = end.ok_or_else(|| Error::Automaton("truncated".into()))?;
        let slice = &self.bytes[self.at..end];
        self.at = end;
        Ok(slice)
    }

    fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(
            self.take(4)?.try_into().expect("4 bytes"),
        ))
    }

    fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(
            self.take(8)?.try_into().expect("8 bytes"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kanon_core::text::normalize_term;

    fn gazetteer(terms: &[&str]) -> Gazetteer {
        let normalized: Vec<String> = terms.iter().map(|t| normalize_term(t).unwrap()).collect();
        Gazetteer::build(
            normalized
                .iter()
                .enumerate()
                .map(|(i, t)| (t.as_str(), i as u32)),
        )
        .unwrap()
    }

    fn spans(text: &str, matches: &[TermMatch]) -> Vec<String> {
        let chars: Vec<char> = text.chars().collect();
        matches
            .iter()
            .map(|m| chars[m.start..m.end].iter().collect())
            .collect()
    }

    #[test]
    fn finds_terms_with_unicode_offsets_on_word_boundaries() {
        let g = gazetteer(&["Zoë Ølund", "Zürich", "Ann", "5 August 1992"]);
        let text = "Ms ZOE OLUND (born 5 August 1992 in Zurich) met Anna and Ann.";
        assert_eq!(
            spans(text, &g.find(text)),
            vec!["ZOE OLUND", "5 August 1992", "Zurich", "Ann"]
        );
        let text = "Zoë Ølund, née à Zürich";
        assert_eq!(spans(text, &g.find(text)), vec!["Zoë Ølund", "Zürich"]);
        assert_eq!(
            g.find(text)[1],
            TermMatch {
                start: 17,
                end: 23,
                term: 1
            }
        );
        let text = "🙂 Zoë Ølund";
        assert_eq!(
            g.find(text)[0],
            TermMatch {
                start: 2,
                end: 11,
                term: 0
            }
        );
    }

    #[test]
    fn overlapping_terms_prefer_leftmost_longest() {
        let g = gazetteer(&["New York", "York City Council", "New York City", "City"]);
        let text = "the New York City Council met";
        assert_eq!(spans(text, &g.find(text)), vec!["New York City"]);
        let all = spans(text, &g.find_all(text));
        assert_eq!(
            all,
            vec!["New York City", "New York", "York City Council", "City"]
        );
    }

    #[test]
    fn terms_do_not_cross_hard_breaks_unless_they_contain_one() {
        let g = gazetteer(&["Paris Texas", "L. Albano", "Dr. Who: The Movie"]);
        assert!(g.find("He left Paris. Texas came later").is_empty());
        let text = "Paris, Texas and L Albano";
        assert_eq!(spans(text, &g.find(text)), vec!["Paris, Texas", "L Albano"]);
        let text = "I saw DR WHO - THE MOVIE? No: Dr. Who: the movie.";
        assert_eq!(spans(text, &g.find(text)), vec!["Dr. Who: the movie"]);
    }

    #[test]
    fn serializes_and_rejects_corruption() {
        let g = gazetteer(&["Lilian Albano", "Albano", "Paris. Texas"]);
        let bytes = g.serialize();
        let g2 = Gazetteer::deserialize(&bytes).unwrap();
        for text in ["Dr Lilian Albano", "Paris. Texas", "Albano"] {
            assert_eq!(g2.find_all(text), g.find_all(text));
        }
        let empty = Gazetteer::build(std::iter::empty()).unwrap();
        assert!(empty.find("anything at all").is_empty());
        assert!(Gazetteer::deserialize(&empty.serialize()).is_ok());
        let message = |bytes: &[u8]| match Gazetteer::deserialize(bytes) {
            Ok(_) => panic!("{} bytes read as a gazetteer", bytes.len()),
            Err(err) => err.to_string(),
        };
        assert!(message(b"garbage").contains("truncated"));
        assert!(message(b"garbage!").contains("bad magic"));
        assert!(message(&bytes[..bytes.len() - 1]).contains("truncated"));
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(message(&longer).contains("1 trailing bytes"));
    }

    #[test]
    fn duplicate_terms_are_refused() {
        let err = Gazetteer::build([("a b", 0), ("a b", 1)])
            .expect_err("a duplicate term is refused")
            .to_string();
        assert!(err.contains("duplicate term \"a b\""), "{err}");
    }
}
