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
    /// kanon's hierarchies do not confirm it (`model_candidates = "verified"`, or `"checked"`
    /// where they know the entity): a model's candidate that may be false.
    Unconfirmed,
    /// It ranks or praises rather than generalizes (`the most prestigious university`).
    Judgement,
    /// It repeats an earlier candidate.
    Duplicate,
    /// More candidates were proposed than the config keeps.
    Surplus,
}

/// One proposed candidate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditCandidate {
    /// The candidate as proposed (before its leading article is lower-cased).
    pub text: String,
    /// Where it came from.
    pub source: CandidateSource,
    /// For a rung of kanon's hierarchies, the table or rule that makes it true (`geonames`,
    /// `un-m49`, `wordnet`, `organization-list`, `award-list`, `stated-kind`, `number`,
    /// `kg-facts`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hierarchy: Option<crate::ontology::RungSource>,
    /// Why it was not kept; `None`: kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rejected: Option<Rejection>,
}

/// One guess of the attacker and the rule by which it recovered the original, if it did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditGuess {
    /// The guess as parsed from the attacker's answer.
    pub text: String,
    /// The rule by which it matched an original; `None`: it recovered nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matched: Option<MatchRule>,
    /// Too long or worded like an instruction: under the strict guess filter it counted as a
    /// recovery without being matched.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub filtered: bool,
}

/// The attack on one candidate: the guesses parsed from the attacker's answer, or the KG
/// attacker's verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditAttack {
    /// Who attacked.
    #[serde(default = "llm")]
    pub attacker: crate::config::Attacker,
    /// The candidate the attacker saw in `[[…]]`.
    pub candidate: String,
    /// The attacker's guesses, in the order given (none from the KG attacker).
    pub guesses: Vec<AuditGuess>,
    /// The KG attacker's verdict: how many people the candidate stands for, and whether it kept
    /// the document k-anonymous.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kg: Option<crate::kg_attack::KgVerdict>,
    /// Whether the attack broke the candidate — a guess recovered the original, or the KG
    /// singled out fewer than k people (the candidate was then not used).
    pub recovered: bool,
}

fn llm() -> crate::config::Attacker {
    crate::config::Attacker::Llm
}

/// One mention as it stood in the original.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditMention {
    /// First character of the mention in the original text.
    pub start: usize,
    /// One past its last character.
    pub end: usize,
    /// The mention's text in the original.
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
    /// The type of most of its mentions; it decides the path (labels for PERSON and CODE, the
    /// ladder for dates).
    #[serde(rename = "type")]
    pub entity_type: EntityType,
    /// Its mentions in document order, propagated repeats included.
    pub mentions: Vec<AuditMention>,
    /// Proposed candidates in the order proposed, kept ones most specific first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub candidates: Vec<AuditCandidate>,
    /// INTACT's attacks, one per candidate tried, until one was not recovered.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attacks: Vec<AuditAttack>,
    /// The replacement before rendering (articles and capitals are the renderer's).
    pub replacement: String,
    /// 1-based rank of the chosen candidate among the kept ones; `None` for a label, a deletion
    /// or a substitute.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub choice: Option<usize>,
    /// Why the entity got its replacement.
    pub reason: Reason,
}

/// The audit of one document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditDocument {
    /// The document's id, as in the input.
    pub id: String,
    /// Its entities in order of first mention.
    pub entities: Vec<AuditEntity>,
}
