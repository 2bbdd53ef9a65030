//! The run's figures: documents passed, escalated and capped; each attacker's TRIR before and
//! after the gate; words changed before and after; speed.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::certificate::{Certificate, Status};

/// TRIR (the share of documents whose person is an attacker's first guess) before and after.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Trir {
    /// On the sanitizer's outputs.
    pub before: f64,
    /// On the certified outputs.
    pub after: f64,
}

/// What `kanon certify` and the run's certify stage report.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GateSummary {
    /// Documents certified.
    pub documents: usize,
    /// Of those, finished by an earlier, interrupted run.
    pub resumed_documents: usize,
    /// Passed as the sanitizer wrote them.
    pub passed: usize,
    /// Passed after escalation.
    pub escalated: usize,
    /// Not safe to release.
    pub capped: usize,
    /// The capped documents' ids.
    pub capped_ids: Vec<String>,
    /// Documents the KG attacker objected to before and after the gate.
    pub kg_objecting_before: usize,
    /// After.
    pub kg_objecting_after: usize,
    /// Documents whose person the background knows (the TRIR's denominator).
    pub attacked_documents: usize,
    /// Per attacker (and `ensemble`).
    pub trir: BTreeMap<String, Trir>,
    /// Share of the originals' words changed, over all documents.
    pub words_changed_before: f64,
    /// After.
    pub words_changed_after: f64,
    /// After, over the documents released (passed or escalated) only.
    #[serde(default)]
    pub words_changed_released: f64,
    /// Escalation rounds, over all documents.
    pub rounds: usize,
    /// Masks undone by pruning, over all documents.
    #[serde(default)]
    pub pruned: usize,
    /// The whole run.
    pub seconds: f64,
    /// Documents certified per second by this run (sanitizer renders included).
    pub documents_per_second: f64,
}

impl GateSummary {
    /// The figures of the certificates (`words`: each document's word count, by id).
    pub fn of(certificates: &[Certificate], words: &BTreeMap<&str, usize>) -> Self {
        let mut summary = GateSummary {
            documents: certificates.len(),
            ..GateSummary::default()
        };
        let (mut total, mut before, mut after) = (0.0, 0.0, 0.0);
        let (mut released_total, mut released_after) = (0.0, 0.0);
        let mut firsts: BTreeMap<String, (usize, usize)> = BTreeMap::new();
        for certificate in certificates {
            match certificate.status {
                Status::Passed => summary.passed += 1,
                Status::Escalated => summary.escalated += 1,
                Status::Capped => {
                    summary.capped += 1;
                    summary.capped_ids.push(certificate.id.clone());
                }
            }
            if let Some(kg) = &certificate.kg {
                summary.kg_objecting_before += usize::from(kg.objections_before > 0);
                summary.kg_objecting_after += usize::from(kg.objections_after > 0);
            }
            summary.rounds += certificate.rounds;
            summary.pruned += certificate.pruned;
            let n = words.get(certificate.id.as_str()).copied().unwrap_or(0) as f64;
            total += n;
            before += n * certificate.words_changed.before;
            after += n * certificate.words_changed.after;
            if certificate.status != Status::Capped {
                released_total += n;
                released_after += n * certificate.words_changed.after;
            }
            if certificate.person_known {
                summary.attacked_documents += 1;
                for (name, outcome) in &certificate.attackers {
                    let entry = firsts.entry(name.clone()).or_default();
                    entry.0 += usize::from(outcome.rank_before == Some(1));
                    entry.1 += usize::from(outcome.rank_after == Some(1));
                }
            }
        }
        let share = |n: usize, of: usize| if of == 0 { 0.0 } else { n as f64 / of as f64 };
        for (name, (b, a)) in firsts {
            summary.trir.insert(
                name,
                Trir {
                    before: share(b, summary.attacked_documents),
                    after: share(a, summary.attacked_documents),
                },
            );
        }
        if total > 0.0 {
            summary.words_changed_before = before / total;
            summary.words_changed_after = after / total;
        }
        if released_total > 0.0 {
            summary.words_changed_released = released_after / released_total;
        }
        summary
    }

    /// The figures as a person reads them (Markdown; ids, never text).
    pub fn render(&self) -> String {
        let mut out = String::from(
            "| documents | passed | escalated | capped |\n| ---: | ---: | ---: | ---: |\n",
        );
        out += &format!(
            "| {} | {} | {} | {} |\n\n",
            self.documents, self.passed, self.escalated, self.capped
        );
        if !self.trir.is_empty() {
            out += "| attacker | TRIR before | TRIR after |\n| --- | ---: | ---: |\n";
            for (name, trir) in &self.trir {
                out += &format!(
                    "| {name} | {:.1} % | {:.1} % |\n",
                    100.0 * trir.before,
                    100.0 * trir.after
                );
            }
            out += &format!(
                "\nTRIR over the {} documents whose person the background knows.\n",
                self.attacked_documents
            );
        }
        out += &format!(
            "The KG attacker objected to {} of {} documents before the gate, {} after.\n",
            self.kg_objecting_before, self.documents, self.kg_objecting_after
        );
        out += &format!(
            "Words changed: {:.1} % before, {:.1} % after ({:.1} % of the released documents' words); {} escalation rounds; {:.2} documents/s.\n",
            100.0 * self.words_changed_before,
            100.0 * self.words_changed_after,
            100.0 * self.words_changed_released,
            self.rounds,
            self.documents_per_second
        );
        if self.pruned > 0 {
            out += &format!(
                "{} of the gate's masks undone once the attackers failed without them.\n",
                self.pruned
            );
        }
        if self.resumed_documents > 0 {
            out += &format!(
                "{} documents finished by an earlier run.\n",
                self.resumed_documents
            );
        }
        if !self.capped_ids.is_empty() {
            out += &format!(
                "Capped, not safe to release: {}\n",
                self.capped_ids.join(", ")
            );
        }
        out
    }
}
