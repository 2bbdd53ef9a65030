//! `idf`: the rarest words first, up to a share of the document's words — the baseline of Morris
//! et al. (2022). A word's rarity is its inverse document frequency over the documents being
//! detected and, when given, the background texts.

use kanon_core::{Document, Span};
use rustc_hash::FxHashMap;

use crate::words::Words;
use crate::{Detector, Result};

/// Masks the rarest forms of each document until `budget` of its words are masked.
#[derive(Debug, Clone)]
pub struct IdfDetector {
    document_frequency: FxHashMap<String, u32>,
    documents: u32,
    budget: f64,
}

impl IdfDetector {
    /// Counts document frequencies over `corpus`; `budget` is the share of a document's words
    /// to mask, in `[0, 1]`.
    pub fn new<'a>(corpus: impl IntoIterator<Item = &'a str>, budget: f64) -> Self {
        let mut document_frequency: FxHashMap<String, u32> = FxHashMap::default();
        let mut documents = 0;
        for text in corpus {
            documents += 1;
            let mut forms = Words::of(text).forms;
            forms.sort_unstable();
            forms.dedup();
            for form in forms {
                *document_frequency.entry(form).or_default() += 1;
            }
        }
        IdfDetector {
            document_frequency,
            documents,
            budget,
        }
    }

    /// Smoothed inverse document frequency: a form never seen is the rarest.
    pub fn idf(&self, form: &str) -> f64 {
        let df = self.document_frequency.get(form).copied().unwrap_or(0);
        ((1.0 + f64::from(self.documents)) / (1.0 + f64::from(df))).ln() + 1.0
    }
}

impl Detector for IdfDetector {
    fn detect(&self, doc: &Document) -> Result<Vec<Span>> {
        let words = Words::of(&doc.text);
        let mut groups = words.groups();
        // Rarest first; among equals, the one that appears first.
        groups.sort_by(|a, b| {
            self.idf(&words.forms[b[0]])
                .total_cmp(&self.idf(&words.forms[a[0]]))
                .then(a[0].cmp(&b[0]))
        });
        let allowed = (self.budget * words.len() as f64).round() as usize;
        let mut masked = vec![false; words.len()];
        let mut count = 0;
        for group in groups {
            if count + group.len() > allowed {
                continue;
            }
            count += group.len();
            for w in group {
                masked[w] = true;
            }
        }
        Ok(words.spans_of(&masked, &doc.text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rarest_words_go_first_within_the_budget() {
        let corpus = [
            "Vigdis sang in Oslo",
            "the singer sang in the city",
            "the city sang",
        ];
        let doc = Document {
            id: "d".into(),
            person: None,
            text: "Vigdis sang in the city".into(),
            split: None,
        };
        let detector = IdfDetector::new(corpus, 0.2);
        assert_eq!(detector.detect(&doc).unwrap(), [Span::new(0, 6)]);
        let none = IdfDetector::new(corpus, 0.0);
        assert!(none.detect(&doc).unwrap().is_empty());
        let all = IdfDetector::new(corpus, 1.0);
        assert_eq!(all.detect(&doc).unwrap(), [Span::new(0, 23)]);
    }
}
