//! What to replace spans with, and every knob of the sanitizer, as one serde-tagged config that
//! round-trips through a TOML or JSON file (the way `tokenizers` configures its pipelines).

use kanon_core::config::ConfigFile;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// How spans are replaced. Serialised with a `type` tag: `{"type": "intact"}`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum Strategy {
    /// Deletes every span.
    Suppress,
    /// Replaces every span by the placeholder (`***`).
    Placeholder,
    /// Replaces every span by its entity type (`ORG`).
    Label,
    /// Replaces every span by its entity type and the entity's number in the document (`ORG 2`).
    NumberedLabel,
    /// The most specific generalization (the first candidate), with no attack.
    MostSpecific,
    /// The most abstract generalization (the last candidate), with no attack.
    LeastSpecific,
    /// INTACT: the most specific generalization that an inference attack cannot invert.
    #[default]
    Intact,
    /// Each word replaced by one of its nearest neighbours in meaning (sentence-encoder
    /// embeddings), at random; numbers keep their format with other digits.
    Substitute,
}

kanon_core::named_choices!(
    Strategy,
    "strategy",
    [
        Suppress = "suppress",
        Placeholder = "placeholder",
        Label = "label",
        NumberedLabel = "numbered-label",
        MostSpecific = "most-specific",
        LeastSpecific = "least-specific",
        Intact = "intact",
        Substitute = "substitute",
    ]
);

impl Strategy {
    /// Whether the strategy generalizes (and so may need a language model) rather than masking.
    pub fn generalizes(self) -> bool {
        matches!(
            self,
            Strategy::MostSpecific | Strategy::LeastSpecific | Strategy::Intact
        )
    }
}

/// What direct identifiers (PERSON, CODE) become under the generalizing strategies. They are never
/// generalized and never replaced by generated names or codes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DirectStyle {
    /// `PERSON 1`, `CODE 2`: consistent per entity within a document.
    #[default]
    NumberedLabel,
    /// The placeholder (`***`).
    Placeholder,
    /// A description: `the person`, `the code`.
    Description,
}

/// How the model is asked for generalizations.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GenerationPrompt {
    /// INTACT's prompt (its Tables 2 and 3): a one-shot chat whose worked example is a sentence
    /// written for the span's entity type with its generalizations, most specific first; then the
    /// span marked `[[…]]` in its sentence; replacements that are true of it — hypernyms, broader
    /// descriptions, never near-synonyms or other specific entities — that fit the sentence
    /// grammatically in its place, most specific first.
    #[default]
    Paper,
    /// kanon's variant: the span and its sentence given apart, after the same worked example
    /// (a small model follows an example better than an instruction), without INTACT's
    /// instructions.
    OneShotExample,
}

/// How the attacker is asked to guess.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AttackPrompt {
    /// INTACT's prompt (its Table 4): one worked example for every span, not a date (an
    /// organisation generalized to `a European research institute`, guessed by name), and the
    /// rule for dates in the instruction: exact dates (`the early 1980s` → `3 September 1981`).
    #[default]
    Paper,
    /// kanon's variant: the instruction alone.
    ZeroShot,
}

/// Which mention of an entity the generalizations are asked for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Representative {
    /// The first mention in the document (INTACT).
    #[default]
    First,
    /// kanon's variant: the longest mention (`Todd Hollenbach` rather than `Hollenbach`).
    Longest,
}

/// Which of the attacker's answer lines count as guesses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GuessFilter {
    /// Every listed line is a guess, however long or worded (INTACT); only lines that introduce
    /// the list (`Here are my guesses:`) are skipped.
    #[default]
    KeepAll,
    /// kanon's variant: lines that are too long or read like instructions are dropped — and a
    /// dropped line counts as a recovery, never as a miss (fail closed).
    Strict,
}

/// Where generalizations come from (dates always climb the date ladder).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CandidateSources {
    /// kanon's hierarchies (true by construction) and the model's, merged into one order from
    /// most to least specific (a rung by its depth, the model's by its own order); the
    /// hierarchies alone when no model is given.
    #[default]
    Both,
    /// The model only (INTACT as published).
    Model,
    /// kanon's hierarchies only: no model needed to generalize.
    KnowledgeGraph,
}

/// Who attacks INTACT's candidates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Attacker {
    /// The KG attacker ([`crate::kg_attack`]): refuses a candidate with which the document no
    /// longer matches 0 or at least k people of the KG. Needs an index (`--index`).
    Kg,
    /// The language model guesses the original from the document with the candidate in place
    /// (INTACT). Needs a model.
    Llm,
}

