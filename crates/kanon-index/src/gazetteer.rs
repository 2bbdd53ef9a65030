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
    pub start: usize,
    pub end: usize,
    pub term: u32,
}

const ROOT: u32 = 0;
const NO_TERM: u32 = u32::MAX;
/// Word id of a hard break between words.
const HARD: u32 = u32::MAX - 1;
/// Word id of a text word that no term contains.
const UNKNOWN: u32 = u32::MAX;

const MAGIC: &[u8; 8] = b"KNGAZv1\0";

#[derive(Default)]
pub struct Gazetteer {
    words: FxHashMap<Box<str>, u32>,
    /// `(node << 32) | word` → child node.
    edges: FxHashMap<u64, u32>,
    /// Term id ending at each node, or `NO_TERM`.
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

#[derive(Debug, Clone, Copy)]
struct TextToken {
    word: u32,
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
        let mut g = Gazetteer {
            terminal: vec![NO_TERM],
            ..Gazetteer::default()
        };
        for (term, id) in terms {
            let mut node = ROOT;
            for word in term.split(' ') {
                let word_id = if word == HARD_BREAK_TOKEN {
                    HARD
                } else {
                    let next = g.words.len() as u32;
                    *g.words.entry(word.into()).or_insert(next)
                };
                let next_node = g.terminal.len() as u32;
                node = *g.edges.entry(edge_key(node, word_id)).or_insert_with(|| next_node);
                if node == next_node {
                    g.terminal.push(NO_TERM);
                }
            }
            if node == ROOT {
                return Err(Error::Automaton(format!("empty term for id {id}")));
            }
            if g.terminal[node as usize] != NO_TERM {
                return Err(Error::Automaton(format!("duplicate term {term:?}")));
            }
            g.terminal[node as usize] = id;
        }
        Ok(g)
    }

    /// Every occurrence of every term, overlapping ones included, sorted by start then longest first.
    pub fn find_all(&self, text: &str) -> Vec<TermMatch> {
        TOKENS.with(|tokens| {
            let mut tokens = tokens.borrow_mut();
            tokens.clear();
            for_each_token(text, |token| {
                tokens.push(match token {
                    Token::Word { text, start, end } => TextToken {
                        word: self.words.get(text).copied().unwrap_or(UNKNOWN),
                        start: start as u32,
                        end: end as u32,
                    },
                    Token::HardBreak => TextToken { word: HARD, start: 0, end: 0 },
                });
            });
            let mut matches = Vec::new();
            for i in 0..tokens.len() {
                if tokens[i].word >= HARD {
                    continue;
                }
                let mut node = ROOT;
                for token in &tokens[i..] {
                    let Some(&child) = self.edges.get(&edge_key(node, token.word)) else {
                        break;
                    };
                    node = child;
                    let term = self.terminal[node as usize];
                    if term != NO_TERM {
                        matches.push(TermMatch {
                            start: tokens[i].start as usize,
                            end: token.end as usize,
                            term,
                        });
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
        let mut out = Vec::with_capacity(16 + self.edges.len() * 12 + self.terminal.len() * 4);
        out.extend_from_slice(MAGIC);
        let mut words: Vec<(&str, u32)> = self.words.iter().map(|(w, &id)| (&**w, id)).collect();
        words.sort_unstable_by_key(|&(_, id)| id);
        out.extend_from_slice(&(words.len() as u64).to_le_bytes());
        for (word, _) in &words {
            out.extend_from_slice(&(word.len() as u32).to_le_bytes());
            out.extend_from_slice(word.as_bytes());
        }
        out.extend_from_slice(&(self.edges.len() as u64).to_le_bytes());
        let mut edges: Vec<(u64, u32)> = self.edges.iter().map(|(&k, &v)| (k, v)).collect();
        edges.sort_unstable();
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

    pub fn deserialize(bytes: &[u8]) -> Result<Self> {
        let mut reader = Reader { bytes, at: 0 };
        if reader.take(8)? != MAGIC {
            return Err(Error::Automaton("not a kanon gazetteer (bad magic)".into()));
        }
        let n_words = reader.u64()? as usize;
        let mut words = FxHashMap::default();
        words.reserve(n_words.min(bytes.len()));
        for id in 0..n_words {
            let len = reader.u32()? as usize;
            let word = std::str::from_utf8(reader.take(len)?)
                .map_err(|e| Error::Automaton(format!("word {id}: {e}")))?;
            words.insert(word.into(), id as u32);
        }
        let n_edges = reader.u64()? as usize;
        let mut edges = FxHashMap::default();
        edges.reserve(n_edges.min(bytes.len() / 12));
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
            return Err(Error::Automaton(format!("{} trailing bytes", bytes.len() - reader.at)));
        }
        for (parent, word, child) in triples {
            let word_ok = word == HARD || (word as usize) < n_words;
            if parent as usize >= n_nodes || child as usize >= n_nodes || !word_ok {
                return Err(Error::Automaton("edge out of range".into()));
            }
            edges.insert(edge_key(parent, word), child);
        }
        Ok(Gazetteer { words, edges, terminal })
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
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4 bytes")))
    }

    fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("8 bytes")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kanon_core::text::normalize_term;

    fn gazetteer(terms: &[&str]) -> Gazetteer {
        let normalized: Vec<String> = terms.iter().map(|t| normalize_term(t).unwrap()).collect();
        Gazetteer::build(normalized.iter().enumerate().map(|(i, t)| (t.as_str(), i as u32))).unwrap()
    }

    fn spans(text: &str, matches: &[TermMatch]) -> Vec<String> {
        let chars: Vec<char> = text.chars().collect();
        matches.iter().map(|m| chars[m.start..m.end].iter().collect()).collect()
    }

    #[test]
    fn finds_terms_with_unicode_offsets_on_word_boundaries() {
        let g = gazetteer(&["Zoë Ølund", "Zürich", "Ann", "5 August 1992"]);
        let text = "Ms ZOE OLUND (born 5 August 1992 in Zurich) met Anna and Ann.";
        assert_eq!(spans(text, &g.find(text)), vec!["ZOE OLUND", "5 August 1992", "Zurich", "Ann"]);
        let text = "Zoë Ølund, née à Zürich";
        assert_eq!(spans(text, &g.find(text)), vec!["Zoë Ølund", "Zürich"]);
        assert_eq!(g.find(text)[1], TermMatch { start: 17, end: 23, term: 1 });
        let text = "🙂 Zoë Ølund";
        assert_eq!(g.find(text)[0], TermMatch { start: 2, end: 11, term: 0 });
    }

    #[test]
    fn overlapping_terms_prefer_leftmost_longest() {
        let g = gazetteer(&["New York", "York City Council", "New York City", "City"]);
        let text = "the New York City Council met";
        assert_eq!(spans(text, &g.find(text)), vec!["New York City"]);
        let all = spans(text, &g.find_all(text));
        assert_eq!(all, vec!["New York City", "New York", "York City Council", "City"]);
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
        assert!(Gazetteer::deserialize(b"garbage").is_err());
        assert!(Gazetteer::deserialize(&bytes[..bytes.len() - 1]).is_err());
    }

    #[test]
    fn duplicate_terms_are_refused() {
        assert!(Gazetteer::build([("a b", 0), ("a b", 1)]).is_err());
    }
}
