//! The gate's one error type.

use std::path::PathBuf;

/// Errors of the release gate.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Reading or writing a file (documents, spans, a config, the outputs).
    #[error(transparent)]
    Core(#[from] kanon_core::Error),
    /// The sanitizer failed to re-render a document.
    #[error("re-rendering through the sanitizer")]
    Sanitize(#[source] kanon_sanitize::Error),
    /// Opening the KG attacker's index failed.
    #[error("opening the KG attacker's index")]
    Index(#[source] kanon_index::Error),
    /// The evaluation's attackers or the KG background failed.
    #[error("the re-identification attackers")]
    Eval(#[source] kanon_eval::Error),
    /// The neural attacker's model failed.
    #[error("the neural attacker")]
    Neural(#[source] kanon_detect::Error),
    /// The neural attacker's classifier failed to score.
    #[error("the neural attacker's classifier")]
    Classifier(#[source] kanon_tagger::Error),
    /// The lexical attacker's search engine failed.
    #[error("the lexical attacker's search")]
    Search(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// The language model of a generalizing strategy could not be opened.
    #[error("opening the sanitizer's language model")]
    Llm(#[source] kanon_llm::Error),
    /// A setting that cannot be used.
    #[error("gate settings: {0}")]
    Config(String),
    /// Two documents of one input share an id.
    #[error("{path}: document id {id:?} appears twice")]
    DuplicateDocument {
        /// The documents file.
        path: PathBuf,
        /// The repeated id.
        id: String,
    },
    /// Stopped on request before every document was certified; the finished ones are kept.
    #[error(
        "stopped after {done} of {documents} documents; rerun to resume from {}",
        partial.display()
    )]
    Stopped {
        /// Documents finished, this run's and an earlier run's.
        done: usize,
        /// Documents of the run.
        documents: usize,
        /// The partial output a rerun resumes from.
        partial: PathBuf,
    },
    /// `--fail-on-unsafe`: some documents hit the cap and are not safe to release.
    #[error("{capped} of {documents} documents are not safe to release (capped): {ids}")]
    Unsafe {
        /// Capped documents.
        capped: usize,
        /// Documents certified.
        documents: usize,
        /// Their ids, comma-separated (ids, never text).
        ids: String,
    },
}

/// The gate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
