//! The risk report of a document in words a person can follow.

use std::fmt::Write;

use crate::document::RiskReport;

fn plural(n: impl Into<u64>, one: &str, many: &str) -> String {
    let n = n.into();
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

fn people(n: u64) -> String {
    plural(n, "person", "people")
}

/// The risk report in plain English: the terms found, what was masked and why, and the k reached.
pub fn explain(report: &RiskReport) -> String {
    let mut out = String::new();
    let strategy = match report.strategy.as_str() {
        "greedy" => "the term fewest people have is masked first".to_owned(),
        "random" => "a random term of each offending combination is masked".to_owned(),
        other => other.to_owned(),
    };
    let _ = writeln!(
        out,
        "Document {} (about {}): k = {}, combinations of up to {} checked; {strategy}.",
        report.id,
        report.person,
        report.k,
        plural(report.max_arity as u64, "term", "terms"),
    );
    if report.terms.is_empty() {
        let _ = writeln!(
            out,
            "No knowledge-graph term occurs in it: nothing to mask."
        );
        return out;
    }
    let _ = writeln!(
        out,
        "It mentions {}; {} masked, covering {} of its {}.",
        plural(
            report.terms.len() as u64,
            "knowledge-graph term",
            "knowledge-graph terms"
        ),
        if report.masked.len() == 1 {
            "1 is".to_owned()
        } else {
            format!("{} are", report.masked.len())
        },
        report.masked_tokens,
        plural(report.tokens as u64, "word", "words"),
    );
    let type_of = |term: &str| {
        report
            .terms
            .iter()
            .find(|t| t.term == term)
            .map_or(String::new(), |t| t.entity_type.to_string())
    };
    if !report.masked.is_empty() {
        let _ = writeln!(out, "\nMasked, in the order decided:");
        for (i, mask) in report.masked.iter().enumerate() {
            let why = if mask.arity == 1 {
                let verb = if mask.people == 1 { "has" } else { "have" };
                format!(
                    "only {} in the knowledge graph {verb} it, fewer than k = {}",
                    people(mask.people),
                    report.k
                )
            } else {
                let others: Vec<String> = mask
                    .combination
                    .iter()
                    .filter(|t| **t != mask.term)
                    .map(|t| format!("{t:?}"))
                    .collect();
                let postings = report
                    .terms
                    .iter()
                    .find(|t| t.term == mask.term)
                    .map_or(0, |t| t.postings);
                format!(
                    "together with {}, it is shared by only {}, fewer than k = {} (alone: {})",
                    others.join(" and "),
                    people(mask.people),
                    report.k,
                    people(postings)
                )
            };
            let _ = writeln!(
                out,
                "  {}. {:?} ({}): {why}.",
                i + 1,
                mask.term,
                type_of(&mask.term)
            );
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
            let _ = writeln!(
                out,
                "  {:?} ({}): {}",
                term.term,
                term.entity_type,
                people(term.postings)
            );
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
