//! The sanitizer: groups a document's mentions, proposes candidates per entity (labels for direct
//! identifiers, the date ladder, or the model's generalizations), selects one per the strategy —
//! for INTACT, by inference attack — and writes the sanitized text with an edit log per span.

use kanon_core::EntityType;
use kanon_llm::{ChatModel, ChatRequest, Message};
use serde::{Deserialize, Serialize};

use crate::audit::{
    AuditAttack, AuditCandidate, AuditDocument, AuditEntity, AuditGuess, AuditMention,
    CandidateSource, Rejection,
};
use crate::config::{
    AttackPrompt, Attacker, CandidateSources, DirectStyle, GenerationPrompt, GuessFilter,
    Representative, SanitizerConfig, Strategy,
};
use crate::context::{Reading, Slot};
use crate::coverage::{merge_overlaps, propagate, surviving_masked_strings};
use crate::date::parse_date;
use crate::edit::{Edit, Reason, SanitizedDocument};
use crate::error::{Error, Result};
use crate::group::{EntityGroup, Mention, group_mentions};
use crate::kg_attack::{Allocation, KgAttacker, KgVerdict};
use crate::matching::{MatchConfig, guess_matches};
use crate::ontology::Rung;
use crate::parse::{PhraseLimits, contains_phrase, parse_guesses, parse_phrase_list};
use crate::prompt;
use crate::render::{Replacement, render, render_with_ranges};
use crate::verify::{ModelCandidates, Verdict};

/// Counts of one or more sanitized documents; [`SanitizeStats::add`] sums them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SanitizeStats {
    /// Documents sanitized.
    pub documents: u64,
    /// Spans replaced, propagated ones included.
    pub spans: u64,
    /// Entities (groups of mentions sharing one replacement), counted per document.
    pub entities: u64,
    /// Given spans merged into an overlapping one: their union is masked.
    pub merged_spans: u64,
    /// Repeats of a masked mention's text (or of its entity's other surface forms) that no given
    /// span covered, masked with their entity.
    pub propagated_spans: u64,
    /// Candidate replacements that would have put a masked string back into the text, caught by
    /// the check after rendering; their entity fell back to its label.
    pub caught_leaks: u64,
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
    /// Entities that got candidates from kanon's hierarchies (cities, countries, demonyms,
    /// organisations).
    #[serde(default)]
    pub kg_entities: u64,
    /// Candidates that were dropped: they contained a masked mention or a distinctive word of one,
    /// copied the prompt's example, echoed its instructions, were unfinished (`the head of the
    /// government of`), or were a model's that the hierarchies do not confirm.
    pub rejected_candidates: u64,
    /// Requests for generalizations sent to the model (cache hits included).
    pub generation_calls: u64,
    /// Requests sent to the attacker, one per candidate attacked (cache hits included).
    pub attack_calls: u64,
    /// Candidates the KG attacker checked (those the KG knows: rungs, dates, KG terms).
    #[serde(default)]
    pub kg_checks: u64,
    /// Candidates the KG attacker refused: with them, the document matched fewer than k people.
    #[serde(default)]
    pub kg_refused: u64,
    /// Candidates the KG attacker held back under the balanced allocation: more specific than
    /// their entity's share, so that the document's other entities keep theirs.
    #[serde(default)]
    pub kg_reserved: u64,
    /// Chosen generalizations whose original the KG resolves (an indexed term) and that the KG
    /// knows: the truthfulness check's denominator.
    #[serde(default)]
    pub kg_resolved: u64,
    /// … of which the original's term climbs to the generalization: true of the original.
    #[serde(default)]
    pub kg_true: u64,
    /// Entities given the kind their sentence names (`the rock band …` → `a rock band`).
    #[serde(default)]
    pub context_entities: u64,
    /// Mentions left out where they modify the noun after them or follow the noun naming their
    /// kind (`an Oslo suburb` → `a suburb`): what remains is true of them.
    #[serde(default)]
    pub dropped_spans: u64,
}

impl SanitizeStats {
    /// Adds `other`'s counts to these (`chosen` grows to the longer of the two).
    pub fn add(&mut self, other: &SanitizeStats) {
        self.documents += other.documents;
        self.spans += other.spans;
        self.entities += other.entities;
        self.merged_spans += other.merged_spans;
        self.propagated_spans += other.propagated_spans;
        self.caught_leaks += other.caught_leaks;
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
        self.kg_entities += other.kg_entities;
        self.rejected_candidates += other.rejected_candidates;
        self.generation_calls += other.generation_calls;
        self.attack_calls += other.attack_calls;
        self.kg_checks += other.kg_checks;
        self.kg_refused += other.kg_refused;
        self.kg_reserved += other.kg_reserved;
        self.kg_resolved += other.kg_resolved;
        self.kg_true += other.kg_true;
        self.context_entities += other.context_entities;
        self.dropped_spans += other.dropped_spans;
    }

    /// Model requests of both kinds: generations and attacks.
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

/// A sanitized document (shareable), its audit (as sensitive as the input) and the counts of its
/// sanitization.
#[derive(Debug, Clone, PartialEq)]
pub struct Sanitized {
    /// The shareable output: the text and its edit log.
    pub document: SanitizedDocument,
    /// Originals, candidates and guesses: written only when asked for.
    pub audit: AuditDocument,
    /// This document's counts (`documents` is 1).
    pub stats: SanitizeStats,
    /// Where each edit's replacement stands in `document.text` (character ranges, edit order;
    /// empty for a deletion; a period's second end shares its first's range when one phrase
    /// says both). Not written to the output: the edits' original offsets are.
    pub replaced: Vec<std::ops::Range<usize>>,
    /// The text sanitized (for [`Sanitized::original_range`]); never written out.
    original_text: String,
}

impl Sanitized {
    /// The characters of the original that an output range (characters of `document.text`)
    /// stands for, when it lies outside every replacement and reads the same there; `None`
    /// when it touches a replacement or the rendering changed it (an article made to agree).
    pub fn original_range(&self, output: std::ops::Range<usize>) -> Option<std::ops::Range<usize>> {
        if output.start > output.end {
            return None;
        }
        // Output and original advance together between replacements: shift by the last
        // replacement ending at or before the range.
        let mut shift: isize = 0;
        for (edit, replaced) in self.document.edits.iter().zip(&self.replaced) {
            if replaced.start < output.end && output.start < replaced.end {
                return None;
            }
            if replaced.end <= output.start {
                shift = edit.end as isize - replaced.end as isize;
            }
        }
        let start = usize::try_from(output.start as isize + shift).ok()?;
        let end = start + output.len();
        let original: String = self
            .original_text
            .chars()
            .skip(start)
            .take(output.len())
            .collect();
        let shown: String = self
            .document
            .text
            .chars()
            .skip(output.start)
            .take(output.len())
            .collect();
        (original == shown && original.chars().count() == output.len()).then_some(start..end)
    }
}

/// What a release gate asks of the sanitizer after an attacker succeeded: entities kept from
/// their more specific candidates, and further words masked. Entities are named by their
/// labels (`LOC 2`), which the gate's masks do not change.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Constraints {
    /// For an entity, the most specific candidate (1-based rank) it may still take; past its
    /// last candidate, its label ([`Reason::Escalated`]).
    pub floors: std::collections::BTreeMap<String, usize>,
    /// Character spans of the original text to mask with the placeholder ([`Reason::Masked`]),
    /// their repeats too; one inside a mention is masked already.
    pub masked: Vec<kanon_core::Span>,
    /// INTACT's earlier choice for an entity (1-based rank; 0: its label), taken again without
    /// asking the attackers — so that a re-render attacks only the entities a floor moved. A
    /// choice below the entity's floor, or past its candidates, is not kept.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub kept: std::collections::BTreeMap<String, usize>,
}

/// One entity's decision.
#[derive(Debug, Clone)]
struct Plan {
    replacement: String,
    /// Kept candidates, most specific first.
    candidates: Vec<String>,
    /// Every proposed candidate, kept or not, for the audit.
    proposed: Vec<AuditCandidate>,
    /// A model's candidate confirmed by a rung that is no candidate itself → that rung's text:
    /// whom the KG attacker and the truthfulness check take the candidate to stand for.
    aliases: std::collections::BTreeMap<String, String>,
    attacks: Vec<AuditAttack>,
    choice: Option<usize>,
    reason: Reason,
    /// Awaiting selection by inference attack.
    pending: bool,
    /// The first candidate (0-based) selection may take: a release gate's floor.
    first_rank: usize,
}

impl Plan {
    fn fixed(replacement: String, reason: Reason) -> Self {
        Plan {
            replacement,
            candidates: Vec::new(),
            proposed: Vec::new(),
            aliases: std::collections::BTreeMap::new(),
            attacks: Vec::new(),
            choice: None,
            reason,
            pending: false,
            first_rank: 0,
        }
    }

    /// Takes INTACT's earlier `choice` (1-based; 0: the label) without attack, when the plan
    /// awaits selection and the choice is still open to it.
    fn keep(&mut self, choice: usize, group: &EntityGroup) {
        if !self.pending {
            return;
        }
        if choice == 0 {
            self.pending = false;
            self.replacement = group.label();
            self.choice = None;
            self.reason = Reason::AllGuessed;
        } else if choice > self.first_rank && choice <= self.candidates.len() {
            self.pending = false;
            self.replacement = self.candidates[choice - 1].clone();
            self.choice = Some(choice);
            self.reason = Reason::NotGuessed;
        }
    }

    /// The phrase the KG reads for `candidate`: the rung a model's confirmed paraphrase says.
    fn kg_phrase<'a>(&'a self, candidate: &'a str) -> &'a str {
        self.aliases
            .get(candidate)
            .map_or(candidate, String::as_str)
    }

