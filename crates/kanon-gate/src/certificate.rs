//! The certificate of one document: shareable, like the sanitized text it travels with — counts,
//! ranks, entity labels (`LOC 2`) and character offsets into the output, never an original
//! string.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use crate::kg::OutputSpan;

/// What the gate concluded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Every attacker failed on the sanitizer's output as it was.
    Passed,
    /// Every attacker failed after the gate's escalations.
    Escalated,
    /// An attacker still succeeds: the masking cap, the rounds or the means of escalation ran
    /// out. Not safe to release.
    Capped,
}

impl Status {
    /// Its name in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Passed => "passed",
            Status::Escalated => "escalated",
            Status::Capped => "capped",
        }
    }
}

/// Why a document was capped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CapReason {
    /// The next escalation would have changed more than `max_words_changed` of the words.
    MaskingCap,
    /// `max_rounds` escalations were made.
    Rounds,
    /// Nothing left to escalate: every entity at its label and no word the attackers lean on.
    NothingLeft,
    /// BM25 would still name the person whatever the gate masked within the cap: its lead over
    /// every other candidate is more than the maskable words left could take (checked each
    /// round, [`GateConfig::cap_out_of_reach`](crate::GateConfig::cap_out_of_reach)).
    OutOfReach,
}

/// One escalation, in the order made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Escalation {
    /// An entity kept from its more specific candidates.
    Rung {
        /// The round it was made in (1: the first escalation).
        round: usize,
        /// The attacker that asked for it (`kg`).
        by: String,
        /// The entity (`LOC 2`), as the edits name it.
        entity: String,
        /// The 1-based candidate it had; none for a label.
        from: Option<usize>,
        /// The candidate it may take at most now; none: its label.
        to: Option<usize>,
    },
    /// Words masked.
    Mask {
        /// The round it was made in.
        round: usize,
        /// The attacker that asked for it (`kg`, or `ensemble`: the re-identification attackers
        /// together).
        by: String,
        /// Where the words' masks stand in the certified output.
        words: Vec<OutputSpan>,
    },
}

/// The KG attacker's figures.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KgCertificate {
    /// The k checked for.
    pub k: u64,
    /// The largest combination checked.
    pub max_arity: usize,
    /// KG terms Algorithm 1 objected to in the sanitizer's output.
    pub objections_before: usize,
    /// And in the certified output (0 unless capped).
    pub objections_after: usize,
    /// The smallest non-zero number of people the certified output's KG terms fit (any
    /// combination up to `max_arity`); none: it names no KG fact anyone has.
    pub k_reached: Option<u64>,
    /// Where the terms of the combination that bound it stand in the output.
    pub binding: Vec<OutputSpan>,
}

/// One re-identification attacker's outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttackerOutcome {
    /// The person's rank among its guesses on the sanitizer's output (1: first); none when the
    /// person is unknown, beyond the recorded depth or not nameable at all.
    pub rank_before: Option<usize>,
    /// On the certified output.
    pub rank_after: Option<usize>,
    /// Whether it succeeded on the sanitizer's output (the person within its first `top_k`, or,
    /// the person unknown, its first candidate standing out by the margin).
    pub succeeded_before: bool,
    /// On the certified output.
    pub succeeded_after: bool,
}

/// Share of the original's words changed.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct WordsChanged {
    /// By the sanitizer.
    pub before: f64,
    /// In the certified output.
    pub after: f64,
}

/// A document's certificate: a line of the certificates JSONL.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Certificate {
    /// The document's id.
    pub id: String,
    /// Passed, escalated or capped.
    pub status: Status,
    /// Why, when capped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capped: Option<CapReason>,
    /// Escalation rounds made.
    pub rounds: usize,
    /// Whether the document's person is in the background (ranks are recorded only then).
    pub person_known: bool,
    /// The KG attacker's figures, when it ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kg: Option<KgCertificate>,
    /// Each re-identification attacker's, by name, and `ensemble` (any of them) when several.
    pub attackers: BTreeMap<String, AttackerOutcome>,
    /// What was done, in order (the masks pruning undid are not listed).
    pub escalations: Vec<Escalation>,
    /// Masks the gate made and then undid, every attacker failing without them.
    #[serde(default)]
    pub pruned: usize,
    /// Words changed before and after.
    pub words_changed: WordsChanged,
}
