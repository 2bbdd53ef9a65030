//! Labeling one document: find its KG terms, decide which to mask, and label every occurrence.

use kanon_core::{Document, EntityType};
use kanon_index::{Index, TermMatch};
use kanon_kg::variants::SURNAME_PARTICLES;
use serde::{Deserialize, Serialize};

use crate::algorithm::{LabelerConfig, Mask, MaskReason, decide, document_rng};
pub use crate::span::LabeledSpan;
use crate::span::merge_overlapping;

/// A line of `train/dev/test.jsonl`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LabeledDocument {
    /// The document's id, as in the input.
    pub id: String,
    /// The KG id of the person the document is about.
    pub person: String,
    /// The document's text, unchanged.
    pub text: String,
    /// The split the document belongs to (`train`, `dev` or `test`).
    pub split: String,
    /// The spans to mask, sorted by start, not overlapping.
    pub spans: Vec<LabeledSpan>,
}

/// A KG term of a document as the risk report shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReportTerm {
    /// The normalised term.
    pub term: String,
    /// The term's TAB category.
    #[serde(rename = "type")]
    pub entity_type: EntityType,
    /// How many people of the KG have the term.
    pub postings: u64,
    /// How many times the gazetteer found the term in the text.
    pub occurrences: usize,
    /// Whether the person the document is about has this term in the KG.
    pub of_person: bool,
}

/// A masked term and the combination that forced it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReportMask {
    /// The normalised term masked.
    pub term: String,
    /// `rare` or `combination`.
    pub reason: String,
    /// The terms of the offending combination (just the term itself when rare).
    pub combination: Vec<String>,
    /// How many people share the combination (or have the rare term).
    pub people: u64,
    /// Terms in the offending combination (1 when rare).
    pub arity: usize,
}

/// A line of `report.jsonl`: the risk report of one document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RiskReport {
    /// The document's id.
    pub id: String,
    /// The KG id of the person the document is about.
    pub person: String,
    /// The k the document was labeled for.
    pub k: u64,
    /// The largest combination checked.
    pub max_arity: usize,
    /// The masking strategy (`greedy` or `random`).
    pub strategy: String,
    /// The smallest number of people sharing any combination (up to `max_arity`) of the terms left
    /// unmasked that anyone shares; `None` when no term is left (the document names no KG fact).
    pub k_reached: Option<u64>,
    /// The document's distinct KG terms, in order of first occurrence.
    pub terms: Vec<ReportTerm>,
    /// The masks, in the order they were decided.
    pub masked: Vec<ReportMask>,
    /// Word tokens in the text and inside masked spans.
    pub tokens: usize,
    /// Word tokens inside masked spans.
    pub masked_tokens: usize,
}

/// The outcome of labeling one document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Labeled {
    /// The line of the corpus split.
    pub document: LabeledDocument,
    /// The line of `report.jsonl`.
    pub report: RiskReport,
}

/// The distinct terms of a document in order of first occurrence, and the occurrences.
pub fn document_terms(matches: &[TermMatch]) -> Vec<u32> {
    let mut seen = rustc_hash::FxHashSet::default();
    matches
        .iter()
        .filter(|m| seen.insert(m.term))
        .map(|m| m.term)
        .collect()
}

/// Whether a term of this type is a proper name, written capitalised in cased text. Not DEM: the
/// type holds occupations ("chemist") as well as demonyms.
fn is_proper_name(entity_type: Option<EntityType>) -> bool {
    matches!(
        entity_type,
        Some(EntityType::Person | EntityType::Loc | EntityType::Org)
    )
}

/// The words of a text with whether each carries a capital letter, to check a match's casing.
struct Casing {
    /// `(start, end, capitalised, particle)` per word, character offsets, in text order.
    words: Vec<(usize, usize, bool, bool)>,
    any_capital: bool,
}

impl Casing {
    fn of(text: &str) -> Casing {
        let chars: Vec<char> = text.chars().collect();
        let mut words = Vec::new();
        kanon_core::text::for_each_token(text, |token| {
            if let kanon_core::text::Token::Word {
                text: folded,
                start,
                end,
            } = token
            {
                let capitalised = chars[start..end].iter().any(|c| c.is_uppercase());
                words.push((start, end, capitalised, SURNAME_PARTICLES.contains(&folded)));
            }
        });
        let any_capital = words.iter().any(|w| w.2);
        Casing { words, any_capital }
    }

    /// Whether the words of `start..end` are written as a name: the first word that is not a
    /// particle, and the last word, carry a capital.
    fn written_as_name(&self, start: usize, end: usize) -> bool {
        let from = self.words.partition_point(|w| w.0 < start);
        let to = self.words.partition_point(|w| w.0 < end);
        let words = &self.words[from..to];
        let first = words.iter().find(|w| !w.3);
        matches!((first, words.last()), (Some(f), Some(l)) if f.2 && l.2)
    }
}

/// The KG terms of a text as the labeler reads them: every occurrence, nested and overlapping ones
/// included (so that "Oslo" inside "University of Oslo" counts as well as the university), in the
/// order of [`kanon_index::Gazetteer::find_all`]; with [`LabelerConfig::match_case`], names written in
/// lower case in a cased text are left out.
pub fn document_matches(index: &Index, text: &str, config: &LabelerConfig) -> Vec<TermMatch> {
    let mut matches = index.gazetteer().find_all(text);
    if config.match_case {
        let casing = Casing::of(text);
        if casing.any_capital {
            matches.retain(|m| {
                !is_proper_name(index.term_type(m.term)) || casing.written_as_name(m.start, m.end)
            });
        }
    }
    matches
}

