//! The sanitizer: groups a document's mentions, proposes candidates per entity (labels for direct
//! identifiers, the date ladder, or the model's generalizations), selects one per the strategy —
//! for INTACT, by inference attack — and writes the sanitized text with an edit log per span.

use kanon_core::EntityType;
use kanon_llm::{ChatModel, ChatRequest, Message};
use serde::{Deserialize, Serialize};

use crate::config::{DirectStyle, SanitizerConfig, Strategy};
use crate::date::parse_date;
use crate::error::{Error, Result};
use crate::group::{EntityGroup, Mention, group_mentions};
use crate::matching::{MatchConfig, MatchRule, guess_matches};
use crate::parse::{PhraseLimits, contains_phrase, parse_phrase_list};
use crate::prompt;
use crate::render::{Replacement, render};

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
}

/// The replacement of one span, with how it was chosen. Offsets are characters of the original
/// text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Edit {
    pub start: usize,
    pub end: usize,
    pub original_type: EntityType,
    /// The entity the span belongs to in this document (`ORG 2`); its mentions share one edit.
    pub entity: String,
    /// The phrase written in place of the span (before `a`/`an` and preposition touch-ups).
    pub replacement: String,
    /// The candidates, most specific first (empty for labels).
    pub candidates: Vec<String>,
    /// The attacker's guesses for each candidate tried, in order. Unless the config logs matched
    /// guesses, a guess that matched the original is written as `[matched: RULE]` and one that
    /// names another masked span of the document as `[redacted]`.
    pub guesses: Vec<Vec<String>>,
    /// 1-based rank of the chosen candidate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub choice: Option<usize>,
    pub reason: Reason,
}

/// A sanitized document: `{"id","text","edits"}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SanitizedDocument {
    pub id: String,
    pub text: String,
    pub edits: Vec<Edit>,
}

/// Counts of one or more sanitized documents; [`SanitizeStats::add`] sums them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SanitizeStats {
    pub documents: u64,
    pub spans: u64,
    pub entities: u64,
    /// Spans dropped because they overlapped an earlier span.
    pub overlapping_spans: u64,
    /// Spans replaced by a baseline strategy (suppress, placeholder, labels).
    pub masked_spans: u64,
    /// PERSON and CODE spans replaced by labels under a generalizing strategy.
    pub direct_spans: u64,
    /// `chosen[i]`: spans that took candidate `i + 1`.
    pub chosen: Vec<u64>,
    /// Spans whose every candidate the attacker recovered (type label used).
    pub all_guessed_spans: u64,
    /// Spans with no usable candidate (type label used).
    pub no_candidate_spans: u64,
    /// Date entities whose candidates came from the rule-based ladder.
    pub ladder_entities: u64,
    /// Candidates the model proposed that were dropped: they contained an original span, copied
    /// the prompt's example, or were unfinished (`the head of the government of`).
    pub rejected_candidates: u64,
    pub generation_calls: u64,
    pub attack_calls: u64,
}

impl SanitizeStats {
    pub fn add(&mut self, other: &SanitizeStats) {
        self.documents += other.documents;
        self.spans += other.spans;
        self.entities += other.entities;
        self.overlapping_spans += other.overlapping_spans;
        self.masked_spans += other.masked_spans;
        self.direct_spans += other.direct_spans;
        if self.chosen.len() < other.chosen.len() {
            self.chosen.resize(other.chosen.len(), 0);
        }
        for (total, count) in self.chosen.iter_mut().zip(&other.chosen) {
            *total += count;
        }
        self.all_guessed_spans += other.all_guessed_spans;
        self.no_candidate_spans += other.no_candidate_spans;
        self.ladder_entities += other.ladder_entities;
        self.rejected_candidates += other.rejected_candidates;
        self.generation_calls += other.generation_calls;
        self.attack_calls += other.attack_calls;
    }

    pub fn llm_calls(&self) -> u64 {
        self.generation_calls + self.attack_calls
    }

    /// Spans that went through candidate selection: chose a candidate or fell back to a label.
    pub fn selected_spans(&self) -> u64 {
        self.chosen.iter().sum::<u64>() + self.all_guessed_spans + self.no_candidate_spans
    }

