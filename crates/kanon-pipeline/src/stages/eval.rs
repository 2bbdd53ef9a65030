//! The eval stage: `kanon eval report` over every sanitization of the run, and the detector's
//! span scores when there is gold.

use std::path::{Path, PathBuf};

use kanon_core::PathContext;
use kanon_eval::job::Truth;
use kanon_eval::report::{ReportJob, ReportRun, ReportSettings};
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::to_value;
use super::{
    Layout, PipelineStage, StageRun, StageSummary, Upstream, Wiring, missing, resolve, resolve_opt,
};
use crate::error::{Error, Result};
use crate::paths::SPAN_SCORES_MARKDOWN;
use crate::record::StageHasher;
use crate::stage::Stage;

/// The evaluation of the sanitized output (`kanon eval report`, and `kanon eval spans` when
/// there is gold and a detector).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvalStage {
    /// TAB-schema gold: masking recall of every sanitization, span scores of the detector.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gold: Option<PathBuf>,
    /// Public background texts `[{"name","public_knowledge"}]` for the re-identification attacks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background: Option<PathBuf>,
    /// Instead of `background`: the KG's facts, one text per person, as what the attacker knows
    /// (documents are then matched to people by their `person` field).
    #[serde(default)]
    pub background_from_kg: bool,
    /// Who each document is about (`truth`), the neural attacker (`[eval.neural]`) and TPS's
    /// models (`[eval.tps]`): `kanon eval report`'s settings.
    #[serde(flatten)]
    pub settings: ReportSettings,
}

impl PipelineStage for EvalStage {
    fn stage(&self) -> Stage {
        Stage::Eval
    }

    fn check_inputs(&self, layout: &Layout) -> Result<()> {
        if !layout.has(Stage::Sanitize) {
            return Err(missing(Stage::Eval, "a [sanitize] section"));
        }
        if self.background_from_kg && !layout.has(Stage::Kg) {
            return Err(missing(
                Stage::Eval,
                "a [kg] section for `background_from_kg`",
            ));
        }
        if self.background_from_kg && self.background.is_some() {
            return Err(Error::Setting(
                "eval: give `background` or `background_from_kg`, not both".into(),
            ));
        }
        Ok(())
    }

    fn resolve_paths(&mut self, base: &Path) {
        resolve_opt(base, &mut self.gold);
        resolve_opt(base, &mut self.background);
        if let Truth::Map { path } = &mut self.settings.truth {
            resolve(base, path);
        }
        if let Some(neural) = &mut self.settings.neural {
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
        for path in [&self.gold, &self.background].into_iter().flatten() {
            hasher.path(path)?;
        }
        if let Some(neural) = &self.settings.neural
            && neural.checkpoint.exists()
        {
            hasher.path(&neural.checkpoint)?;
        }
        hasher.upstream(&upstream.or_empty(Stage::Kg));
        hasher.upstream(&upstream.or_empty(Stage::Detect));
        hasher.upstream(&upstream.or_empty(Stage::Sanitize));
        // The gated outputs are compared too: only a run with a gate hashes it.
        if let Some(certify) = upstream.get(Stage::Certify) {
            hasher.upstream(&certify);
        }
        Ok(())
    }

    fn run(&self, run: &mut StageRun<'_>) -> Result<StageSummary> {
        let dir = run.paths().stage_dir(Stage::Eval);
        std::fs::create_dir_all(&dir).with_path(&dir)?;
        let (background, truth) = if self.background_from_kg {
            let path = dir.join("background.json");
            kanon_eval::kg_background::write_kg_background(&run.wiring.kg_dir(), &path)
                .map_err(Error::Eval)?;
            let truth = Truth::Field {
                field: "person".into(),
            };
            (Some(path), truth)
        } else {
            (self.background.clone(), self.settings.truth.clone())
        };
        if let Some(neural) = &self.settings.neural {
            run.fetch(&neural.pretrained)?;
        }
        if let Some(tps) = &self.settings.tps {
            run.fetch(&tps.encoder)?;
            run.fetch_llm(&tps.llm)?;
        }
        let job = ReportJob {
            docs: run.wiring.sanitize_docs(),
            runs: run
                .wiring
                .sanitizations()
                .into_iter()
                .map(|strategy| {
                    let name = strategy.to_string();
                    ReportRun {
                        sanitized: run.paths().sanitized(&name),
                        name,
                    }
                })
                .chain(run.wiring.certified().into_iter().map(|strategy| {
                    let name = strategy.to_string();
                    ReportRun {
                        sanitized: run.paths().certified(&name),
                        name: format!("{name}+gate"),
                    }
                }))
                .collect(),
            background,
            gold: self.gold.clone(),
            out: dir.clone(),
            settings: ReportSettings {
                truth,
                ..self.settings.clone()
            },
        };
        let report = kanon_eval::report::run(&job, run.progress).map_err(Error::Eval)?;
        let mut figures = json!({ "report": to_value(&report) });
        if let Some(gold) = &self.gold
            && run.wiring.layout.has(Stage::Detect)
        {
            let paths = run.paths();
            let spans = span_scores(gold, &paths.spans(), &paths.detect_docs(), &dir)?;
            figures["spans"] = to_value(&spans);
        }
        Ok(StageSummary {
            headline: headline(&report),
            figures,
        })
    }
}

/// The detector's span scores against the gold, written beside the report (JSON and Markdown).
/// `docs` are the documents the detector read: the texts of system-format gold.
fn span_scores(
    gold: &Path,
    spans: &Path,
    docs: &Path,
    dir: &Path,
) -> Result<kanon_eval::SpanReport> {
    let scores = kanon_eval::job::spans(&kanon_eval::EvalJob {
        gold: gold.to_path_buf(),
        pred: spans.to_path_buf(),
        docs: Some(docs.to_path_buf()),
        weighting: None,
    })
    .map_err(Error::Eval)?;
    kanon_core::io::write_json(&dir.join("spans.json"), &scores)?;
    let markdown = scores.markdown();
    kanon_core::io::atomic_write(&dir.join(SPAN_SCORES_MARKDOWN), |w| {
        std::io::Write::write_all(w, markdown.as_bytes())
    })?;
    Ok(scores)
}

/// Each sanitization's share of words changed and its TRIR against the last attacker (the
/// ensemble, when there are several).
fn headline(report: &kanon_eval::report::Report) -> String {
    let ensemble = report.attackers.last().cloned();
    let rows: Vec<String> = report
        .rows
        .iter()
        .map(|row| {
            let trir = ensemble
                .as_ref()
                .and_then(|a| row.trir.get(a))
                .map_or_else(String::new, |r| format!(", TRIR {:.0} %", 100.0 * r.top1));
            format!(
                "{}: {:.0} % of words changed{trir}",
                row.name,
                100.0 * row.words_changed
            )
        })
        .collect();
    rows.join("; ")
}
