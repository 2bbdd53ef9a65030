//! The sanitize stage: `kanon sanitize` with the configured strategy, then each baseline on
//! the same spans, for the evaluation to compare.

use std::path::{Path, PathBuf};

use kanon_core::config::ConfigFile;
use kanon_core::shard::Shard;
use kanon_llm::ResponseCache;
use kanon_sanitize::{SanitizeJob, SanitizeSettings, SpanSource, Strategy};
use serde::{Deserialize, Serialize};

use super::to_value;
use super::{
    Layout, PipelineStage, StageRun, StageSummary, Upstream, Wiring, missing, resolve, resolve_opt,
};
use crate::error::{Error, Result};
use crate::record::StageHasher;
use crate::stage::Stage;

/// `kanon sanitize`'s settings, its inputs when the run has no detect stage, and the baselines
/// compared with it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SanitizeStage {
    /// Documents, when the run has no detect stage (default: the detect stage's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub docs: Option<PathBuf>,
    /// The spans, when the run has no detect stage: `{ from = "file", path = "spans.jsonl" }`,
    /// or `{ from = "gold" }` for the gold DIRECT and QUASI mentions of TAB-schema `docs`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spans: Option<SpanSource>,
    /// Also write the audit (originals, candidates, guesses): as sensitive as the input.
    #[serde(default)]
    pub audit: bool,
    /// Other strategies run on the same spans, for the evaluation to compare (`label`,
    /// `suppress`, …).
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        with = "strategy_names"
    )]
    pub baselines: Vec<Strategy>,
    /// The job's settings: `limit`, the strategy and its knobs (`config`), `llm`,
    /// `attacker_llm` (INTACT's attacker, when it is not `llm`), `cache`, `workers` and `shard`
    /// (part `I/N` of the documents: the run must then stop after this stage, `--until`, and
    /// `kanon merge` joins the parts).
    #[serde(flatten)]
    pub settings: SanitizeSettings,
}

/// Strategies as their names (`"numbered-label"`), as `kanon sanitize --strategy` takes them.
mod strategy_names {
    use kanon_sanitize::Strategy;
    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(
        strategies: &[Strategy],
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(strategies.iter().map(ToString::to_string))
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Vec<Strategy>, D::Error> {
        Vec::<String>::deserialize(deserializer)?
            .iter()
            .map(|name| {
                name.parse()
                    .map_err(|e| serde::de::Error::custom(format!("{name:?}: {e}")))
            })
            .collect()
    }
}

impl PipelineStage for SanitizeStage {
    fn stage(&self) -> Stage {
        Stage::Sanitize
    }

    fn validate(&self) -> std::result::Result<(), String> {
        self.settings
            .sanitizer
            .check()
            .map_err(|problem| format!("sanitize.config.{problem}"))
    }

    fn check_inputs(&self, layout: &Layout) -> Result<()> {
        if layout.has(Stage::Detect) == self.spans.is_some() {
            return Err(Error::Setting(
                "stage sanitize: its spans come from exactly one of a [detect] section and \
                 `sanitize.spans`"
                    .into(),
            ));
        }
        if !layout.has(Stage::Detect) && self.docs.is_none() {
            return Err(missing(Stage::Sanitize, "`sanitize.docs`"));
        }
        let main = self.settings.sanitizer.strategy;
        if self.baselines.contains(&main) {
            return Err(Error::Setting(format!(
                "sanitize.baselines names the strategy itself ({main})"
            )));
        }
        Ok(())
    }

    fn resolve_paths(&mut self, base: &Path) {
        resolve_opt(base, &mut self.docs);
        resolve_opt(base, &mut self.settings.index);
        if let Some(SpanSource::File { path }) = &mut self.spans {
            resolve(base, path);
        }
        if let ResponseCache::Dir(path) = &mut self.settings.cache {
            resolve(base, path);
        }
    }

    fn hash(
        &self,
        _: &Wiring<'_>,
        upstream: &Upstream<'_>,
        hasher: &mut StageHasher,
    ) -> Result<()> {
        // How many documents go at once changes nothing in the output.
        hasher.params(&SanitizeStage {
            settings: SanitizeSettings {
                workers: SanitizeSettings::default().workers,
                ..self.settings.clone()
            },
            ..self.clone()
        })?;
        match (upstream.get(Stage::Detect), &self.spans) {
            (Some(detect), _) => {
                hasher.upstream(&detect);
            }
            (None, Some(SpanSource::File { path })) => {
                hasher.path(path)?;
            }
            (None, _) => {}
        }
        if let Some(docs) = &self.docs {
            hasher.path(docs)?;
        }
        // The KG attacker reads the run's index, or the one the section names.
        match &self.settings.index {
            Some(index) => hasher.path(&index.join(kanon_index::meta::META_FILE))?,
            None => hasher.upstream(&upstream.or_empty(Stage::Index)),
        };
        Ok(())
    }

    fn shard(&self) -> Option<Shard> {
        self.settings.shard
    }

    fn run(&self, run: &mut StageRun<'_>) -> Result<StageSummary> {
        let mut lines = Vec::new();
        let mut figures = serde_json::Map::new();
        for (i, strategy) in run.wiring.sanitizations().into_iter().enumerate() {
            let name = strategy.to_string();
            let job = self.job(run, strategy, i == 0)?;
            let options = run.options;
            let should_stop = || options.stop_requested();
            let summary = kanon_sanitize::job::run_until(&job, run.progress, &should_stop)
                .map_err(|err| match err {
                    kanon_sanitize::Error::Stopped { .. } => Error::Interrupted {
                        stage: Stage::Sanitize,
                    },
                    err => Error::Sanitize(err),
                })?;
            lines.push(format!(
                "{name}: {} documents, {} spans, {:.1} s",
                summary.documents, summary.stats.spans, summary.document_seconds
            ));
            figures.insert(name, to_value(&summary));
        }
        Ok(StageSummary {
            headline: lines.join("; "),
            figures: serde_json::Value::Object(figures),
        })
    }
}

impl SanitizeStage {
    /// The job of one sanitization: the main strategy (`first`, which writes the audit when
    /// one is asked for) or a baseline. Fetches the models it needs.
    fn job(&self, run: &mut StageRun<'_>, strategy: Strategy, first: bool) -> Result<SanitizeJob> {
        let name = strategy.to_string();
        let dir = run.paths().stage_dir(Stage::Sanitize);
        let spans = self.spans.clone().unwrap_or_else(|| SpanSource::File {
            path: run.paths().spans(),
        });
        let mut settings = self.settings.clone();
        settings.sanitizer.strategy = strategy;
        if settings.index.is_none() && run.wiring.layout.has(Stage::Index) {
            settings.index = Some(run.paths().index());
        }
        settings.llm = if strategy.generalizes() {
            let llm = self.settings.llm.clone().unwrap_or_default();
            run.fetch_llm(&llm)?;
            Some(llm)
        } else {
            None
        };
        settings.attacker_llm = match (&self.settings.attacker_llm, strategy) {
            (Some(attacker), Strategy::Intact) => {
                run.fetch_llm(attacker)?;
                Some(attacker.clone())
            }
            _ => None,
        };
        let docs = run.wiring.sanitize_docs();
        Ok(SanitizeJob {
            texts: kanon_core::io::is_plain_text_input(&docs).then(|| dir.join(&name)),
            docs,
            spans,
            out: run.paths().sanitized(&name),
            audit: (first && self.audit).then(|| dir.join("audit.jsonl")),
            summary: Some(dir.join(format!("{name}.summary.json"))),
            settings,
        })
    }
}
