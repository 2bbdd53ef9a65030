//! The crate's one error type: each variant keeps its cause as its source.

/// Errors of a run: a stage's own error, kept as the source, or a config that cannot be run.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Reading or writing a file (the config, a stage record, an input).
    #[error(transparent)]
    Core(#[from] kanon_core::Error),
    /// The KG stage failed.
    #[error("stage kg")]
    Kg(#[source] kanon_kg::Error),
    /// The index stage failed.
    #[error("stage index")]
    Index(#[source] kanon_index::Error),
    /// The label stage failed.
    #[error("stage label")]
    Label(#[source] kanon_label::Error),
    /// The tagger failed while training or detecting.
    #[error("stage {stage}")]
    Tagger {
        /// Train or detect.
        stage: crate::Stage,
        /// The tagger's error.
        #[source]
        source: kanon_tagger::Error,
    },
    /// A detector without a KG failed.
    #[error("stage detect")]
    Detect(#[source] kanon_detect::Error),
    /// The sanitize stage failed.
    #[error("stage sanitize")]
    Sanitize(#[source] kanon_sanitize::Error),
    /// The certify stage failed.
    #[error("stage certify")]
    Certify(#[source] Box<kanon_gate::Error>),
    /// The eval stage failed.
    #[error("stage eval")]
    Eval(#[source] kanon_eval::Error),
    /// Fetching a model on first use.
    #[error("fetching model {name}")]
    Model {
        /// The model's name in the cache.
        name: String,
        /// Why the fetch failed.
        #[source]
        source: kanon_models::Error,
    },
    /// A config that names a stage without what it reads (`detect` with neither a train stage
    /// nor `detect.model`), or a value the types allow but a run cannot use.
    #[error("{0}")]
    Setting(String),
    /// Another process is running in the run directory (it holds the lock).
    #[error(
        "run directory {} is in use by another kanon run (it holds the lock {}): wait for that run to finish, or give this one another directory",
        dir.display(),
        lock.display()
    )]
    Busy {
        /// The run directory.
        dir: std::path::PathBuf,
        /// The lock file the other run holds.
        lock: std::path::PathBuf,
    },
    /// The user asked the run to stop (Ctrl-C); what was done is kept, and a rerun continues.
    #[error("interrupted in stage {stage}: rerun the same command to continue")]
    Interrupted {
        /// The stage that was running.
        stage: crate::Stage,
    },
}

/// The result of kanon-pipeline's functions.
pub type Result<T> = std::result::Result<T, Error>;
