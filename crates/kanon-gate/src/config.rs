//! Every knob of the gate, as one serde struct that round-trips through TOML or JSON (unknown
//! keys are errors), with a builder.

use kanon_label::{LabelerConfig, MaskStrategy};
use serde::{Deserialize, Serialize};

/// An attacker the gate runs on each output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AttackerKind {
    /// Algorithm 1 on the KG terms the output still holds (needs the KG's index).
    Kg,
    /// BM25 over the background texts (needs a background).
    Bm25,
    /// The fine-tuned classifier over the background's people (needs a background and the
    /// neural attacker's checkpoint or training settings).
    Neural,
}

kanon_core::named_choices!(
    AttackerKind,
    "attacker",
    [Kg = "kg", Bm25 = "bm25", Neural = "neural"]
);

impl AttackerKind {
    /// Its name in certificates and reports (`bm25`, `bert` as `kanon eval privacy` names them).
    pub fn report_name(self) -> &'static str {
        match self {
            AttackerKind::Kg => "kg",
            AttackerKind::Bm25 => "bm25",
            AttackerKind::Neural => "bert",
        }
    }
}

/// The gate's knobs. Defaults: the KG attacker and BM25, k = 5 up to combinations of 3, a
/// document fails while its person is an attacker's first guess, at most 40 % of its words
/// changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GateConfig {
    /// The attackers run on each output (`kg`, `bm25`, `neural`); the re-identification ones
    /// together are the ensemble that guides masking.
    pub attackers: Vec<AttackerKind>,
    /// The KG attacker's k: every combination of the output's KG terms that anyone shares must
    /// be shared by at least k people.
    pub k: u64,
    /// The largest combination of KG terms checked.
    pub max_arity: usize,
    /// Names, places and organisations count as KG terms only where written capitalised (the
    /// labeler's rule, [`LabelerConfig::match_case`]).
    pub match_case: bool,
    /// A re-identification attacker succeeds when the document's person is among its first
    /// `top_k` guesses.
    pub top_k: usize,
    /// Where the document's person is unknown: an attacker succeeds when its first candidate
    /// stands out, its score ahead of the second's by this share of its own (BM25) or its
    /// probability ahead by this much (neural).
    pub margin: f64,
    /// The most of the original's words the output may have changed (sanitizer and gate
    /// together); an escalation past it is not made and the document is capped.
    pub max_words_changed: f64,
    /// Words masked per round before the output is re-rendered and attacked again.
    pub words_per_round: usize,
    /// Rounds of escalation per document before it is capped.
    pub max_rounds: usize,
    /// A word beside an already replaced or masked span weighs this much more (1: double).
    pub adjacency_bonus: f64,
    /// Words whose masking the neural attacker scores per round (the BM25-weightiest first).
    pub neural_candidates: usize,
    /// Ranks recorded up to this depth; a person ranked lower is recorded as beyond it.
    pub rank_depth: usize,
    /// Documents attacked together (one batch per attacker per round).
    pub batch: usize,
    /// Once a document passes, undo each of the gate's masks in the order made while every
    /// attacker still fails without it: greedy masking picks a word for the text as it was, and
    /// words masked later may make it unneeded.
    pub prune: bool,
    /// Cap a document as soon as BM25 is bound to keep naming its person whatever the gate
    /// masks within `max_words_changed` (a bound over every other candidate, checked each
    /// round), instead of masking on until the cap: the words would be spent on a document
    /// that is not released anyway.
    pub cap_out_of_reach: bool,
    /// Guide BM25's masking against the other person the fewest masked words would put ahead
    /// of the document's person (a fractional-knapsack estimate over the maskable words), not
    /// against its runner-up.
    pub easiest_rival: bool,
}

impl Default for GateConfig {
    fn default() -> Self {
        GateConfig {
            attackers: vec![AttackerKind::Kg, AttackerKind::Bm25],
            k: 5,
            max_arity: 3,
            match_case: true,
            top_k: 1,
            margin: 0.5,
            max_words_changed: 0.4,
            words_per_round: 1,
            max_rounds: 40,
            adjacency_bonus: 1.0,
            neural_candidates: 48,
            rank_depth: 100,
            batch: 16,
            prune: true,
            cap_out_of_reach: true,
            easiest_rival: true,
        }
    }
}

impl kanon_core::config::ConfigFile for GateConfig {
    fn check(&self) -> std::result::Result<(), String> {
        self.validate()
    }
}

