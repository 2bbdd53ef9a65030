//! Span-level evaluation of a detector.
//!
//! - **exact**: a predicted span is right when a gold span has the same offsets; a gold span is found
//!   when a predicted span has its offsets;
//! - **overlap**: the same with "overlaps" instead of "has the same offsets" (JSON key `partial`).
//!   It flatters: one predicted span that glues three gold mentions together is right, and finds
//!   all three;
//! - **SemEval** (SemEval-2013 task 9's partial score): predicted and gold spans are paired one to
//!   one, same offsets first, then overlapping spans by largest overlap; an exact pair counts 1, an
//!   overlapping pair ½, and precision and recall divide that by the predicted and the gold spans;
//! - **characters**: recall is the share of gold characters inside predicted spans, precision the share
//!   of predicted characters inside gold spans; only when every gold document has its text (gold
//!   in TAB's system format has none without the documents), else not computed;
//! - **by identifier type** (when the gold has one): recall of DIRECT and QUASI mentions, and TAB's
//!   entity-level recall, where an entity counts as protected only when every one of its mentions is
//!   entirely inside predicted spans.
//!
//! With several annotators, each annotator's mentions are a gold set of their own and the counts add
//! up over all (document, annotator) pairs.

use std::collections::BTreeMap;

use kanon_core::Span;
use kanon_core::tab::IdentifierType;
use rustc_hash::FxHashMap;
use serde::Serialize;

use crate::gold::{GoldDocument, GoldMention};

/// Precision, recall and their harmonic mean, each in [0, 1] (0 when there is nothing to
/// divide by).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct PrecisionRecall {
    /// Share of the predicted spans that are right.
    pub precision: f64,
    /// Share of the gold mentions that are found.
    pub recall: f64,
    /// 2·P·R / (P + R).
    pub f1: f64,
}

impl PrecisionRecall {
    fn new(right: usize, predicted: usize, found: usize, gold: usize) -> Self {
        Self::from_ratios(ratio(right, predicted), ratio(found, gold))
    }

    fn from_ratios(precision: f64, recall: f64) -> Self {
        let f1 = if precision + recall > 0.0 {
            2.0 * precision * recall / (precision + recall)
        } else {
            0.0
        };
        PrecisionRecall {
            precision,
            recall,
            f1,
        }
    }
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 { 0.0 } else { a as f64 / b as f64 }
}

/// Recall on the mentions of one identifier type.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct IdentifierRecall {
    /// Mentions of this type, over all annotators.
    pub mentions: usize,
    /// Share of them a predicted span has exactly.
    pub exact: f64,
    /// Share of them a predicted span overlaps.
    pub partial: f64,
    /// Entities of this type, per annotator (an entity with no id is its mention alone).
    pub entities: usize,
    /// TAB: share of entities all of whose mentions are entirely masked.
    pub entity_level: f64,
}