    fn count_choice(&mut self, rank: usize) {
        if self.chosen.len() <= rank {
            self.chosen.resize(rank + 1, 0);
        }
        self.chosen[rank] += 1;
    }
}

/// A sanitized document and the counts of its sanitization.
#[derive(Debug, Clone, PartialEq)]
pub struct Sanitized {
    pub document: SanitizedDocument,
    pub stats: SanitizeStats,
}

/// One entity's decision.
#[derive(Debug, Clone)]
struct Plan {
    replacement: String,
    candidates: Vec<String>,
    guesses: Vec<Vec<String>>,
    choice: Option<usize>,
    reason: Reason,
    /// Awaiting selection by inference attack.
    pending: bool,
}

impl Plan {
    fn fixed(replacement: String, reason: Reason) -> Self {
        Plan {
            replacement,
            candidates: Vec::new(),
            guesses: Vec::new(),
            choice: None,
            reason,
            pending: false,
        }
    }
}

/// Sanitizes documents with one config and (for the generalizing strategies) one model.
#[derive(Clone)]
pub struct Sanitizer<'m> {
    config: SanitizerConfig,
    model: Option<&'m dyn ChatModel>,
}

impl std::fmt::Debug for Sanitizer<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sanitizer")
            .field("config", &self.config)
            .field("model", &self.model.map(|model| model.id()))
            .finish()
    }
}

impl<'m> Sanitizer<'m> {
    /// A sanitizer without a model: enough for the masking strategies, and for generalizing
    /// documents whose spans are all direct identifiers or parseable dates.
    pub fn new(config: SanitizerConfig) -> Result<Self> {
        config.validate()?;
        Ok(Sanitizer {
            config,
            model: None,
        })
    }

    /// Uses `model` for generalizations and attacks.
    pub fn with_model(mut self, model: &'m dyn ChatModel) -> Self {
        self.model = Some(model);
        self
    }

    pub fn config(&self) -> &SanitizerConfig {
        &self.config
    }

    /// Sanitizes one document's `mentions` (character offsets into `text`, any order; a span
    /// overlapping an earlier one is dropped and counted).
    pub fn sanitize(&self, id: &str, text: &str, mentions: &[Mention]) -> Result<Sanitized> {
        let mut stats = SanitizeStats {
            documents: 1,
            ..SanitizeStats::default()
        };
        let mentions = prepare_mentions(id, text, mentions, &mut stats)?;
        let groups = group_mentions(text, &mentions);
        let surfaces: Vec<String> = mentions
            .iter()
            .map(|mention| mention.span.slice(text).unwrap_or("").to_owned())
            .collect();
        let mut plans = Vec::with_capacity(groups.len());
        for group in &groups {
            plans.push(self.initial_plan(text, group, &mentions, &surfaces, &mut stats)?);
        }
        if self.config.strategy == Strategy::Intact {
            self.select_by_attack(text, &groups, &mentions, &surfaces, &mut plans, &mut stats)?;
        }
        let replacements = replacements(&groups, &mentions, &plans, None);
        let sanitized_text = render(text, &replacements);
        let mut edits = Vec::with_capacity(mentions.len());
        for (group, plan) in groups.iter().zip(&plans) {
            for &index in &group.mentions {
                stats.spans += 1;
                match plan.reason {
                    Reason::Suppressed
                    | Reason::Placeholder
                    | Reason::Label
                    | Reason::NumberedLabel => stats.masked_spans += 1,
                    Reason::DirectIdentifier => stats.direct_spans += 1,
                    Reason::AllGuessed => stats.all_guessed_spans += 1,
                    Reason::NoCandidates => stats.no_candidate_spans += 1,
                    Reason::MostSpecific | Reason::LeastSpecific | Reason::NotGuessed => {
                        if let Some(choice) = plan.choice {
                            stats.count_choice(choice - 1);
                        }
                    }
                }
                edits.push(Edit {
                    start: mentions[index].span.start,
                    end: mentions[index].span.end,
                    original_type: mentions[index].entity_type,
                    entity: group.label(),
                    replacement: plan.replacement.clone(),
                    candidates: plan.candidates.clone(),
                    guesses: plan.guesses.clone(),
                    choice: plan.choice,
                    reason: plan.reason,
                });
            }
        }
        edits.sort_by_key(|edit| edit.start);
        stats.entities = groups.len() as u64;
        Ok(Sanitized {
            document: SanitizedDocument {
                id: id.to_owned(),
                text: sanitized_text,
                edits,
            },
            stats,
        })
    }

