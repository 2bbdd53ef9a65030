//! The stages of a run, one file each. A stage's section of the run config is its own type,
//! and that type implements [`PipelineStage`]: what the stage needs from the rest of the run,
//! what its hash covers, and how it runs. [`crate::run`] is only the loop over them.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use kanon_core::Progress;
use kanon_core::shard::Shard;
use kanon_llm::LlmConfig;
use kanon_sanitize::Strategy;

use crate::error::{Error, Result};
use crate::options::{Event, RunOptions};
use crate::paths::RunPaths;
use crate::record::StageHasher;
use crate::stage::{Action, Stage};

pub mod certify;
pub mod detect;
pub mod eval;
pub mod index;
pub mod kg;
pub mod label;
pub mod sanitize;
pub mod train;

/// One stage of a run, as its section of the run config.
pub(crate) trait PipelineStage: std::fmt::Debug {
    /// Which stage this section configures.
    fn stage(&self) -> Stage;

    /// Checks the section's values on their own (called when the config is read, so that the
    /// error names the file).
    fn validate(&self) -> std::result::Result<(), String> {
        Ok(())
    }

    /// Checks that the run holds what this stage reads: the section of the stage before it, or
    /// a file the section names.
    fn check_inputs(&self, layout: &Layout) -> Result<()>;

    /// Makes the section's relative paths relative to `base`, the config file's directory.
    fn resolve_paths(&mut self, base: &Path);

    /// Feeds the stage's hash: its parameters, its input files and the hashes of the stages it
    /// reads (`upstream`).
    fn hash(
        &self,
        wiring: &Wiring<'_>,
        upstream: &Upstream<'_>,
        hasher: &mut StageHasher,
    ) -> Result<()>;

    /// The part of the documents this stage makes, when it is one task of a sharded run.
    fn shard(&self) -> Option<Shard> {
        None
    }

    /// Runs the stage.
    fn run(&self, run: &mut StageRun<'_>) -> Result<StageSummary>;
}

/// What a stage's run reports: a headline for the run's table (counts and times, never
/// document text) and its figures as its job reported them.
#[derive(Debug, Clone, PartialEq)]
pub struct StageSummary {
    /// One line.
    pub headline: String,
    /// The job's own summary, as JSON.
    pub figures: serde_json::Value,
}

impl StageSummary {
    pub(crate) fn new(headline: String, figures: &impl serde::Serialize) -> Self {
        StageSummary {
            headline,
            figures: to_value(figures),
        }
    }
}

/// A job's figures as JSON; figures that cannot be written as JSON are left out (`null`)
/// rather than failing a finished stage.
pub(crate) fn to_value(figures: &impl serde::Serialize) -> serde_json::Value {
    serde_json::to_value(figures).unwrap_or(serde_json::Value::Null)
}

/// The hashes of the stages computed so far, for a stage that reads them.
#[derive(Debug)]
pub(crate) struct Upstream<'a>(pub(crate) &'a [(Stage, Option<String>)]);

impl Upstream<'_> {
    /// The hash of `stage`, when the run has it.
    pub(crate) fn get(&self, stage: Stage) -> Option<String> {
        self.0
            .iter()
            .find(|(s, _)| *s == stage)
            .and_then(|(_, hash)| hash.clone())
    }

    /// The hash of `stage`, or an empty one when the run does not have it.
    pub(crate) fn or_empty(&self, stage: Stage) -> String {
        self.get(stage).unwrap_or_default()
    }
}

/// What the run config says around each stage: which stages it has a section for, and the
/// files it names in place of the outputs of stages it has not. Built by
/// [`RunConfig::layout`](crate::RunConfig), so that a stage reads the rest of the config only
/// through this.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Layout {
    /// The stages the config has a section for.
    pub(crate) present: BTreeSet<Stage>,
    /// `[kg] from = "dir"`: a KG directory made earlier.
    pub(crate) kg_dir: Option<PathBuf>,
    /// `label.docs`.
    pub(crate) label_docs: Option<PathBuf>,
    /// `train.corpus`.
    pub(crate) train_corpus: Option<PathBuf>,
    /// The detect section's checkpoint.
    pub(crate) detect_model: Option<PathBuf>,
    /// `sanitize.docs`.
    pub(crate) sanitize_docs: Option<PathBuf>,
    /// The sanitize stage's strategy, then its baselines.
    pub(crate) sanitizations: Vec<Strategy>,
    /// The sanitizations the certify stage certifies.
    pub(crate) certified: Vec<Strategy>,
    /// `sanitize.spans`, when the run has no detect stage.
    pub(crate) sanitize_spans: Option<kanon_sanitize::SpanSource>,
    /// The sanitize stage's settings: what the gate re-renders with.
    pub(crate) sanitize_settings: Option<kanon_sanitize::SanitizeSettings>,
}