/// Labels one document whose person is `person` (a dense index id).
pub fn label_document(
    index: &Index,
    doc: &Document,
    person_kg_id: &str,
    person: u32,
    split: &str,
    config: &LabelerConfig,
) -> Labeled {
    let matches = document_matches(index, &doc.text, config);
    let terms = document_terms(&matches);
    let decisions = decide(
        index.postings(),
        &terms,
        config,
        document_rng(config.seed, &doc.id),
    );
    let mut masked = vec![false; terms.len()];
    for mask in &decisions.masks {
        masked[mask.term] = true;
    }
    let text_of = |t: usize| index.term_text(terms[t]).unwrap_or_default();
    let type_of = |t: usize| index.term_type(terms[t]).unwrap_or(EntityType::Misc);
    let reason_name = |mask: &Mask| match mask.reason {
        MaskReason::Rare { .. } => "rare",
        MaskReason::Combination { .. } => "combination",
    };
    let mut reason_of = vec![""; terms.len()];
    for mask in &decisions.masks {
        reason_of[mask.term] = reason_name(mask);
    }
    let texts: Vec<String> = (0..terms.len()).map(text_of).collect();
    let position: rustc_hash::FxHashMap<u32, usize> =
        terms.iter().enumerate().map(|(i, &t)| (t, i)).collect();
    let mut occurrences = vec![0usize; terms.len()];
    for m in &matches {
        if let Some(&t) = position.get(&m.term) {
            occurrences[t] += 1;
        }
    }
    let spans = merge_overlapping(
        matches
            .iter()
            .filter_map(|m| {
                let t = *position.get(&m.term)?;
                masked[t].then(|| LabeledSpan {
                    start: m.start,
                    end: m.end,
                    label: "MASK".into(),
                    entity_type: type_of(t),
                    term: texts[t].clone(),
                    postings: index.posting_count(terms[t]),
                    reason: reason_of[t].into(),
                })
            })
            .collect(),
    );
    let spans = if config.phrases {
        crate::phrase::widen(&doc.text, spans)
    } else {
        spans
    };
    let (tokens, masked_tokens) = count_tokens(&doc.text, &spans);
    let report = RiskReport {
        id: doc.id.clone(),
        person: person_kg_id.to_owned(),
        k: config.k,
        max_arity: config.max_arity,
        strategy: config.strategy.to_string(),
        k_reached: k_reached(index, &terms, &masked, config.max_arity),
        terms: (0..terms.len())
            .map(|t| ReportTerm {
                term: texts[t].clone(),
                entity_type: type_of(t),
                postings: index.posting_count(terms[t]),
                occurrences: occurrences[t],
                of_person: index
                    .posting_list(terms[t])
                    .is_some_and(|l| l.contains(person)),
            })
            .collect(),
        masked: decisions
            .masks
            .iter()
            .map(|mask| {
                let (combination, people) = match &mask.reason {
                    MaskReason::Rare { people } => (vec![texts[mask.term].clone()], *people),
                    MaskReason::Combination { terms: c, people } => {
                        (c.iter().map(|&t| texts[t].clone()).collect(), *people)
                    }
                };
                ReportMask {
                    term: texts[mask.term].clone(),
                    reason: reason_name(mask).into(),
                    arity: mask.arity(),
                    combination,
                    people,
                }
            })
            .collect(),
        tokens,
        masked_tokens,
    };
    Labeled {
        document: LabeledDocument {
            id: doc.id.clone(),
            person: person_kg_id.to_owned(),
            text: doc.text.clone(),
            split: split.to_owned(),
            spans,
        },
        report,
    }
}

/// The smallest non-zero number of people sharing a combination of up to `max_arity` unmasked terms.
fn k_reached(index: &Index, terms: &[u32], masked: &[bool], max_arity: usize) -> Option<u64> {
    let left: Vec<u32> = terms
        .iter()
        .zip(masked)
        .filter(|(_, m)| !**m)
        .map(|(t, _)| *t)
        .collect();
    let mut best: Option<u64> = None;
    let mut combination = Vec::with_capacity(max_arity);
    fn walk(
        index: &Index,
        left: &[u32],
        start: usize,
        max_arity: usize,
        combination: &mut Vec<u32>,
        best: &mut Option<u64>,
    ) {
        for i in start..left.len() {
            combination.push(left[i]);
            let people = index.intersection_count(combination, u64::MAX);
            if people > 0 {
                *best = Some(best.map_or(people, |b: u64| b.min(people)));
                if combination.len() < max_arity {
                    walk(index, left, i + 1, max_arity, combination, best);
                }
            }
            combination.pop();
        }
    }
    walk(
        index,
        &left,
        0,
        max_arity.max(1),
        &mut combination,
        &mut best,
    );
    best
}

/// Word tokens of the text, and how many of them lie inside a span.
pub fn count_tokens(text: &str, spans: &[LabeledSpan]) -> (usize, usize) {
    let mut tokens = 0;
    let mut inside = 0;
    kanon_core::text::for_each_token(text, |token| {
        if let kanon_core::text::Token::Word { start, end, .. } = token {
            tokens += 1;
            if spans.iter().any(|s| s.start <= start && end <= s.end) {
                inside += 1;
            }
        }
    });
    (tokens, inside)
}

/// The split of a document: its own (`train`, `dev`/`validation`, `test`) or, when it has none, a
/// deterministic 80/10/10 split by a stable hash of its id.
pub fn split_of(doc: &Document) -> String {
    let own = doc.split.as_deref().map(|s| s.trim().to_lowercase());
    match own.as_deref() {
        Some("validation" | "valid" | "val") => "dev".into(),
        Some(s) if !s.is_empty() => s.to_owned(),
        _ => match crate::algorithm::fnv1a(doc.id.as_bytes()) % 10 {
            0..=7 => "train".into(),
            8 => "dev".into(),
            _ => "test".into(),
        },
    }
}
