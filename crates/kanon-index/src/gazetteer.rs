//! The gazetteer: finds every indexed term in a text, on word boundaries, with the index's own
//! normalisation, using a double-array Aho-Corasick automaton over `" term "` patterns.

use std::cell::RefCell;

use daachorse::DoubleArrayAhoCorasick;
use kanon_core::text::{NormalizedText, term_pattern};

use crate::error::{Error, Result};

/// A term found in a text: character offsets `[start, end)` and the term id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TermMatch {
    pub start: usize,
    pub end: usize,
    pub term: u32,
}

pub struct Gazetteer {
    automaton: DoubleArrayAhoCorasick<u32>,
}

impl std::fmt::Debug for Gazetteer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gazetteer")
            .field("states", &self.automaton.num_states())
            .field("heap_bytes", &self.automaton.heap_bytes())
            .finish()
    }
}

thread_local! {
    static BUFFER: RefCell<NormalizedText> = RefCell::new(NormalizedText::default());
}

impl Gazetteer {
    /// Builds the automaton from `(normalised term, term id)` pairs; terms must be distinct.
    pub fn build<'a>(terms: impl IntoIterator<Item = (&'a str, u32)>) -> Result<Self> {
        let patterns: Vec<(Vec<u8>, u32)> = terms
            .into_iter()
            .map(|(term, id)| (term_pattern(term), id))
            .collect();
        if patterns.is_empty() {
            // daachorse refuses an empty pattern set; a pattern that no normalised text contains.
            let automaton = DoubleArrayAhoCorasick::with_values([(vec![0u8, 0u8], u32::MAX)])
                .map_err(|e| Error::Automaton(e.to_string()))?;
            return Ok(Gazetteer { automaton });
        }
        let automaton = DoubleArrayAhoCorasick::with_values(patterns)
            .map_err(|e| Error::Automaton(e.to_string()))?;
        Ok(Gazetteer { automaton })
    }

    pub fn serialize(&self) -> Vec<u8> {
        self.automaton.serialize()
    }

    pub fn deserialize(bytes: &[u8]) -> Result<Self> {
        let (automaton, rest) = DoubleArrayAhoCorasick::deserialize(bytes)
            .map_err(|e| Error::Automaton(e.to_string()))?;
        if !rest.is_empty() {
            return Err(Error::Automaton(format!("{} trailing bytes", rest.len())));
        }
        Ok(Gazetteer { automaton })
    }

    pub fn heap_bytes(&self) -> usize {
        self.automaton.heap_bytes()
    }

    /// Every occurrence of every term, overlapping ones included, in text order.
    pub fn find_all(&self, text: &str) -> Vec<TermMatch> {
        BUFFER.with(|buffer| {
            let mut normalized = buffer.borrow_mut();
            normalized.reset(text);
            let mut matches: Vec<TermMatch> = self
                .automaton
                .find_overlapping_iter(normalized.as_bytes())
                .filter_map(|m| {
                    let (start, end) = normalized.char_span(m.start(), m.end())?;
                    Some(TermMatch {
                        start,
                        end,
                        term: m.value(),
                    })
                })
                .collect();
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use kanon_core::text::normalize_term;

    fn gazetteer(terms: &[&str]) -> (Gazetteer, Vec<String>) {
        let normalized: Vec<String> = terms.iter().map(|t| normalize_term(t).unwrap()).collect();
        let g = Gazetteer::build(normalized.iter().enumerate().map(|(i, t)| (t.as_str(), i as u32))).unwrap();
        (g, normalized)
    }

    fn spans(text: &str, matches: &[TermMatch]) -> Vec<String> {
        let chars: Vec<char> = text.chars().collect();
        matches.iter().map(|m| chars[m.start..m.end].iter().collect()).collect()
    }

    #[test]
    fn finds_terms_with_unicode_offsets_on_word_boundaries() {
        let (g, _) = gazetteer(&["Zoë Ølund", "Zürich", "Ann", "5 August 1992"]);
        let text = "Ms ZOE OLUND (born 5 August 1992 in Zurich) met Anna and Ann.";
        let found = g.find(text);
        assert_eq!(spans(text, &found), vec!["ZOE OLUND", "5 August 1992", "Zurich", "Ann"]);
        let text = "Zoë Ølund, née à Zürich";
        assert_eq!(spans(text, &g.find(text)), vec!["Zoë Ølund", "Zürich"]);
        assert_eq!(g.find(text)[1], TermMatch { start: 17, end: 23, term: 1 });
    }

    #[test]
    fn overlapping_terms_prefer_leftmost_longest() {
        let (g, _) = gazetteer(&["New York", "York City Council", "New York City", "City"]);
        let text = "the New York City Council met";
        assert_eq!(spans(text, &g.find(text)), vec!["New York City"]);
        let all = spans(text, &g.find_all(text));
        assert_eq!(all, vec!["New York City", "New York", "York City Council", "City"]);
    }

    #[test]
    fn terms_do_not_cross_hard_breaks() {
        let (g, _) = gazetteer(&["Paris Texas", "L. Albano"]);
        assert!(g.find("He left Paris. Texas came later").is_empty());
        let text = "Paris, Texas and L Albano";
        assert_eq!(spans(text, &g.find(text)), vec!["Paris, Texas", "L Albano"]);
    }

    #[test]
    fn serializes_and_handles_empty_sets() {
        let (g, _) = gazetteer(&["Lilian Albano"]);
        let g2 = Gazetteer::deserialize(&g.serialize()).unwrap();
        assert_eq!(g2.find("Dr Lilian Albano"), g.find("Dr Lilian Albano"));
        let empty = Gazetteer::build(std::iter::empty()).unwrap();
        assert!(empty.find("anything at all").is_empty());
        assert!(Gazetteer::deserialize(b"garbage").is_err());
    }
}
