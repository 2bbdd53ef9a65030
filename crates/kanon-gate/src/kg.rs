//! The KG attacker on the output: the KG terms the sanitized text still holds — also inside
//! replacements ("a city in Norway" still says Norway) — found by the labeler's own matcher
//! ([`kanon_label::document::document_matches`]) and checked by the labeler's own Algorithm 1
//! ([`kanon_label::algorithm::decide`]): every combination of up to `max_arity` of them must be
//! shared by no one or by at least k people. No second implementation: a document the gate
//! passes is one the labeler would leave unmasked.

use std::ops::Range;

use kanon_index::{Index, TermMatch};
use kanon_label::algorithm::{Decisions, LabelerConfig, MaskReason, decide, document_rng};
use kanon_label::document::{document_matches, document_terms};
use kanon_sanitize::Sanitized;
use serde::{Deserialize, Serialize};

/// A character range of the output text (never its content).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct OutputSpan {
    /// First character, in the output.
    pub start: usize,
    /// One past the last character.
    pub end: usize,
}

/// What Algorithm 1 finds in one output.
#[derive(Debug, Clone)]
pub struct KgVerdict {
    /// The KG terms found, with where (overlapping matches included, as the labeler finds them).
    pub matches: Vec<TermMatch>,
    /// The distinct terms, in order of first occurrence (positions of Algorithm 1's masks).
    pub terms: Vec<u32>,
    /// Algorithm 1's decisions: a mask is a term that breaks k-anonymity (alone or with
    /// others). None: the output passes.
    pub decisions: Decisions,
}

impl KgVerdict {
    /// Whether the output passes: no term to mask.
    pub fn passes(&self) -> bool {
        self.decisions.masks.is_empty()
    }

    /// The terms (ids) Algorithm 1 objects to: those masked and those of each offending
    /// combination, in order of first occurrence.
    pub fn suspects(&self) -> Vec<u32> {
        let mut positions: Vec<usize> = Vec::new();
        for mask in &self.decisions.masks {
            positions.push(mask.term);
            if let MaskReason::Combination { terms, .. } = &mask.reason {
                positions.extend(terms);
            }
        }
        positions.sort_unstable();
        positions.dedup();
        positions.into_iter().map(|p| self.terms[p]).collect()
    }

    /// Where a term stands in the output.
    pub fn occurrences(&self, term: u32) -> Vec<OutputSpan> {
        self.matches
            .iter()
            .filter(|m| m.term == term)
            .map(|m| OutputSpan {
                start: m.start,
                end: m.end,
            })
            .collect()
    }
}

/// Algorithm 1 over the KG's index.
#[derive(Debug)]
pub struct KgAttacker<'i> {
    index: &'i Index,
    config: LabelerConfig,
}

/// The KG figures of a certificate: how many people the output's least-shared combination of KG
/// terms still fits, and where those terms are.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KgReach {
    /// The smallest non-zero number of people sharing a combination of the output's KG terms;
    /// none when the output names no KG fact anyone has.
    pub k_reached: Option<u64>,
    /// The combination that bound it: the first occurrence of each of its terms in the output.
    pub binding: Vec<OutputSpan>,
}

impl<'i> KgAttacker<'i> {
    /// The attacker over `index`, checking with `config` (its k, max_arity, match_case).
    pub fn new(index: &'i Index, config: LabelerConfig) -> Self {
        KgAttacker { index, config }
    }

    /// Algorithm 1 on an output text.
    pub fn check(&self, id: &str, text: &str) -> KgVerdict {
        let matches = document_matches(self.index, text, &self.config);
        let terms = document_terms(&matches);
        self.check_terms(id, matches, terms)
    }

    /// Algorithm 1 on a sanitized output. KG terms inside its labels and masks are not facts
    /// of anyone (the "10" of "MISC 10" is the sanitizer's numbering) and are not counted;
    /// those inside generalizations ("a city in Norway") are.
    pub fn check_output(&self, id: &str, sanitized: &Sanitized) -> KgVerdict {
        let document = &sanitized.document;
        let opaque: Vec<&Range<usize>> = document
            .edits
            .iter()
            .zip(&sanitized.replaced)
            .filter(|(edit, _)| edit.choice.is_none())
            .map(|(_, range)| range)
            .collect();
        let mut matches = document_matches(self.index, &document.text, &self.config);
        matches.retain(|m| !opaque.iter().any(|r| m.start < r.end && r.start < m.end));
        let terms = document_terms(&matches);
        self.check_terms(id, matches, terms)
    }

    fn check_terms(&self, id: &str, matches: Vec<TermMatch>, terms: Vec<u32>) -> KgVerdict {
        let decisions = decide(
            self.index.postings(),
            &terms,
            &self.config,
            document_rng(self.config.seed, id),
        );
        KgVerdict {
            matches,
            terms,
            decisions,
        }
    }

    /// How many terms Algorithm 1 would still object to with `without` gone from the output:
    /// what removing it helps.
    pub fn masks_without(&self, id: &str, verdict: &KgVerdict, without: u32) -> usize {
        let terms: Vec<u32> = verdict
            .terms
            .iter()
            .copied()
            .filter(|&t| t != without)
            .collect();
        decide(
            self.index.postings(),
            &terms,
            &self.config,
            document_rng(self.config.seed, id),
        )
        .masks
        .len()
    }

    /// The least-shared combination of a passing output's terms (up to `max_arity`).
    pub fn reach(&self, verdict: &KgVerdict) -> KgReach {
        let terms = &verdict.terms;
        let mut best: Option<(u64, Vec<u32>)> = None;
        let mut combination = Vec::with_capacity(self.config.max_arity);
        self.walk(terms, 0, &mut combination, &mut best);
        match best {
            None => KgReach {
                k_reached: None,
                binding: Vec::new(),
            },
            Some((people, combination)) => KgReach {
                k_reached: Some(people),
                binding: combination
                    .iter()
                    .filter_map(|&t| verdict.occurrences(t).into_iter().next())
                    .collect(),
            },
        }
    }

    fn walk(
        &self,
        terms: &[u32],
        start: usize,
        combination: &mut Vec<u32>,
        best: &mut Option<(u64, Vec<u32>)>,
    ) {
        for i in start..terms.len() {
            combination.push(terms[i]);
            let people = self.index.intersection_count(combination, u64::MAX);
            if people > 0 {
                if best.as_ref().is_none_or(|(b, _)| people < *b) {
                    *best = Some((people, combination.clone()));
                }
                if combination.len() < self.config.max_arity.max(1) {
                    self.walk(terms, i + 1, combination, best);
                }
            }
            combination.pop();
        }
    }
}
