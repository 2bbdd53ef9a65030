//! The shareable record of a sanitization: the sanitized text, and per replaced span an edit
//! saying where it was, what stands in its place and why. It names no original, candidate or
//! guess (those are the audit's, `audit::AuditDocument`), so it can travel with the text.

use kanon_core::EntityType;
use serde::{Deserialize, Serialize};

/// Why a span got its replacement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reason {
    /// The `suppress` strategy.
    Suppressed,
    /// The `placeholder` strategy.
    Placeholder,
    /// The `label` strategy.
    Label,
    /// The `numbered-label` strategy.
    NumberedLabel,
    /// A PERSON or CODE span under a generalizing strategy: a label, never a generated name.
    DirectIdentifier,
    /// The `most-specific` strategy: the first candidate.
    MostSpecific,
    /// The `least-specific` strategy: the last candidate.
    LeastSpecific,
    /// INTACT: the first candidate none of whose guesses matched the original.
    NotGuessed,
    /// INTACT: the attacker recovered the original from every candidate; the type label is used.
    AllGuessed,
    /// No usable candidate (none parsed, or all contained an original); the type label is used.
    NoCandidates,
    /// The `substitute` strategy: neighbours in meaning, numbers with other digits.
    Substituted,
    /// A release gate ruled out every candidate of the entity; the type label is used.
    Escalated,
    /// Not a detected span: a release gate masked the word (an attacker leaned on it); the
    /// placeholder is used.
    Masked,
    /// Every mention of the entity modifies the noun after it (`an Oslo suburb`) or follows the
    /// noun that names its kind (`the rock band …`): left out, what remains is true of it and
    /// more general (`a suburb`, `the rock band`). A generalizing strategy's choice where no
    /// phrase need stand in its place (`read_context`).
    Dropped,
}

/// The replacement of one span, with how it was chosen: offsets, type, replacement and reason
/// only — never an original, a candidate or a guess (those go to the audit).
/// Offsets are characters of the original text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Edit {
    /// First character of the span in the original text.
    pub start: usize,
    /// One past its last character.
    pub end: usize,
    /// The span's type as detected (or given); its entity's type may differ.
    pub original_type: EntityType,
    /// The entity the span belongs to in this document (`ORG 2`); its mentions share one
    /// replacement.
    pub entity: String,
    /// The text written in place of the span, as rendered (`a`/`an`, a capital opening a
    /// sentence; empty for a deletion).
    pub replacement: String,
    /// 1-based rank of the chosen candidate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub choice: Option<usize>,
    /// Why the span got its replacement.
    pub reason: Reason,
    /// Not among the given spans: a repeat of a masked mention's text, or of another surface
    /// form of its entity (a surname alone), masked with the entity.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub propagated: bool,
}

/// A sanitized document: `{"id","text","edits"}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SanitizedDocument {
    /// The document's id, as in the input.
    pub id: String,
    /// The sanitized text.
    pub text: String,
    /// One edit per replaced span, in the order of the spans in the original.
    pub edits: Vec<Edit>,
}
