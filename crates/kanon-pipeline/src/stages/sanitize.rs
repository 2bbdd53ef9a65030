//! The sanitize stage: `kanon sanitize` with the configured strategy, then each baseline on
//! the same spans, for the evaluation to compare.

use std::path::{Path, PathBuf};

use kanon_core::config::ConfigFile;
use kanon_core::shard::Shard;
use kanon_llm::{LlmConfig, ResponseCache};
use kanon_sanitize::{SanitizeJob, SanitizerConfig, SpanSource, Strategy};
use serde::{Deserialize, Serialize};

use super::to_value;
use super::{
    PipelineStage, StageRun, StageSummary, Upstream, Wiring, missing, resolve, resolve_opt,
};
use crate::config::RunConfig;
use crate::error::{Error, Result};
use crate::stage::{Stage, StageHasher};

/// `kanon sanitize`'s settings, and the baselines compared with it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SanitizeStage {
    /// Documents, when the run has no detect stage (default: the detect stage's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub docs: Option<PathBuf>,
    /// A spans file, when the run has no detect stage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spans: Option<PathBuf>,
    /// Replace the gold DIRECT and QUASI mentions of TAB-schema `docs` instead.
    #[serde(default)]
    pub gold_spans: bool,
    /// Only the first N documents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<usize>,
    /// The strategy and its knobs (configs/sanitize.toml lists every key).
    #[serde(default)]
    pub config: SanitizerConfig,
    /// The generator (default: the embedded model, when the strategy generalizes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub llm: Option<LlmConfig>,
    /// INTACT's attacker, when it is not `llm`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attacker_llm: Option<LlmConfig>,
    /// Where model answers are kept (default: `$KANON_LLM_CACHE`, else `~/.cache/kanon/llm`).
    #[serde(default)]
    pub cache: ResponseCache,
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
    /// Documents sanitized at once (default 1): more for an HTTP server or pool that answers in
    /// parallel; the output is the same for any number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workers: Option<usize>,
    /// Only part `I/N` of the documents (a batch scheduler's array task): the run must stop
    /// after this stage (`--until`), and `kanon merge` joins the parts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
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
        self.config
            .check()
            .map_err(|problem| format!("sanitize.config.{problem}"))
    }

    fn check_inputs(&self, config: &RunConfig) -> Result<()> {
        let sources = [
            config.detect.is_some(),
            self.spans.is_some(),
            self.gold_spans,
        ];
        if sources.iter().filter(|s| **s).count() != 1 {
            return Err(Error::Setting(
                "stage sanitize: its spans come from exactly one of a [detect] section, \
                 `sanitize.spans` and `sanitize.gold_spans = true`"
                    .into(),
            ));
        }
        if config.detect.is_none() && self.docs.is_none() {
            return Err(missing(Stage::Sanitize, "`sanitize.docs`"));
        }
        let main = self.config.strategy;
        if self.baselines.contains(&main) {
            return Err(Error::Setting(format!(
                "sanitize.baselines names the strategy itself ({main})"
            )));
        }
        Ok(())
    }

    fn resolve_paths(&mut self, base: &Path) {
        resolve_opt(base, &mut self.docs);
        resolve_opt(base, &mut self.spans);
        if let ResponseCache::Dir(path) = &mut self.cache {
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
            workers: None,
            ..self.clone()
        })?;
        match (upstream.get(Stage::Detect), &self.spans) {
            (Some(detect), _) => {
                hasher.upstream(&detect);
            }
            (None, Some(spans)) => {
                hasher.path(spans)?;
            }
            (None, None) => {}
        }
        if let Some(docs) = &self.docs {
            hasher.path(docs)?;
        }
        Ok(())
    }

    fn shard(&self) -> Option<Shard> {
        self.shard
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
        let spans = if self.gold_spans {
            SpanSource::Gold
        } else {
            SpanSource::File {
                path: self.spans.clone().unwrap_or_else(|| run.paths().spans()),
            }
        };
        let mut config = self.config.clone();
        config.strategy = strategy;
        let llm = if strategy.generalizes() {
            let llm = self.llm.clone().unwrap_or_default();
            run.fetch_llm(&llm)?;
            Some(llm)
        } else {
            None
        };
        let attacker_llm = match (&self.attacker_llm, strategy) {
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
            limit: self.limit,
            sanitizer: config,
            llm,
            attacker_llm,
            cache: self.cache.clone(),
            workers: self.workers.unwrap_or(1),
            shard: self.shard,
        })
    }
}