impl Layout {
    /// Whether the config has a section for `stage`.
    pub(crate) fn has(&self, stage: Stage) -> bool {
        self.present.contains(&stage)
    }
}

/// Where a run's stages find what they read: a stage's own output in the run directory, or
/// the file the config names when the run does not have the stage that makes it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Wiring<'a> {
    pub(crate) layout: &'a Layout,
    pub(crate) paths: &'a RunPaths,
}

impl Wiring<'_> {
    pub(crate) fn kg_dir(&self) -> PathBuf {
        self.layout
            .kg_dir
            .clone()
            .unwrap_or_else(|| self.paths.made_kg())
    }

    /// The label stage's documents: its own, else the KG's (a synthetic KG's biographies, an
    /// import's Google-RE snippets).
    pub(crate) fn label_docs(&self) -> PathBuf {
        self.layout
            .label_docs
            .clone()
            .unwrap_or_else(|| self.kg_dir().join(kanon_kg::store::DOCS_FILE))
    }

    pub(crate) fn corpus(&self) -> PathBuf {
        if !self.layout.has(Stage::Label) && self.layout.has(Stage::Train) {
            self.layout.train_corpus.clone().unwrap_or_default()
        } else {
            self.paths.made_corpus()
        }
    }

    pub(crate) fn model(&self) -> PathBuf {
        if !self.layout.has(Stage::Train) && self.layout.has(Stage::Detect) {
            self.layout.detect_model.clone().unwrap_or_default()
        } else {
            self.paths.trained_model()
        }
    }

    pub(crate) fn sanitize_docs(&self) -> PathBuf {
        self.layout
            .sanitize_docs
            .clone()
            .unwrap_or_else(|| self.paths.detect_docs())
    }

    /// The sanitizations the sanitize stage writes: its strategy's, then the baselines'.
    pub(crate) fn sanitizations(&self) -> Vec<Strategy> {
        self.layout.sanitizations.clone()
    }

    /// The sanitizations the certify stage certifies (none without one).
    pub(crate) fn certified(&self) -> Vec<Strategy> {
        if self.layout.has(Stage::Certify) {
            self.layout.certified.clone()
        } else {
            Vec::new()
        }
    }
}

/// What a stage's run is handed.
pub(crate) struct StageRun<'r> {
    pub(crate) wiring: Wiring<'r>,
    /// Run, resume or rerun.
    pub(crate) action: Action,
    pub(crate) options: &'r RunOptions<'r>,
    pub(crate) progress: &'r dyn Progress,
    pub(crate) on_event: &'r mut dyn FnMut(&Event<'_>),
}

impl std::fmt::Debug for StageRun<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StageRun")
            .field("wiring", &self.wiring)
            .field("action", &self.action)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

impl StageRun<'_> {
    pub(crate) fn paths(&self) -> &RunPaths {
        self.wiring.paths
    }

    /// Fetches a model of the cache on first use (a directory or an unknown name is left to
    /// the stage to open or report).
    pub(crate) fn fetch(&mut self, name: &str) -> Result<()> {
        let Ok(spec) = kanon_models::spec(name) else {
            return Ok(());
        };
        let cache = kanon_models::Cache::from_env();
        if cache.find(spec).is_none() {
            (self.on_event)(&Event::Fetching { model: name });
            cache.fetch(spec).map_err(|source| Error::Model {
                name: name.to_owned(),
                source,
            })?;
        }
        Ok(())
    }

    /// Fetches an embedded LLM's model on first use.
    pub(crate) fn fetch_llm(&mut self, llm: &LlmConfig) -> Result<()> {
        match llm {
            LlmConfig::Embedded { model, .. } => self.fetch(model),
            _ => Ok(()),
        }
    }
}

/// The error of a stage that the run needs but the config does not give.
pub(crate) fn missing(stage: Stage, what: &str) -> Error {
    Error::Setting(format!(
        "stage {stage} needs {what} (the config has no section for the stage before it)"
    ))
}

/// Makes a relative path relative to `base`.
pub(crate) fn resolve(base: &Path, path: &mut PathBuf) {
    if path.is_relative() {
        *path = normalize(&base.join(&*path));
    }
}

/// [`resolve`] for a path that may be absent.
pub(crate) fn resolve_opt(base: &Path, path: &mut Option<PathBuf>) {
    if let Some(path) = path {
        resolve(base, path);
    }
}

/// `a/b/../c` → `a/c`, without touching the file system (a `..` at the start stays).
pub(crate) fn normalize(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir
                if matches!(out.components().next_back(), Some(Component::Normal(_))) =>
            {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}
