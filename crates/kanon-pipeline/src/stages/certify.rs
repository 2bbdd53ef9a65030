//! The certify stage: `kanon certify` on the sanitize stage's outputs — each document attacked
//! on its output (the KG attacker over the run's index, BM25 and the neural attacker over a
//! background), escalated through the sanitizer until they fail or a cap is hit, and
//! certified. The eval stage compares the gated outputs beside the sanitizations.

use std::path::{Path, PathBuf};

use kanon_core::PathContext;
use kanon_eval::job::Truth;
use kanon_eval::privacy::NeuralAttackerJob;
use kanon_gate::{AttackerKind, BackgroundSource, GateConfig, GateJob};
use kanon_sanitize::{SpanSource, Strategy};
use serde::{Deserialize, Serialize};

use super::{
    Layout, PipelineStage, StageRun, StageSummary, Upstream, Wiring, missing, resolve, resolve_opt,
};
use crate::config::SanitizeStage;
use crate::error::{Error, Result};
use crate::record::StageHasher;
use crate::stage::Stage;

/// The gate's section: which sanitizations to certify, what the attackers know, the gate's
/// knobs (`[certify.config]`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CertifyStage {
    /// The sanitizations certified, by strategy name (default: the sanitize stage's strategy).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sanitizations: Vec<String>,
    /// Public background texts for BM25 and the neural attacker.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background: Option<PathBuf>,
    /// Instead: the KG's facts as what the attackers know (documents name their `person`).
    #[serde(default)]
    pub background_from_kg: bool,
    /// Who each document is about (with `background`).
    #[serde(default)]
    pub truth: Truth,
    /// The neural attacker (with `neural` among `config.attackers`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub neural: Option<NeuralAttackerJob>,
    /// Fail the stage (after writing its outputs) when a document is capped.
    #[serde(default)]
    pub fail_on_unsafe: bool,
    /// The gate's knobs: attackers, k, caps (`kanon certify --gate-config`'s keys).
    #[serde(default)]
    pub config: GateConfig,
}

impl CertifyStage {
    /// The sanitizations it certifies, of those the sanitize stage writes.
    pub(crate) fn certified(&self, sanitize: Option<&SanitizeStage>) -> Vec<Strategy> {
        if self.sanitizations.is_empty() {
            return sanitize
                .map(|s| vec![s.settings.sanitizer.strategy])
                .unwrap_or_default();
        }
        self.sanitizations
            .iter()
            .filter_map(|name| name.parse().ok())
            .collect()
    }

    fn reid(&self) -> bool {
        self.config.runs(AttackerKind::Bm25) || self.config.runs(AttackerKind::Neural)
    }
}

impl PipelineStage for CertifyStage {
    fn stage(&self) -> Stage {
        Stage::Certify
    }

    fn validate(&self) -> std::result::Result<(), String> {
        self.config
            .validate()
            .map_err(|problem| format!("certify.config.{problem}"))?;
        for name in &self.sanitizations {
            name.parse::<Strategy>()
                .map_err(|e| format!("certify.sanitizations: {name:?}: {e}"))?;
        }
        Ok(())
    }

    fn check_inputs(&self, layout: &Layout) -> Result<()> {
        if !layout.has(Stage::Sanitize) {
            return Err(missing(Stage::Certify, "a [sanitize] section"));
        }
        if let Some(strategy) = layout
            .certified
            .iter()
            .find(|s| !layout.sanitizations.contains(s))
        {
            return Err(Error::Setting(format!(
                "certify.sanitizations names {strategy}, which the sanitize stage does not write"
            )));
        }
        if self.config.runs(AttackerKind::Kg) && !layout.has(Stage::Index) {
            return Err(missing(
                Stage::Certify,
                "an [index] section for the KG attacker (or `config.attackers` without \"kg\")",
            ));
        }
        if self.reid() && self.background.is_none() && !self.background_from_kg {
            return Err(Error::Setting(
                "certify: BM25 and the neural attacker need `background` or `background_from_kg`"
                    .into(),
            ));
        }
        if self.background_from_kg && (self.background.is_some() || !layout.has(Stage::Kg)) {
            return Err(Error::Setting(
                "certify: `background_from_kg` needs a [kg] section and no `background`".into(),
            ));
        }
        if self.config.runs(AttackerKind::Neural) && self.neural.is_none() {
            return Err(Error::Setting(
                "certify: the neural attacker needs `[certify.neural]` (its checkpoint)".into(),
            ));
        }
        Ok(())
    }

    fn resolve_paths(&mut self, base: &Path) {
        resolve_opt(base, &mut self.background);
        if let Truth::Map { path } = &mut self.truth {
            resolve(base, path);
        }
        if let Some(neural) = &mut self.neural {
            resolve(base, &mut neural.checkpoint);
        }
    }

