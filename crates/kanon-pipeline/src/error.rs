/// Errors of a run: a stage's own error, kept as the source, or a config that cannot be run.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Reading or writing a file (the config, a stage record, an input).
    #[error(transparent)]
    Core(#[from] kanon_core::Error),
    #[error("stage kg")]
    Kg(#[source] kanon_kg::Error),
    #[error("stage index")]
    Index(#[source] kanon_index::Error),
    #[error("stage label")]
    Label(#[source] kanon_label::Error),
    #[error("stage {stage}")]
    Tagger {
        stage: crate::Stage,
        #[source]
        source: kanon_tagger::Error,
    },
    #[error("stage detect")]
    Detect(#[source] kanon_detect::Error),
    #[error("stage sanitize")]
    Sanitize(#[source] kanon_sanitize::Error),
    #[error("stage eval")]
    Eval(#[source] kanon_eval::Error),
    /// Fetching a model on first use.
    #[error("fetching model {name}")]
    Model {
        name: String,
        #[source]
        source: kanon_models::Error,
    },
    /// A config that names a stage without what it reads (`detect` with neither a train stage
    /// nor `detect.model`), or a value the types allow but a run cannot use.
    #[error("{0}")]
    Setting(String),
    /// The user asked the run to stop (Ctrl-C); what was done is kept, and a rerun continues.
    #[error("interrupted in stage {stage}: rerun the same command to continue")]
    Interrupted { stage: crate::Stage },
}

pub type Result<T> = std::result::Result<T, Error>;
