//! The `reid-greedy` detector: [`greedy::search`](crate::greedy::search) over a document's words,
//! guided by a [`ReidModel`].

use std::ops::Range;

use kanon_core::background::Background;
use kanon_core::{Document, Span};
use kanon_tagger::classifier::TextClassifier;
use kanon_tagger::data::windows;

use crate::greedy::{GreedySettings, MaskScorer, Trajectory, search};
use crate::reid::{ReidModel, person_of};
use crate::words::Words;
use crate::{Detector, Error, Result};

/// Masks words until the re-identification model no longer names the document's person.
#[derive(Debug)]
pub struct ReidGreedy {
    model: ReidModel,
    background: Background,
    settings: GreedySettings,
}

impl ReidGreedy {
    /// The search with `model` over the people of `background`.
    pub fn new(model: ReidModel, background: Background, settings: GreedySettings) -> Self {
        ReidGreedy {
            model,
            background,
            settings,
        }
    }

    /// The search's path over one document (its words are [`Words::of`] its text).
    pub fn trajectory(&self, doc: &Document) -> Result<(Words, Trajectory)> {
        let person = person_of(&self.background, doc)?;
        let truth = self.model.class_of(person).ok_or_else(|| Error::Document {
            id: doc.id.clone(),
            problem: format!(
                "the background has no text about its person {:?}, so the model cannot name them",
                self.background.name(person)
            ),
        })?;
        let words = Words::of(&doc.text);
        let groups: Vec<Vec<usize>> = words
            .groups()
            .into_iter()
            .filter(|g| !words.is_stopword(g[0]))
            .collect();
        let mut scorer = PieceMasker::new(self.model.classifier(), &doc.text, &words)?;
        let path = search(&mut scorer, &groups, truth, &self.settings)?;
        Ok((words, path))
    }
}

impl Detector for ReidGreedy {
    fn detect(&self, doc: &Document) -> Result<Vec<Span>> {
        let (words, path) = self.trajectory(doc)?;
        Ok(words.spans_of(&path.masked(words.len()), &doc.text))
    }
}

/// A document read by the classifier with some words' pieces replaced by `[MASK]` (the masking
/// the model was trained on). Pieces keep their positions, so windows stay fixed and a trial
/// rescored only in the windows its words touch; the others keep the score of the masked base.
struct PieceMasker<'a> {
    classifier: &'a TextClassifier,
    ids: Vec<u32>,
    mask: u32,
    /// The pieces of each word.
    pieces_of_word: Vec<Range<usize>>,
    windows: Vec<Range<usize>>,
}

impl<'a> PieceMasker<'a> {
    fn new(classifier: &'a TextClassifier, text: &str, words: &Words) -> Result<Self> {
        let tokenizer = classifier.tokenizer();
        let tokenized = tokenizer.tokenize(text).map_err(Error::Model)?;
        let mask = tokenizer.token_id("[MASK]").ok_or_else(|| {
            Error::Setting("the re-identification model's vocabulary has no [MASK]".into())
        })?;
        let offsets = &tokenized.offsets;
        let pieces_of_word = words
            .spans
            .iter()
            .map(|w| {
                let first = offsets.partition_point(|p| p.end <= w.start);
                let last = offsets.partition_point(|p| p.start < w.end);
                first..last.max(first)
            })
            .collect();
        let windows = windows(tokenized.ids.len(), classifier.window_pieces(), 0);
        Ok(PieceMasker {
            classifier,
            ids: tokenized.ids,
            mask,
            pieces_of_word,
            windows,
        })
    }

    fn masked_ids(&self, masked: &[bool]) -> Vec<u32> {
        let mut ids = self.ids.clone();
        for (w, pieces) in self.pieces_of_word.iter().enumerate() {
            if masked[w] {
                ids[pieces.clone()].fill(self.mask);
            }
        }
        ids
    }
}

impl MaskScorer for PieceMasker<'_> {
    fn words(&self) -> usize {
        self.pieces_of_word.len()
    }

    fn score(&mut self, masked: &[bool], trials: &[&[usize]]) -> Result<Vec<Vec<f32>>> {
        let base = self.masked_ids(masked);
        // Every window of the base, then the windows each trial changes.
        let mut inputs: Vec<Vec<u32>> = self
            .windows
            .iter()
            .map(|r| base[r.clone()].to_vec())
            .collect();
        let mut changed: Vec<Vec<(usize, usize)>> = Vec::with_capacity(trials.len());
        for trial in trials {
            let mut ids = base.clone();
            for &w in *trial {
                ids[self.pieces_of_word[w].clone()].fill(self.mask);
            }
            let mut replaced = Vec::new();
            for (k, range) in self.windows.iter().enumerate() {
                if ids[range.clone()] != base[range.clone()] {
                    replaced.push((k, inputs.len()));
                    inputs.push(ids[range.clone()].to_vec());
                }
            }
            changed.push(replaced);
        }
        let refs: Vec<&[u32]> = inputs.iter().map(Vec::as_slice).collect();
        let log_probs = self
            .classifier
            .window_log_probs(&refs)
            .map_err(Error::Model)?;
        let classes = log_probs.first().map_or(0, Vec::len);
        let mut base_sum = vec![0.0f32; classes];
        for window in &log_probs[..self.windows.len()] {
            for (s, v) in base_sum.iter_mut().zip(window) {
                *s += v;
            }
        }
        Ok(changed
            .iter()
            .map(|replaced| {
                let mut row = base_sum.clone();
                for &(k, input) in replaced {
                    for ((s, new), old) in row.iter_mut().zip(&log_probs[input]).zip(&log_probs[k])
                    {
                        *s += new - old;
                    }
                }
                row
            })
            .collect())
    }
}
