//! `reid-greedy` (Morris et al., 2022, *Unsupervised Text Deidentification*): a re-identification
//! model scores every person of the population for a document; the search repeatedly masks the
//! word whose masking lowers the true person's score most, until the true person falls out of the
//! model's `top_k` guesses or `max_share` of the words are masked.
//!
//! The search works on word groups (every occurrence of a form masked together) and never masks
//! a function word. Each step scores every remaining candidate, batched; with `shortlist` > 0 only
//! that many candidates — those whose masking lowered the score most when last scored — are
//! scored again after the first step, which makes a step cost `shortlist` evaluations instead of
//! one per word (0: the exact greedy search).

use serde::{Deserialize, Serialize};

use crate::Result;

/// Scores the classes (people) of a document with some of its words masked.
pub trait MaskScorer {
    /// The document's words.
    fn words(&self) -> usize;

    /// For each trial, every class's score of the document with the `masked` words and the
    /// trial's words masked (an empty trial: `masked` alone).
    fn score(&mut self, masked: &[bool], trials: &[&[usize]]) -> Result<Vec<Vec<f32>>>;
}

/// When the search stops.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GreedySettings {
    /// Stop once the true person is not among the model's first `top_k` guesses.
    pub top_k: usize,
    /// Stop once this share of the words is masked.
    pub max_share: f64,
    /// Candidates scored again at each step after the first (0: all of them).
    pub shortlist: usize,
}

impl Default for GreedySettings {
    fn default() -> Self {
        GreedySettings {
            top_k: 1,
            max_share: 0.8,
            shortlist: 16,
        }
    }
}

impl GreedySettings {
    /// Checks the settings: `top_k` ≥ 1, `max_share` a share in [0, 1].
    pub fn validate(&self) -> std::result::Result<(), String> {
        if self.top_k == 0 {
            return Err("top_k must be at least 1".into());
        }
        if !(0.0..=1.0).contains(&self.max_share) {
            return Err(format!(
                "max_share {} is not a share in [0, 1]",
                self.max_share
            ));
        }
        Ok(())
    }
}

/// One step of the search: the words masked, and the true person's rank afterwards (1: the
/// model's first guess).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// The words masked at this step (indices into the document's [`crate::words::Words`]).
    pub words: Vec<usize>,
    /// The true person's rank after the step.
    pub rank: usize,
}

/// Why the search stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Stop {
    /// The true person left the model's top guesses.
    OutOfTopK,
    /// The share of masked words reached its maximum.
    MaxShare,
    /// No word left to mask.
    NoCandidate,
}

impl Stop {
    /// Whether the search stopped short of its goal: the true person still among the model's
    /// top guesses.
    pub fn short(self) -> bool {
        self != Stop::OutOfTopK
    }

    /// Its name in the trace and the summaries (`max-share`, `no-candidate`).
    pub fn name(self) -> &'static str {
        match self {
            Stop::OutOfTopK => "out-of-top-k",
            Stop::MaxShare => "max-share",
            Stop::NoCandidate => "no-candidate",
        }
    }
}

/// The search's path: the true person's rank before any masking, the steps, and why it stopped.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Trajectory {
    /// The true person's rank before any masking (1: the model's first guess).
    pub initial_rank: usize,
    /// The steps, in order.
    pub steps: Vec<Step>,
    /// Why it stopped.
    pub stop: Stop,
}

impl Trajectory {
    /// The words masked.
    pub fn masked(&self, words: usize) -> Vec<bool> {
        let mut masked = vec![false; words];
        for step in &self.steps {
            for &w in &step.words {
                masked[w] = true;
            }
        }
        masked
    }
}

/// 1 + the number of classes scored above `truth`.
fn rank(scores: &[f32], truth: usize) -> usize {
    1 + scores.iter().filter(|&&s| s > scores[truth]).count()
}