/// A detector's span scores against the gold (see the module docs for each measure).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SpanReport {
    /// Gold documents.
    pub documents: usize,
    /// Gold documents with no prediction at all (counted as predicting nothing).
    pub documents_without_prediction: usize,
    /// Predictions for documents that are not in the gold (ignored).
    pub unknown_documents: usize,
    /// Gold mentions to mask, each annotator's counted apart (repeats within one annotator once).
    pub gold_mentions: usize,
    /// The gold's `NO_MASK` mentions, left out of `gold_mentions` (see [`GoldDocument`]).
    pub unmasked_mentions: usize,
    /// Predicted spans (without repeats), counted once per annotator of their document.
    pub predicted_spans: usize,
    /// Same offsets count.
    pub exact: PrecisionRecall,
    /// Any overlap counts, for every span it touches (see the module docs).
    pub partial: PrecisionRecall,
    /// SemEval-2013's partial score: one-to-one pairs, ½ for an overlap that is not exact.
    pub semeval: PrecisionRecall,
    /// Gold documents without a text (the system format without the documents): the character
    /// scores are then not computed.
    #[serde(skip_serializing_if = "is_zero")]
    pub documents_without_text: usize,
    /// Share of the predicted characters inside gold spans; `None` when a gold document has no
    /// text.
    pub char_precision: Option<f64>,
    /// Share of the gold characters inside predicted spans; `None` when a gold document has no
    /// text.
    pub char_recall: Option<f64>,
    /// Recall by identifier type (`DIRECT`, `QUASI`), when the gold has types.
    pub by_identifier: BTreeMap<String, IdentifierRecall>,
    /// The detector's span types against the gold's, when both have types.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub types: Option<crate::types::TypeConfusion>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl SpanReport {
    /// Why the character scores are missing, when they are.
    fn no_characters_note(&self) -> String {
        format!(
            "not computed: {} gold document(s) have no text (the gold's format has none: give the documents, --docs)",
            self.documents_without_text
        )
    }

    /// What the gold mention count leaves out, when it leaves anything out.
    fn unmasked_note(&self) -> String {
        match self.unmasked_mentions {
            0 => String::new(),
            n => format!(
                " to mask (and {n} marked NO_MASK, left out: a span on one counts as a false positive)"
            ),
        }
    }

    /// The report as a person reads it.
    pub fn render(&self) -> String {
        use std::fmt::Write as _;
        let r = self;
        let mut out = String::new();
        // Writing to a String cannot fail.
        let _ = writeln!(
            out,
            "documents {} ({} without prediction, {} predicted documents not in the gold)",
            r.documents, r.documents_without_prediction, r.unknown_documents
        );
        let _ = writeln!(
            out,
            "gold mentions {}{}, predicted spans {}",
            r.gold_mentions,
            r.unmasked_note(),
            r.predicted_spans
        );
        let _ = writeln!(out, "            precision  recall     F1");
        for (name, pr) in [
            ("exact", &r.exact),
            ("overlap", &r.partial),
            ("SemEval", &r.semeval),
        ] {
            let _ = writeln!(
                out,
                "{name:<10} {:>10.3} {:>7.3} {:>6.3}",
                pr.precision, pr.recall, pr.f1
            );
        }
        let _ = match (r.char_precision, r.char_recall) {
            (Some(precision), Some(recall)) => writeln!(
                out,
                "{:<10} {:>10.3} {:>7.3}",
                "characters", precision, recall
            ),
            _ => writeln!(out, "characters {}", r.no_characters_note()),
        };
        let _ = writeln!(
            out,
            "(overlap: any overlap counts, for every span it touches; SemEval: spans paired one to one, ½ for an overlap)"
        );
        if !r.by_identifier.is_empty() {
            let _ = writeln!(
                out,
                "recall by identifier type: mentions exact overlap | entities entity-level (TAB)"
            );
            for (name, i) in &r.by_identifier {
                let _ = writeln!(
                    out,
                    "  {name:<7} {:>6} {:>6.3} {:>7.3} | {:>6} {:>6.3}",
                    i.mentions, i.exact, i.partial, i.entities, i.entity_level
                );
            }
        }
        if let Some(types) = &r.types {
            out += &types.render();
        }
        out
    }
}

impl SpanReport {
    /// The report as Markdown tables (for a run's report).
    pub fn markdown(&self) -> String {
        let r = self;
        let mut out = format!(
            "{} documents, {} gold mentions{}, {} predicted spans.\n\n",
            r.documents,
            r.gold_mentions,
            r.unmasked_note(),
            r.predicted_spans
        );
        out += "| match | precision | recall | F1 |\n| --- | ---: | ---: | ---: |\n";
        for (name, pr) in [
            ("exact", &r.exact),
            ("overlap", &r.partial),
            ("SemEval partial", &r.semeval),
        ] {
            out += &format!(
                "| {name} | {:.3} | {:.3} | {:.3} |\n",
                pr.precision, pr.recall, pr.f1
            );
        }
        out += &match (r.char_precision, r.char_recall) {
            (Some(precision), Some(recall)) => {
                format!("| characters | {precision:.3} | {recall:.3} | – |\n")
            }
            _ => format!(
                "| characters | – | – | – |\n\nCharacters {}.\n",
                r.no_characters_note()
            ),
        };
        if !r.by_identifier.is_empty() {
            out += "\n| identifier | mentions | recall exact | recall overlap | entities | entity-level recall (TAB) |\n";
            out += "| --- | ---: | ---: | ---: | ---: | ---: |\n";
            for (name, i) in &r.by_identifier {
                out += &format!(
                    "| {name} | {} | {:.3} | {:.3} | {} | {:.3} |\n",
                    i.mentions, i.exact, i.partial, i.entities, i.entity_level
                );
            }
        }
        out += "\nOverlap: any overlap counts, for every span it touches; SemEval: spans paired one to one, \
                ½ for an overlap that is not exact.\n";
        out
    }
}

/// Counts of one identifier type's mentions and entities.
#[derive(Default)]
struct IdentifierCounts {
    mentions: usize,
    exact: usize,
    partial: usize,
    entities: usize,
    /// Entities all of whose mentions are entirely inside predicted spans.
    protected: usize,
}