    fn direct_label(&self, group: &EntityGroup) -> String {
        match self.config.direct_style {
            DirectStyle::NumberedLabel => group.label(),
            DirectStyle::Placeholder => self.config.placeholder.clone(),
            DirectStyle::Description => match group.entity_type {
                EntityType::Code => "the code".to_owned(),
                _ => "the person".to_owned(),
            },
        }
    }

    fn initial_plan(
        &self,
        text: &str,
        group: &EntityGroup,
        mentions: &[Mention],
        surfaces: &[String],
        stats: &mut SanitizeStats,
    ) -> Result<Plan> {
        let plan = match self.config.strategy {
            Strategy::Suppress => Plan::fixed(String::new(), Reason::Suppressed),
            Strategy::Placeholder => {
                Plan::fixed(self.config.placeholder.clone(), Reason::Placeholder)
            }
            Strategy::Label => Plan::fixed(group.entity_type.to_string(), Reason::Label),
            Strategy::NumberedLabel => Plan::fixed(group.label(), Reason::NumberedLabel),
            Strategy::MostSpecific | Strategy::LeastSpecific | Strategy::Intact => {
                if matches!(group.entity_type, EntityType::Person | EntityType::Code) {
                    return Ok(Plan::fixed(
                        self.direct_label(group),
                        Reason::DirectIdentifier,
                    ));
                }
                let candidates = self.candidates(text, group, mentions, surfaces, stats)?;
                let (Some(first), Some(last)) = (candidates.first(), candidates.last()) else {
                    return Ok(Plan::fixed(group.label(), Reason::NoCandidates));
                };
                let (replacement, choice, reason) = match self.config.strategy {
                    Strategy::LeastSpecific => {
                        (last.clone(), Some(candidates.len()), Reason::LeastSpecific)
                    }
                    Strategy::MostSpecific => (first.clone(), Some(1), Reason::MostSpecific),
                    // Until its turn comes, an entity shows the attacker its most specific candidate.
                    _ => (first.clone(), None, Reason::NotGuessed),
                };
                Plan {
                    replacement,
                    pending: self.config.strategy == Strategy::Intact,
                    candidates,
                    guesses: Vec::new(),
                    choice,
                    reason,
                }
            }
        };
        Ok(plan)
    }

    /// Candidates of a non-direct entity, most specific first: the date ladder when a rule parses
    /// the date, else the model's generalizations, strictly parsed and filtered.
    fn candidates(
        &self,
        text: &str,
        group: &EntityGroup,
        mentions: &[Mention],
        surfaces: &[String],
        stats: &mut SanitizeStats,
    ) -> Result<Vec<String>> {
        let Some(&representative) = group
            .mentions
            .iter()
            .max_by_key(|&&index| (surfaces[index].chars().count(), std::cmp::Reverse(index)))
        else {
            return Ok(Vec::new());
        };
        let surface = &surfaces[representative];
        let proposed =
            match parse_date(surface).filter(|_| group.entity_type == EntityType::Datetime) {
                Some(date) => {
                    stats.ladder_entities += 1;
                    date.ladder(self.config.candidates)
                }
                None => {
                    let span = mentions[representative].span;
                    let sentence = prompt::sentence_around(text, span.start, span.end, 400);
                    let messages = prompt::generalization_messages(
                        group.entity_type,
                        self.config.candidates,
                        &sentence,
                        surface,
                    );
                    let answer = self.ask(messages, group.entity_type)?;
                    stats.generation_calls += 1;
                    // Parse a few more than needed: some will be filtered out below.
                    parse_phrase_list(&answer, &self.limits(self.config.candidates * 2))
                }
            };
        let own: Vec<&str> = group
            .mentions
            .iter()
            .map(|&index| surfaces[index].as_str())
            .collect();
        let mut kept: Vec<String> = Vec::new();
        for candidate in proposed {
            if reveals_original(&candidate, &own, surfaces)
                || prompt::copies_example(group.entity_type, &candidate)
                || is_unfinished(&candidate)
            {
                stats.rejected_candidates += 1;
                continue;
            }
            let candidate = lowercase_article(&candidate);
            if !kept.iter().any(|k| k.eq_ignore_ascii_case(&candidate)) {
                kept.push(candidate);
            }
        }
        kept.truncate(self.config.candidates);
        Ok(kept)
    }

