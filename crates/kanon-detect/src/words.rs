//! A document as words: kanon's word ranges (runs of letters and digits, as the evaluation counts
//! words), each with its folded form. Every detector of this crate masks whole words, and masks a
//! form everywhere in the document once it masks it anywhere.

use kanon_core::Span;
use kanon_core::text::{is_stopword, normalize_term, word_ranges};
use rustc_hash::FxHashMap;

/// The words of one document.
#[derive(Debug, Clone)]
pub struct Words {
    /// Each word's character span, in text order.
    pub spans: Vec<Span>,
    /// Folded (case and diacritics), as terms and whitelists compare.
    pub forms: Vec<String>,
}

impl Words {
    /// The words of `text`.
    pub fn of(text: &str) -> Self {
        let chars: Vec<char> = text.chars().collect();
        let (spans, forms) = word_ranges(&chars)
            .into_iter()
            .map(|r| {
                let word: String = chars[r.clone()].iter().collect();
                let form = normalize_term(&word).unwrap_or(word);
                (Span::new(r.start, r.end), form)
            })
            .unzip();
        Words { spans, forms }
    }

    /// How many words.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// Whether a word is a function word (never masked by the search-based detectors).
    pub fn is_stopword(&self, word: usize) -> bool {
        is_stopword(&self.forms[word])
    }

    /// The words of each distinct form, forms in order of first appearance.
    pub fn groups(&self) -> Vec<Vec<usize>> {
        let mut index: FxHashMap<&str, usize> = FxHashMap::default();
        let mut groups: Vec<Vec<usize>> = Vec::new();
        for (word, form) in self.forms.iter().enumerate() {
            let g = *index.entry(form.as_str()).or_insert_with(|| {
                groups.push(Vec::new());
                groups.len() - 1
            });
            groups[g].push(word);
        }
        groups
    }

    /// `masked` with every word whose form some masked word has masked too.
    pub fn propagate(&self, masked: &mut [bool]) {
        let forms: rustc_hash::FxHashSet<&str> = masked
            .iter()
            .zip(&self.forms)
            .filter(|(m, _)| **m)
            .map(|(_, f)| f.as_str())
            .collect();
        for (m, form) in masked.iter_mut().zip(&self.forms) {
            *m |= forms.contains(form.as_str());
        }
    }

    /// The masked words as spans, neighbours separated by nothing but spaces joined into one.
    pub fn spans_of(&self, masked: &[bool], text: &str) -> Vec<Span> {
        let chars: Vec<char> = text.chars().collect();
        let mut spans: Vec<Span> = Vec::new();
        let mut last_masked = None;
        for (word, span) in self.spans.iter().enumerate() {
            if !masked[word] {
                continue;
            }
            match spans.last_mut() {
                Some(prev)
                    if last_masked == Some(word.wrapping_sub(1))
                        && chars[prev.end..span.start].iter().all(|c| *c == ' ') =>
                {
                    prev.end = span.end;
                }
                _ => spans.push(*span),
            }
            last_masked = Some(word);
        }
        spans
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms_fold_and_masks_spread_to_every_occurrence() {
        let text = "Åsa Berg met ASA in Oslo, then Asa left.";
        let words = Words::of(text);
        assert_eq!(words.forms[0], "asa");
        let mut masked = vec![false; words.len()];
        masked[0] = true;
        masked[1] = true;
        words.propagate(&mut masked);
        let spans = words.spans_of(&masked, text);
        let texts: Vec<String> = spans
            .iter()
            .map(|s| text.chars().skip(s.start).take(s.end - s.start).collect())
            .collect();
        assert_eq!(texts, ["Åsa Berg", "ASA", "Asa"]);
        assert!(words.is_stopword(4));
        assert_eq!(words.groups().len(), words.len() - 2);
    }
}