/// Greedy masking of `groups` (word groups masked together; empty groups are skipped) until the
/// class `truth` is out of the scorer's `top_k`.
pub fn search(
    scorer: &mut dyn MaskScorer,
    groups: &[Vec<usize>],
    truth: usize,
    settings: &GreedySettings,
) -> Result<Trajectory> {
    let n = scorer.words();
    let mut masked = vec![false; n];
    let mut masked_count = 0;
    let mut base = scorer.score(&masked, &[&[]])?.remove(0);
    let initial_rank = rank(&base, truth);
    let mut steps = Vec::new();
    let mut current_rank = initial_rank;
    // The true person's score after masking each group, when last scored.
    let mut last_score: Vec<Option<f32>> = vec![None; groups.len()];
    let mut open: Vec<usize> = (0..groups.len())
        .filter(|&g| !groups[g].is_empty())
        .collect();
    let stop = loop {
        if current_rank > settings.top_k {
            break Stop::OutOfTopK;
        }
        if open.is_empty() {
            break Stop::NoCandidate;
        }
        if masked_count as f64 >= settings.max_share * n as f64 {
            break Stop::MaxShare;
        }
        // Groups that would not push the share over the maximum.
        let fits =
            |g: &usize| (masked_count + groups[*g].len()) as f64 <= settings.max_share * n as f64;
        let candidates: Vec<usize> = open.iter().copied().filter(fits).collect();
        if candidates.is_empty() {
            break Stop::MaxShare;
        }
        let scored: Vec<usize> = if settings.shortlist == 0 || steps.is_empty() {
            candidates
        } else {
            let mut by_drop = candidates;
            by_drop.sort_by(|&a, &b| {
                let score = |g: usize| last_score[g].unwrap_or(f32::NEG_INFINITY);
                score(a).total_cmp(&score(b)).then(a.cmp(&b))
            });
            by_drop.truncate(settings.shortlist);
            by_drop
        };
        let trials: Vec<&[usize]> = scored.iter().map(|&g| groups[g].as_slice()).collect();
        let rows = scorer.score(&masked, &trials)?;
        let mut best: Option<(usize, usize)> = None;
        for (i, (&g, row)) in scored.iter().zip(&rows).enumerate() {
            last_score[g] = Some(row[truth]);
            // Lowest score of the true person; ties to the earlier group.
            if best.is_none_or(|(_, b)| row[truth] < rows[b][truth]) {
                best = Some((g, i));
            }
        }
        let (g, i) = best.expect("at least one candidate");
        for &w in &groups[g] {
            masked[w] = true;
        }
        masked_count += groups[g].len();
        open.retain(|&o| o != g);
        base = rows[i].clone();
        current_rank = rank(&base, truth);
        steps.push(Step {
            words: groups[g].clone(),
            rank: current_rank,
        });
    };
    Ok(Trajectory {
        initial_rank,
        steps,
        stop,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three classes; the truth (class 0) scores 10 minus the weight of each masked word, the
    /// others a constant. Counts the trials it scores.
    struct Scripted {
        weights: Vec<f32>,
        others: [f32; 2],
        trials: usize,
    }

    impl MaskScorer for Scripted {
        fn words(&self) -> usize {
            self.weights.len()
        }
        fn score(&mut self, masked: &[bool], trials: &[&[usize]]) -> Result<Vec<Vec<f32>>> {
            self.trials += trials.len();
            Ok(trials
                .iter()
                .map(|trial| {
                    let lost: f32 = (0..self.weights.len())
                        .filter(|w| masked[*w] || trial.contains(w))
                        .map(|w| self.weights[w])
                        .sum();
                    vec![10.0 - lost, self.others[0], self.others[1]]
                })
                .collect())
        }
    }

    fn singletons(n: usize) -> Vec<Vec<usize>> {
        (0..n).map(|w| vec![w]).collect()
    }

    #[test]
    fn masks_the_most_telling_word_first_and_stops_once_out_of_the_top_k() {
        let mut scorer = Scripted {
            weights: vec![1.0, 4.0, 0.5, 3.0, 0.0],
            others: [6.5, 4.0],
            trials: 0,
        };
        let exact = GreedySettings {
            shortlist: 0,
            ..GreedySettings::default()
        };
        let path = search(&mut scorer, &singletons(5), 0, &exact).unwrap();
        // 10 → 6 (word 1): rank 2 < 6.5 already: out of the top 1 after one step.
        assert_eq!(path.initial_rank, 1);
        assert_eq!(
            path.steps,
            [Step {
                words: vec![1],
                rank: 2
            }]
        );
        assert_eq!(path.stop, Stop::OutOfTopK);

        // Out of the top 2 takes words 1 then 3 (10 → 6 → 3 < 4).
        let top2 = GreedySettings { top_k: 2, ..exact };
        let path = search(&mut scorer, &singletons(5), 0, &top2).unwrap();
        let words: Vec<usize> = path.steps.iter().flat_map(|s| s.words.clone()).collect();
        assert_eq!(words, [1, 3]);
        assert_eq!(path.masked(5), [false, true, false, true, false]);
    }

    #[test]
    fn the_share_of_masked_words_bounds_the_search() {
        let mut scorer = Scripted {
            weights: vec![1.0, 1.0, 1.0, 1.0],
            others: [0.0, 0.0],
            trials: 0,
        };
        let settings = GreedySettings {
            top_k: 1,
            max_share: 0.5,
            shortlist: 0,
        };
        let path = search(&mut scorer, &singletons(4), 0, &settings).unwrap();
        assert_eq!(path.steps.len(), 2);
        assert_eq!(path.stop, Stop::MaxShare);
        // A group larger than what is left is not taken.
        let path = search(&mut scorer, &[vec![0, 1, 2], vec![3]], 0, &settings).unwrap();
        assert_eq!(
            path.steps,
            [Step {
                words: vec![3],
                rank: 1
            }]
        );
        assert_eq!(path.stop, Stop::MaxShare);
        // Nothing left to mask.
        let all = GreedySettings {
            max_share: 1.0,
            ..settings
        };
        let path = search(&mut scorer, &[vec![0, 1], vec![], vec![2, 3]], 0, &all).unwrap();
        assert_eq!(path.stop, Stop::NoCandidate);
        assert_eq!(path.steps.len(), 2);
    }

    #[test]
    fn a_shortlist_rescores_only_the_best_candidates() {
        let weights = vec![0.1, 2.0, 0.2, 1.5, 0.3, 1.0, 0.4, 0.2];
        let mut exact = Scripted {
            weights: weights.clone(),
            others: [0.0, 0.0],
            trials: 0,
        };
        let mut short = Scripted {
            weights,
            others: [0.0, 0.0],
            trials: 0,
        };
        let settings = GreedySettings {
            top_k: 1,
            max_share: 0.5,
            shortlist: 0,
        };
        let a = search(&mut exact, &singletons(8), 0, &settings).unwrap();
        let b = search(
            &mut short,
            &singletons(8),
            0,
            &GreedySettings {
                shortlist: 2,
                ..settings
            },
        )
        .unwrap();
        // Additive scores: the shortlist finds the same words (1, 3, 5, 6) with fewer trials.
        assert_eq!(a.steps, b.steps);
        assert_eq!(
            a.masked(8),
            [false, true, false, true, false, true, true, false]
        );
        assert!(
            short.trials < exact.trials,
            "{} vs {}",
            short.trials,
            exact.trials
        );
    }
}