kanon_core::named_choices!(Attacker, "attacker", [Kg = "kg", Llm = "llm"]);

/// When two words of a named entity's original and a guess spell the same name.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case", deny_unknown_fields)]
pub enum NgramMatch {
    /// Any shared character 4-gram (INTACT): `Turkey` ~ `Turkish`, `Norway` ~ `Norwegian`.
    #[default]
    AnyShared,
    /// kanon's variant: the Dice coefficient of their 4-gram sets reaches `threshold`
    /// (`Gujarati` ~ `Gujarat` at 0.6).
    Dice {
        /// The least Dice coefficient that matches, in (0, 1].
        threshold: f32,
    },
}

/// Every knob of the sanitizer. Missing fields take their defaults, unknown fields are errors, so
/// a config file written by [`SanitizerConfig::save`] reads back to the same config.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SanitizerConfig {
    /// How spans are replaced (default: INTACT).
    pub strategy: Strategy,
    /// What PERSON and CODE spans become under the generalizing strategies.
    pub direct_style: DirectStyle,
    /// The placeholder of the `placeholder` strategy and of [`DirectStyle::Placeholder`].
    pub placeholder: String,
    /// Generalizations asked of the model per entity, date-ladder rungs kept, and candidates kept
    /// of all sources together (the most specific ones and the least specific one).
    pub candidates: usize,
    /// Guesses asked of the attacker per candidate.
    pub attacker_guesses: usize,
    /// Sampling temperature of every model call (0: greedy; INTACT: 0.3).
    pub temperature: f32,
    /// Seed of every model call: with the response cache, reruns are reproducible and free.
    pub seed: u64,
    /// Token budget of one model answer (INTACT: 512; five short phrases fit in 48, but a model
    /// that explains itself is cut off mid-list).
    pub max_tokens: u32,
    /// Where generalizations come from.
    pub candidate_sources: CandidateSources,
    /// Which of the model's generalizations may be used: by default only those kanon's
    /// hierarchies confirm (a small model's are mostly false); `any` for INTACT as published.
    pub model_candidates: crate::verify::ModelCandidates,
    /// How generalizations are asked for.
    pub generation_prompt: GenerationPrompt,
    /// How the attacker is asked.
    pub attack_prompt: AttackPrompt,
    /// Which mention of an entity the generalizations are asked for.
    pub representative: Representative,
    /// Which answer lines count as guesses.
    pub guess_filter: GuessFilter,
    /// A parsed candidate or guess longer than this (characters) is dropped, not truncated.
    pub max_phrase_chars: usize,
    /// A parsed candidate or guess with more words than this is dropped when it reads as a
    /// clause (a verb like `is` or `would`, a subject pronoun, or a sentence's end inside it): it
    /// is prose. A phrase without one (`a military conflict in the first half of the 1900s`) is
    /// bounded by `max_phrase_chars` alone.
    pub max_phrase_words: usize,
    /// kanon's variant (off in INTACT, where any shared lemma recovers the original): words a
    /// candidate shares with the original do not count when the attacker repeats them.
    pub ignore_candidate_words: bool,
    /// When words of a named entity match by spelling.
    pub ngram_match: NgramMatch,
    /// The attacker sees at most this many characters of the document around the first mention of
    /// the entity (0: the whole document).
    pub attack_context_chars: usize,
    /// Who attacks INTACT's candidates; a candidate is used when none of them breaks it. Each
    /// listed attacker runs when what it needs is given (the KG attacker an index, the LLM a
    /// model); INTACT as published: `["llm"]`. With the KG attacker and no model, the
    /// candidates are the hierarchies' alone (deterministic, no model).
    pub attackers: Vec<Attacker>,
    /// The KG attacker's k-anonymity test.
    pub kg_attack: crate::kg_attack::KgAttackConfig,
    /// Reads what a span's own sentence says of it (`crate::context`): the kind a noun right
    /// before it names (`the rock band …` → `a rock band`) is a candidate, and a mention that
    /// modifies the noun after it (`an Oslo suburb`) or follows the noun naming its kind is left
    /// out under the generalizing strategies (`a suburb`, `the rock band`) rather than labeled.
    /// Off: every mention takes its entity's replacement, as INTACT does.
    pub read_context: bool,
}