/// Counts added up over every (document, annotator) pair; the report's figures are their ratios.
#[derive(Default)]
struct SpanCounts {
    gold_mentions: usize,
    predicted_spans: usize,
    exact_right: usize,
    partial_right: usize,
    exact_found: usize,
    partial_found: usize,
    /// In half points: 2 per exact pair, 1 per overlapping pair.
    semeval_half_points: usize,
    gold_chars: usize,
    pred_chars: usize,
    both_chars: usize,
    by_identifier: BTreeMap<IdentifierType, IdentifierCounts>,
}

/// Evaluates predicted spans (by document id) against the gold.
pub fn evaluate_spans(
    gold: &[GoldDocument],
    predicted: &FxHashMap<String, Vec<Span>>,
) -> SpanReport {
    let mut report = SpanReport {
        documents: gold.len(),
        unknown_documents: predicted
            .keys()
            .filter(|id| !gold.iter().any(|g| &g.id == *id))
            .count(),
        ..SpanReport::default()
    };
    let mut counts = SpanCounts::default();
    for doc in gold {
        report.unmasked_mentions += doc.unmasked_mentions;
        let empty = Vec::new();
        let mut spans = predicted.get(&doc.id).unwrap_or(&empty).clone();
        if !predicted.contains_key(&doc.id) {
            report.documents_without_prediction += 1;
        }
        spans.sort_unstable();
        spans.dedup();
        // Without a text, as far as the furthest span: the character counts are then not reported,
        // and the other counts do not depend on the text.
        let length = match &doc.text {
            Some(text) => text.chars().count(),
            None => {
                report.documents_without_text += 1;
                let gold_ends = doc.annotators.iter().flatten().map(|m| m.span.end);
                spans
                    .iter()
                    .map(|s| s.end)
                    .chain(gold_ends)
                    .max()
                    .unwrap_or(0)
            }
        };
        let covered = coverage(&spans, length);
        for mentions in &doc.annotators {
            counts.add_annotator(&spans, &covered, mentions, length);
        }
    }
    counts.fill(&mut report);
    report
}

impl SpanCounts {
    /// Counts one annotator's `mentions` of a document of `length` characters against the
    /// document's predicted `spans` (sorted, without repeats), which cover `covered`.
    fn add_annotator(
        &mut self,
        spans: &[Span],
        covered: &[bool],
        mentions: &[GoldMention],
        length: usize,
    ) {
        let mut gold_spans: Vec<Span> = mentions.iter().map(|m| m.span).collect();
        gold_spans.sort_unstable();
        gold_spans.dedup();
        self.gold_mentions += gold_spans.len();
        self.predicted_spans += spans.len();
        self.exact_right += spans
            .iter()
            .filter(|p| gold_spans.binary_search(p).is_ok())
            .count();
        self.partial_right += spans
            .iter()
            .filter(|p| gold_spans.iter().any(|g| g.overlaps(p)))
            .count();
        self.exact_found += gold_spans
            .iter()
            .filter(|g| spans.binary_search(g).is_ok())
            .count();
        self.partial_found += gold_spans
            .iter()
            .filter(|g| spans.iter().any(|p| p.overlaps(g)))
            .count();
        let (exact_pairs, overlap_pairs) = pair_one_to_one(spans, &gold_spans);
        self.semeval_half_points += 2 * exact_pairs + overlap_pairs;

        let gold_covered = coverage(&gold_spans, length);
        self.gold_chars += gold_covered.iter().filter(|c| **c).count();
        self.pred_chars += covered.iter().filter(|c| **c).count();
        self.both_chars += gold_covered
            .iter()
            .zip(covered)
            .filter(|(g, p)| **g && **p)
            .count();
        self.add_identifiers(spans, covered, mentions, length);
    }

    /// Counts the mentions that have an identifier type, and their entities (an entity is its
    /// id, or the mention alone when it has none).
    fn add_identifiers(
        &mut self,
        spans: &[Span],
        covered: &[bool],
        mentions: &[GoldMention],
        length: usize,
    ) {
        let fully_masked = |s: &Span| (s.start..s.end.min(length)).all(|i| covered[i]);
        let mut entities: BTreeMap<(IdentifierType, String), bool> = BTreeMap::new();
        for (i, m) in mentions.iter().enumerate() {
            let Some(identifier) = m.identifier else {
                continue;
            };
            let counts = self.by_identifier.entry(identifier).or_default();
            counts.mentions += 1;
            counts.exact += usize::from(spans.binary_search(&m.span).is_ok());
            counts.partial += usize::from(spans.iter().any(|p| p.overlaps(&m.span)));
            let key = m.entity.clone().unwrap_or_else(|| format!("#mention {i}"));
            let entry = entities.entry((identifier, key)).or_insert(true);
            *entry &= fully_masked(&m.span);
        }
        for ((identifier, _), protected) in entities {
            let counts = self.by_identifier.entry(identifier).or_default();
            counts.entities += 1;
            counts.protected += usize::from(protected);
        }
    }

