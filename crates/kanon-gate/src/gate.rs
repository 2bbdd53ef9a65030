//! The gate on a batch of documents: attack each sanitized output, escalate through the
//! sanitizer's own rendering while an attacker succeeds, and certify the outcome.
//!
//! One escalation per document per round: while the KG attacker objects, the KG term whose
//! removal leaves Algorithm 1 the fewest objections goes — its entity climbs one rung (a floor
//! on its candidates, past the last one its label) where it stands inside a replacement, or its
//! words are masked where it stands in the text; once the KG is satisfied and a
//! re-identification attacker still succeeds, the `words_per_round` words the attackers
//! together lean on most are masked. Every attacker reads each round's outputs in one batch.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use kanon_core::Span;
use kanon_sanitize::{Constraints, Mention, Reason, Sanitized, SanitizedDocument, Sanitizer};

use crate::certificate::{
    AttackerOutcome, CapReason, Certificate, Escalation, KgCertificate, OutputSpan, Status,
    WordsChanged,
};
use crate::config::GateConfig;
use crate::error::{Error, Result};
use crate::kg::{KgAttacker, KgVerdict};
use crate::reid::{Bm25Attacker, ReidAttacker, first, rank, rival};

/// The name of the re-identification attackers together.
pub const ENSEMBLE: &str = "ensemble";

/// A document to certify.
#[derive(Debug, Clone, Copy)]
pub struct GateInput<'d> {
    /// Its id.
    pub id: &'d str,
    /// Its original text.
    pub text: &'d str,
    /// Its spans, as the sanitizer takes them.
    pub mentions: &'d [Mention],
    /// Its person in the background, when known.
    pub person: Option<usize>,
}

/// A certified document: the output (as `kanon sanitize` writes it) and its certificate.
#[derive(Debug, Clone, PartialEq)]
pub struct Gated {
    /// The certified output.
    pub document: SanitizedDocument,
    /// What the gate found and did.
    pub certificate: Certificate,
}

/// The attackers and the sanitizer a gate runs with.
pub struct Gate<'a> {
    config: GateConfig,
    sanitizer: &'a Sanitizer<'a>,
    kg: Option<KgAttacker<'a>>,
    /// The re-identification attackers, in the config's order.
    attackers: Vec<&'a dyn ReidAttacker>,
    /// Words as BM25 reads them, and their weights: the guide's lexical half (whether or not
    /// BM25 is among the attackers).
    lexicon: Option<&'a Bm25Attacker>,
}

