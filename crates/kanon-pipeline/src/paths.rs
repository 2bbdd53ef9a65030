//! Where each stage's outputs live in the run directory.

use std::path::{Path, PathBuf};

use crate::stage::Stage;

/// The detector's span scores against the gold annotations, in the eval stage's directory.
pub(crate) const SPAN_SCORES_MARKDOWN: &str = "spans.md";

/// The run directory's layout: a directory per stage (its outputs and its `stage.json`), the
/// run's config and its report.
#[derive(Debug, Clone)]
pub struct RunPaths {
    dir: PathBuf,
}

impl RunPaths {
    /// The layout of the run directory `dir` (nothing is created).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        RunPaths { dir: dir.into() }
    }

    /// The run directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// A stage's directory: its outputs and its record.
    pub fn stage_dir(&self, stage: Stage) -> PathBuf {
        self.dir.join(stage.name())
    }

    /// The KG an import or a synthesis makes.
    pub(crate) fn made_kg(&self) -> PathBuf {
        self.stage_dir(Stage::Kg).join("kg")
    }

    pub(crate) fn index(&self) -> PathBuf {
        self.stage_dir(Stage::Index).join("index")
    }

    /// The labeled corpus the label stage writes.
    pub(crate) fn made_corpus(&self) -> PathBuf {
        self.stage_dir(Stage::Label).join("corpus")
    }

    /// The checkpoint the train stage writes.
    pub(crate) fn trained_model(&self) -> PathBuf {
        self.stage_dir(Stage::Train).join("model")
    }

    /// The documents the detect stage read, as JSONL: what sanitize and eval read after it.
    pub(crate) fn detect_docs(&self) -> PathBuf {
        self.stage_dir(Stage::Detect).join("docs.jsonl")
    }

    pub(crate) fn spans(&self) -> PathBuf {
        self.stage_dir(Stage::Detect).join("spans.jsonl")
    }

    /// A sanitization's output, by its name (the strategy's).
    pub fn sanitized(&self, name: &str) -> PathBuf {
        self.stage_dir(Stage::Sanitize)
            .join(format!("{name}.jsonl"))
    }

    /// A certified sanitization's output, by the sanitization's name.
    pub fn certified(&self, name: &str) -> PathBuf {
        self.stage_dir(Stage::Certify).join(format!("{name}.jsonl"))
    }

    /// Its certificates.
    pub fn certificates(&self, name: &str) -> PathBuf {
        self.stage_dir(Stage::Certify)
            .join(format!("{name}.certificates.jsonl"))
    }

    /// The gate's table for the report (Markdown).
    pub(crate) fn gate_markdown(&self) -> PathBuf {
        self.stage_dir(Stage::Certify).join("gate.md")
    }

    /// The lock a run holds on its directory while it runs (empty: the OS lock on it is what
    /// counts, and it goes with the process).
    pub fn lock(&self) -> PathBuf {
        self.dir.join("run.lock")
    }

    /// The run's report as Markdown.
    pub fn report_markdown(&self) -> PathBuf {
        self.dir.join("report.md")
    }

    /// The run's report as JSON.
    pub fn report_json(&self) -> PathBuf {
        self.dir.join("report.json")
    }
}
