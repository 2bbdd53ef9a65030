//! The re-identification attackers as the gate uses them: a score for every person of the
//! background (not only a ranking), so that the gate can tell how far ahead the person is and
//! which words it leans on.
//!
//! - [`Bm25Attacker`]: BM25 over the background texts, with tantivy's scorer and tokenizer as
//!   `kanon eval privacy`'s lexical attacker (the same index schema, a text as a query of its
//!   distinct words); a text's score for a person is the sum of its words' BM25 weights, so a
//!   word's weight for a person is what masking it takes off.
//! - [`NeuralScorer`]: the evaluation's fine-tuned classifier (`kanon_detect::reid::ReidModel`,
//!   which `kanon eval privacy`'s neural attacker wraps), its summed window log-probabilities.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Arc, Mutex};

use kanon_core::background::Background;
use kanon_detect::reid::ReidModel;
use tantivy::collector::TopDocs;
use tantivy::query::TermQuery;
use tantivy::schema::{FAST, Field, IndexRecordOption, Schema, TEXT, Value};
use tantivy::{Index, IndexReader, TantivyDocument, Term, doc};

use crate::error::{Error, Result};

/// An attacker that scores every person of the background for a text.
pub trait ReidAttacker: Sync {
    /// Its name in certificates and reports (`bm25`, `bert`).
    fn name(&self) -> &str;

    /// For each text, a score per background person (higher: more likely the text's person);
    /// `-inf` for someone it cannot name (no background text, no word in common).
    fn scores(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>>;

    /// How far the first candidate of a score row stands out: in [0, 1].
    fn lead(&self, scores: &[f32]) -> f64;
}

/// A word of a text as BM25 reads it: its token and its character range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    /// Lower-cased, as indexed.
    pub form: String,
    /// Characters of the text.
    pub chars: Range<usize>,
}

fn search_error(error: tantivy::TantivyError) -> Error {
    Error::Search(Box::new(error))
}

/// Each word's BM25 weight per person who has it (sorted by person), once computed.
type WeightCache = HashMap<String, Arc<Vec<(usize, f32)>>>;

/// BM25 over the background texts.
pub struct Bm25Attacker {
    index: Index,
    reader: IndexReader,
    text: Field,
    person: Field,
    people: usize,
    /// Each word's BM25 weight per person who has it, once computed.
    weights: Mutex<WeightCache>,
}

impl std::fmt::Debug for Bm25Attacker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bm25Attacker")
            .field("people", &self.people)
            .finish_non_exhaustive()
    }
}

impl Bm25Attacker {
    /// Indexes every person with a text, in memory.
    pub fn new(background: &Background) -> Result<Self> {
        let mut schema = Schema::builder();
        let text = schema.add_text_field("text", TEXT);
        let person = schema.add_u64_field("person", FAST | tantivy::schema::STORED);
        let index = Index::create_in_ram(schema.build());
        let mut writer: tantivy::IndexWriter = index.writer(50_000_000).map_err(search_error)?;
        for p in 0..background.len() {
            if let Some(body) = background.text(p) {
                writer
                    .add_document(doc!(text => body, person => p as u64))
                    .map_err(search_error)?;
            }
        }
        writer.commit().map_err(search_error)?;
        let reader = index.reader().map_err(search_error)?;
        Ok(Bm25Attacker {
            index,
            reader,
            text,
            person,
            people: background.len(),
            weights: Mutex::new(HashMap::new()),
        })
    }

    /// The words of `text` as the index's tokenizer reads them, in order.
    pub fn tokens(&self, text: &str) -> Result<Vec<Token>> {
        let mut analyzer = self
            .index
            .tokenizer_for_field(self.text)
            .map_err(search_error)?;
        // Byte offsets → character offsets.
        let mut char_at = vec![0usize; text.len() + 1];
        let mut chars = 0;
        for (byte, c) in text.char_indices() {
            for slot in &mut char_at[byte..byte + c.len_utf8()] {
                *slot = chars;
            }
            chars += 1;
        }
        char_at[text.len()] = chars;
        let mut tokens = Vec::new();
        let mut stream = analyzer.token_stream(text);
        while stream.advance() {
            let token = stream.token();
            tokens.push(Token {
                form: token.text.clone(),
                chars: char_at[token.offset_from]..char_at[token.offset_to],
            });
        }
        Ok(tokens)
    }