    /// Writes the counts and their ratios into `report`.
    fn fill(self, report: &mut SpanReport) {
        report.gold_mentions = self.gold_mentions;
        report.predicted_spans = self.predicted_spans;
        report.exact = PrecisionRecall::new(
            self.exact_right,
            report.predicted_spans,
            self.exact_found,
            report.gold_mentions,
        );
        report.partial = PrecisionRecall::new(
            self.partial_right,
            report.predicted_spans,
            self.partial_found,
            report.gold_mentions,
        );
        report.semeval = PrecisionRecall::from_ratios(
            ratio(self.semeval_half_points, 2 * report.predicted_spans),
            ratio(self.semeval_half_points, 2 * report.gold_mentions),
        );
        if report.documents_without_text == 0 {
            report.char_precision = Some(ratio(self.both_chars, self.pred_chars));
            report.char_recall = Some(ratio(self.both_chars, self.gold_chars));
        }
        report.by_identifier = self
            .by_identifier
            .into_iter()
            .map(|(identifier, c)| {
                let name = serde_json::to_value(identifier)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default();
                (
                    name,
                    IdentifierRecall {
                        mentions: c.mentions,
                        exact: ratio(c.exact, c.mentions),
                        partial: ratio(c.partial, c.mentions),
                        entities: c.entities,
                        entity_level: ratio(c.protected, c.entities),
                    },
                )
            })
            .collect();
    }
}

/// Pairs predicted and gold spans (each sorted, without repeats) one to one, SemEval-2013 style:
/// spans with the same offsets first, then, among the spans left, overlapping ones by largest
/// overlap (ties: leftmost gold span, then leftmost prediction). Returns (exact pairs, overlapping
/// pairs).
fn pair_one_to_one(predicted: &[Span], gold: &[Span]) -> (usize, usize) {
    let mut predicted_left: Vec<Span> = Vec::new();
    let mut exact = 0;
    for p in predicted {
        if gold.binary_search(p).is_ok() {
            exact += 1;
        } else {
            predicted_left.push(*p);
        }
    }
    let gold_left: Vec<Span> = gold
        .iter()
        .filter(|g| predicted.binary_search(g).is_err())
        .copied()
        .collect();
    let mut candidates = Vec::new();
    for (gi, g) in gold_left.iter().enumerate() {
        // Both lists are sorted by start: only predictions starting before g ends can overlap.
        let until = predicted_left.partition_point(|p| p.start < g.end);
        for (pi, p) in predicted_left[..until].iter().enumerate() {
            let overlap = p.end.min(g.end).saturating_sub(p.start.max(g.start));
            if overlap > 0 {
                candidates.push((std::cmp::Reverse(overlap), gi, pi));
            }
        }
    }
    candidates.sort_unstable();
    let mut gold_paired = vec![false; gold_left.len()];
    let mut predicted_paired = vec![false; predicted_left.len()];
    let mut overlapping = 0;
    for (_, gi, pi) in candidates {
        if !gold_paired[gi] && !predicted_paired[pi] {
            gold_paired[gi] = true;
            predicted_paired[pi] = true;
            overlapping += 1;
        }
    }
    (exact, overlapping)
}

