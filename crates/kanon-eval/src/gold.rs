//! The gold a detector is scored against: each document's mentions to mask, one set per
//! annotator (`io::read_gold` reads them from TAB's files).

use kanon_core::tab::IdentifierType;
use kanon_core::{EntityType, Span};

/// A mention to mask.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GoldMention {
    /// Character offsets into the document's text.
    pub span: Span,
    /// DIRECT or QUASI, when the gold says (TAB-schema gold does; the system format does not).
    pub identifier: Option<IdentifierType>,
    /// Mentions of one entity share it.
    pub entity: Option<String>,
    /// The annotators' type (TAB's `entity_type`), when the gold has one.
    pub entity_type: Option<EntityType>,
}

/// A document with each annotator's mentions to mask.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GoldDocument {
    /// The document's id, as the predictions name it.
    pub id: String,
    /// Its text; `None` for the system format, which has none, when the documents were not given.
    pub text: Option<String>,
    /// Each annotator's mentions to mask: a gold set per annotator.
    pub annotators: Vec<Vec<GoldMention>>,
    /// Mentions the annotators marked and left unmasked (TAB's `NO_MASK`), all annotators: not
    /// scored, but a predicted span on one is a false positive.
    pub unmasked_mentions: usize,
}
