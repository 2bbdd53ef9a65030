//! The stages and what a run decides for each ([`crate::record`] holds what a stage leaves in
//! its directory).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// The stages in the order data flows through them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Stage {
    /// The knowledge graph: a directory, imported sources or a synthetic population.
    Kg,
    /// The inverted index over the KG's terms.
    Index,
    /// k-anonymity distant labels: the labeled corpus.
    Label,
    /// The tagger fine-tuned on the labeled corpus.
    Train,
    /// The spans to mask in the documents.
    Detect,
    /// The documents with their spans replaced.
    Sanitize,
    /// The release gate: each sanitized document attacked, escalated, certified.
    Certify,
    /// Attacks and utility measures on the sanitized documents.
    Eval,
}

impl Stage {
    /// Every stage, in the order data flows through them.
    pub const ALL: [Stage; 8] = [
        Stage::Kg,
        Stage::Index,
        Stage::Label,
        Stage::Train,
        Stage::Detect,
        Stage::Sanitize,
        Stage::Certify,
        Stage::Eval,
    ];

    /// Its name: in `--from`/`--until`, the run directory, the config's sections.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Kg => "kg",
            Stage::Index => "index",
            Stage::Label => "label",
            Stage::Train => "train",
            Stage::Detect => "detect",
            Stage::Sanitize => "sanitize",
            Stage::Certify => "certify",
            Stage::Eval => "eval",
        }
    }
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Stage {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<Self, String> {
        Stage::ALL
            .into_iter()
            .find(|stage| stage.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = Stage::ALL.iter().map(|s| s.name()).collect();
                format!("unknown stage {s:?} (stages: {})", names.join(", "))
            })
    }
}

/// What a run does with a stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Action {
    /// Never run before: run it.
    Run,
    /// An earlier run of the same inputs and parameters stopped in the middle: continue it.
    Resume,
    /// Its inputs or parameters changed since it last ran (or `--force`/`--from`): run it afresh.
    Rerun,
    /// Finished earlier with the same inputs and parameters.
    Skip,
    /// The config has no section for it.
    NotConfigured,
    /// Outside `--from`/`--until`.
    OutOfRange,
}

impl Action {
    /// Whether the stage does work in this run.
    pub fn runs(self) -> bool {
        matches!(self, Action::Run | Action::Resume | Action::Rerun)
    }

    /// What it means, as the run's table says it.
    pub fn describe(self) -> &'static str {
        match self {
            Action::Run => "run",
            Action::Resume => "resume",
            Action::Rerun => "rerun",
            Action::Skip => "skip (done)",
            Action::NotConfigured => "not in the config",
            Action::OutOfRange => "outside --from/--until",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stages_parse_by_name() {
        assert_eq!("sanitize".parse::<Stage>().unwrap(), Stage::Sanitize);
        assert!(
            "sanitise"
                .parse::<Stage>()
                .unwrap_err()
                .contains("stages: kg")
        );
    }
}