/// Which characters of a text of `length` characters the spans cover.
fn coverage(spans: &[Span], length: usize) -> Vec<bool> {
    let mut covered = vec![false; length];
    for s in spans {
        for c in covered.iter_mut().take(s.end.min(length)).skip(s.start) {
            *c = true;
        }
    }
    covered
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mention(start: usize, end: usize, identifier: IdentifierType, entity: &str) -> GoldMention {
        GoldMention {
            span: Span::new(start, end),
            identifier: Some(identifier),
            entity: Some(entity.into()),
            entity_type: None,
        }
    }

    fn doc(mentions: Vec<GoldMention>) -> GoldDocument {
        GoldDocument {
            id: "d".into(),
            text: Some("x".repeat(100)),
            annotators: vec![mentions],
            unmasked_mentions: 0,
        }
    }

    fn predict(spans: &[(usize, usize)]) -> FxHashMap<String, Vec<Span>> {
        [(
            "d".to_owned(),
            spans.iter().map(|&(s, e)| Span::new(s, e)).collect(),
        )]
        .into_iter()
        .collect()
    }

    #[test]
    fn exact_partial_and_character_scores() {
        use IdentifierType::*;
        // Gold: [0,10) DIRECT e1, [20,30) QUASI e2, [50,60) QUASI e1 (a second mention of e1).
        let gold = vec![doc(vec![
            mention(0, 10, Direct, "e1"),
            mention(20, 30, Quasi, "e2"),
            mention(50, 60, Quasi, "e1"),
        ])];
        // Predicted: exact [0,10), partial [25,35), spurious [80,90).
        let report = evaluate_spans(&gold, &predict(&[(0, 10), (25, 35), (80, 90)]));
        assert_eq!((report.gold_mentions, report.predicted_spans), (3, 3));
        assert!((report.exact.precision - 1.0 / 3.0).abs() < 1e-9);
        assert!((report.exact.recall - 1.0 / 3.0).abs() < 1e-9);
        assert!((report.partial.precision - 2.0 / 3.0).abs() < 1e-9);
        assert!((report.partial.recall - 2.0 / 3.0).abs() < 1e-9);
        // One exact pair (1) and one overlapping pair (½) of three predicted and three gold.
        assert!((report.semeval.precision - 0.5).abs() < 1e-9);
        assert!((report.semeval.recall - 0.5).abs() < 1e-9);
        // Gold chars 30, predicted 30, both 10 + 5.
        assert!((report.char_recall.unwrap() - 0.5).abs() < 1e-9);
        assert!((report.char_precision.unwrap() - 0.5).abs() < 1e-9);
        let direct = &report.by_identifier["DIRECT"];
        assert_eq!(
            (
                direct.mentions,
                direct.exact,
                direct.entities,
                direct.entity_level
            ),
            (1, 1.0, 1, 1.0)
        );
        let quasi = &report.by_identifier["QUASI"];
        assert_eq!((quasi.mentions, quasi.partial, quasi.entities), (2, 0.5, 2));
        // e2 is only half masked and e1's QUASI mention not at all: no QUASI entity is protected.
        assert_eq!(quasi.entity_level, 0.0);
        insta::assert_snapshot!("span_report_markdown", report.markdown());
    }

    #[test]
    fn a_span_that_glues_mentions_together_gets_half_of_one_in_the_semeval_score() {
        use IdentifierType::*;
        let gold = vec![doc(vec![
            mention(0, 5, Quasi, "e1"),
            mention(6, 10, Quasi, "e2"),
            mention(11, 20, Quasi, "e3"),
        ])];
        let report = evaluate_spans(&gold, &predict(&[(0, 20)]));
        // The overlap score credits the glued span with all three mentions.
        assert_eq!(
            (report.partial.precision, report.partial.recall),
            (1.0, 1.0)
        );
        // SemEval pairs it with one mention (the largest overlap, [11, 20)) for half a point.
        assert_eq!(
            (report.semeval.precision, report.semeval.recall),
            (0.5, 0.5 / 3.0)
        );
        assert_eq!(
            pair_one_to_one(
                &[Span::new(0, 20)],
                &[Span::new(0, 5), Span::new(6, 10), Span::new(11, 20)]
            ),
            (0, 1)
        );
        // Two predictions inside one mention: one pair, the other prediction is spurious.
        assert_eq!(
            pair_one_to_one(&[Span::new(0, 2), Span::new(3, 5)], &[Span::new(0, 5)]),
            (0, 1)
        );
        // An exact pair is taken before an overlap would take its prediction.
        assert_eq!(
            pair_one_to_one(
                &[Span::new(0, 5), Span::new(4, 9)],
                &[Span::new(0, 5), Span::new(3, 8)]
            ),
            (1, 1)
        );
    }

    #[test]
    fn the_gold_scores_perfectly_against_itself_and_nothing_scores_zero() {
        use IdentifierType::*;
        let gold = vec![doc(vec![
            mention(0, 10, Direct, "e1"),
            mention(20, 30, Quasi, "e2"),
        ])];
        let report = evaluate_spans(&gold, &predict(&[(0, 10), (20, 30)]));
        assert_eq!(
            report.exact,
            PrecisionRecall {
                precision: 1.0,
                recall: 1.0,
                f1: 1.0
            }
        );
        assert_eq!(
            (report.char_precision, report.char_recall),
            (Some(1.0), Some(1.0))
        );
        let report = evaluate_spans(&gold, &FxHashMap::default());
        assert_eq!(report.documents_without_prediction, 1);
        assert_eq!(report.partial, PrecisionRecall::default());
        assert_eq!(report.by_identifier["QUASI"].entity_level, 0.0);
    }
}
