//! The risk report of a document in words a person can follow.

use std::fmt::Write;

use crate::document::RiskReport;

pub fn explain(report: &RiskReport) -> String {
    let mut out = String::new();
    let people = |n: u64| if n == 1 { "1 person".to_owned() } else { format!("{n} people") };
    let _ = writeln!(
        out,
        "Document {} (about {}), k = {}, combinations of up to {} terms, {} choice.",
        report.id, report.person, report.k, report.max_arity, report.strategy
    );
    if report.terms.is_empty() {
        let _ = writeln!(out, "No knowledge-graph term occurs in it: nothing to mask.");
        return out;
    }
    let _ = writeln!(
        out,
        "It mentions {} knowledge-graph terms; {} of them are masked ({} of {} words).",
        report.terms.len(),
        report.masked.len(),
        report.masked_tokens,
        report.tokens
    );
    if !report.masked.is_empty() {
        let _ = writeln!(out, "\nMasked, in the order decided:");
        for (i, mask) in report.masked.iter().enumerate() {
            let why = if mask.arity == 1 {
                format!("only {} in the knowledge graph has it, fewer than k = {}", people(mask.people), report.k)
            } else {
                let others: Vec<String> = mask
                    .combination
                    .iter()
                    .filter(|t| **t != mask.term)
                    .map(|t| format!("{t:?}"))
                    .collect();
                format!(
                    "together with {}, it is shared by only {}, fewer than k = {}",
                    others.join(" and "),
                    people(mask.people),
                    report.k
                )
            };
            let postings = report.terms.iter().find(|t| t.term == mask.term).map_or(0, |t| t.postings);
            let _ = writeln!(out, "  {}. {:?} ({}): {why}.", i + 1, mask.term, people(postings));
        }
    }
    let kept: Vec<_> = report
        .terms
        .iter()
        .filter(|t| !report.masked.iter().any(|m| m.term == t.term))
        .collect();
    if !kept.is_empty() {
        let _ = writeln!(out, "\nKept:");
        for term in kept {
            let _ = writeln!(out, "  {:?} ({}, {})", term.term, term.entity_type, people(term.postings));
        }
    }
    match report.k_reached {
        Some(k) => {
            let _ = writeln!(
                out,
                "\nEvery combination of up to {} kept terms is shared by no one or by at least {}.",
                report.max_arity,
                people(k)
            );
        }
        None => {
            let _ = writeln!(out, "\nEvery knowledge-graph term is masked.");
        }
    }
    out
}
