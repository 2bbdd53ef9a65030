//! The Text Anonymization Benchmark's own metrics, as its official evaluation script defines them
//! (Pilán et al., 2022; the script is not part of kanon — these are written afresh from its
//! definitions):
//!
//! - **entity-level recall** on direct (ER_di) and quasi (ER_qi) identifiers: an entity counts as
//!   protected only when every mention of it that needs masking is masked;
//! - **token- and mention-level recall**, also by entity type: every mention of an entity that
//!   needs masking counts (its tokens, for the token level);
//! - **uniform precision**, token- and mention-level: each masked token counts once per annotator
//!   of the document, and is right for each annotator who masked a span covering it;
//! - **information-weighted precision** (with a language model, [`evaluate_tab_weighted`]): the
//!   token-level precision with each masked token weighted by its information content. The
//!   script weighs a token by −log p of BERT's prediction with every system mask masked; here the
//!   weight is the token's surprisal under a causal LM given the original text before it (the
//!   embedded SmolLM2 by default), so the figure is the same measure with another estimator.
//!
//! A mention is masked when every character of it is covered by a predicted span, ignoring
//! spaces and punctuation (`CHARACTERS_TO_IGNORE`), a few tokens (`mr`, `mrs`, `no`, `about`, …)
//! and tokens of the parts of speech ADP, PART, CCONJ and DET. The script tags parts of speech
//! with spaCy; kanon recognises those closed classes from word lists ([`ignorable_word`]), the
//! one approximation here (docs/evaluation.md gives its effect against the script).
//!
//! Several annotators: each annotator's entities are entities of their own (recall is a micro
//! average over annotators), and precision counts each masked token once per annotator. As in
//! the script, the documents scored are those of the predictions; a predicted document that is
//! not in the gold is an error.
//!
//! ```
//! use kanon_core::Span;
//! use kanon_core::tab::TabDocument;
//! use kanon_eval::tab::evaluate_tab;
//!
//! let gold: Vec<TabDocument> = serde_json::from_str(r#"[{"doc_id": "d1",
//!     "text": "Mr Lilian Albano was born in the city of Vienna.",
//!     "annotations": {"a1": {"entity_mentions": [
//!       {"entity_type": "PERSON", "start_offset": 3, "end_offset": 16, "identifier_type": "DIRECT", "entity_id": "e1"},
//!       {"entity_type": "LOC", "start_offset": 29, "end_offset": 47, "identifier_type": "QUASI", "entity_id": "e2"}]}}}]"#)?;
//! // The name, and "city of Vienna" without "the": "the" is a determiner, so the place is masked.
//! let predicted = [("d1".to_owned(), vec![Span::new(3, 16), Span::new(33, 47)])].into_iter().collect();
//! let report = evaluate_tab(&gold, &predicted)?;
//! assert_eq!((report.entity_recall_direct, report.entity_recall_quasi), (1.0, 1.0));
//! assert_eq!(report.token_precision, 1.0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::{BTreeMap, HashMap};

use kanon_core::Span;
use kanon_core::tab::{IdentifierType, TabDocument};
use rustc_hash::FxHashMap;
use serde::Serialize;

use kanon_llm::score::{SpanInformation, information_content};
use kanon_llm::{ScoredToken, TextScorer};

use crate::error::{Error, Result};

/// Characters never required to be masked.
pub const CHARACTERS_TO_IGNORE: &str = " ,.-;:/&()[]–'\" ’“”";
/// Tokens never required to be masked (lower case).
pub const TOKENS_TO_IGNORE: [&str; 6] = ["mr", "mrs", "ms", "no", "nr", "about"];