impl Default for SanitizerConfig {
    fn default() -> Self {
        SanitizerConfig {
            strategy: Strategy::Intact,
            direct_style: DirectStyle::NumberedLabel,
            placeholder: "***".to_owned(),
            candidates: 5,
            attacker_guesses: 5,
            temperature: 0.3,
            seed: 0,
            max_tokens: 512,
            candidate_sources: CandidateSources::Both,
            model_candidates: crate::verify::ModelCandidates::Verified,
            generation_prompt: GenerationPrompt::Paper,
            attack_prompt: AttackPrompt::Paper,
            representative: Representative::First,
            guess_filter: GuessFilter::KeepAll,
            max_phrase_chars: 60,
            max_phrase_words: 8,
            ignore_candidate_words: false,
            ngram_match: NgramMatch::AnyShared,
            attack_context_chars: 0,
            attackers: vec![Attacker::Kg, Attacker::Llm],
            kg_attack: crate::kg_attack::KgAttackConfig::default(),
            read_context: true,
        }
    }
}

impl SanitizerConfig {
    /// A builder starting from the defaults (INTACT's settings).
    pub fn builder() -> SanitizerConfigBuilder {
        SanitizerConfigBuilder {
            config: SanitizerConfig::default(),
        }
    }

    /// Checks the values a builder or a config file may get wrong.
    pub fn validate(&self) -> Result<()> {
        let problem = if !(1..=10).contains(&self.candidates) {
            Some(format!(
                "candidates = {} (expected 1 to 10)",
                self.candidates
            ))
        } else if !(1..=10).contains(&self.attacker_guesses) {
            Some(format!(
                "attacker_guesses = {} (expected 1 to 10)",
                self.attacker_guesses
            ))
        } else if !(0.0..=2.0).contains(&self.temperature) {
            Some(format!(
                "temperature = {} (expected 0 to 2)",
                self.temperature
            ))
        } else if self.max_tokens == 0 {
            Some("max_tokens = 0 (expected at least 1)".to_owned())
        } else if self.max_phrase_chars < 3 || self.max_phrase_words == 0 {
            Some("max_phrase_chars must be at least 3 and max_phrase_words at least 1".to_owned())
        } else if let NgramMatch::Dice { threshold } = self.ngram_match
            && (!(0.0..=1.0).contains(&threshold) || threshold == 0.0)
        {
            Some(format!(
                "ngram_match.threshold = {threshold} (expected above 0, at most 1)"
            ))
        } else if self.placeholder.contains(['\n', '\r']) {
            Some("placeholder must be one line".to_owned())
        } else if self.strategy == Strategy::Intact && self.attackers.is_empty() {
            Some("attackers = [] (INTACT needs \"kg\", \"llm\" or both)".to_owned())
        } else if self.kg_attack.k == 0 || self.kg_attack.max_arity == 0 {
            Some("kg_attack.k and kg_attack.max_arity must be at least 1".to_owned())
        } else {
            None
        };
        match problem {
            Some(problem) => Err(Error::Config(problem)),
            None => Ok(()),
        }
    }
}

impl ConfigFile for SanitizerConfig {
    fn check(&self) -> std::result::Result<(), String> {
        self.validate().map_err(|e| match e {
            Error::Config(problem) => problem,
            other => other.to_string(),
        })
    }
}

/// Builds a [`SanitizerConfig`] knob by knob; [`build`](Self::build) validates.
#[derive(Debug, Clone)]
pub struct SanitizerConfigBuilder {
    config: SanitizerConfig,
}