    /// The people of the candidate a decided entity took, as the KG reads it (none for a label,
    /// or a phrase the KG does not know).
    fn chosen_people(&self, kg: &KgAttacker) -> Option<std::sync::Arc<Vec<u32>>> {
        self.choice
            .and_then(|_| kg.people_of(self.kg_phrase(&self.replacement)))
    }

    /// Whether the replacement is a candidate's text (and so could carry an original), not a
    /// label or a deletion kanon wrote itself.
    fn shows_a_candidate(&self) -> bool {
        matches!(
            self.reason,
            Reason::MostSpecific | Reason::LeastSpecific | Reason::NotGuessed
        )
    }
}

/// The mention candidates are asked for, and what its entity's sentences say.
#[derive(Debug, Clone, Copy)]
struct Asked<'a> {
    span: kanon_core::Span,
    surface: &'a str,
    /// The kind a sentence names for the entity (`a rock band`).
    stated_kind: Option<&'a str>,
    /// The kind the words a mention is the object of imply (`a team`).
    implied_kind: Option<&'a str>,
    /// The mention is left out where it stands (it modifies the noun after it).
    left_out: bool,
}

/// Sanitizes documents with one config and (for the generalizing strategies) one model.
#[derive(Clone)]
pub struct Sanitizer<'m> {
    config: SanitizerConfig,
    model: Option<&'m dyn ChatModel>,
    /// The attacker, when it is not the generator.
    attacker: Option<&'m dyn ChatModel>,
    /// Neighbours in meaning, for `substitute`.
    substitutes: Option<&'m dyn crate::substitute::Substitutes>,
    /// The KG attacker.
    kg: Option<&'m KgAttacker>,
}

impl std::fmt::Debug for Sanitizer<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sanitizer")
            .field("config", &self.config)
            .field("model", &self.model.map(|model| model.id()))
            .field("attacker", &self.attacker.map(|model| model.id()))
            .field("kg", &self.kg)
            .finish()
    }
}

/// Neighbours a `substitute` replacement is drawn from.
const SUBSTITUTE_TOP: usize = 5;

impl<'m> Sanitizer<'m> {
    /// A sanitizer without a model: enough for the masking strategies, and for generalizing
    /// documents whose spans are all direct identifiers or parseable dates.
    pub fn new(config: SanitizerConfig) -> Result<Self> {
        config.validate()?;
        Ok(Sanitizer {
            config,
            model: None,
            attacker: None,
            substitutes: None,
            kg: None,
        })
    }

    /// Uses `kg` as the KG attacker (when the config lists it).
    pub fn with_kg(mut self, kg: &'m KgAttacker) -> Self {
        self.kg = Some(kg);
        self
    }