/// Determiners (DET), adpositions (ADP), particles (PART) and coordinating conjunctions (CCONJ):
/// the closed classes the script ignores, as word lists (lower case). Possessive pronouns are
/// PRON in spaCy's English models and are not listed.
#[rustfmt::skip]
const CLOSED_CLASS_WORDS: &[&str] = &[
    // DET
    "a", "an", "the", "this", "that", "these", "those", "some", "any", "each", "every", "all",
    "both", "either", "neither", "another", "such", "no",
    // ADP
    "of", "in", "on", "at", "by", "for", "with", "from", "to", "into", "onto", "upon", "about",
    "above", "across", "after", "against", "along", "alongside", "amid", "among", "amongst",
    "around", "as", "before", "behind", "below", "beneath", "beside", "besides", "between",
    "beyond", "despite", "down", "during", "except", "inside", "like", "near", "off", "out",
    "outside", "over", "past", "per", "since", "through", "throughout", "till", "toward",
    "towards", "under", "underneath", "until", "unto", "up", "via", "within", "without", "than",
    "versus", "vs", "vs.",
    // PART
    "not", "n't", "'s", "’s", "s",
    // CCONJ
    "and", "or", "but", "nor", "yet", "plus", "&",
];

/// Whether a token (a word, or one punctuation character) is one the script never requires to
/// be masked: one of [`TOKENS_TO_IGNORE`], or of a closed class (by [`CLOSED_CLASS_WORDS`]).
/// `after_apostrophe` says the token follows an apostrophe (the `s` of a possessive `'s`).
pub fn ignorable_word(token: &str, after_apostrophe: bool) -> bool {
    let lower = token.to_lowercase();
    match lower.as_str() {
        "s" => after_apostrophe,
        // `X v. Y` (a case name); `V.` is an initial.
        "v." => token == "v.",
        // An acronym or a company suffix (`AS`, `IN`), not a closed-class word.
        _ if token.chars().count() > 1 && token.chars().all(char::is_uppercase) => false,
        word => TOKENS_TO_IGNORE.contains(&word) || CLOSED_CLASS_WORDS.contains(&word),
    }
}

/// The metrics of the script, rounded as it rounds them (three decimals) only when rendered.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct TabReport {
    /// Documents scored: those of the predictions.
    pub documents: usize,
    /// Gold documents with no predictions, not scored (as in the script).
    pub unscored_gold_documents: usize,
    /// The most annotators of one document.
    pub annotators: usize,
    /// ER_di: entity-level recall on direct identifiers.
    pub entity_recall_direct: f64,
    /// ER_qi: entity-level recall on quasi identifiers.
    pub entity_recall_quasi: f64,
    /// Entity-level recall on both.
    pub entity_recall_all: f64,
    /// Share of the tokens of mentions to mask that are masked.
    pub token_recall: f64,
    /// Token-level recall by entity type (`PERSON`, `LOC`, …).
    pub token_recall_by_type: BTreeMap<String, f64>,
    /// Share of the mentions to mask that are masked entirely.
    pub mention_recall: f64,
    /// Uniform (unweighted) token-level precision.
    pub token_precision: f64,
    /// Uniform mention-level precision.
    pub mention_precision: f64,
    /// Harmonic mean of the token-level recall and uniform precision.
    pub token_f1: f64,
    /// Token-level precision weighted by information content, when a language model was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token_precision_weighted: Option<f64>,
    /// The model behind the weights.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weighting_model: Option<String>,
}

impl TabReport {
    /// The figures as a person reads them.
    pub fn render(&self) -> String {
        let by_type: Vec<String> = self
            .token_recall_by_type
            .iter()
            .map(|(entity_type, recall)| format!("{entity_type} {recall:.3}"))
            .collect();
        let weighted = match (self.token_precision_weighted, &self.weighting_model) {
            (Some(p), Some(model)) => {
                format!("information-weighted token-level precision {p:.3} (weights: {model})\n")
            }
            _ => String::new(),
        };
        format!(
            "documents {} ({} gold documents without predictions, not scored), at most {} annotators a document\n\
             entity-level recall: direct identifiers (ER_di) {:.3}, quasi identifiers (ER_qi) {:.3}, all {:.3}\n\
             token-level recall {:.3}, mention-level recall {:.3}\n\
             token-level recall by entity type: {}\n\
             uniform precision: token-level {:.3}, mention-level {:.3}; token-level F1 {:.3}\n\
             {}\
             parts of speech ignored (ADP, PART, CCONJ, DET) recognised by closed-class word lists\n",
            self.documents,
            self.unscored_gold_documents,
            self.annotators,
            self.entity_recall_direct,
            self.entity_recall_quasi,
            self.entity_recall_all,
            self.token_recall,
            self.mention_recall,
            by_type.join(", "),
            self.token_precision,
            self.mention_precision,
            self.token_f1,
            weighted,
        )
    }
}