impl GateConfig {
    /// A builder starting from the defaults.
    pub fn builder() -> GateConfigBuilder {
        GateConfigBuilder {
            config: GateConfig::default(),
        }
    }

    /// Checks the values a builder or a file may get wrong, naming the field.
    pub fn validate(&self) -> std::result::Result<(), String> {
        let positive = [
            ("k", self.k as usize),
            ("max_arity", self.max_arity),
            ("top_k", self.top_k),
            ("words_per_round", self.words_per_round),
            ("rank_depth", self.rank_depth),
            ("batch", self.batch),
        ];
        for (name, value) in positive {
            if value == 0 {
                return Err(format!("{name} = 0 (at least 1)"));
            }
        }
        if self.top_k > self.rank_depth {
            return Err(format!(
                "top_k = {} is deeper than rank_depth = {}",
                self.top_k, self.rank_depth
            ));
        }
        for (name, value) in [
            ("max_words_changed", self.max_words_changed),
            ("margin", self.margin),
        ] {
            if !(0.0..=1.0).contains(&value) {
                return Err(format!("{name} = {value} (a share in [0, 1])"));
            }
        }
        if self.adjacency_bonus.is_nan() || self.adjacency_bonus < 0.0 {
            return Err(format!(
                "adjacency_bonus = {} (at least 0)",
                self.adjacency_bonus
            ));
        }
        let mut seen = self.attackers.clone();
        seen.sort();
        seen.dedup();
        if seen.len() != self.attackers.len() {
            return Err("attackers names one twice".into());
        }
        if self.attackers.is_empty() {
            return Err("attackers is empty (a gate with no attacker certifies nothing)".into());
        }
        Ok(())
    }

    /// Whether the gate runs `attacker`.
    pub fn runs(&self, attacker: AttackerKind) -> bool {
        self.attackers.contains(&attacker)
    }

    /// The labeler's config the KG attacker checks with (greedy, as the labeler's default).
    pub fn labeler(&self) -> LabelerConfig {
        LabelerConfig {
            k: self.k,
            max_arity: self.max_arity,
            strategy: MaskStrategy::Greedy,
            match_case: self.match_case,
            ..LabelerConfig::default()
        }
    }
}

/// Builds a [`GateConfig`] from the defaults, one knob at a time; `build` validates.
#[derive(Debug, Clone)]
pub struct GateConfigBuilder {
    config: GateConfig,
}

macro_rules! setter {
    ($($name:ident: $type:ty),* $(,)?) => {
        $(
            #[doc = concat!("Sets `", stringify!($name), "`.")]
            pub fn $name(mut self, value: $type) -> Self {
                self.config.$name = value;
                self
            }
        )*
    };
}

impl GateConfigBuilder {
    setter!(
        attackers: Vec<AttackerKind>,
        k: u64,
        max_arity: usize,
        match_case: bool,
        top_k: usize,
        margin: f64,
        max_words_changed: f64,
        words_per_round: usize,
        max_rounds: usize,
        adjacency_bonus: f64,
        neural_candidates: usize,
        rank_depth: usize,
        batch: usize,
        prune: bool,
        cap_out_of_reach: bool,
        easiest_rival: bool,
    );

    /// The config, validated.
    pub fn build(self) -> crate::Result<GateConfig> {
        self.config.validate().map_err(crate::Error::Config)?;
        Ok(self.config)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kanon_core::config::ConfigFile;

    #[test]
    fn round_trips_and_names_a_bad_field() {
        let dir = tempfile::tempdir().unwrap();
        let config = GateConfig::builder()
            .attackers(vec![AttackerKind::Kg])
            .k(3)
            .max_words_changed(0.3)
            .build()
            .unwrap();
        for name in ["gate.toml", "gate.json"] {
            let path = dir.path().join(name);
            config.save(&path).unwrap();
            assert_eq!(GateConfig::load(&path).unwrap(), config);
        }
        let path = dir.path().join("bad.toml");
        std::fs::write(&path, "k = 5\nmax_words_changed = 1.5\n").unwrap();
        let err = GateConfig::load(&path).unwrap_err().to_string();
        assert!(
            err.contains("bad.toml") && err.contains("max_words_changed"),
            "{err}"
        );
        std::fs::write(&path, "k = 5\n\ntop_kk = 2\n").unwrap();
        let err = GateConfig::load(&path).unwrap_err().to_string();
        assert!(
            err.contains("bad.toml:3") && err.contains("top_kk"),
            "{err}"
        );
        assert!(GateConfig::builder().words_per_round(0).build().is_err());
    }
}
