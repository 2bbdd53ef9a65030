//! kanon-eval's one error type.

/// Errors of kanon-eval: files that cannot be read or hold what they should not (kanon-core's
/// errors, naming the file).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Reading or writing a file (documents, gold, predictions, a report).
    #[error(transparent)]
    Core(#[from] kanon_core::Error),
    /// Reading the KG whose facts are the attacker's background.
    #[error("reading the KG")]
    Kg(#[source] kanon_kg::Error),
    /// Loading or training the neural attacker.
    #[error(transparent)]
    Detect(#[from] kanon_detect::Error),
    /// Predictions for a document the gold does not have: the figures would be wrong.
    #[error("predicted document {id:?} is not in the gold")]
    UnknownDocument {
        /// The predicted document's id.
        id: String,
    },
    /// A sanitized document whose original is not among the originals.
    #[error("sanitized document {id:?} has no original")]
    UnknownSanitized {
        /// The sanitized document's id.
        id: String,
    },
    /// A sanitized document that does not fit its original.
    #[error("sanitized document {id:?}: {problem}")]
    Sanitized {
        /// The sanitized document's id.
        id: String,
        /// What does not fit (an edit outside the original, a repeated id).
        problem: String,
    },
    /// The search engine behind the lexical attacker failed.
    #[error("searching the background texts")]
    Search(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// The language model could not score an original.
    #[error("scoring the original of document {id:?} with the language model")]
    Scorer {
        /// The document's id.
        id: String,
        /// The model's error.
        #[source]
        source: kanon_llm::Error,
    },
    /// A setting that cannot be used.
    #[error("{0}")]
    Setting(String),
    /// The plot could not be drawn.
    #[error("{0}")]
    Plot(String),
    /// The language model could not be opened.
    #[error("opening the language model")]
    OpenLlm(#[source] kanon_llm::Error),
    /// A model of kanon's cache could not be found.
    #[error("finding a model")]
    Models(#[source] kanon_models::Error),
    /// An encoder (sentence embeddings, the neural attacker) failed.
    #[error("running the encoder")]
    Model(#[source] kanon_tagger::Error),
}

/// A result whose error is kanon-eval's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;