/// An annotator's entity: its mentions, which of them need masking, and its kind (the first
/// mention's identifier type and entity type, as in the script).
#[derive(Debug)]
struct Entity {
    annotator: usize,
    mentions: Vec<Span>,
    masks: Vec<bool>,
    need_masking: bool,
    is_direct: bool,
    entity_type: String,
}

/// A gold document prepared for scoring: its characters, tokens and entities.
#[derive(Debug)]
struct Gold {
    chars: Vec<char>,
    /// Tokens (runs of word characters, or one other visible character), in order.
    tokens: Vec<Span>,
    entities: Vec<Entity>,
    /// Masking mentions of each annotator: `(span, annotator)`.
    masking_mentions: Vec<(Span, usize)>,
    annotators: usize,
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Tokens as spaCy's English tokenizer makes them where it matters here: runs of word characters
/// and single other characters, but a single letter and a few abbreviations keep their period
/// (`A.`, `Mr.`, `Ms.`: spaCy's tokenizer exceptions, which the script then does not ignore;
/// `v.` the adposition, which it does) and a single letter keeps an elided word (`d’Or`).
fn tokenize(chars: &[char]) -> Vec<Span> {
    let word_end = |mut i: usize| {
        while i < chars.len() && is_word_char(chars[i]) {
            i += 1;
        }
        i
    };
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if !is_word_char(chars[i]) {
            if !chars[i].is_whitespace() {
                tokens.push(Span::new(i, i + 1));
            }
            i += 1;
            continue;
        }
        let start = i;
        let mut end = word_end(i);
        let single_letter = end - start == 1 && chars[start].is_alphabetic();
        let before_other_letter = |j: usize| j + 1 < chars.len() && chars[j + 1].is_alphabetic();
        if single_letter
            && end < chars.len()
            && matches!(chars[end], '\'' | '’')
            && before_other_letter(end)
        {
            end = word_end(end + 1);
        } else if end < chars.len() && chars[end] == '.' {
            let word: String = chars[start..end].iter().collect::<String>().to_lowercase();
            if single_letter || matches!(word.as_str(), "mr" | "mrs" | "ms" | "vs") {
                end += 1;
            }
        }
        tokens.push(Span::new(start, end));
        i = end;
    }
    tokens
}