impl std::fmt::Debug for Gate<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gate")
            .field("config", &self.config)
            .field("kg", &self.kg.is_some())
            .field(
                "attackers",
                &self.attackers.iter().map(|a| a.name()).collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

/// What the attackers found on one output.
#[derive(Debug, Clone)]
struct Observation {
    kg: Option<KgVerdict>,
    /// Per re-identification attacker: the person's rank (to the recorded depth), whether it
    /// succeeded, and its scores.
    reid: Vec<(Option<usize>, bool, Vec<f32>)>,
}

impl Observation {
    fn kg_fails(&self) -> bool {
        self.kg.as_ref().is_some_and(|kg| !kg.passes())
    }

    fn reid_fails(&self) -> bool {
        self.reid.iter().any(|(_, succeeded, _)| *succeeded)
    }
}

/// A masked original span and the escalation that asked for it.
#[derive(Debug, Clone)]
enum Pending {
    Rung {
        round: usize,
        entity: String,
        from: Option<usize>,
        to: Option<usize>,
    },
    Mask {
        round: usize,
        by: &'static str,
        spans: Vec<Span>,
    },
}

struct State {
    constraints: Constraints,
    sanitized: Sanitized,
    escalations: Vec<Pending>,
    before: Option<Observation>,
    words_before: f64,
    outcome: Option<(Status, Option<CapReason>, Observation)>,
    rounds: usize,
    /// Masks undone by pruning.
    pruned: usize,
}

impl<'a> Gate<'a> {
    /// A gate re-rendering through `sanitizer`, with the KG attacker when `kg` is given and the
    /// `attackers` (scoring the background's people); `lexicon` is the BM25 index whose
    /// tokenizer and weights guide masking (needed with any re-identification attacker).
    pub fn new(
        config: GateConfig,
        sanitizer: &'a Sanitizer<'a>,
        kg: Option<KgAttacker<'a>>,
        attackers: Vec<&'a dyn ReidAttacker>,
        lexicon: Option<&'a Bm25Attacker>,
    ) -> Result<Self> {
        config.validate().map_err(Error::Config)?;
        if !attackers.is_empty() && lexicon.is_none() {
            return Err(Error::Config(
                "re-identification attackers need the background's BM25 index to guide masking"
                    .into(),
            ));
        }
        if kg.is_none() && attackers.is_empty() {
            return Err(Error::Config("a gate needs at least one attacker".into()));
        }
        Ok(Gate {
            config,
            sanitizer,
            kg,
            attackers,
            lexicon,
        })
    }

    /// The gate's config.
    pub fn config(&self) -> &GateConfig {
        &self.config
    }

    /// Certifies a batch of documents. Each document's outcome depends on it alone (not on
    /// the batch), so a run cut into other batches certifies the same.
    pub fn certify(&self, docs: &[GateInput<'_>]) -> Result<Vec<Gated>> {
        let mut states = Vec::with_capacity(docs.len());
        for doc in docs {
            let constraints = Constraints::default();
            let sanitized = self.render(doc, &constraints)?;
            let words_before = words_changed(doc.text, &sanitized.document);
            states.push(State {
                constraints,
                sanitized,
                escalations: Vec::new(),
                before: None,
                words_before,
                outcome: None,
                rounds: 0,
                pruned: 0,
            });
        }
        for round in 0..=self.config.max_rounds {
            let active: Vec<usize> = (0..docs.len())
                .filter(|&i| states[i].outcome.is_none())
                .collect();
            if active.is_empty() {
                break;
            }
            let observations = self.observe(docs, &states, &active)?;
            for (i, observation) in active.into_iter().zip(observations) {
                let state = &mut states[i];
                if state.before.is_none() {
                    state.before = Some(observation.clone());
                }
                if !observation.kg_fails() && !observation.reid_fails() {
                    let status = if state.escalations.is_empty() {
                        Status::Passed
                    } else {
                        Status::Escalated
                    };
                    state.outcome = Some((status, None, observation));
                } else if round == self.config.max_rounds {
                    state.outcome = Some((Status::Capped, Some(CapReason::Rounds), observation));
                } else if self.config.cap_out_of_reach
                    && self.bm25_out_of_reach(&docs[i], state, &observation)?
                {
                    state.outcome =
                        Some((Status::Capped, Some(CapReason::OutOfReach), observation));
                } else if let Some(reason) =
                    self.escalate(&docs[i], state, &observation, round + 1)?
                {
                    state.outcome = Some((Status::Capped, Some(reason), observation));
                } else {
                    state.rounds = round + 1;
                }
            }
        }
        if self.config.prune {
            self.prune(docs, &mut states)?;
        }
        Ok(docs
            .iter()
            .zip(states)
            .map(|(doc, state)| self.finish(doc, state))
            .collect())
    }

    /// Backward elimination over the masks of the documents that passed: each mask, in the
    /// order made, is undone where every attacker still fails on the re-rendered output (one
    /// trial per document per step, attacked in one batch). Rungs stay: they cost no words.
    fn prune(&self, docs: &[GateInput<'_>], states: &mut [State]) -> Result<()> {
        let released = |state: &State| matches!(state.outcome, Some((Status::Escalated, None, _)));
        // Per document, the escalations still to try, in the order made.
        let mut queues: Vec<std::collections::VecDeque<usize>> = states
            .iter()
            .map(|state| {
                if !released(state) {
                    return Default::default();
                }
                (0..state.escalations.len())
                    .filter(|&e| matches!(state.escalations[e], Pending::Mask { .. }))
                    .collect()
            })
            .collect();
        let mut undone: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); states.len()];
        loop {
            let mut trials: Vec<(usize, usize, Constraints, Sanitized)> = Vec::new();
            for (i, queue) in queues.iter_mut().enumerate() {
                let Some(e) = queue.pop_front() else {
                    continue;
                };
                let Pending::Mask { spans, .. } = &states[i].escalations[e] else {
                    continue;
                };
                let mut constraints = states[i].constraints.clone();
                constraints.masked.retain(|span| !spans.contains(span));
                let sanitized = self.render(&docs[i], &constraints)?;
                trials.push((i, e, constraints, sanitized));
            }
            if trials.is_empty() {
                break;
            }
            let outputs: Vec<(usize, &Sanitized)> = trials
                .iter()
                .map(|(i, _, _, sanitized)| (*i, sanitized))
                .collect();
            let observations = self.observe_outputs(docs, &outputs)?;
            for ((i, e, constraints, sanitized), observation) in
                trials.into_iter().zip(observations)
            {
                if observation.kg_fails() || observation.reid_fails() {
                    continue;
                }
                let state = &mut states[i];
                state.constraints = constraints;
                state.sanitized = sanitized;
                state.outcome = Some((Status::Escalated, None, observation));
                undone[i].insert(e);
            }
        }
        for (state, undone) in states.iter_mut().zip(undone) {
            if undone.is_empty() {
                continue;
            }
            state.pruned = undone.len();
            let escalations = std::mem::take(&mut state.escalations);
            state.escalations = escalations
                .into_iter()
                .enumerate()
                .filter(|(e, _)| !undone.contains(e))
                .map(|(_, pending)| pending)
                .collect();
        }
        Ok(())
    }

    fn render(&self, doc: &GateInput<'_>, constraints: &Constraints) -> Result<Sanitized> {
        self.sanitizer
            .sanitize_constrained(doc.id, doc.text, doc.mentions, constraints)
            .map_err(Error::Sanitize)
    }

    /// Every attacker on the active documents' outputs, one batch per attacker.
    fn observe(
        &self,
        docs: &[GateInput<'_>],
        states: &[State],
        active: &[usize],
    ) -> Result<Vec<Observation>> {
        let outputs: Vec<(usize, &Sanitized)> =
            active.iter().map(|&i| (i, &states[i].sanitized)).collect();
        self.observe_outputs(docs, &outputs)
    }

    /// Every attacker on the outputs, each of document `i`, one batch per attacker.
    fn observe_outputs(
        &self,
        docs: &[GateInput<'_>],
        outputs: &[(usize, &Sanitized)],
    ) -> Result<Vec<Observation>> {
        let texts: Vec<&str> = outputs
            .iter()
            .map(|(_, sanitized)| sanitized.document.text.as_str())
            .collect();
        let mut per_attacker = Vec::with_capacity(self.attackers.len());
        for attacker in &self.attackers {
            per_attacker.push(attacker.scores(&texts)?);
        }
        let mut observations = Vec::with_capacity(outputs.len());
        for (slot, &(i, sanitized)) in outputs.iter().enumerate() {
            let kg = self
                .kg
                .as_ref()
                .map(|kg| kg.check_output(docs[i].id, sanitized));
            let reid = self
                .attackers
                .iter()
                .zip(&mut per_attacker)
                .map(|(attacker, rows)| {
                    let scores = std::mem::take(&mut rows[slot]);
                    let (rank, succeeded) = self.judge(*attacker, &scores, docs[i].person);
                    (rank, succeeded, scores)
                })
                .collect();
            observations.push(Observation { kg, reid });
        }
        Ok(observations)
    }

    /// The person's rank (to the recorded depth) and whether the attacker succeeded.
    fn judge(
        &self,
        attacker: &dyn ReidAttacker,
        scores: &[f32],
        person: Option<usize>,
    ) -> (Option<usize>, bool) {
        match person {
            Some(person) => {
                let rank = rank(scores, person);
                (
                    rank.filter(|&r| r <= self.config.rank_depth),
                    rank.is_some_and(|r| r <= self.config.top_k),
                )
            }
            None => (None, attacker.lead(scores) >= self.config.margin),
        }
    }

    /// Makes one escalation and re-renders; returns why the document is capped when none can
    /// be made.
    fn escalate(
        &self,
        doc: &GateInput<'_>,
        state: &mut State,
        observation: &Observation,
        round: usize,
    ) -> Result<Option<CapReason>> {
        let mut over_cap = false;
        let attempts = if let Some(verdict) = observation.kg.as_ref().filter(|v| !v.passes()) {
            self.kg_moves(doc, state, verdict, round)
        } else {
            self.reid_moves(doc, state, observation, round)?
        };
        for (constraints, pending) in attempts {
            let sanitized = self.render(doc, &constraints)?;
            let words = words_changed(doc.text, &sanitized.document);
            let adds_words = words > words_changed(doc.text, &state.sanitized.document);
            if adds_words && words > self.config.max_words_changed + 1e-12 {
                over_cap = true;
                continue;
            }
            // What each climbing entity took: a candidate, or past the last its label.
            let pending = pending
                .into_iter()
                .map(|p| match p {
                    Pending::Rung {
                        round,
                        entity,
                        from,
                        ..
                    } => {
                        let to = sanitized
                            .document
                            .edits
                            .iter()
                            .find(|e| e.entity == entity)
                            .and_then(|e| e.choice.filter(|_| e.reason != Reason::Escalated));
                        Pending::Rung {
                            round,
                            entity,
                            from,
                            to,
                        }
                    }
                    mask => mask,
                })
                .collect::<Vec<_>>();
            state.constraints = constraints;
            state.sanitized = sanitized;
            state.escalations.extend(pending);
            return Ok(None);
        }
        Ok(Some(if over_cap {
            CapReason::MaskingCap
        } else {
            CapReason::NothingLeft
        }))
    }

    /// Escalations that would remove one KG term Algorithm 1 objects to, the most helpful
    /// first: its entities climb a rung where it stands in a replacement, its words are masked
    /// where it stands in the text.
    fn kg_moves(
        &self,
        doc: &GateInput<'_>,
        state: &State,
        verdict: &KgVerdict,
        round: usize,
    ) -> Vec<(Constraints, Vec<Pending>)> {
        let Some(kg) = &self.kg else {
            return Vec::new();
        };
        let mut suspects: Vec<(usize, usize, u32)> = verdict
            .suspects()
            .into_iter()
            .map(|term| {
                let first = verdict.terms.iter().position(|&t| t == term).unwrap_or(0);
                (kg.masks_without(doc.id, verdict, term), first, term)
            })
            .collect();
        suspects.sort_unstable();
        suspects
            .into_iter()
            .filter_map(|(_, _, term)| {
                self.remove_spans(state, &verdict.occurrences(term), round, "kg")
            })
            .collect()
    }

    /// Constraints under which the output's `spans` are gone: entities whose replacement they
    /// touch climb one rung, the rest of them is masked. None when nothing would change.
    fn remove_spans(
        &self,
        state: &State,
        spans: &[OutputSpan],
        round: usize,
        by: &'static str,
    ) -> Option<(Constraints, Vec<Pending>)> {
        let sanitized = &state.sanitized;
        let mut constraints = state.constraints.clone();
        // Entities INTACT already chose for keep their choice: a re-render attacks only those a
        // floor moves (a floor above a kept choice wins).
        for edit in &sanitized.document.edits {
            match (edit.reason, edit.choice) {
                (kanon_sanitize::Reason::NotGuessed, Some(choice)) => {
                    constraints.kept.insert(edit.entity.clone(), choice);
                }
                (kanon_sanitize::Reason::AllGuessed, _) => {
                    constraints.kept.insert(edit.entity.clone(), 0);
                }
                _ => {}
            }
        }
        let mut pending = Vec::new();
        let mut climbed: BTreeSet<String> = BTreeSet::new();
        let mut masked = Vec::new();
        for span in spans {
            let range = span.start..span.end;
            let touched: Vec<usize> = sanitized
                .replaced
                .iter()
                .enumerate()
                .filter(|(_, r)| overlaps(r, &range))
                .map(|(e, _)| e)
                .collect();
            if touched.is_empty() {
                if let Some(original) = sanitized.original_range(range) {
                    masked.push(Span::new(original.start, original.end));
                }
                continue;
            }
            for e in touched {
                let edit = &sanitized.document.edits[e];
                if !climbed.insert(edit.entity.clone()) {
                    continue;
                }
                let Some(choice) = edit.choice else {
                    // A label or a mask: nothing more general to climb to.
                    continue;
                };
                let to = choice + 1;
                constraints.floors.insert(edit.entity.clone(), to);
                pending.push(Pending::Rung {
                    round,
                    entity: edit.entity.clone(),
                    from: Some(choice),
                    to: Some(to),
                });
            }
        }
        masked.retain(|span| !constraints.masked.contains(span));
        if !masked.is_empty() {
            constraints.masked.extend(masked.iter().copied());
            pending.push(Pending::Mask {
                round,
                by,
                spans: masked,
            });
        }
        (!pending.is_empty()).then_some((constraints, pending))
    }

    /// Whether BM25 is bound to keep naming the document's person whatever the gate masks
    /// within the cap, so that masking more would spend words on a document that ends capped
    /// anyway. Checked only once the KG attacker is satisfied: from then on the gate only masks
    /// words outside replacements (removing terms never makes Algorithm 1 object). True when
    /// fewer than `top_k` other people could overtake the person with the words left
    /// ([`Reach::words_to_overtake`]).
    fn bm25_out_of_reach(
        &self,
        doc: &GateInput<'_>,
        state: &State,
        observation: &Observation,
    ) -> Result<bool> {
        let (Some(lexicon), Some(person)) = (self.lexicon, doc.person) else {
            return Ok(false);
        };
        if observation.kg_fails() {
            return Ok(false);
        }
        let Some(slot) = self.attackers.iter().position(|a| a.name() == "bm25") else {
            return Ok(false);
        };
        let (_, succeeded, scores) = &observation.reid[slot];
        if !*succeeded || !scores[person].is_finite() {
            return Ok(false);
        }
        let sanitized = &state.sanitized;
        let (changed, total) = words_changed_count(doc.text, &sanitized.document);
        let allowed = ((self.config.max_words_changed + 1e-12) * total as f64).floor() as usize;
        let budget = allowed.saturating_sub(changed) as f64;
        let reach = Reach::new(lexicon, self.sanitizer, sanitized, scores, person)?;
        let within = (0..scores.len())
            .filter(|&rival| rival != person && reach.words_to_overtake(rival) <= budget)
            .take(self.config.top_k)
            .count();
        Ok(within < self.config.top_k)
    }

    /// Masks of the words the re-identification attackers lean on most, most helpful set
    /// first, then smaller sets (so that a cap that refuses several words may allow one).
    fn reid_moves(
        &self,
        doc: &GateInput<'_>,
        state: &State,
        observation: &Observation,
        round: usize,
    ) -> Result<Vec<(Constraints, Vec<Pending>)>> {
        let ranked = self.guide(doc, state, observation)?;
        if ranked.is_empty() {
            return Ok(Vec::new());
        }
        let mut moves = Vec::new();
        let mut take = self.config.words_per_round.min(ranked.len());
        while take > 0 {
            let spans: Vec<OutputSpan> = ranked[..take]
                .iter()
                .flat_map(|word| word.iter().copied())
                .collect();
            if let Some(found) = self.remove_spans(state, &spans, round, "ensemble") {
                moves.push(found);
            }
            take /= 2;
        }
        Ok(moves)
    }

    /// The output's words outside every replacement, grouped by form, ranked by how much the
    /// attackers together lean on them: per attacker, the fall in the margin of its target
    /// (the person, or its first candidate when the person is unknown) over its best other
    /// candidate (for a succeeding BM25 with `easiest_rival`, over the candidate the fewest
    /// masked words would put ahead) when the word goes, as a share of its largest; attackers
    /// still succeeding
    /// weigh 1, a BM25 that no longer does 1/4 (a model that no longer does is not asked: its
    /// leave-one-out is the gate's dearest step); a word beside a replaced or masked span weighs
    /// `1 + adjacency_bonus` times more; a form is ranked by that weight per occurrence masked.
    /// Only words some attacker leans on are returned.
    fn guide(
        &self,
        doc: &GateInput<'_>,
        state: &State,
        observation: &Observation,
    ) -> Result<Vec<Vec<OutputSpan>>> {
        let Some(lexicon) = self.lexicon else {
            return Ok(Vec::new());
        };
        let sanitized = &state.sanitized;
        let text = &sanitized.document.text;
        let chars: Vec<char> = text.chars().collect();
        // Candidate words: outside replacements, mappable to the original, not function words.
        let mut forms: Vec<(String, Vec<OutputSpan>)> = Vec::new();
        for token in lexicon.tokens(text)? {
            let range = token.chars.clone();
            if sanitized.replaced.iter().any(|r| overlaps(r, &range))
                || kanon_core::text::is_stopword(&token.form)
                || sanitized.original_range(range.clone()).is_none()
            {
                continue;
            }
            let span = OutputSpan {
                start: range.start,
                end: range.end,
            };
            match forms.iter_mut().find(|(form, _)| *form == token.form) {
                Some((_, spans)) => spans.push(span),
                None => forms.push((token.form, vec![span])),
            }
        }
        if forms.is_empty() {
            return Ok(Vec::new());
        }
        let mut combined = vec![0f64; forms.len()];
        // The BM25 weights of each form for a person.
        let lexical = |person: usize| -> Result<Vec<f64>> {
            forms
                .iter()
                .map(|(form, _)| Ok(f64::from(lexicon.weight(form, person)?)))
                .collect()
        };
        for (attacker, (_, succeeded, scores)) in self.attackers.iter().zip(&observation.reid) {
            let Some(target) = doc.person.or_else(|| first(scores)) else {
                continue;
            };
            let drops: Vec<f64> = if attacker.name() == "bm25" {
                let own = lexical(target)?;
                // The rival the fewest masked words would put ahead, which need not be the
                // runner-up: one whose text shares more of the document's rarer words may lie
                // behind by more and still be overtaken sooner.
                let easiest = if self.config.easiest_rival && *succeeded {
                    let reach = Reach::new(lexicon, self.sanitizer, sanitized, scores, target)?;
                    (0..scores.len())
                        .filter(|&r| r != target)
                        .map(|r| (reach.words_to_overtake(r), r))
                        .filter(|(words, _)| words.is_finite())
                        .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
                        .map(|(_, r)| r)
                } else {
                    None
                };
                let other = match easiest.or_else(|| rival(scores, target)) {
                    Some(r) => lexical(r)?,
                    None => vec![0.0; forms.len()],
                };
                own.iter().zip(&other).map(|(a, b)| a - b).collect()
            } else if *succeeded {
                self.leave_one_out(*attacker, &chars, &forms, scores, target, &lexical(target)?)?
            } else {
                // Its leave-one-out costs `neural_candidates` passes of the model a round; once
                // it fails, its quarter weight is not worth them (BM25's costs nothing).
                continue;
            };
            let top = drops.iter().copied().fold(0f64, f64::max);
            if top <= 0.0 {
                continue;
            }
            let weight = if *succeeded { 1.0 } else { 0.25 };
            for (total, drop) in combined.iter_mut().zip(&drops) {
                *total += weight * drop.max(0.0) / top;
            }
        }
        let beside = |span: &OutputSpan| {
            sanitized.replaced.iter().any(|r| {
                let gap = if r.end <= span.start {
                    r.end..span.start
                } else if span.end <= r.start {
                    span.end..r.start
                } else {
                    return true;
                };
                gap.len() <= 3
                    && chars[gap]
                        .iter()
                        .all(|c| c.is_whitespace() || c.is_ascii_punctuation())
            })
        };
        for ((_, spans), total) in forms.iter().zip(&mut combined) {
            if spans.iter().any(beside) {
                *total *= 1.0 + self.config.adjacency_bonus;
            }
            // The cap and the utility count words: a form written three times costs three.
            *total /= spans.len() as f64;
        }
        let mut order: Vec<usize> = (0..forms.len()).filter(|&f| combined[f] > 0.0).collect();
        // Heaviest first; ties to the word that comes first.
        order.sort_by(|&a, &b| combined[b].total_cmp(&combined[a]).then(a.cmp(&b)));
        Ok(order.into_iter().map(|f| forms[f].1.clone()).collect())
    }

    /// For a model that only scores whole texts: the fall of the target's margin when each
    /// form is masked, for the `neural_candidates` forms BM25 weighs most for the target (the
    /// others get 0), in one batch.
    fn leave_one_out(
        &self,
        attacker: &dyn ReidAttacker,
        chars: &[char],
        forms: &[(String, Vec<OutputSpan>)],
        scores: &[f32],
        target: usize,
        lexical: &[f64],
    ) -> Result<Vec<f64>> {
        let margin = |scores: &[f32]| -> f64 {
            let own = f64::from(scores[target]);
            match rival(scores, target) {
                Some(r) => own - f64::from(scores[r]),
                None => own,
            }
        };
        let base = margin(scores);
        let mut candidates: Vec<usize> = (0..forms.len()).collect();
        candidates.sort_by(|&a, &b| lexical[b].total_cmp(&lexical[a]).then(a.cmp(&b)));
        candidates.truncate(self.config.neural_candidates);
        let placeholder = &self.sanitizer.config().placeholder;
        let trials: Vec<String> = candidates
            .iter()
            .map(|&f| {
                let mut out = String::with_capacity(chars.len());
                let mut at = 0;
                for span in &forms[f].1 {
                    out.extend(&chars[at..span.start]);
                    out += placeholder;
                    at = span.end;
                }
                out.extend(&chars[at..]);
                out
            })
            .collect();
        let texts: Vec<&str> = trials.iter().map(String::as_str).collect();
        let rows = attacker.scores(&texts)?;
        let mut drops = vec![0.0; forms.len()];
        for (&f, row) in candidates.iter().zip(rows) {
            drops[f] = base - margin(&row);
        }
        Ok(drops)
    }

    /// The certificate of a finished document.
    fn finish(&self, doc: &GateInput<'_>, state: State) -> Gated {
        let (status, capped, after) = state
            .outcome
            .expect("every document ends passed, escalated or capped");
        let before = state.before.unwrap_or_else(|| after.clone());
        let sanitized = state.sanitized;
        let kg = self.kg.as_ref().map(|kg| {
            let verdict = after.kg.as_ref().expect("the KG attacker ran");
            let reach = kg.reach(verdict);
            KgCertificate {
                k: self.config.k,
                max_arity: self.config.max_arity,
                objections_before: before.kg.as_ref().map_or(0, |v| v.decisions.masks.len()),
                objections_after: verdict.decisions.masks.len(),
                k_reached: reach.k_reached,
                binding: reach.binding,
            }
        });
        let mut attackers = BTreeMap::new();
        for (a, attacker) in self.attackers.iter().enumerate() {
            attackers.insert(
                attacker.name().to_owned(),
                AttackerOutcome {
                    rank_before: before.reid[a].0,
                    rank_after: after.reid[a].0,
                    succeeded_before: before.reid[a].1,
                    succeeded_after: after.reid[a].1,
                },
            );
        }
        if self.attackers.len() > 1 {
            let best = |o: &Observation| o.reid.iter().filter_map(|r| r.0).min();
            attackers.insert(
                ENSEMBLE.to_owned(),
                AttackerOutcome {
                    rank_before: best(&before),
                    rank_after: best(&after),
                    succeeded_before: before.reid_fails(),
                    succeeded_after: after.reid_fails(),
                },
            );
        }
        let escalations = state
            .escalations
            .into_iter()
            .map(|pending| match pending {
                Pending::Rung {
                    round,
                    entity,
                    from,
                    to,
                } => Escalation::Rung {
                    round,
                    by: "kg".into(),
                    entity,
                    from,
                    to,
                },
                Pending::Mask { round, by, spans } => Escalation::Mask {
                    round,
                    by: by.into(),
                    words: spans
                        .iter()
                        .filter_map(|span| output_of(&sanitized, span))
                        .collect(),
                },
            })
            .collect();
        let words_after = words_changed(doc.text, &sanitized.document);
        Gated {
            certificate: Certificate {
                id: doc.id.to_owned(),
                status,
                capped,
                rounds: state.rounds,
                person_known: doc.person.is_some(),
                kg,
                attackers,
                escalations,
                pruned: state.pruned,
                words_changed: WordsChanged {
                    before: state.words_before,
                    after: words_after,
                },
            },
            document: sanitized.document,
        }
    }
}

fn overlaps(a: &Range<usize>, b: &Range<usize>) -> bool {
    a.start < b.end && b.start < a.end
}

/// Where the mask of an original span stands in the output: the replacement of the edit that
/// covers it.
fn output_of(sanitized: &Sanitized, span: &Span) -> Option<OutputSpan> {
    sanitized
        .document
        .edits
        .iter()
        .zip(&sanitized.replaced)
        .find(|(edit, _)| edit.start <= span.start && span.end <= edit.end)
        .map(|(_, range)| OutputSpan {
            start: range.start,
            end: range.end,
        })
}

/// How far BM25's scores for an output can move under the gate's masks: a text's score for
/// anyone can only lose the weights of forms every occurrence of which is maskable (outside
/// replacements, no function word, mappable to the original), each occurrence costing one
/// original word, and gain the weights of the placeholder's forms.
struct Reach {
    person: usize,
    own: f64,
    scores: Vec<f64>,
    /// Per maskable form: its weight for everyone, and its occurrences.
    maskable: Vec<(Vec<f64>, f64)>,
    /// The placeholder's forms the output lacks: their weights for everyone.
    added: Vec<Vec<f64>>,
}

impl Reach {
    fn new(
        lexicon: &Bm25Attacker,
        sanitizer: &Sanitizer<'_>,
        sanitized: &Sanitized,
        scores: &[f32],
        person: usize,
    ) -> Result<Self> {
        let mut occurrences: BTreeMap<String, Option<usize>> = BTreeMap::new();
        for token in lexicon.tokens(&sanitized.document.text)? {
            let range = token.chars.clone();
            let maskable = !sanitized.replaced.iter().any(|r| overlaps(r, &range))
                && !kanon_core::text::is_stopword(&token.form)
                && sanitized.original_range(range).is_some();
            let entry = occurrences.entry(token.form).or_insert(Some(0));
            *entry = entry.filter(|_| maskable).map(|n| n + 1);
        }
        let people = scores.len();
        let mut maskable = Vec::new();
        for (form, count) in &occurrences {
            if let Some(count) = *count {
                maskable.push((dense_weights(lexicon, form, people)?, count as f64));
            }
        }
        let added = lexicon
            .tokens(&sanitizer.config().placeholder)?
            .into_iter()
            .filter(|token| !occurrences.contains_key(&token.form))
            .map(|token| dense_weights(lexicon, &token.form, people))
            .collect::<Result<_>>()?;
        // No word in common yet: a score is the empty sum once it has one.
        let scores: Vec<f64> = scores
            .iter()
            .map(|&s| if s.is_finite() { f64::from(s) } else { 0.0 })
            .collect();
        Ok(Reach {
            person,
            own: scores[person],
            scores,
            maskable,
            added,
        })
    }

    /// A lower bound on the words to mask before `rival` scores at least as high as the person:
    /// the fractional knapsack over the maskable forms, each worth its weight for the person
    /// less its weight for the rival per occurrence (infinite when all of them would not do).
    fn words_to_overtake(&self, rival: usize) -> f64 {
        let (person, tolerance) = (self.person, 1e-4 * (self.own.abs() + 1.0));
        let added: f64 = self
            .added
            .iter()
            .map(|weights| (weights[rival] - weights[person]).max(0.0))
            .sum();
        let mut lead = self.own - self.scores[rival] - added - tolerance;
        if lead <= 0.0 {
            return 0.0;
        }
        let mut gains: Vec<(f64, f64)> = self
            .maskable
            .iter()
            .map(|(weights, cost)| (weights[person] - weights[rival], *cost))
            .filter(|&(gain, _)| gain > 0.0)
            .collect();
        gains.sort_by(|a, b| (b.0 / b.1).total_cmp(&(a.0 / a.1)));
        let mut words = 0.0;
        for (gain, cost) in gains {
            if gain >= lead {
                return words + cost * lead / gain;
            }
            lead -= gain;
            words += cost;
        }
        f64::INFINITY
    }
}

/// A form's BM25 weight for every person of the background (0 where their text lacks it).
fn dense_weights(lexicon: &Bm25Attacker, form: &str, people: usize) -> Result<Vec<f64>> {
    let mut dense = vec![0.0; people];
    for &(person, weight) in lexicon.weights(form)?.iter() {
        if let Some(slot) = dense.get_mut(person) {
            *slot = f64::from(weight);
        }
    }
    Ok(dense)
}

/// The share of the original's words (runs of letters and digits) an edit touches, as
/// `kanon eval utility` counts them.
pub fn words_changed(original: &str, document: &SanitizedDocument) -> f64 {
    let (changed, total) = words_changed_count(original, document);
    if total == 0 {
        return 0.0;
    }
    changed as f64 / total as f64
}

/// The original's words an edit touches, and all its words.
fn words_changed_count(original: &str, document: &SanitizedDocument) -> (usize, usize) {
    let chars: Vec<char> = original.chars().collect();
    let words = kanon_core::text::word_ranges(&chars);
    let changed = words
        .iter()
        .filter(|word| {
            document
                .edits
                .iter()
                .any(|edit| edit.start < word.end && word.start < edit.end)
        })
        .count();
    (changed, words.len())
}