    /// A word's BM25 weight for each person whose background text has it.
    pub fn weights(&self, form: &str) -> Result<Arc<Vec<(usize, f32)>>> {
        if let Some(found) = self.lock().get(form) {
            return Ok(Arc::clone(found));
        }
        let searcher = self.reader.searcher();
        let query = TermQuery::new(
            Term::from_field_text(self.text, form),
            IndexRecordOption::WithFreqs,
        );
        let hits = searcher
            .search(
                &query,
                &TopDocs::with_limit(self.people.max(1)).order_by_score(),
            )
            .map_err(search_error)?;
        let mut weights = Vec::with_capacity(hits.len());
        for (score, address) in hits {
            let stored: TantivyDocument = searcher.doc(address).map_err(search_error)?;
            let person = stored
                .get_first(self.person)
                .and_then(|value| value.as_u64())
                .ok_or_else(|| Error::Search("a background text without its person".into()))?;
            weights.push((person as usize, score));
        }
        weights.sort_by_key(|&(person, _)| person);
        let weights = Arc::new(weights);
        self.lock().insert(form.to_owned(), Arc::clone(&weights));
        Ok(weights)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, WeightCache> {
        self.weights
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A word's weight for one person (0 when their text lacks it).
    pub fn weight(&self, form: &str, person: usize) -> Result<f32> {
        let weights = self.weights(form)?;
        Ok(weights
            .binary_search_by_key(&person, |&(p, _)| p)
            .map_or(0.0, |at| weights[at].1))
    }

    fn score(&self, text: &str) -> Result<Vec<f32>> {
        let mut forms: Vec<String> = self.tokens(text)?.into_iter().map(|t| t.form).collect();
        forms.sort();
        forms.dedup();
        let mut scores = vec![0f32; self.people];
        let mut matched = vec![false; self.people];
        for form in &forms {
            for &(person, weight) in self.weights(form)?.iter() {
                scores[person] += weight;
                matched[person] = true;
            }
        }
        for (score, matched) in scores.iter_mut().zip(matched) {
            if !matched {
                *score = f32::NEG_INFINITY;
            }
        }
        Ok(scores)
    }
}

impl ReidAttacker for Bm25Attacker {
    fn name(&self) -> &str {
        "bm25"
    }

    fn scores(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        texts.iter().map(|text| self.score(text)).collect()
    }

    /// The first score's lead over the second, as a share of the first.
    fn lead(&self, scores: &[f32]) -> f64 {
        let (first, second) = top_two(scores);
        match (first, second) {
            (Some(a), Some(b)) if a > 0.0 => f64::from((a - b) / a),
            (Some(a), None) if a > 0.0 => 1.0,
            _ => 0.0,
        }
    }
}

/// The two highest finite scores.
fn top_two(scores: &[f32]) -> (Option<f32>, Option<f32>) {
    let mut first: Option<f32> = None;
    let mut second: Option<f32> = None;
    for &s in scores.iter().filter(|s| s.is_finite()) {
        if first.is_none_or(|f| s > f) {
            second = first;
            first = Some(s);
        } else if second.is_none_or(|t| s > t) {
            second = Some(s);
        }
    }
    (first, second)
}

/// The evaluation's neural attacker, as scores.
#[derive(Debug)]
pub struct NeuralScorer {
    model: ReidModel,
    people: usize,
}

impl NeuralScorer {
    /// Wraps a re-identification model over `background`.
    pub fn new(model: ReidModel, background: &Background) -> Self {
        NeuralScorer {
            model,
            people: background.len(),
        }
    }
}

impl ReidAttacker for NeuralScorer {
    fn name(&self) -> &str {
        "bert"
    }

    fn scores(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let rows = self
            .model
            .classifier()
            .scores(texts)
            .map_err(Error::Classifier)?;
        Ok(rows
            .into_iter()
            .map(|row| {
                let mut scores = vec![f32::NEG_INFINITY; self.people];
                for (class, score) in row.into_iter().enumerate() {
                    scores[self.model.person_of(class)] = score;
                }
                scores
            })
            .collect())
    }

    /// The first candidate's probability minus the second's (a softmax over the people).
    fn lead(&self, scores: &[f32]) -> f64 {
        let (Some(first), second) = top_two(scores) else {
            return 0.0;
        };
        let total: f64 = scores
            .iter()
            .filter(|s| s.is_finite())
            .map(|&s| f64::from(s - first).exp())
            .sum();
        let p = |s: f32| f64::from(s - first).exp() / total;
        p(first) - second.map_or(0.0, p)
    }
}

/// The rank of `person` in a score row (1: first), counting ties against the person (the
/// careful reading); none when the attacker cannot name them at all.
pub fn rank(scores: &[f32], person: usize) -> Option<usize> {
    let own = *scores.get(person)?;
    own.is_finite().then(|| {
        1 + scores
            .iter()
            .enumerate()
            .filter(|&(p, &s)| p != person && s >= own)
            .count()
    })
}

/// The best-scored person, ties to the lowest index; none when no one has a finite score.
pub fn first(scores: &[f32]) -> Option<usize> {
    let mut best: Option<usize> = None;
    for (p, &s) in scores.iter().enumerate() {
        if s.is_finite() && best.is_none_or(|b| s > scores[b]) {
            best = Some(p);
        }
    }
    best
}

/// The best-scored person other than `person`.
pub fn rival(scores: &[f32], person: usize) -> Option<usize> {
    let mut best: Option<usize> = None;
    for (p, &s) in scores.iter().enumerate() {
        if p != person && s.is_finite() && best.is_none_or(|b| s > scores[b]) {
            best = Some(p);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn background() -> Background {
        Background::new(vec![
            (
                "lilian".into(),
                Some("Lilian Albano is an Austrian chemist born in Vienna.".into()),
            ),
            (
                "tomas".into(),
                Some("Tomas Varga is a Hungarian footballer from Debrecen.".into()),
            ),
            ("nobody".into(), None),
        ])
    }

    #[test]
    fn a_text_scores_the_sum_of_its_words_weights() {
        let attacker = Bm25Attacker::new(&background()).unwrap();
        let scores = attacker
            .scores(&["The chemist was born in Vienna."])
            .unwrap();
        assert_eq!(first(&scores[0]), Some(0));
        assert_eq!(rank(&scores[0], 0), Some(1));
        assert_eq!(rank(&scores[0], 2), None);
        let sum: f32 = ["the", "chemist", "was", "born", "in", "vienna"]
            .iter()
            .map(|w| attacker.weight(w, 0).unwrap())
            .sum();
        assert!(
            (sum - scores[0][0]).abs() < 1e-4,
            "{sum} vs {}",
            scores[0][0]
        );
        assert!(attacker.lead(&scores[0]) > 0.5);
        let tokens = attacker.tokens("Tromsø, Vienna").unwrap();
        assert_eq!(tokens[0].form, "tromsø");
        assert_eq!(tokens[1].chars, 8..14);
        let none = attacker.scores(&["*** ***"]).unwrap();
        assert_eq!(first(&none[0]), None);
    }
}
