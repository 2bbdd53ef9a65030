//! The figures of a sanitization run, as a person reads them and as JSON (`--summary`). Counts
//! and times only: never a span's text.

use serde::{Deserialize, Serialize};

use crate::sanitizer::SanitizeStats;

/// The figures a run reports.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct SanitizeSummary {
    /// The strategy's name as configured (`intact`).
    pub strategy: String,
    /// `backend:model` of the generator (and `, attacker backend:model`); `None` when the
    /// strategy opened no model.
    pub model: Option<String>,
    /// Documents in the output.
    pub documents: u64,
    /// Of those, documents an interrupted earlier run had finished.
    pub resumed_documents: u64,
    /// The counts summed over every document of the output.
    pub stats: SanitizeStats,
    /// Model requests answered from the response cache.
    pub cache_hits: u64,
    /// Model requests the model answered.
    pub cache_misses: u64,
    /// Seconds spent sanitizing, summed over documents (resumed ones included).
    pub document_seconds: f64,
    /// Seconds of this invocation, end to end (model loading included).
    pub wall_seconds: f64,
}

fn percent(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

impl SanitizeSummary {
    /// The summary as a person reads it.
    pub fn render(&self) -> String {
        let stats = &self.stats;
        let selected = stats.selected_spans();
        let mut lines = vec![format!(
            "sanitized {} documents ({} resumed from an earlier run), strategy {}{}",
            self.documents,
            self.resumed_documents,
            self.strategy,
            self.model
                .as_ref()
                .map(|model| format!(", model {model}"))
                .unwrap_or_default()
        )];
        lines.push(format!(
            "spans: {} in {} entities ({} repeats of masked text propagated, {} overlapping spans merged into their union); labeled direct identifiers: {}; masked by the strategy: {}",
            stats.spans,
            stats.entities,
            stats.propagated_spans,
            stats.merged_spans,
            stats.direct_spans,
            stats.masked_spans
        ));
        if selected > 0 {
            let ranks: Vec<String> = stats
                .chosen
                .iter()
                .enumerate()
                .map(|(rank, &count)| format!("{}: {:.1} %", rank + 1, percent(count, selected)))
                .collect();
            lines.push(format!(
                "generalized spans: {selected}; took candidate {}; fell back to the label: {:.1} % (every candidate guessed or refused {:.1} %, no usable candidate {:.1} %)",
                if ranks.is_empty() { "-".to_owned() } else { ranks.join(", ") },
                percent(stats.all_guessed_spans + stats.no_candidate_spans, selected),
                percent(stats.all_guessed_spans, selected),
                percent(stats.no_candidate_spans, selected),
            ));
            lines.push(format!(
                "date ladder: {} entities; knowledge-graph candidates: {} entities; candidates dropped (revealing a masked string, copying the example or the instructions, unfinished, unconfirmed by the hierarchies): {}; candidate replacements caught by the check after rendering: {}",
                stats.ladder_entities,
                stats.kg_entities,
                stats.rejected_candidates,
                stats.caught_leaks
            ));
        }
        if stats.dropped_spans > 0 || stats.context_entities > 0 {
            lines.push(format!(
                "read from the sentence: {} entities given the kind it names; {} spans left out where they modify the noun after them or follow the noun naming their kind",
                stats.context_entities, stats.dropped_spans
            ));
        }
        if stats.kg_checks > 0 {
            let reserved = if stats.kg_reserved > 0 {
                format!(
                    "; {} more specific ones held back so that each entity keeps a share",
                    stats.kg_reserved
                )
            } else {
                String::new()
            };
            lines.push(format!(
                "KG attacker: {} candidates checked, {} refused (the document would match fewer than k people of the KG){reserved}",
                stats.kg_checks, stats.kg_refused
            ));
        }
        if stats.kg_resolved > 0 {
            lines.push(format!(
                "truthfulness: {} of {} generalizations whose original the KG resolves are true of it ({:.1} %)",
                stats.kg_true,
                stats.kg_resolved,
                percent(stats.kg_true, stats.kg_resolved)
            ));
        }
        let calls = stats.llm_calls();
        lines.push(format!(
            "LLM calls: {calls} ({} generation, {} attack): {:.2} per span, {:.2} per generalized span; cache: {} hits, {} misses",
            stats.generation_calls,
            stats.attack_calls,
            calls as f64 / stats.spans.max(1) as f64,
            calls as f64 / selected.max(1) as f64,
            self.cache_hits,
            self.cache_misses,
        ));
        lines.push(format!(
            "time: {:.1} s sanitizing, {:.2} s per document, {:.2} spans/s; {:.1} s wall for this run",
            self.document_seconds,
            self.document_seconds / self.documents.max(1) as f64,
            stats.spans as f64 / self.document_seconds.max(1e-9),
            self.wall_seconds,
        ));
        lines.join("\n") + "\n"
    }
}