impl SanitizerConfigBuilder {
    /// How spans are replaced.
    pub fn strategy(mut self, strategy: Strategy) -> Self {
        self.config.strategy = strategy;
        self
    }
    /// What PERSON and CODE spans become under the generalizing strategies.
    pub fn direct_style(mut self, style: DirectStyle) -> Self {
        self.config.direct_style = style;
        self
    }
    /// The placeholder text (one line; default `***`).
    pub fn placeholder(mut self, placeholder: impl Into<String>) -> Self {
        self.config.placeholder = placeholder.into();
        self
    }
    /// Generalizations asked per entity, and date rungs kept: 1 to 10.
    pub fn candidates(mut self, candidates: usize) -> Self {
        self.config.candidates = candidates;
        self
    }
    /// Guesses asked of the attacker per candidate: 1 to 10.
    pub fn attacker_guesses(mut self, guesses: usize) -> Self {
        self.config.attacker_guesses = guesses;
        self
    }
    /// Sampling temperature of every model call: 0 (greedy) to 2.
    pub fn temperature(mut self, temperature: f32) -> Self {
        self.config.temperature = temperature;
        self
    }
    /// Seed of every model call (and of `substitute`'s draws).
    pub fn seed(mut self, seed: u64) -> Self {
        self.config.seed = seed;
        self
    }
    /// Token budget of one model answer: at least 1.
    pub fn max_tokens(mut self, max_tokens: u32) -> Self {
        self.config.max_tokens = max_tokens;
        self
    }
    /// Longest candidate or guess kept, in characters: at least 3.
    pub fn max_phrase_chars(mut self, chars: usize) -> Self {
        self.config.max_phrase_chars = chars;
        self
    }
    /// Most words a candidate or guess may have: at least 1.
    pub fn max_phrase_words(mut self, words: usize) -> Self {
        self.config.max_phrase_words = words;
        self
    }
    /// Whether words the candidate shows stop counting when the attacker repeats them.
    pub fn ignore_candidate_words(mut self, ignore: bool) -> Self {
        self.config.ignore_candidate_words = ignore;
        self
    }
    /// When words of a named entity match by spelling (a Dice threshold in (0, 1]).
    pub fn ngram_match(mut self, rule: NgramMatch) -> Self {
        self.config.ngram_match = rule;
        self
    }
    /// Where generalizations come from.
    pub fn candidate_sources(mut self, sources: CandidateSources) -> Self {
        self.config.candidate_sources = sources;
        self
    }
    /// Which of the model's generalizations may be used.
    pub fn model_candidates(mut self, policy: crate::verify::ModelCandidates) -> Self {
        self.config.model_candidates = policy;
        self
    }
    /// How generalizations are asked for.
    pub fn generation_prompt(mut self, prompt: GenerationPrompt) -> Self {
        self.config.generation_prompt = prompt;
        self
    }
    /// How the attacker is asked.
    pub fn attack_prompt(mut self, prompt: AttackPrompt) -> Self {
        self.config.attack_prompt = prompt;
        self
    }
    /// Which mention of an entity the generalizations are asked for.
    pub fn representative(mut self, representative: Representative) -> Self {
        self.config.representative = representative;
        self
    }
    /// Which of the attacker's answer lines count as guesses.
    pub fn guess_filter(mut self, filter: GuessFilter) -> Self {
        self.config.guess_filter = filter;
        self
    }
    /// Every kanon variant at once, as kanon ran before INTACT's defaults: greedy, 48 tokens, the
    /// one-shot generation prompt, the zero-shot attack, the longest mention, strict guesses,
    /// candidate words ignored, Dice ≥ 0.6 — the model as the only source of candidates, as
    /// before the hierarchies and the sentence's reading.
    pub fn kanon_variants(mut self) -> Self {
        self.config.candidate_sources = CandidateSources::Model;
        self.config.model_candidates = crate::verify::ModelCandidates::Any;
        self.config.temperature = 0.0;
        self.config.max_tokens = 48;
        self.config.generation_prompt = GenerationPrompt::OneShotExample;
        self.config.attack_prompt = AttackPrompt::ZeroShot;
        self.config.representative = Representative::Longest;
        self.config.guess_filter = GuessFilter::Strict;
        self.config.ignore_candidate_words = true;
        self.config.ngram_match = NgramMatch::Dice { threshold: 0.6 };
        self.config.attackers = vec![Attacker::Llm];
        self.config.read_context = false;
        self
    }
    /// Who attacks INTACT's candidates (`["kg", "llm"]` by default).
    pub fn attackers(mut self, attackers: impl IntoIterator<Item = Attacker>) -> Self {
        self.config.attackers = attackers.into_iter().collect();
        self
    }
    /// The KG attacker's k and largest combination.
    pub fn kg_attack(mut self, config: crate::kg_attack::KgAttackConfig) -> Self {
        self.config.kg_attack = config;
        self
    }
    /// Whether what a span's sentence says of it is read (on by default).
    pub fn read_context(mut self, read: bool) -> Self {
        self.config.read_context = read;
        self
    }
    /// Characters of the document the attacker sees around the entity's first mention (0: all).
    pub fn attack_context_chars(mut self, chars: usize) -> Self {
        self.config.attack_context_chars = chars;
        self
    }
    /// The config, or [`Error::Config`] naming the first value out of range.
    pub fn build(self) -> Result<SanitizerConfig> {
        self.config.validate()?;
        Ok(self.config)
    }
}