    fn hash(
        &self,
        _: &Wiring<'_>,
        upstream: &Upstream<'_>,
        hasher: &mut StageHasher,
    ) -> Result<()> {
        hasher.params(self)?;
        if let Some(path) = &self.background {
            hasher.path(path)?;
        }
        if let Some(neural) = &self.neural
            && neural.checkpoint.exists()
        {
            hasher.path(&neural.checkpoint)?;
        }
        for stage in [Stage::Kg, Stage::Index, Stage::Sanitize] {
            hasher.upstream(&upstream.or_empty(stage));
        }
        Ok(())
    }

    fn run(&self, run: &mut StageRun<'_>) -> Result<StageSummary> {
        let dir = run.paths().stage_dir(Stage::Certify);
        std::fs::create_dir_all(&dir).with_path(&dir)?;
        let layout = run.wiring.layout;
        let settings = layout.sanitize_settings.clone().unwrap_or_default();
        let spans = layout
            .sanitize_spans
            .clone()
            .unwrap_or_else(|| SpanSource::File {
                path: run.paths().spans(),
            });
        let (background, truth) = if self.background_from_kg {
            let truth = Truth::Field {
                field: "person".into(),
            };
            (
                Some(BackgroundSource::Kg {
                    dir: run.wiring.kg_dir(),
                }),
                truth,
            )
        } else {
            (
                self.background
                    .clone()
                    .map(|path| BackgroundSource::Texts { path }),
                self.truth.clone(),
            )
        };
        if let Some(neural) = &self.neural {
            run.fetch(&neural.pretrained)?;
        }
        let mut lines = Vec::new();
        let mut markdown = String::new();
        let mut figures = serde_json::Map::new();
        let mut capped = Vec::new();
        for strategy in run.wiring.certified() {
            let name = strategy.to_string();
            let mut sanitize = settings.clone();
            sanitize.sanitizer.strategy = strategy;
            sanitize.llm = if strategy.generalizes() {
                let llm = settings.llm.clone().unwrap_or_default();
                run.fetch_llm(&llm)?;
                Some(llm)
            } else {
                None
            };
            sanitize.attacker_llm = settings
                .attacker_llm
                .clone()
                .filter(|_| strategy == Strategy::Intact);
            if let Some(attacker) = &sanitize.attacker_llm {
                run.fetch_llm(attacker)?;
            }
            sanitize.shard = None;
            // The sanitizer's own KG attacker reads the run's index, as in the sanitize stage.
            if sanitize.index.is_none() && run.wiring.layout.has(Stage::Index) {
                sanitize.index = Some(run.paths().index());
            }
            let job = GateJob {
                docs: run.wiring.sanitize_docs(),
                spans: spans.clone(),
                out: run.paths().certified(&name),
                certificates: run.paths().certificates(&name),
                summary: Some(dir.join(format!("{name}.summary.json"))),
                index: self
                    .config
                    .runs(AttackerKind::Kg)
                    .then(|| run.paths().index()),
                background: background.clone().filter(|_| self.reid()),
                truth: truth.clone(),
                neural: self.neural.clone(),
                gate: self.config.clone(),
                sanitize,
            };
            let options = run.options;
            let should_stop = || options.stop_requested();
            let summary =
                kanon_gate::job::run_until(&job, run.progress, &should_stop).map_err(|err| {
                    match err {
                        kanon_gate::Error::Stopped { .. } => Error::Interrupted {
                            stage: Stage::Certify,
                        },
                        err => Error::Certify(Box::new(err)),
                    }
                })?;
            let trir: Vec<String> = summary
                .trir
                .iter()
                .map(|(attacker, t)| {
                    format!(
                        "{attacker} {:.0} → {:.0} %",
                        100.0 * t.before,
                        100.0 * t.after
                    )
                })
                .collect();
            lines.push(format!(
                "{name}: {} passed, {} escalated, {} capped{}; {:.1} documents/s",
                summary.passed,
                summary.escalated,
                summary.capped,
                if trir.is_empty() {
                    String::new()
                } else {
                    format!("; TRIR {}", trir.join(", "))
                },
                summary.documents_per_second
            ));
            markdown += &format!("### {name}\n\n{}\n", summary.render());
            capped.extend(summary.capped_ids.iter().map(|id| format!("{name}:{id}")));
            figures.insert(name, super::to_value(&summary));
        }
        kanon_core::io::atomic_write(&run.paths().gate_markdown(), |w| {
            std::io::Write::write_all(w, markdown.as_bytes())
        })?;
        if self.fail_on_unsafe && !capped.is_empty() {
            return Err(Error::Setting(format!(
                "certify.fail_on_unsafe: {} documents are not safe to release (capped): {}",
                capped.len(),
                capped.join(", ")
            )));
        }
        Ok(StageSummary {
            headline: lines.join("; "),
            figures: serde_json::Value::Object(figures),
        })
    }
}