/// Runs of word characters inside `span` (the script's `\w+`), as spans.
fn word_tokens(chars: &[char], span: Span) -> Vec<Span> {
    let end = span.end.min(chars.len());
    let mut tokens = Vec::new();
    let mut start = None;
    for (i, &c) in chars.iter().enumerate().take(end).skip(span.start) {
        match (is_word_char(c), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                tokens.push(Span::new(s, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        tokens.push(Span::new(s, end));
    }
    tokens
}

impl Gold {
    fn new(doc: &TabDocument) -> Self {
        let chars: Vec<char> = doc.text.chars().collect();
        let tokens = tokenize(&chars);
        let mut entities = Vec::new();
        let mut masking_mentions = Vec::new();
        for (annotator, (_, annotation)) in doc.annotations.iter().enumerate() {
            let mut by_id: HashMap<String, usize> = HashMap::new();
            let first = entities.len();
            for (index, mention) in annotation.entity_mentions.iter().enumerate() {
                let id = mention
                    .entity_id
                    .clone()
                    .unwrap_or_else(|| format!("mention-{index}"));
                let masks = mention.identifier_type.to_mask();
                let span = mention.span();
                match by_id.get(&id) {
                    Some(&e) => {
                        let entity: &mut Entity = &mut entities[e];
                        entity.mentions.push(span);
                        entity.masks.push(masks);
                    }
                    None => {
                        by_id.insert(id, entities.len());
                        entities.push(Entity {
                            annotator,
                            mentions: vec![span],
                            masks: vec![masks],
                            need_masking: masks,
                            is_direct: mention.identifier_type == IdentifierType::Direct,
                            entity_type: mention.entity_type.to_string(),
                        });
                    }
                }
            }
            // An entity masked in some mentions and not in others needs masking.
            for entity in &mut entities[first..] {
                if entity.masks.iter().any(|&m| m != entity.need_masking) {
                    entity.need_masking = true;
                }
                if entity.need_masking {
                    for (&span, &masks) in entity.mentions.iter().zip(&entity.masks) {
                        if masks {
                            masking_mentions.push((span, annotator));
                        }
                    }
                }
            }
        }
        let annotators = {
            let mut seen: Vec<usize> = entities.iter().map(|e| e.annotator).collect();
            seen.sort_unstable();
            seen.dedup();
            seen.len()
        };
        Gold {
            chars,
            tokens,
            entities,
            masking_mentions,
            annotators,
        }
    }

    /// Whether every character of `span` is covered by `masked`, but for the characters, tokens
    /// and parts of speech the script ignores.
    fn is_masked(&self, masked: &[bool], span: Span) -> bool {
        let end = span.end.min(self.chars.len());
        let uncovered: Vec<usize> = (span.start..end).filter(|&i| !masked[i]).collect();
        if uncovered.is_empty() {
            return true;
        }
        // Tokens that overlap the span, whole (spaCy's `alignment_mode="expand"`). Tokens are in
        // order and do not overlap: the first is found by bisection.
        let first = self.tokens.partition_point(|t| t.end <= span.start);
        let ignorable: Vec<Span> = self.tokens[first..]
            .iter()
            .take_while(|t| t.start < end)
            .filter(|t| {
                let token: String = self.chars[t.start..t.end].iter().collect();
                let after_apostrophe = t.start > 0 && matches!(self.chars[t.start - 1], '\'' | '’');
                ignorable_word(&token, after_apostrophe)
            })
            .copied()
            .collect();
        uncovered.into_iter().all(|i| {
            CHARACTERS_TO_IGNORE.contains(self.chars[i])
                || ignorable.iter().any(|t| t.start <= i && i < t.end)
        })
    }

    /// Annotators with a masking mention that covers all of `span`.
    fn annotators_covering(&self, span: Span) -> usize {
        let mut annotators: Vec<usize> = self
            .masking_mentions
            .iter()
            .filter(|(m, _)| m.start <= span.start && m.end >= span.end)
            .map(|&(_, a)| a)
            .collect();
        annotators.sort_unstable();
        annotators.dedup();
        annotators.len()
    }
}

#[derive(Default)]
struct Counts {
    entities: [usize; 2],
    protected: [usize; 2],
    tokens_by_type: BTreeMap<String, (usize, usize)>,
    mentions: (usize, usize),
    token_precision: (usize, usize),
    mention_precision: (usize, usize),
    /// Information-weighted token precision: (right, all).
    weighted_precision: (f64, f64),
}

impl Counts {
    /// Counts the entities, mentions and tokens of one document that need masking, and those of
    /// them the predicted `spans` mask.
    fn add_recall(&mut self, gold: &Gold, spans: &[Span]) {
        let mut masked = vec![false; gold.chars.len()];
        for span in spans {
            for covered in masked
                .iter_mut()
                .take(span.end.min(gold.chars.len()))
                .skip(span.start)
            {
                *covered = true;
            }
        }
        for entity in gold.entities.iter().filter(|e| e.need_masking) {
            let kind = usize::from(!entity.is_direct);
            self.entities[kind] += 1;
            let protected = entity
                .mentions
                .iter()
                .zip(&entity.masks)
                .all(|(&mention, &masks)| !masks || gold.is_masked(&masked, mention));
            self.protected[kind] += usize::from(protected);
            let by_type = self
                .tokens_by_type
                .entry(entity.entity_type.clone())
                .or_default();
            for &mention in &entity.mentions {
                self.mentions.1 += 1;
                self.mentions.0 += usize::from(gold.is_masked(&masked, mention));
                for token in word_tokens(&gold.chars, mention) {
                    by_type.1 += 1;
                    by_type.0 += usize::from(gold.is_masked(&masked, token));
                }
            }
        }
    }

    /// Counts the predicted `spans` of one document and their tokens, once per annotator and
    /// right for each annotator who masked them; with `scored` (the original's token scores),
    /// each token also weighted by its information content.
    fn add_precision(&mut self, gold: &Gold, spans: &[Span], scored: Option<&[ScoredToken]>) {
        for &span in spans {
            self.mention_precision.0 += gold.annotators_covering(span);
            self.mention_precision.1 += gold.annotators;
            for token in word_tokens(&gold.chars, span) {
                self.token_precision.0 += gold.annotators_covering(token);
                self.token_precision.1 += gold.annotators;
                if let Some(scored) = scored {
                    let weight = information_content(
                        &gold.chars,
                        scored,
                        token.start,
                        token.end,
                        SpanInformation::Sum,
                    );
                    self.weighted_precision.0 += gold.annotators_covering(token) as f64 * weight;
                    self.weighted_precision.1 += gold.annotators as f64 * weight;
                }
            }
        }
    }
}

fn ratio(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

/// Scores predicted spans (by document id) against TAB-schema gold documents.
pub fn evaluate_tab(
    gold: &[TabDocument],
    predicted: &FxHashMap<String, Vec<Span>>,
) -> Result<TabReport> {
    evaluate_tab_weighted(gold, predicted, None)
}

/// [`evaluate_tab`], and with a language model the information-weighted token precision.
pub fn evaluate_tab_weighted(
    gold: &[TabDocument],
    predicted: &FxHashMap<String, Vec<Span>>,
    scorer: Option<&dyn TextScorer>,
) -> Result<TabReport> {
    let by_id: HashMap<&str, &TabDocument> =
        gold.iter().map(|doc| (doc.doc_id.as_str(), doc)).collect();
    let mut ids: Vec<&String> = predicted.keys().collect();
    ids.sort();
    let mut counts = Counts::default();
    let mut annotators = 0;
    for id in ids {
        let doc = by_id
            .get(id.as_str())
            .ok_or_else(|| Error::UnknownDocument { id: id.clone() })?;
        let gold = Gold::new(doc);
        annotators = annotators.max(gold.annotators);
        let spans = &predicted[id];
        counts.add_recall(&gold, spans);
        let scored = match scorer {
            Some(scorer) if !spans.is_empty() => Some(scorer.token_logprobs(&doc.text).map_err(
                |source| Error::Scorer {
                    id: id.clone(),
                    source,
                },
            )?),
            _ => None,
        };
        counts.add_precision(&gold, spans, scored.as_deref());
    }
    let (masked_tokens, tokens) = counts
        .tokens_by_type
        .values()
        .fold((0, 0), |(m, t), &(bm, bt)| (m + bm, t + bt));
    let token_recall = ratio(masked_tokens, tokens);
    let token_precision = ratio(counts.token_precision.0, counts.token_precision.1);
    let scored = predicted
        .keys()
        .filter(|id| by_id.contains_key(id.as_str()))
        .count();
    Ok(TabReport {
        documents: scored,
        unscored_gold_documents: gold.len().saturating_sub(scored),
        annotators,
        entity_recall_direct: ratio(counts.protected[0], counts.entities[0]),
        entity_recall_quasi: ratio(counts.protected[1], counts.entities[1]),
        entity_recall_all: ratio(
            counts.protected[0] + counts.protected[1],
            counts.entities[0] + counts.entities[1],
        ),
        token_recall,
        token_recall_by_type: counts
            .tokens_by_type
            .into_iter()
            .map(|(entity_type, (m, t))| (entity_type, ratio(m, t)))
            .collect(),
        mention_recall: ratio(counts.mentions.0, counts.mentions.1),
        token_precision,
        mention_precision: ratio(counts.mention_precision.0, counts.mention_precision.1),
        token_f1: if token_precision + token_recall > 0.0 {
            2.0 * token_precision * token_recall / (token_precision + token_recall)
        } else {
            0.0
        },
        token_precision_weighted: scorer.map(|_| {
            let (right, all) = counts.weighted_precision;
            if all > 0.0 { right / all } else { 0.0 }
        }),
        weighting_model: scorer.map(|s| {
            let id = s.id();
            format!(
                "{} {} (causal LM surprisal given the text before)",
                id.backend, id.model
            )
        }),
    })
}