    fn limits(&self, max_items: usize) -> PhraseLimits {
        PhraseLimits {
            max_items,
            max_chars: self.config.max_phrase_chars,
            max_words: self.config.max_phrase_words,
        }
    }

    fn ask(&self, messages: Vec<Message>, entity_type: EntityType) -> Result<String> {
        let model = self.model.ok_or(Error::ModelRequired {
            strategy: self.config.strategy.as_str(),
            entity_type,
        })?;
        let request = ChatRequest::new(messages)
            .temperature(self.config.temperature)
            .max_tokens(self.config.max_tokens)
            .seed(self.config.seed);
        let response = model.chat(&request)?;
        Ok(response
            .choices
            .into_iter()
            .next()
            .map(|choice| choice.text)
            .unwrap_or_default())
    }

    /// INTACT's selection, entity by entity in document order: the attacker sees the current
    /// sanitized document (entities before this one with their chosen replacement, those after
    /// with their most specific candidate) with the candidate in `[[…]]`; the first candidate none
    /// of whose guesses matches the original wins, and the type label when every one is guessed.
    fn select_by_attack(
        &self,
        text: &str,
        groups: &[EntityGroup],
        mentions: &[Mention],
        surfaces: &[String],
        plans: &mut [Plan],
        stats: &mut SanitizeStats,
    ) -> Result<()> {
        let quoted = prompt::quote_data(text);
        let match_config = MatchConfig {
            ngram_threshold: self.config.ngram_threshold,
            ignore_candidate_words: self.config.ignore_candidate_words,
        };
        for (index, group) in groups.iter().enumerate() {
            if !plans[index].pending {
                continue;
            }
            let mut originals: Vec<&str> = group
                .mentions
                .iter()
                .map(|&mention| surfaces[mention].as_str())
                .collect();
            originals.sort_unstable();
            originals.dedup();
            let candidates = plans[index].candidates.clone();
            let mut guesses_log = Vec::new();
            let mut chosen = None;
            for (rank, candidate) in candidates.iter().enumerate() {
                let shown = replacements(groups, mentions, plans, Some((index, candidate)));
                let document = prompt::attack_window(
                    &render(&quoted, &shown),
                    self.config.attack_context_chars,
                );
                let answer = self.ask(
                    prompt::attack_messages(self.config.attacker_guesses, &document),
                    group.entity_type,
                )?;
                stats.attack_calls += 1;
                let guesses =
                    parse_phrase_list(&answer, &self.limits(self.config.attacker_guesses));
                let mut recovered = false;
                let mut logged = Vec::with_capacity(guesses.len());
                for guess in guesses {
                    let rule = originals.iter().find_map(|original| {
                        guess_matches(
                            original,
                            &guess,
                            group.entity_type,
                            candidate,
                            &match_config,
                        )
                    });
                    match rule {
                        Some(rule) => {
                            recovered = true;
                            logged.push(if self.config.log_matched_guesses {
                                guess
                            } else {
                                format!("[matched: {}]", rule_name(rule))
                            });
                        }
                        // A guess may name another masked span: the log must not carry it.
                        None if !self.config.log_matched_guesses
                            && reveals_original(&guess, &[], surfaces) =>
                        {
                            logged.push("[redacted]".to_owned());
                        }
                        None => logged.push(guess),
                    }
                }
                guesses_log.push(logged);
                if !recovered {
                    chosen = Some(rank);
                    break;
                }
            }
            let plan = &mut plans[index];
            plan.pending = false;
            plan.guesses = guesses_log;
            match chosen {
                Some(rank) => {
                    plan.replacement = candidates[rank].clone();
                    plan.choice = Some(rank + 1);
                    plan.reason = Reason::NotGuessed;
                }
                None => {
                    plan.replacement = group.label();
                    plan.choice = None;
                    plan.reason = Reason::AllGuessed;
                }
            }
        }
        Ok(())
    }
}

