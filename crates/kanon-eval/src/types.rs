//! Whether a detector's span types read right: a confusion of the types it gives against the gold
//! mentions' `entity_type`. The type decides the sanitizer's path (a PERSON span becomes a numbered
//! label and skips generalization), so "senator" typed PERSON costs utility even when it is masked.
//!
//! Each gold mention is paired with the predicted span that overlaps it most (`missed` when none
//! does); each predicted span with the gold mention it overlaps most (`not in gold` when none).
//! Over every annotator's mentions.

use std::collections::BTreeMap;

use kanon_core::spans::SpanRecord;
use kanon_core::{EntityType, Span};
use rustc_hash::FxHashMap;
use serde::Serialize;

use crate::gold::GoldDocument;

/// What a predicted span without a type is counted as.
pub const UNTYPED: &str = "untyped";
/// A gold mention no predicted span overlaps.
pub const MISSED: &str = "missed";
/// A predicted span that overlaps no gold mention.
pub const NOT_IN_GOLD: &str = "not in gold";

/// Counts of (row type, column type) pairs.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct TypeConfusion {
    /// Gold type → the type of the predicted span that covers it most, or `missed`.
    pub by_gold: BTreeMap<String, BTreeMap<String, usize>>,
    /// Predicted type → the type of the gold mention it covers most, or `not in gold`.
    pub by_predicted: BTreeMap<String, BTreeMap<String, usize>>,
}

fn type_name(entity_type: Option<EntityType>) -> String {
    entity_type.map_or_else(|| UNTYPED.to_owned(), |t| t.as_str().to_owned())
}

fn overlap(a: Span, b: Span) -> usize {
    a.end.min(b.end).saturating_sub(a.start.max(b.start))
}

/// The confusion of predicted types (by document id) against the gold mentions' types. Gold
/// mentions without a type (the system format) are left out.
pub fn type_confusion(
    gold: &[GoldDocument],
    predicted: &FxHashMap<String, Vec<SpanRecord>>,
) -> TypeConfusion {
    let mut confusion = TypeConfusion::default();
    let empty = Vec::new();
    for doc in gold {
        let spans = predicted.get(&doc.id).unwrap_or(&empty);
        for mentions in &doc.annotators {
            let typed: Vec<_> = mentions
                .iter()
                .filter_map(|m| m.entity_type.map(|t| (m.span, t)))
                .collect();
            if typed.is_empty() {
                continue;
            }
            for &(span, gold_type) in &typed {
                let best = spans
                    .iter()
                    .map(|p| (overlap(p.span(), span), p))
                    .filter(|(o, _)| *o > 0)
                    .max_by_key(|(o, _)| *o);
                let column =
                    best.map_or_else(|| MISSED.to_owned(), |(_, p)| type_name(p.entity_type));
                *confusion
                    .by_gold
                    .entry(gold_type.as_str().to_owned())
                    .or_default()
                    .entry(column)
                    .or_default() += 1;
            }
            for p in spans {
                let best = typed
                    .iter()
                    .map(|&(span, t)| (overlap(p.span(), span), t))
                    .filter(|(o, _)| *o > 0)
                    .max_by_key(|(o, _)| *o);
                let column =
                    best.map_or_else(|| NOT_IN_GOLD.to_owned(), |(_, t)| t.as_str().to_owned());
                *confusion
                    .by_predicted
                    .entry(type_name(p.entity_type))
                    .or_default()
                    .entry(column)
                    .or_default() += 1;
            }
        }
    }
    confusion
}

impl TypeConfusion {
    /// Whether no gold mention had a type to compare.
    pub fn is_empty(&self) -> bool {
        self.by_gold.is_empty()
    }

    /// Both tables as a person reads them: one row per type, one column per type met.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for (title, rows) in [
            ("gold type → predicted type", &self.by_gold),
            ("predicted type → gold type", &self.by_predicted),
        ] {
            let mut columns: Vec<&String> = rows.values().flat_map(|r| r.keys()).collect();
            columns.sort();
            columns.dedup();
            out += &format!("{title}\n{:<12}", "");
            for c in &columns {
                out += &format!(" {c:>11}");
            }
            out += "\n";
            for (row, counts) in rows {
                out += &format!("{row:<12}");
                for c in &columns {
                    out += &format!(" {:>11}", counts.get(*c).copied().unwrap_or(0));
                }
                out += "\n";
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gold::GoldMention;

    fn mention(start: usize, end: usize, entity_type: EntityType) -> GoldMention {
        GoldMention {
            span: Span::new(start, end),
            identifier: None,
            entity: None,
            entity_type: Some(entity_type),
        }
    }

    fn predicted(start: usize, end: usize, entity_type: Option<EntityType>) -> SpanRecord {
        SpanRecord {
            entity_type,
            ..SpanRecord::new(start, end)
        }
    }

    #[test]
    fn pairs_each_side_with_the_span_it_overlaps_most() {
        // "a former Nigerian senator who lived in Lagos"
        let gold = [GoldDocument {
            id: "d".into(),
            text: Some("a former Nigerian senator who lived in Lagos".into()),
            annotators: vec![vec![
                mention(9, 17, EntityType::Dem),
                mention(18, 25, EntityType::Dem),
                mention(39, 44, EntityType::Loc),
            ]],
            unmasked_mentions: 0,
        }];
        let spans = vec![
            predicted(9, 17, Some(EntityType::Dem)),
            predicted(18, 25, Some(EntityType::Person)),
            predicted(26, 29, Some(EntityType::Person)),
        ];
        let confusion = type_confusion(&gold, &[("d".to_owned(), spans)].into_iter().collect());
        let row = |table: &BTreeMap<String, BTreeMap<String, usize>>, r: &str| {
            table[r]
                .iter()
                .map(|(k, v)| (k.clone(), *v))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            row(&confusion.by_gold, "DEM"),
            [("DEM".to_owned(), 1), ("PERSON".to_owned(), 1)]
        );
        assert_eq!(row(&confusion.by_gold, "LOC"), [(MISSED.to_owned(), 1)]);
        assert_eq!(
            row(&confusion.by_predicted, "PERSON"),
            [("DEM".to_owned(), 1), (NOT_IN_GOLD.to_owned(), 1)]
        );
        let text = confusion.render();
        assert!(text.contains("gold type → predicted type"), "{text}");
    }
}
