//! The crate's one error type: each variant keeps its cause as its source.

/// Errors of kanon-detect.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Reading or writing a file (documents, background, spans, the partial log).
    #[error(transparent)]
    Core(#[from] kanon_core::Error),
    /// The re-identification model could not be trained, loaded or run.
    #[error("running the re-identification model")]
    Model(#[source] kanon_tagger::Error),
    /// The tagger could not be loaded or run.
    #[error("running the tagger")]
    Tagger(#[source] kanon_tagger::Error),
    /// The language model could not be opened.
    #[error("opening the language model")]
    OpenLlm(#[source] kanon_llm::Error),
    /// The language model could not score a document.
    #[error("scoring document {id:?} with the language model")]
    Scorer {
        /// The document.
        id: String,
        /// The model's error.
        #[source]
        source: kanon_llm::Error,
    },
    /// A document a method cannot work on (no person, a person the background lacks).
    #[error("document {id:?}: {problem}")]
    Document {
        /// The document.
        id: String,
        /// What is wrong with it.
        problem: String,
    },
    /// A setting that cannot be used.
    #[error("{0}")]
    Setting(String),
}

/// The result of kanon-detect's functions.
pub type Result<T> = std::result::Result<T, Error>;
