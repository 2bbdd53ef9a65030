/// Errors of kanon-detect.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Core(#[from] kanon_core::Error),
    /// The re-identification model could not be trained, loaded or run.
    #[error("running the re-identification model")]
    Model(#[source] kanon_tagger::Error),
    /// The language model could not be opened.
    #[error("opening the language model")]
    OpenLlm(#[source] kanon_llm::Error),
    /// The language model could not score a document.
    #[error("scoring document {id:?} with the language model")]
    Scorer {
        id: String,
        #[source]
        source: kanon_llm::Error,
    },
    /// A document a method cannot work on (no person, a person the background lacks).
    #[error("document {id:?}: {problem}")]
    Document { id: String, problem: String },
    /// A setting that cannot be used.
    #[error("{0}")]
    Setting(String),
}

pub type Result<T> = std::result::Result<T, Error>;
