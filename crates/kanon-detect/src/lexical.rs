//! `ner-lexical`: mask the words of a document that the public text about its person also holds
//! (function words aside) — what an attacker holding that text could match on.

use kanon_core::background::Background;
use kanon_core::{Document, Span};
use rustc_hash::FxHashSet;

use crate::reid::person_of;
use crate::words::Words;
use crate::{Detector, Result};

/// Masks the words shared with the person's background text.
#[derive(Debug, Clone)]
pub struct LexicalOverlap {
    background: Background,
}

impl LexicalOverlap {
    /// A detector over the background's texts.
    pub fn new(background: Background) -> Self {
        LexicalOverlap { background }
    }
}

impl Detector for LexicalOverlap {
    fn detect(&self, doc: &Document) -> Result<Vec<Span>> {
        let person = person_of(&self.background, doc)?;
        let known: FxHashSet<String> = self
            .background
            .text(person)
            .map(|text| Words::of(text).forms.into_iter().collect())
            .unwrap_or_default();
        let words = Words::of(&doc.text);
        let masked: Vec<bool> = (0..words.len())
            .map(|w| !words.is_stopword(w) && known.contains(&words.forms[w]))
            .collect();
        Ok(words.spans_of(&masked, &doc.text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_of_the_background_text_are_masked_and_people_must_be_known() {
        let background = Background::new(vec![(
            "vigdis".into(),
            Some("Vigdis was a singer from Bergen.".into()),
        )]);
        let detector = LexicalOverlap::new(background);
        let mut doc = Document {
            id: "d".into(),
            person: Some("vigdis".into()),
            text: "The singer Vigdis lived in Oslo, not Bergen.".into(),
            split: None,
        };
        assert_eq!(
            detector.detect(&doc).unwrap(),
            [Span::new(4, 17), Span::new(37, 43)]
        );
        doc.person = Some("someone".into());
        let err = detector.detect(&doc).unwrap_err().to_string();
        assert!(
            err.contains("\"d\"") && err.contains("not in the background"),
            "{err}"
        );
        doc.person = None;
        let err = detector.detect(&doc).unwrap_err().to_string();
        assert!(err.contains("no `person`"), "{err}");
    }
}