fn rule_name(rule: MatchRule) -> &'static str {
    match rule {
        MatchRule::Exact => "exact",
        MatchRule::Lemma => "lemma",
        MatchRule::CharNgram => "char-4-gram",
        MatchRule::Acronym => "acronym",
        MatchRule::Date => "date",
    }
}

/// Whether a candidate discloses an original: it contains one of the entity's own mentions (as
/// words, or as a substring of four characters or more: `Kodnanis`), or any masked span of the
/// document as words.
fn reveals_original(candidate: &str, own: &[&str], all: &[String]) -> bool {
    let folded = kanon_core::text::words(candidate).join(" ");
    own.iter().any(|original| {
        let original = kanon_core::text::words(original).join(" ");
        original.chars().count() >= 4 && folded.contains(&original)
    }) || all
        .iter()
        .any(|original| contains_phrase(candidate, original))
}

/// A phrase cut off in the middle: it ends in a preposition, an article or a conjunction
/// (`the head of the government of`).
fn is_unfinished(candidate: &str) -> bool {
    const DANGLING: &[&str] = &[
        "of", "the", "a", "an", "in", "on", "at", "for", "to", "and", "or", "with", "by", "from",
    ];
    candidate
        .split_whitespace()
        .last()
        .is_some_and(|last| DANGLING.contains(&last.to_lowercase().as_str()))
}

/// `The head of …` → `the head of …`: candidates go mid-sentence; the renderer capitalises a
/// replacement that opens a sentence.
fn lowercase_article(candidate: &str) -> String {
    for article in ["The ", "A ", "An "] {
        if let Some(rest) = candidate.strip_prefix(article) {
            return format!("{}{rest}", article.to_lowercase());
        }
    }
    candidate.to_owned()
}

/// Validates, sorts and de-overlaps the mentions.
fn prepare_mentions(
    id: &str,
    text: &str,
    mentions: &[Mention],
    stats: &mut SanitizeStats,
) -> Result<Vec<Mention>> {
    let chars = text.chars().count();
    let mut sorted = mentions.to_vec();
    for mention in &sorted {
        if mention.span.start >= mention.span.end || mention.span.end > chars {
            return Err(Error::InvalidSpan {
                document: id.to_owned(),
                start: mention.span.start,
                end: mention.span.end,
                chars,
            });
        }
    }
    sorted.sort_by_key(|mention| (mention.span.start, std::cmp::Reverse(mention.span.end)));
    let mut kept: Vec<Mention> = Vec::with_capacity(sorted.len());
    for mention in sorted {
        if kept
            .last()
            .is_some_and(|last| last.span.overlaps(&mention.span))
        {
            stats.overlapping_spans += 1;
            continue;
        }
        kept.push(mention);
    }
    Ok(kept)
}

/// Every mention's current replacement; `attacked` puts a candidate of one entity in `[[…]]`.
fn replacements(
    groups: &[EntityGroup],
    mentions: &[Mention],
    plans: &[Plan],
    attacked: Option<(usize, &String)>,
) -> Vec<Replacement> {
    let mut replacements: Vec<Replacement> = Vec::with_capacity(mentions.len());
    for (index, (group, plan)) in groups.iter().zip(plans).enumerate() {
        let (text, bracketed) = match attacked {
            Some((attacked, candidate)) if attacked == index => (candidate.clone(), true),
            _ => (plan.replacement.clone(), false),
        };
        for &mention in &group.mentions {
            replacements.push(Replacement {
                start: mentions[mention].span.start,
                end: mentions[mention].span.end,
                entity_type: group.entity_type,
                text: text.clone(),
                bracketed,
            });
        }
    }
    replacements.sort_by_key(|replacement| replacement.start);
    replacements
}