    /// The KG attacker, when the config lists it and one is given.
    fn kg_attacker(&self) -> Option<&'m KgAttacker> {
        self.kg
            .filter(|_| self.config.attackers.contains(&Attacker::Kg))
    }

    /// Whether the language model attacks: the config lists it, and a model is given — or no
    /// other attacker runs, so that a missing model is an error rather than no attack.
    fn llm_attacks(&self) -> bool {
        self.config.attackers.contains(&Attacker::Llm)
            && (self.attacker.or(self.model).is_some() || self.kg_attacker().is_none())
    }

    /// Uses `substitutes` for the `substitute` strategy.
    pub fn with_substitutes(mut self, substitutes: &'m dyn crate::substitute::Substitutes) -> Self {
        self.substitutes = Some(substitutes);
        self
    }

    /// Uses `model` for generalizations, and for attacks unless
    /// [`with_attacker`](Self::with_attacker) names another.
    pub fn with_model(mut self, model: &'m dyn ChatModel) -> Self {
        self.model = Some(model);
        self
    }

    /// Uses `attacker` for the inference attacks (a stronger model than the generator, or a
    /// weaker one to measure what the attack is worth).
    pub fn with_attacker(mut self, attacker: &'m dyn ChatModel) -> Self {
        self.attacker = Some(attacker);
        self
    }

    /// The config it sanitizes with (validated).
    pub fn config(&self) -> &SanitizerConfig {
        &self.config
    }

    /// Sanitizes one document's `mentions` (character offsets into `text`, any order;
    /// overlapping spans are merged into their union). Every further occurrence of a masked
    /// mention's text is masked too, and the rendered text is checked: no masked string stands
    /// in it as a word, except a masked year inside a coarser date of the ladder.
    pub fn sanitize(&self, id: &str, text: &str, mentions: &[Mention]) -> Result<Sanitized> {
        self.sanitize_constrained(id, text, mentions, &Constraints::default())
    }

    /// [`sanitize`](Self::sanitize) under a release gate's escalations: entities kept from
    /// their more specific candidates, and further words masked (see [`Constraints`]). With no
    /// constraints, the same output as `sanitize`.
    pub fn sanitize_constrained(
        &self,
        id: &str,
        text: &str,
        mentions: &[Mention],
        constraints: &Constraints,
    ) -> Result<Sanitized> {
        let mut stats = SanitizeStats {
            documents: 1,
            ..SanitizeStats::default()
        };
        validate_mentions(id, text, mentions)?;
        validate_mentions(
            id,
            text,
            &constraints
                .masked
                .iter()
                .map(|span| Mention::new(span.start, span.end, EntityType::Misc))
                .collect::<Vec<_>>(),
        )?;
        let mut entities = Entities::new(text, mentions, &constraints.masked, &mut stats);
        if !self.config.read_context || !self.config.strategy.generalizes() {
            entities.ignore_context();
        }
        let mut plans = Vec::with_capacity(entities.groups.len());
        for (index, group) in entities.groups.iter().enumerate() {
            let plan = if entities.gated[index] {
                Plan::fixed(self.config.placeholder.clone(), Reason::Masked)
            } else {
                let label = group.label();
                let floor = constraints.floors.get(&label).copied();
                let mut plan = self.initial_plan(text, group, &entities, floor, &mut stats)?;
                if let Some(&kept) = constraints.kept.get(&label) {
                    plan.keep(kept, group);
                }
                plan
            };
            plans.push(plan);
        }
        if self.config.strategy == Strategy::Intact {
            self.select_by_attack(text, &entities, &mut plans, &mut stats)?;
        }
        let (sanitized_text, ranges) =
            render_without_leaks(id, text, &entities, &mut plans, &mut stats)?;
        if let Some(kg) = self.kg {
            // The truthfulness check: a generalization must be one the original's KG term
            // climbs to, wherever the KG resolves the original.
            for (group, plan) in entities.groups.iter().zip(&plans) {
                if !plan.shows_a_candidate() {
                    continue;
                }
                let originals: Vec<&str> = group
                    .mentions
                    .iter()
                    .map(|&mention| entities.surfaces[mention].as_str())
                    .collect();
                if let Some(true_of) = kg.true_of(plan.kg_phrase(&plan.replacement), &originals) {
                    stats.kg_resolved += 1;
                    stats.kg_true += u64::from(true_of);
                }
            }
        }
        let edits = entities.edits(&plans, &sanitized_text, &ranges, &mut stats);
        stats.entities = entities.gated.iter().filter(|gated| !**gated).count() as u64;
        let audit = AuditDocument {
            id: id.to_owned(),
            entities: entities.audit(plans),
        };
        Ok(Sanitized {
            document: SanitizedDocument {
                id: id.to_owned(),
                text: sanitized_text,
                edits,
            },
            audit,
            stats,
            replaced: ranges,
            original_text: text.to_owned(),
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

    /// The entity's plan before any attack; `floor` (1-based) is the most specific candidate a
    /// release gate still allows.
    fn initial_plan(
        &self,
        text: &str,
        group: &EntityGroup,
        entities: &Entities,
        floor: Option<usize>,
        stats: &mut SanitizeStats,
    ) -> Result<Plan> {
        let plan = match self.config.strategy {
            Strategy::Suppress => Plan::fixed(String::new(), Reason::Suppressed),
            Strategy::Placeholder => {
                Plan::fixed(self.config.placeholder.clone(), Reason::Placeholder)
            }
            Strategy::Label => Plan::fixed(group.entity_type.to_string(), Reason::Label),
            Strategy::NumberedLabel => Plan::fixed(group.label(), Reason::NumberedLabel),
            Strategy::Substitute => {
                let substitutes = self.substitutes.ok_or_else(|| {
                    Error::Config(
                        "the substitute strategy needs word embeddings (Sanitizer::with_substitutes)"
                            .into(),
                    )
                })?;
                let surface = &entities.surfaces[group.mentions[0]];
                // Seeded by the text and the entity, so a document is substituted the same way
                // in every run and whatever its neighbours.
                let mut hasher = rustc_hash::FxHasher::default();
                std::hash::Hash::hash(&(self.config.seed, text, group.label()), &mut hasher);
                let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(
                    std::hash::Hasher::finish(&hasher),
                );
                let replacement =
                    crate::substitute::substitute(surface, substitutes, SUBSTITUTE_TOP, &mut rng)?;
                Plan::fixed(replacement, Reason::Substituted)
            }
            Strategy::MostSpecific | Strategy::LeastSpecific | Strategy::Intact => {
                if matches!(group.entity_type, EntityType::Person | EntityType::Code) {
                    return Ok(Plan::fixed(
                        self.direct_label(group),
                        Reason::DirectIdentifier,
                    ));
                }
                // Nowhere does a phrase need to stand in its place (a demonym's adjectives
                // still may, before the noun it modifies).
                let droppable = entities.droppable(group);
                if droppable && group.entity_type != EntityType::Dem {
                    return Ok(Plan::fixed(String::new(), Reason::Dropped));
                }
                let Kept {
                    candidates,
                    audit: proposed,
                    aliases,
                } = self.candidates(text, group, entities, stats)?;
                let (Some(_), Some(last)) = (candidates.first(), candidates.last()) else {
                    let mut plan = if droppable {
                        Plan::fixed(String::new(), Reason::Dropped)
                    } else {
                        Plan::fixed(group.label(), Reason::NoCandidates)
                    };
                    plan.proposed = proposed;
                    return Ok(plan);
                };
                let first_rank = floor.unwrap_or(1).max(1) - 1;
                let Some(first) = candidates.get(first_rank) else {
                    let mut plan = Plan::fixed(group.label(), Reason::Escalated);
                    plan.proposed = proposed;
                    return Ok(plan);
                };
                let (replacement, choice, reason) = match self.config.strategy {
                    Strategy::LeastSpecific => {
                        (last.clone(), Some(candidates.len()), Reason::LeastSpecific)
                    }
                    Strategy::MostSpecific => {
                        (first.clone(), Some(first_rank + 1), Reason::MostSpecific)
                    }
                    // Until its turn comes, an entity shows the attacker its most specific candidate.
                    _ => (first.clone(), None, Reason::NotGuessed),
                };
                Plan {
                    replacement,
                    pending: self.config.strategy == Strategy::Intact,
                    candidates,
                    proposed,
                    aliases,
                    attacks: Vec::new(),
                    choice,
                    reason,
                    first_rank,
                }
            }
        };
        Ok(plan)
    }

    /// Candidates of a non-direct entity, most specific first: the date ladder when a rule parses
    /// the date, else kanon's hierarchies and the model's generalizations in one order, strictly
    /// parsed and filtered. Also returns every proposed candidate with its fate, for the audit.
    fn candidates(
        &self,
        text: &str,
        group: &EntityGroup,
        entities: &Entities,
        stats: &mut SanitizeStats,
    ) -> Result<Kept> {
        let surfaces = &entities.surfaces;
        let representative =
            match self.config.representative {
                Representative::First => group.mentions.first().copied(),
                Representative::Longest => group.mentions.iter().copied().max_by_key(|&index| {
                    (surfaces[index].chars().count(), std::cmp::Reverse(index))
                }),
            };
        let Some(representative) = representative else {
            return Ok(Kept::default());
        };
        let surface = &surfaces[representative];
        let ladder = parse_date(surface).filter(|_| group.entity_type == EntityType::Datetime);
        let source_of_all = if ladder.is_some() {
            CandidateSource::DateLadder
        } else {
            CandidateSource::Model
        };
        let proposed = match ladder {
            Some(date) => {
                stats.ladder_entities += 1;
                Proposed {
                    candidates: date
                        .ladder(self.config.candidates)
                        .into_iter()
                        .map(|rung| (rung, CandidateSource::DateLadder))
                        .collect(),
                    rungs: Vec::new(),
                    confirming: Vec::new(),
                }
            }
            None => {
                let span = entities.mentions[representative].span;
                let asked = Asked {
                    span,
                    surface,
                    stated_kind: entities.stated_kind(group),
                    implied_kind: entities.implied_kind(group),
                    left_out: entities.readings[representative].slot.droppable(),
                };
                self.proposals(text, group.entity_type, &asked, stats)?
            }
        };
        let masked = MaskedStrings::new(group, &entities.mentions, surfaces, source_of_all);
        Ok(self.keep_candidates(text, group.entity_type, surface, &masked, proposed, stats))
    }

    /// Candidates for a span no date rule parses: kanon's hierarchies' rungs and the model's
    /// generalizations, merged into one order from most to least specific (unless the config
    /// names one source alone, or the hierarchies answer and no model is given).
    fn proposals(
        &self,
        text: &str,
        entity_type: EntityType,
        asked: &Asked<'_>,
        stats: &mut SanitizeStats,
    ) -> Result<Proposed> {
        let Asked {
            span,
            surface,
            stated_kind,
            implied_kind,
            left_out: representative_left_out,
        } = *asked;
        let sources = self.config.candidate_sources;
        // `a city in Norway` cannot stand where the span is a modifier (`an Oslo suburb`);
        // a demonym's rungs are adjectives, which can. Reading the context, such a mention is
        // left out instead, and the rungs serve the entity's other mentions.
        // A count's rungs are counts (`more than 80 films`), which can too.
        let count = entity_type == EntityType::Quantity
            && self.config.read_context
            && crate::render::counts_alone(surface);
        let hierarchy_rungs = crate::ontology::kg_rungs(entity_type, surface);
        // A duration's rungs keep its form: one word (`a more than 30-week ban`) or a
        // possessive (`more than 20 years' imprisonment`) qualifies a noun as the span did.
        let duration = entity_type == EntityType::Datetime && !hierarchy_rungs.is_empty();
        let noun_phrase_misfits = entity_type != EntityType::Dem
            && !count
            && !duration
            && !representative_left_out
            && used_as_modifier(text, span.end);
        // What the hierarchies know of the entity: its candidates, unless the config or the
        // grammar rules them out, and what confirms the model's.
        let mut known: Vec<Rung> = {
            let mut rungs = hierarchy_rungs;
            if rungs.is_empty() && entity_type == EntityType::Datetime {
                rungs = age_rungs(text, span.start, surface);
            }
            match self.kg_attacker() {
                // A name no table lists: the kind the KG's facts give it.
                Some(kg) if rungs.is_empty() => kg.fact_kinds(entity_type, surface),
                _ => rungs,
            }
        };
        // A place's name that the sentence makes a team (`played for ⟨Southampton⟩`) is no
        // city: its place rungs are not of this entity.
        if entity_type == EntityType::Loc
            && stated_kind.is_none()
            && implied_kind.is_some_and(crate::context::is_a_team)
        {
            known.clear();
        }
        if let Some(kind) = implied_kind
            && known.is_empty()
            && stated_kind.is_none()
        {
            stats.context_entities += 1;
            known.push(Rung::new(crate::ontology::RungSource::Context, kind));
            known.extend(bare_kind(kind));
        }
        if let Some(kind) = stated_kind {
            stats.context_entities += 1;
            let noun = kind.rsplit(' ').next().unwrap_or(kind).to_lowercase();
            let agrees = |rung: &Rung| {
                rung.text
                    .to_lowercase()
                    .split(|c: char| !c.is_alphanumeric() && c != '-')
                    .any(|word| word == noun)
            };
            // The document says what it is: a reading of the name that says otherwise (`the
            // film Chicago` is no city in Illinois) is not this one.
            if !known.iter().any(agrees) {
                known.clear();
            }
            if !known
                .iter()
                .any(|rung| rung.text.eq_ignore_ascii_case(kind))
            {
                known.push(Rung::new(crate::ontology::RungSource::Context, kind));
                known.extend(bare_kind(kind));
            }
        }
        let confirming: Vec<String> = known.iter().map(|rung| rung.text.clone()).collect();
        let rungs: Vec<Rung> = if sources == CandidateSources::Model || noun_phrase_misfits {
            Vec::new()
        } else {
            known
        };
        if !rungs.is_empty() {
            stats.kg_entities += 1;
        }
        // The hierarchies alone when they answer and no model is given, or when the KG attacker
        // is to work without one; and never a model whose every answer the policy would drop:
        // beside the rungs, a confirmed candidate only repeats one in other words, and nothing
        // confirms one for an entity no hierarchy knows.
        let policy_admits = match self.config.model_candidates {
            ModelCandidates::Any => true,
            ModelCandidates::Checked => rungs.is_empty(),
            ModelCandidates::Verified => rungs.is_empty() && !confirming.is_empty(),
        };
        let ask_model = sources != CandidateSources::KnowledgeGraph
            && (self.model.is_some() || (rungs.is_empty() && self.kg_attacker().is_none()))
            && policy_admits;
        let mut generated = Vec::new();
        if ask_model {
            let messages = self.generation_messages(text, entity_type, span, surface);
            let answer = self.ask(messages, entity_type)?;
            stats.generation_calls += 1;
            // Parse a few more than needed: some will be filtered out below.
            generated = parse_phrase_list(&answer, &self.limits(self.config.candidates * 2));
        }
        let texts = rungs.iter().map(|rung| rung.text.clone()).collect();
        Ok(Proposed {
            candidates: merge_by_specificity(texts, generated),
            rungs,
            confirming,
        })
    }

    /// The request for generalizations of `surface`, the span at `span` of `text`, in the
    /// config's prompt.
    fn generation_messages(
        &self,
        text: &str,
        entity_type: EntityType,
        span: kanon_core::Span,
        surface: &str,
    ) -> Vec<Message> {
        match self.config.generation_prompt {
            GenerationPrompt::Paper => {
                let (sentence, at) =
                    prompt::sentence_around_marked(text, span.start, span.end, 400);
                prompt::paper_generation_messages(
                    entity_type,
                    self.config.candidates,
                    &sentence,
                    at,
                    surface,
                )
            }
            GenerationPrompt::OneShotExample => {
                let sentence = prompt::sentence_around(text, span.start, span.end, 400);
                prompt::generalization_messages(
                    entity_type,
                    self.config.candidates,
                    &sentence,
                    surface,
                )
            }
        }
    }

    /// Filters the proposed candidates, in order from most to least specific: the kept ones
    /// (articles lower-cased), and every proposed one with why it was rejected, for the audit.
    /// The model's candidates beyond the number asked for are surplus; when more than that number
    /// remain from all sources together, the most specific ones are kept and the least specific
    /// one with them, so that the last candidate — `least-specific`'s choice, INTACT's last
    /// resort — is still the least specific.
    fn keep_candidates(
        &self,
        text: &str,
        entity_type: EntityType,
        surface: &str,
        masked: &MaskedStrings,
        proposed: Proposed,
        stats: &mut SanitizeStats,
    ) -> Kept {
        let wanted = self.config.candidates;
        let mut kept: Vec<(String, usize)> = Vec::new();
        let mut from_model = 0;
        let Proposed {
            candidates,
            rungs,
            confirming,
        } = proposed;
        let mut audit = Vec::with_capacity(candidates.len());
        let mut aliases = std::collections::BTreeMap::new();
        for (candidate, source) in candidates {
            let verdict = (source == CandidateSource::Model).then(|| {
                crate::verify::verdict(self.config.model_candidates, &candidate, &confirming)
            });
            // The rung a confirmed candidate says in other words.
            let confirmed_by = match verdict {
                Some(Verdict::Confirmed(rung)) => Some(&confirming[rung]),
                _ => None,
            };
            let rejected = if masked.revealed_by(&candidate) {
                Some(Rejection::RevealsOriginal)
            } else if source == CandidateSource::Model
                && prompt::copies_example(entity_type, surface, &candidate)
            {
                Some(Rejection::CopiesExample)
            } else if source == CandidateSource::Model
                && prompt::echoes_instructions(&candidate, text)
            {
                Some(Rejection::EchoesInstructions)
            } else if is_unfinished(&candidate) {
                Some(Rejection::Unfinished)
            } else if verdict == Some(Verdict::Unconfirmed) {
                Some(Rejection::Unconfirmed)
            } else if verdict == Some(Verdict::Judgement) {
                Some(Rejection::Judgement)
            } else if confirmed_by.is_some_and(|rung| rungs.iter().any(|r| &r.text == rung)) {
                // Its rung is a candidate itself: the rung's words, which the KG attacker knows.
                Some(Rejection::Duplicate)
            } else if kept
                .iter()
                .any(|(k, _)| k.eq_ignore_ascii_case(&lowercase_article(&candidate)))
            {
                Some(Rejection::Duplicate)
            } else if source == CandidateSource::Model && from_model == wanted {
                Some(Rejection::Surplus)
            } else {
                None
            };
            match rejected {
                Some(
                    Rejection::RevealsOriginal
                    | Rejection::CopiesExample
                    | Rejection::EchoesInstructions
                    | Rejection::Unfinished
                    | Rejection::Unconfirmed
                    | Rejection::Judgement,
                ) => stats.rejected_candidates += 1,
                Some(_) => {}
                None => {
                    from_model += usize::from(source == CandidateSource::Model);
                    let text = lowercase_article(&candidate);
                    if let Some(rung) = confirmed_by {
                        aliases.insert(text.clone(), rung.clone());
                    }
                    kept.push((text, audit.len()));
                }
            }
            let rung_source = (source == CandidateSource::KnowledgeGraph)
                .then(|| rungs.iter().find(|rung| rung.text == candidate))
                .flatten()
                .map(|rung| rung.source);
            audit.push(AuditCandidate {
                text: candidate,
                source,
                hierarchy: rung_source,
                rejected,
            });
        }
        if kept.len() > wanted {
            // With room for two, the least specific keeps the last place.
            let least_specific = if wanted >= 2 { kept.pop() } else { None };
            for (_, index) in kept.drain(wanted - usize::from(least_specific.is_some())..) {
                audit[index].rejected = Some(Rejection::Surplus);
            }
            kept.extend(least_specific);
        }
        let kept: Vec<String> = kept.into_iter().map(|(text, _)| text).collect();
        aliases.retain(|text, _| kept.contains(text));
        Kept {
            candidates: kept,
            audit,
            aliases,
        }
    }

    fn limits(&self, max_items: usize) -> PhraseLimits {
        PhraseLimits {
            max_items,
            max_chars: self.config.max_phrase_chars,
            max_words: self.config.max_phrase_words,
        }
    }

    fn ask(&self, messages: Vec<Message>, entity_type: EntityType) -> Result<String> {
        self.ask_model(self.model, messages, entity_type)
    }

    fn attack(&self, messages: Vec<Message>, entity_type: EntityType) -> Result<String> {
        self.ask_model(self.attacker.or(self.model), messages, entity_type)
    }

    fn ask_model(
        &self,
        model: Option<&dyn ChatModel>,
        messages: Vec<Message>,
        entity_type: EntityType,
    ) -> Result<String> {
        let model = model.ok_or(Error::ModelRequired {
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
        entities: &Entities,
        plans: &mut [Plan],
        stats: &mut SanitizeStats,
    ) -> Result<()> {
        let Entities {
            groups, surfaces, ..
        } = entities;
        let quoted = prompt::quote_data(text);
        let match_config = MatchConfig {
            ngram_match: self.config.ngram_match,
            ignore_candidate_words: self.config.ignore_candidate_words,
        };
        let kg = self.kg_attacker();
        let llm = self.llm_attacks();
        // What the KG attacker reads besides the candidates: the document's KG terms outside
        // every mention, and the people of the generalizations chosen so far.
        let kg_terms = kg.map_or_else(Vec::new, |kg| {
            let masked: Vec<std::ops::Range<usize>> = entities
                .mentions
                .iter()
                .map(|mention| mention.span.start..mention.span.end)
                .collect();
            kg.remaining_terms(text, &masked)
        });
        let targets = match kg {
            Some(kg) => kg_targets(kg, &kg_terms, plans),
            None => vec![Target::Free; plans.len()],
        };
        let mut kg_chosen: Vec<std::sync::Arc<Vec<u32>>> = Vec::new();
        for (index, group) in groups.iter().enumerate() {
            if !plans[index].pending {
                // A kept choice still counts with the KG attacker's later checks.
                if let Some(kg) = kg {
                    kg_chosen.extend(plans[index].chosen_people(kg));
                }
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
            let mut attacks = Vec::new();
            let mut chosen = None;
            for (rank, candidate) in candidates.iter().enumerate().skip(plans[index].first_rank) {
                let people = kg.and_then(|kg| kg.people_of(plans[index].kg_phrase(candidate)));
                if let (Some(kg), Some(people)) = (kg, &people) {
                    let mut verdict = kg.verdict(&kg_terms, &kg_chosen, people);
                    if verdict.safe && targets[index].holds_back(rank) {
                        // Safe beside the choices before it, but not beside the later
                        // entities' shares.
                        verdict = KgVerdict {
                            safe: false,
                            reserved: true,
                            ..verdict
                        };
                    }
                    attacks.push(AuditAttack {
                        attacker: Attacker::Kg,
                        candidate: candidate.clone(),
                        guesses: Vec::new(),
                        kg: Some(verdict),
                        recovered: !verdict.safe,
                    });
                    if verdict.reserved {
                        stats.kg_reserved += 1;
                        continue;
                    }
                    stats.kg_checks += 1;
                    if !verdict.safe {
                        stats.kg_refused += 1;
                        continue;
                    }
                }
                if !llm {
                    chosen = Some(rank);
                    kg_chosen.extend(people);
                    break;
                }
                let shown = entities.replacements(plans, Some((index, candidate)));
                let document = prompt::attack_window(
                    &render(&quoted, &shown),
                    self.config.attack_context_chars,
                );
                let attack = self.attack_candidate(
                    &document,
                    group.entity_type,
                    &originals,
                    candidate,
                    &match_config,
                    stats,
                )?;
                let recovered = attack.recovered;
                attacks.push(attack);
                if !recovered {
                    chosen = Some(rank);
                    kg_chosen.extend(people);
                    break;
                }
            }
            let plan = &mut plans[index];
            plan.pending = false;
            plan.attacks = attacks;
            match chosen {
                Some(rank) => {
                    plan.replacement = candidates[rank].clone();
                    plan.choice = Some(rank + 1);
                    plan.reason = Reason::NotGuessed;
                }
                // A modifier every candidate of which an attacker breaks is left out rather
                // than labelled (`a ⟨Zorbian⟩ goalkeeper` → `a goalkeeper`): what remains is
                // true, and says less than any candidate would.
                None if entities.droppable(group) => {
                    plan.replacement = String::new();
                    plan.choice = None;
                    plan.reason = Reason::Dropped;
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

    /// Attacks one candidate of an entity whose mentions read `originals`: the attacker guesses
    /// from `document` (the sanitized text with the candidate in `[[…]]`), and each guess is
    /// matched against the originals.
    fn attack_candidate(
        &self,
        document: &str,
        entity_type: EntityType,
        originals: &[&str],
        candidate: &str,
        match_config: &MatchConfig,
        stats: &mut SanitizeStats,
    ) -> Result<AuditAttack> {
        let messages = match self.config.attack_prompt {
            AttackPrompt::Paper => {
                prompt::paper_attack_messages(self.config.attacker_guesses, document)
            }
            AttackPrompt::ZeroShot => {
                prompt::attack_messages(self.config.attacker_guesses, document)
            }
        };
        let answer = self.attack(messages, entity_type)?;
        stats.attack_calls += 1;
        let parsed = parse_guesses(&answer, &self.limits(self.config.attacker_guesses));
        let strict = self.config.guess_filter == GuessFilter::Strict;
        let guesses: Vec<AuditGuess> = parsed
            .into_iter()
            .map(|guess| {
                let filtered = strict && guess.strict_drop;
                let matched = if filtered {
                    None
                } else {
                    originals.iter().find_map(|original| {
                        guess_matches(original, &guess.text, entity_type, candidate, match_config)
                    })
                };
                AuditGuess {
                    text: guess.text,
                    matched,
                    filtered,
                }
            })
            .collect();
        // Fail closed: a guess the strict filter dropped counts as a recovery.
        let recovered = guesses
            .iter()
            .any(|guess| guess.matched.is_some() || guess.filtered);
        Ok(AuditAttack {
            attacker: Attacker::Llm,
            candidate: candidate.to_owned(),
            guesses,
            kg: None,
            recovered,
        })
    }
}

/// What the balanced allocation leaves an entity of the KG's candidates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    /// The KG knows none of its candidates, or it is not selected by attack: no limit.
    Free,
    /// Its candidates the KG knows from this rank (0-based) on.
    From(usize),
    /// None of its candidates the KG knows: even the least specific would break the document
    /// beside the others' least specific ones.
    Excluded,
}

impl Target {
    /// Whether a candidate the KG knows, at `rank`, is held back.
    fn holds_back(self, rank: usize) -> bool {
        match self {
            Target::Free => false,
            Target::From(from) => rank < from,
            Target::Excluded => true,
        }
    }
}

/// What the KG attacker's allocation leaves each entity ([`Allocation`]): nothing held back
/// under `greedy`, the balanced shares under `balanced`, and under `best` whichever of greedy,
/// balanced and greedy repaired leaves the most entities a candidate the KG allows.
fn kg_targets(kg: &KgAttacker, terms: &[u32], plans: &[Plan]) -> Vec<Target> {
    let free = || vec![Target::Free; plans.len()];
    match kg.allocation() {
        Allocation::Greedy => free(),
        Allocation::Balanced => {
            let known = KnownCandidates::of(kg, plans);
            known.targets(&balanced_positions(kg, terms, &known))
        }
        Allocation::Best => {
            let known = KnownCandidates::of(kg, plans);
            let in_document_order = known.greedy(kg, terms, &known.order(), None);
            let greedy_allowed = allowed(&in_document_order);
            let greedy = repaired_greedy(kg, terms, &known, in_document_order);
            let balanced = balanced_positions(kg, terms, &known);
            if allowed(&balanced) > allowed(&greedy) {
                known.targets(&balanced)
            } else if allowed(&greedy) > greedy_allowed {
                known.targets(&greedy)
            } else {
                free()
            }
        }
    }
}

/// The candidates the KG knows of every entity awaiting selection, and the people of those
/// already decided.
struct KnownCandidates {
    /// The people of the choices of entities already decided.
    fixed: Vec<std::sync::Arc<Vec<u32>>>,
    /// Per entity: its known candidates (rank, people), most specific first; empty for an entity
    /// decided or with none the KG knows.
    known: Vec<Vec<(usize, std::sync::Arc<Vec<u32>>)>>,
}

impl KnownCandidates {
    fn of(kg: &KgAttacker, plans: &[Plan]) -> Self {
        let mut fixed = Vec::new();
        let mut known = vec![Vec::new(); plans.len()];
        for (index, plan) in plans.iter().enumerate() {
            if !plan.pending {
                fixed.extend(plan.chosen_people(kg));
                continue;
            }
            for (rank, candidate) in plan.candidates.iter().enumerate().skip(plan.first_rank) {
                if let Some(people) = kg.people_of(plan.kg_phrase(candidate)) {
                    known[index].push((rank, people));
                }
            }
        }
        KnownCandidates { fixed, known }
    }

    /// The entities with a known candidate, in document order.
    fn order(&self) -> Vec<usize> {
        (0..self.known.len())
            .filter(|&index| !self.known[index].is_empty())
            .collect()
    }

    /// The people of the fixed choices and of every entity's candidate at `positions` but
    /// `except`'s.
    fn others(&self, positions: &[Option<usize>], except: usize) -> Vec<std::sync::Arc<Vec<u32>>> {
        let mut people = self.fixed.clone();
        for (index, position) in positions.iter().enumerate() {
            if index != except
                && let Some(position) = position
            {
                people.push(self.known[index][*position].1.clone());
            }
        }
        people
    }

    /// Greedy in `order`: each entity its first known candidate safe beside the fixed choices
    /// and those before it — the least specific such for `least_specific`, the most specific
    /// for the rest. Positions in `known`, `None` where none is safe.
    fn greedy(
        &self,
        kg: &KgAttacker,
        terms: &[u32],
        order: &[usize],
        least_specific: Option<usize>,
    ) -> Vec<Option<usize>> {
        let mut positions = vec![None; self.known.len()];
        let mut chosen = self.fixed.clone();
        for &index in order {
            let candidates = &self.known[index];
            let safe = |&position: &usize| kg.verdict(terms, &chosen, &candidates[position].1).safe;
            let found = if least_specific == Some(index) {
                (0..candidates.len()).rev().find(safe)
            } else {
                (0..candidates.len()).find(safe)
            };
            if let Some(position) = found {
                chosen.push(candidates[position].1.clone());
                positions[index] = Some(position);
            }
        }
        positions
    }

    /// The selection's limits that keep each entity at `positions`.
    fn targets(&self, positions: &[Option<usize>]) -> Vec<Target> {
        positions
            .iter()
            .zip(&self.known)
            .map(|(position, known)| match position {
                Some(position) => Target::From(known[*position].0),
                None if known.is_empty() => Target::Free,
                None => Target::Excluded,
            })
            .collect()
    }
}

/// How many entities `positions` leave a candidate.
fn allowed(positions: &[Option<usize>]) -> usize {
    positions.iter().flatten().count()
}

/// Greedy in document order (`in_document_order`, [`KnownCandidates::greedy`]'s), then
/// repaired: an entity greedy leaves without a candidate is
/// decided first — at its most specific candidate safe beside the fixed choices, or failing a
/// gain, its least specific — and the rest follow greedily in document order; a new order is
/// kept when it leaves more entities a candidate, until none does. Each round keeps at least
/// one more entity, so it ends within as many rounds as there are entities.
fn repaired_greedy(
    kg: &KgAttacker,
    terms: &[u32],
    known: &KnownCandidates,
    in_document_order: Vec<Option<usize>>,
) -> Vec<Option<usize>> {
    let mut order = known.order();
    let mut best = in_document_order;
    // Only an entity with a candidate safe beside the fixed choices alone can gain by going
    // first.
    let viable: Vec<bool> = known
        .known
        .iter()
        .map(|candidates| {
            candidates
                .iter()
                .any(|(_, people)| kg.verdict(terms, &known.fixed, people).safe)
        })
        .collect();
    'rounds: loop {
        let excluded: Vec<usize> = order
            .iter()
            .copied()
            .filter(|&index| best[index].is_none() && viable[index])
            .collect();
        for index in excluded {
            let mut first = vec![index];
            first.extend(order.iter().copied().filter(|&other| other != index));
            for least_specific in [None, Some(index)] {
                let positions = known.greedy(kg, terms, &first, least_specific);
                if allowed(&positions) > allowed(&best) {
                    best = positions;
                    order = first;
                    continue 'rounds;
                }
            }
        }
        return best;
    }
}

/// The balanced allocation ([`Allocation::Balanced`]): every entity awaiting selection starts at
/// its least specific candidate the KG knows (an entity whose least specific one breaks the
/// document beside everyone else's is excluded); then, round by round in document order, each
/// moves to its next more specific known candidate while that keeps every combination with the
/// document's terms and the others' current candidates at 0 or at least k people. Entities
/// already decided count with their choice.
fn balanced_positions(
    kg: &KgAttacker,
    terms: &[u32],
    known: &KnownCandidates,
) -> Vec<Option<usize>> {
    let mut at: Vec<Option<usize>> = known
        .known
        .iter()
        .map(|candidates| candidates.len().checked_sub(1))
        .collect();
    for index in 0..at.len() {
        if let Some(position) = at[index]
            && !kg
                .verdict(
                    terms,
                    &known.others(&at, index),
                    &known.known[index][position].1,
                )
                .safe
        {
            at[index] = None;
        }
    }
    let mut moved = true;
    while moved {
        moved = false;
        for index in 0..at.len() {
            let Some(position) = at[index].filter(|&position| position > 0) else {
                continue;
            };
            if kg
                .verdict(
                    terms,
                    &known.others(&at, index),
                    &known.known[index][position - 1].1,
                )
                .safe
            {
                at[index] = Some(position - 1);
                moved = true;
            }
        }
    }
    at
}

/// The candidates kept for an entity, most specific first; every proposed one with its fate;
/// and the rung each confirmed model candidate stands for.
#[derive(Default)]
struct Kept {
    candidates: Vec<String>,
    audit: Vec<AuditCandidate>,
    aliases: std::collections::BTreeMap<String, String>,
}

/// What an entity's sources propose: every candidate in order with its source, and the
/// hierarchies' rungs among them with the tables that make them true, for the audit.
struct Proposed {
    candidates: Vec<(String, CandidateSource)>,
    rungs: Vec<Rung>,
    /// The texts of every rung the hierarchies give the entity (candidates or not): what confirms
    /// a model's candidate.
    confirming: Vec<String>,
}

/// The candidates of kanon's hierarchies (`rungs`, most specific first) and of the model
/// (`generated`, in the order it wrote them, most specific first) in one order from most to least
/// specific. Each source keeps its own order. A phrase both give is one point of both orders: the
/// longest run of such phrases that stand in the same order in both anchors the merge (the
/// model's copy follows the rung, as a duplicate). Between anchors the two interleave by relative
/// depth — rung `i` of `n` stands at `(i + 1) / n`, the model's `j`-th of `m` at `(j + 1) / m`, so
/// that both lists run from their most specific phrase to their most abstract — and at equal
/// depth the model's phrase goes first: a hierarchy's last rung is the entity's class itself
/// (`a city`), true by construction and no more specific than any description.
fn merge_by_specificity(
    rungs: Vec<String>,
    generated: Vec<String>,
) -> Vec<(String, CandidateSource)> {
    let (n, m) = (rungs.len(), generated.len());
    let fold = |phrase: &String| kanon_core::text::words(phrase);
    let (a, b): (Vec<Vec<String>>, Vec<Vec<String>>) = (
        rungs.iter().map(fold).collect(),
        generated.iter().map(fold).collect(),
    );
    // The longest common subsequence, by suffix lengths.
    let mut lcs = vec![vec![0usize; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if a[i] == b[j] && !a[i].is_empty() {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let mut anchors = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < n && j < m {
        if a[i] == b[j] && !a[i].is_empty() && lcs[i][j] == lcs[i + 1][j + 1] + 1 {
            anchors.push((i, j));
            i += 1;
            j += 1;
        } else if lcs[i + 1][j] >= lcs[i][j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
    anchors.push((n, m));
    let mut rungs = rungs.into_iter().map(Some).collect::<Vec<_>>();
    let mut generated = generated.into_iter().map(Some).collect::<Vec<_>>();
    let mut merged = Vec::with_capacity(n + m);
    let (mut i, mut j) = (0, 0);
    for (anchor_i, anchor_j) in anchors {
        while i < anchor_i || j < anchor_j {
            // Rung i stands at (i + 1) / n, candidate j at (j + 1) / m; ties go to the model.
            let rung_first = j == anchor_j || (i < anchor_i && (i + 1) * m < (j + 1) * n);
            if rung_first {
                merged.extend(
                    rungs[i]
                        .take()
                        .map(|r| (r, CandidateSource::KnowledgeGraph)),
                );
                i += 1;
            } else {
                merged.extend(generated[j].take().map(|g| (g, CandidateSource::Model)));
                j += 1;
            }
        }
        if anchor_i < n {
            merged.extend(
                rungs[i]
                    .take()
                    .map(|r| (r, CandidateSource::KnowledgeGraph)),
            );
            merged.extend(generated[j].take().map(|g| (g, CandidateSource::Model)));
            i += 1;
            j += 1;
        }
    }
    merged
}

/// The masked strings a candidate of one entity must not contain: every masked mention of the
/// document as a phrase, its own mentions also as a substring of four characters or more
/// (`Kodnanis`), and the distinctive words of every mention (name parts, numbers). A date rung of
/// the ladder is a coarsening of its own date and may name a year or month masked elsewhere, so
/// for it date mentions do not count.
struct MaskedStrings {
    own: Vec<String>,
    phrases: Vec<String>,
    distinctive: Vec<String>,
}

impl MaskedStrings {
    fn new(
        group: &EntityGroup,
        mentions: &[Mention],
        surfaces: &[String],
        source: CandidateSource,
    ) -> Self {
        let counts = |index: usize| {
            source != CandidateSource::DateLadder
                || mentions[index].entity_type != EntityType::Datetime
        };
        let own = group
            .mentions
            .iter()
            .filter(|&&index| counts(index))
            .map(|&index| kanon_core::text::words(&surfaces[index]).join(" "))
            .filter(|folded| folded.chars().count() >= 4)
            .collect();
        let mut phrases = Vec::new();
        let mut distinctive = Vec::new();
        for (index, surface) in surfaces.iter().enumerate() {
            if !counts(index) {
                continue;
            }
            phrases.push(surface.clone());
            distinctive.extend(distinctive_words(surface).map(str::to_owned));
        }
        phrases.sort();
        phrases.dedup();
        distinctive.sort();
        distinctive.dedup();
        MaskedStrings {
            own,
            phrases,
            distinctive,
        }
    }

    fn revealed_by(&self, candidate: &str) -> bool {
        let folded = kanon_core::text::words(candidate).join(" ");
        self.own.iter().any(|own| folded.contains(own.as_str()))
            || self
                .phrases
                .iter()
                .any(|phrase| contains_phrase(candidate, phrase))
            || candidate_words(candidate).any(|word| {
                self.distinctive.iter().any(|distinctive| {
                    word == distinctive
                        || (word.starts_with(char::is_uppercase)
                            && word.to_lowercase() == distinctive.to_lowercase())
                })
            })
    }
}

/// The words of a text, a number whole with its separators (`100,000`, `5,699.21`): its groups
/// alone (`000`) name nothing.
fn candidate_words(text: &str) -> impl Iterator<Item = &str> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut words = Vec::new();
    let mut start: Option<usize> = None;
    for (i, &(at, c)) in chars.iter().enumerate() {
        let between_digits = matches!(c, ',' | '.')
            && i > 0
            && chars[i - 1].1.is_ascii_digit()
            && chars
                .get(i + 1)
                .is_some_and(|(_, next)| next.is_ascii_digit());
        if c.is_alphanumeric() || between_digits && start.is_some() {
            start.get_or_insert(at);
        } else if let Some(from) = start.take() {
            words.push(&text[from..at]);
        }
    }
    if let Some(from) = start {
        words.push(&text[from..]);
    }
    words.into_iter()
}

/// The words of a mention that name it rather than describe it: numbers (and a decimal's whole
/// part: `5,699` of `5,699.21`), and capitalised words that are not function words
/// (`Hollenbach`, `Oslo`, `UiT`; not `The`, not `of`). A generic word the mention happens to
/// contain in lower case (`university` in `the university of X`) is free for candidates to use.
fn distinctive_words(surface: &str) -> impl Iterator<Item = &str> {
    candidate_words(surface)
        .filter(|word| {
            word.chars().any(|c| c.is_ascii_digit())
                || (word.chars().count() >= 2
                    && word.starts_with(char::is_uppercase)
                    && !crate::lemma::is_stopword(&word.to_lowercase()))
        })
        .flat_map(|word| {
            let whole = word
                .rsplit_once('.')
                .filter(|(whole, fraction)| {
                    !whole.is_empty() && fraction.bytes().all(|b| b.is_ascii_digit())
                })
                .map(|(whole, _)| whole);
            std::iter::once(word).chain(whole)
        })
}

/// Checks a rendering: `Err` when a masked string stands as a word in the text kept from the
/// original (propagation should have made that impossible), else the entities whose candidate
/// replacement carries one (a date rung naming a masked date is allowed).
fn leaking_groups(
    text: &str,
    entities: &Entities,
    plans: &[Plan],
    rendered: &str,
    ranges: &[std::ops::Range<usize>],
) -> std::result::Result<Vec<usize>, ()> {
    let Entities {
        mentions,
        groups,
        group_of,
        ..
    } = entities;
    let mut leaking = Vec::new();
    for survivor in surviving_masked_strings(text, mentions, rendered, ranges) {
        if !survivor.in_replacement {
            return Err(());
        }
        // The replacement it stands in: ranges are in mention order.
        let Some(holder) = ranges
            .iter()
            .position(|range| range.start <= survivor.at && survivor.at < range.end)
        else {
            return Err(());
        };
        let group = group_of[holder];
        let plan = &plans[group];
        let date_in_date = groups[group].entity_type == EntityType::Datetime
            && mentions[survivor.mention].entity_type == EntityType::Datetime;
        if plan.shows_a_candidate() && !date_in_date && !leaking.contains(&group) {
            leaking.push(group);
        }
    }
    Ok(leaking)
}

/// The rungs of an age a date span states (`age of 47`, or `81` after `at the age of`): the
/// quantity ladder of its number (`age of more than 40`). None for anything else.
fn age_rungs(text: &str, start: usize, surface: &str) -> Vec<Rung> {
    let lower = surface.trim().to_lowercase();
    let (prefix, number) = match ["age of ", "age "]
        .iter()
        .find_map(|prefix| lower.strip_prefix(prefix).map(|rest| (prefix, rest)))
    {
        Some((prefix, rest)) => (&surface.trim()[..prefix.len()], rest),
        None => {
            // The few words before the span, not the document up to it.
            let before: String = text
                .chars()
                .skip(start.saturating_sub(8))
                .take(start.min(8))
                .collect();
            let before = before.to_lowercase();
            if !["age of ", "age ", "aged "]
                .iter()
                .any(|words| before.ends_with(words))
            {
                return Vec::new();
            }
            ("", lower.as_str())
        }
    };
    if !crate::render::counts_alone(number) {
        return Vec::new();
    }
    crate::ontology::kg_rungs(EntityType::Quantity, number)
        .into_iter()
        .map(|rung| Rung {
            text: format!("{prefix}{}", rung.text),
            ..rung
        })
        .collect()
}

/// Whether the span ending at character `end` of `text` modifies the word after it (`Oslo
/// suburb`, `Bergen resident`).
fn used_as_modifier(text: &str, end: usize) -> bool {
    let rest: Vec<char> = text.chars().skip(end).take(40).collect();
    crate::render::followed_by_content_word(&rest) && !crate::context::followed_by_verb(&rest)
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

/// Checks that every mention is a non-empty span of the text.
fn validate_mentions(id: &str, text: &str, mentions: &[Mention]) -> Result<()> {
    let chars = text.chars().count();
    for mention in mentions {
        if mention.span.start >= mention.span.end || mention.span.end > chars {
            return Err(Error::InvalidSpan {
                document: id.to_owned(),
                start: mention.span.start,
                end: mention.span.end,
                chars,
            });
        }
    }
    Ok(())
}

/// A kind the sentence names without the word that makes it precise (`a hockey team` → `a
/// team`): as true, and the word may be masked elsewhere in the document.
fn bare_kind(kind: &str) -> Option<Rung> {
    let words: Vec<&str> = kind.split(' ').collect();
    let noun = words.last().filter(|_| words.len() > 2)?;
    Some(Rung::new(
        crate::ontology::RungSource::Context,
        crate::ontology::with_article(noun),
    ))
}

/// Renders the plans' replacements into `text` until no masked string survives in it: an entity
/// whose candidate carries one falls back to its label (fail closed) and the text is rendered
/// again. A masked string outside every replacement is an [`Error::Leak`]. Returns the text and
/// where each mention's replacement stands in it.
fn render_without_leaks(
    id: &str,
    text: &str,
    entities: &Entities,
    plans: &mut [Plan],
    stats: &mut SanitizeStats,
) -> Result<(String, Vec<std::ops::Range<usize>>)> {
    loop {
        let shown = entities.replacements(plans, None);
        let (rendered, ranges) = render_with_ranges(text, &shown);
        match leaking_groups(text, entities, plans, &rendered, &ranges) {
            Err(()) => {
                return Err(Error::Leak {
                    document: id.to_owned(),
                });
            }
            Ok(leaking) if leaking.is_empty() => return Ok((rendered, ranges)),
            Ok(leaking) => {
                // Fail closed: the entity whose replacement carries a masked string gets its
                // label instead.
                for index in leaking {
                    stats.caught_leaks += 1;
                    let plan = &mut plans[index];
                    plan.replacement = entities.groups[index].label();
                    plan.choice = None;
                    plan.reason = Reason::NoCandidates;
                }
            }
        }
    }
}

/// A document's mentions after overlaps are merged and repeats propagated, grouped into
/// entities. Mentions are sorted by start.
struct Entities {
    mentions: Vec<Mention>,
    /// Each mention's text.
    surfaces: Vec<String>,
    /// Whether each mention is a propagated repeat rather than a given span.
    propagated: Vec<bool>,
    /// In order of first mention.
    groups: Vec<EntityGroup>,
    /// Each mention's index in `groups`.
    group_of: Vec<usize>,
    /// Whether each group is a word a release gate masked rather than a detected entity.
    gated: Vec<bool>,
    /// What each mention's sentence says of it (`crate::context`).
    readings: Vec<Reading>,
}

impl Entities {
    /// Merges overlapping `mentions` (counted in `stats`), groups them and masks every further
    /// occurrence of a mention's text or surface form.
    /// `gate_masks` (spans a release gate masks) each become a group of their own, repeats
    /// propagated like any mention's, unnumbered (`MASKED n`), so that the entities keep their
    /// labels; one that overlaps a mention is already masked and dropped.
    fn new(
        text: &str,
        mentions: &[Mention],
        gate_masks: &[kanon_core::Span],
        stats: &mut SanitizeStats,
    ) -> Self {
        let (mentions, merged) = merge_overlaps(mentions);
        stats.merged_spans = merged;
        let groups = group_mentions(text, &mentions);
        let (mut mentions, mut groups, propagated) = propagate(text, mentions, groups);
        if gate_masks.is_empty() {
            return Self::grouped(mentions, groups, propagated, Vec::new(), text);
        }
        // The entities' repeats are theirs: the gate's words are placed around them.
        let repeats: std::collections::HashSet<(usize, usize)> = mentions
            .iter()
            .zip(&propagated)
            .filter(|(_, propagated)| **propagated)
            .map(|(mention, _)| (mention.span.start, mention.span.end))
            .collect();
        let mut gate_spans: Vec<(usize, usize)> = Vec::new();
        let mut sorted_masks = gate_masks.to_vec();
        sorted_masks.sort_by_key(|span| (span.start, span.end));
        for span in sorted_masks {
            let overlaps = |start: usize, end: usize| start < span.end && span.start < end;
            if span.start >= span.end
                || mentions
                    .iter()
                    .any(|mention| overlaps(mention.span.start, mention.span.end))
                || gate_spans.iter().any(|&(start, end)| overlaps(start, end))
            {
                continue;
            }
            gate_spans.push((span.start, span.end));
            groups.push(EntityGroup {
                entity_type: EntityType::Misc,
                mentions: vec![mentions.len()],
                number: 0,
            });
            mentions.push(Mention::new(span.start, span.end, EntityType::Misc));
        }
        let (mentions, mut groups, propagated) = propagate(text, mentions, groups);
        let propagated: Vec<bool> = mentions
            .iter()
            .zip(propagated)
            .map(|(mention, propagated)| {
                propagated || repeats.contains(&(mention.span.start, mention.span.end))
            })
            .collect();
        let gated: Vec<bool> = groups
            .iter()
            .map(|group| {
                group.mentions.iter().any(|&index| {
                    !propagated[index]
                        && gate_spans
                            .contains(&(mentions[index].span.start, mentions[index].span.end))
                })
            })
            .collect();
        {
            // The entities keep the numbers they have without the gate's words.
            let mut numbers: std::collections::HashMap<EntityType, usize> =
                std::collections::HashMap::new();
            let mut masked = 0;
            for (group, &gated) in groups.iter_mut().zip(&gated) {
                let number = if gated {
                    &mut masked
                } else {
                    numbers.entry(group.entity_type).or_insert(0)
                };
                *number += 1;
                group.number = *number;
            }
        }
        Self::grouped(mentions, groups, propagated, gated, text)
    }

    /// The entities of grouped, propagated mentions; `gated` empty: no gate words.
    fn grouped(
        mentions: Vec<Mention>,
        groups: Vec<EntityGroup>,
        propagated: Vec<bool>,
        mut gated: Vec<bool>,
        text: &str,
    ) -> Self {
        gated.resize(groups.len(), false);
        let surfaces: Vec<String> = mentions
            .iter()
            .map(|mention| mention.span.slice(text).unwrap_or("").to_owned())
            .collect();
        let mut group_of = vec![0; mentions.len()];
        for (index, group) in groups.iter().enumerate() {
            for &mention in &group.mentions {
                group_of[mention] = index;
            }
        }
        let chars: Vec<char> = text.chars().collect();
        let spans: Vec<(usize, usize, EntityType)> = mentions
            .iter()
            .zip(&group_of)
            .map(|(mention, &group)| {
                (
                    mention.span.start,
                    mention.span.end,
                    groups[group].entity_type,
                )
            })
            .collect();
        let readings = crate::context::read_all(&chars, &spans);
        Entities {
            mentions,
            surfaces,
            propagated,
            groups,
            group_of,
            gated,
            readings,
        }
    }

    /// Every mention a noun phrase of its own, no kind read: as when the context is not read.
    fn ignore_context(&mut self) {
        for reading in &mut self.readings {
            reading.slot = Slot::Head;
            reading.kind = None;
            reading.implied = None;
            reading.listed = false;
        }
    }

    /// Whether every mention of the entity can be left out.
    fn droppable(&self, group: &EntityGroup) -> bool {
        group
            .mentions
            .iter()
            .all(|&mention| self.readings[mention].slot.droppable())
    }

    /// The kind the first mention that names one is given by its sentence.
    fn stated_kind(&self, group: &EntityGroup) -> Option<&str> {
        group
            .mentions
            .iter()
            .find_map(|&mention| self.readings[mention].kind.as_deref())
    }

    /// The kind the words the first mention that implies one is the object of imply.
    fn implied_kind(&self, group: &EntityGroup) -> Option<&str> {
        group
            .mentions
            .iter()
            .find_map(|&mention| self.readings[mention].implied.as_deref())
    }

    /// Whether `mention`, to be replaced by `phrase`, is left out: it follows its kind's noun,
    /// or it modifies the noun after it and `phrase` is no adjective (a demonym's rung is one).
    fn left_out(&self, mention: usize, entity_type: EntityType, phrase: &str) -> bool {
        match self.readings[mention].slot {
            Slot::Head => false,
            Slot::Apposition | Slot::Described { .. } => true,
            Slot::Modifier => {
                let first = phrase.split_whitespace().next().unwrap_or("");
                let noun_phrase = ["a", "an", "the"].contains(&first.to_lowercase().as_str());
                entity_type != EntityType::Dem || noun_phrase || phrase.is_empty() || {
                    // A label (`DEM 1`) reads as no adjective.
                    phrase.starts_with(char::is_uppercase)
                        && phrase.ends_with(|c: char| c.is_ascii_digit())
                }
            }
        }
    }

    /// The entity's name in the edits and the audit: its label, or `MASKED n` for a word the
    /// gate masked.
    fn label(&self, group: usize) -> String {
        if self.gated[group] {
            format!("MASKED {}", self.groups[group].number)
        } else {
            self.groups[group].label()
        }
    }

    /// Every mention's current replacement; `attacked` puts a candidate of one entity in `[[…]]`.
    fn replacements(&self, plans: &[Plan], attacked: Option<(usize, &String)>) -> Vec<Replacement> {
        let mut replacements: Vec<Replacement> = Vec::with_capacity(self.mentions.len());
        for (index, (group, plan)) in self.groups.iter().zip(plans).enumerate() {
            let (text, bracketed, label) = match attacked {
                Some((attacked, candidate)) if attacked == index => {
                    (candidate.clone(), true, false)
                }
                _ => (
                    plan.replacement.clone(),
                    false,
                    !plan.shows_a_candidate() && !plan.replacement.is_empty(),
                ),
            };
            // A generalizing strategy fell back to the label: the renderer may word it for prose.
            let fallback = matches!(
                plan.reason,
                Reason::AllGuessed | Reason::NoCandidates | Reason::Escalated
            );
            let generalizing = fallback
                || matches!(
                    plan.reason,
                    Reason::MostSpecific | Reason::LeastSpecific | Reason::NotGuessed
                );
            for &mention in &group.mentions {
                let dropped = generalizing && self.left_out(mention, group.entity_type, &text);
                let span = &self.mentions[mention].span;
                // A name left out with its description takes the comma and article with it.
                let (start, end) = match self.readings[mention].slot {
                    Slot::Described { start, end } if dropped || text.is_empty() => (start, end),
                    _ => (span.start, span.end),
                };
                replacements.push(Replacement {
                    start,
                    end,
                    entity_type: group.entity_type,
                    text: if dropped { String::new() } else { text.clone() },
                    bracketed: bracketed && !dropped,
                    label: label && !dropped,
                    fallback: fallback && !bracketed && !dropped,
                });
            }
        }
        replacements.sort_by_key(|replacement| replacement.start);
        replacements
    }

    /// One edit per mention, its replacement read from the rendered text at its range; counts
    /// the spans in `stats` by how they were replaced.
    fn edits(
        &self,
        plans: &[Plan],
        sanitized_text: &str,
        ranges: &[std::ops::Range<usize>],
        stats: &mut SanitizeStats,
    ) -> Vec<Edit> {
        let rendered: Vec<char> = sanitized_text.chars().collect();
        let mut edits = Vec::with_capacity(self.mentions.len());
        // `replacements` lists mentions by start, as `mentions` are: one range per mention.
        for (index, mention) in self.mentions.iter().enumerate() {
            let plan = &plans[self.group_of[index]];
            stats.spans += 1;
            stats.propagated_spans += u64::from(self.propagated[index]);
            match plan.reason {
                Reason::Suppressed
                | Reason::Placeholder
                | Reason::Label
                | Reason::NumberedLabel
                | Reason::Substituted
                | Reason::Masked => stats.masked_spans += 1,
                Reason::DirectIdentifier => stats.direct_spans += 1,
                Reason::AllGuessed | Reason::Escalated => stats.all_guessed_spans += 1,
                Reason::NoCandidates => stats.no_candidate_spans += 1,
                Reason::Dropped => {}
                Reason::MostSpecific | Reason::LeastSpecific | Reason::NotGuessed => {
                    if let Some(choice) = plan.choice {
                        stats.count_choice(choice - 1);
                    }
                }
            }
            let range = ranges[index].clone();
            if range.is_empty() && plan.reason != Reason::Suppressed {
                stats.dropped_spans += 1;
            }
            edits.push(Edit {
                start: mention.span.start,
                end: mention.span.end,
                original_type: mention.entity_type,
                entity: self.label(self.group_of[index]),
                replacement: rendered[range].iter().collect(),
                choice: plan.choice,
                reason: plan.reason,
                propagated: self.propagated[index],
            });
        }
        edits
    }

    /// Each entity's audit: its mentions as they stood, and its plan's candidates, attacks and
    /// decision.
    fn audit(&self, plans: Vec<Plan>) -> Vec<AuditEntity> {
        self.groups
            .iter()
            .zip(plans)
            .enumerate()
            .map(|(index, (group, plan))| AuditEntity {
                entity: self.label(index),
                entity_type: group.entity_type,
                mentions: group
                    .mentions
                    .iter()
                    .map(|&index| AuditMention {
                        start: self.mentions[index].span.start,
                        end: self.mentions[index].span.end,
                        text: self.surfaces[index].clone(),
                        propagated: self.propagated[index],
                    })
                    .collect(),
                candidates: plan.proposed,
                attacks: plan.attacks,
                replacement: plan.replacement,
                choice: plan.choice,
                reason: plan.reason,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::{CandidateSource, candidate_words, distinctive_words, merge_by_specificity};

    mod allocation {
        use std::sync::Arc;

        use kanon_core::NoProgress;
        use kanon_index::{Index, IndexBuilder};
        use kanon_kg::{KnowledgeGraph, Person};

        use super::super::{KnownCandidates, balanced_positions, repaired_greedy};
        use crate::kg_attack::{KgAttackConfig, KgAttacker};

        /// A KG of twelve people and no facts (the document names no other term): only the
        /// candidates' people and k = 3 decide.
        fn attacker() -> (tempfile::TempDir, KgAttacker) {
            let people = (0..12)
                .map(|i| Person::new(format!("Q{i}"), format!("Person Number{i}")))
                .collect();
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("index");
            IndexBuilder::new()
                .build(&KnowledgeGraph { people }, &path, &NoProgress)
                .unwrap();
            let config = KgAttackConfig {
                k: 3,
                max_arity: 3,
                ..KgAttackConfig::default()
            };
            (dir, KgAttacker::new(Index::open(&path).unwrap(), config))
        }

        fn known(entities: &[&[&[u32]]]) -> KnownCandidates {
            KnownCandidates {
                fixed: Vec::new(),
                known: entities
                    .iter()
                    .map(|candidates| {
                        candidates
                            .iter()
                            .enumerate()
                            .map(|(rank, people)| (rank, Arc::new(people.to_vec())))
                            .collect()
                    })
                    .collect(),
            }
        }

        #[test]
        fn an_entity_greedy_leaves_bare_is_decided_first_when_that_keeps_more_entities() {
            let (_dir, kg) = attacker();
            // A's specific candidate shares one person with B's only one; A's broad one shares
            // six. C's specific one shares no one with B, its broad one person 3.
            let a: &[&[u32]] = &[&[0, 1, 2, 3], &[0, 1, 2, 3, 4, 5, 6, 7, 8]];
            let b: &[&[u32]] = &[&[3, 4, 5, 6, 7, 8]];
            let c: &[&[u32]] = &[&[0, 1, 2, 9, 10], &[0, 1, 2, 3, 9, 10]];
            let known = known(&[a, b, c]);
            // In document order, A's specific candidate leaves B nothing.
            assert_eq!(
                known.greedy(&kg, &[], &known.order(), None),
                [Some(0), None, Some(0)]
            );
            // Balanced: B's candidate and C's broad one single person 3 out, so B drops.
            assert_eq!(
                balanced_positions(&kg, &[], &known),
                [Some(0), None, Some(0)]
            );
            // Repaired: B first, then A at its broad candidate and C at its specific one.
            let in_document_order = known.greedy(&kg, &[], &known.order(), None);
            assert_eq!(
                repaired_greedy(&kg, &[], &known, in_document_order),
                [Some(1), Some(0), Some(0)]
            );
        }
    }

    #[test]
    fn a_number_is_one_word_and_a_decimal_names_its_whole_part_too() {
        let words: Vec<&str> = candidate_words("less than 100,000 euros (EUR), 1.5 m").collect();
        assert_eq!(
            words,
            ["less", "than", "100,000", "euros", "EUR", "1.5", "m"]
        );
        let distinctive: Vec<&str> = distinctive_words("EUR 4,684.40 in Oslo").collect();
        assert_eq!(distinctive, ["EUR", "4,684.40", "4,684", "Oslo"]);
        // `000` of `10,000` names nothing another amount's bound could reveal.
        assert!(!distinctive_words("EUR 10,000").any(|word| word == "000"));
    }

    fn merge(rungs: &[&str], generated: &[&str]) -> Vec<(String, CandidateSource)> {
        merge_by_specificity(
            rungs.iter().map(|r| (*r).to_owned()).collect(),
            generated.iter().map(|g| (*g).to_owned()).collect(),
        )
    }

    fn texts(merged: &[(String, CandidateSource)]) -> Vec<&str> {
        merged.iter().map(|(text, _)| text.as_str()).collect()
    }

    #[test]
    fn both_sources_merge_into_one_order_by_specificity() {
        use CandidateSource::{KnowledgeGraph as Kg, Model};
        let merged = merge(
            &[
                "a city in Norway",
                "a city in Northern Europe",
                "a city in Europe",
                "a city",
            ],
            &[
                "a coastal city in western Norway",
                "a city in Norway",
                "a city in Scandinavia",
                "a city in Northern Europe",
                "a European city",
            ],
        );
        // Phrases both give anchor the two orders (the model's copy follows as a duplicate);
        // `a city in Scandinavia` stands between them, and the hierarchy's root stays last.
        assert_eq!(
            merged,
            [
                ("a coastal city in western Norway", Model),
                ("a city in Norway", Kg),
                ("a city in Norway", Model),
                ("a city in Scandinavia", Model),
                ("a city in Northern Europe", Kg),
                ("a city in Northern Europe", Model),
                ("a city in Europe", Kg),
                ("a European city", Model),
                ("a city", Kg),
            ]
            .map(|(text, source)| (text.to_owned(), source))
        );
    }

    #[test]
    fn without_shared_phrases_the_sources_interleave_by_relative_depth() {
        // Rungs at 1/2 and 1; the model's at 1/3, 2/3 and 1; at equal depth the model first.
        let merged = merge(
            &["a political party", "an organization"],
            &["a social democratic party", "a party", "a group"],
        );
        assert_eq!(
            texts(&merged),
            [
                "a social democratic party",
                "a political party",
                "a party",
                "a group",
                "an organization"
            ]
        );
        // Any number of rungs: each source keeps its own order.
        for n in 0..8 {
            let rungs: Vec<String> = (0..n).map(|i| format!("rung {i}")).collect();
            let rungs: Vec<&str> = rungs.iter().map(String::as_str).collect();
            let merged = merge(&rungs, &["model 0", "model 1", "model 2"]);
            assert_eq!(merged.len(), n + 3);
            let kg: Vec<&str> = merged
                .iter()
                .filter(|(_, source)| *source == CandidateSource::KnowledgeGraph)
                .map(|(text, _)| text.as_str())
                .collect();
            assert_eq!(kg, rungs);
            if n > 0 {
                assert_eq!(merged.last().unwrap().0, rungs[n - 1]);
            }
        }
        // One source alone is itself; phrases in crossing orders are each kept once per source.
        assert_eq!(texts(&merge(&[], &["b", "a"])), ["b", "a"]);
        assert_eq!(texts(&merge(&["a", "b"], &[])), ["a", "b"]);
        assert_eq!(merge(&["a", "b"], &["b", "a"]).len(), 4);
    }
}
