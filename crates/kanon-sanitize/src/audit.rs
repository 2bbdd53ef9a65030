//! The audit of a sanitization: every entity's original mentions, the candidates proposed for it
//! (kept or rejected, and where each came from), and every guess of the inference attack. It is
//! as sensitive as the input — it holds the originals and what an attacker recovered from the
//! output — so it is written only when asked (`kanon sanitize --audit FILE`), to its own file,
//! never beside the shareable `{"id","text","edits"}` output.

use kanon_core::EntityType;
use serde::{Deserialize, Serialize};

use crate::edit::Reason;
use crate::matching::MatchRule;

/// Where a candidate came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CandidateSource {
    /// The language model's generalizations.
    Model,
    /// The rule-based date ladder.
    DateLadder,
    /// kanon's hierarchies (GeoNames cities, countries and their UN regions, demonyms,
    /// organisation kinds): true by construction.
    KnowledgeGraph,
}

/// Why a proposed candidate was not kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rejection {
    /// It contains a masked mention of the document, or a distinctive word of one (a surname, a
    /// capitalised name part, a number).
    RevealsOriginal,
    /// It repeats the prompt's worked example.
    CopiesExample,
    /// It repeats the request's own wording (`data`), not a description of the phrase.
    EchoesInstructions,
    /// It ends in a preposition, an article or a conjunction.
    Unfinished,
    /// It repeats an earlier candidate.
    Duplicate,
    /// More candidates were proposed than the config keeps.
    Surplus,
}

/// One proposed candidate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditCandidate {
    pub text: String,
    pub source: CandidateSource,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rejected: Option<Rejection>,
}

/// One guess of the attacker and the rule by which it recovered the original, if it did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditGuess {
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matched: Option<MatchRule>,
    /// Too long or worded like an instruction: under the strict guess filter it counted as a
    /// recovery without being matched.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub filtered: bool,
}

/// The attack on one candidate: the guesses parsed from the attacker's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditAttack {
    pub candidate: String,
    pub guesses: Vec<AuditGuess>,
    /// Whether a guess recovered the original (the candidate was then not used).
    pub recovered: bool,
}

/// One mention as it stood in the original.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditMention {
    pub start: usize,
    pub end: usize,
    pub text: String,
    /// Not among the given spans: a repeat of a masked mention's text or surface form.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub propagated: bool,
}

/// Everything decided about one entity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditEntity {
    /// `ORG 2`, as in the shareable edits.
    pub entity: String,
    #[serde(rename = "type")]
    pub entity_type: EntityType,
    pub mentions: Vec<AuditMention>,
    /// Proposed candidates in the order proposed, kept ones most specific first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub candidates: Vec<AuditCandidate>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attacks: Vec<AuditAttack>,
    /// The replacement before rendering (articles and capitals are the renderer's).
    pub replacement: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub choice: Option<usize>,
    pub reason: Reason,
}

/// The audit of one document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditDocument {
    pub id: String,
    pub entities: Vec<AuditEntity>,
}
