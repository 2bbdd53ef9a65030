use std::path::PathBuf;

/// Errors of the sanitizer.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Reading or writing a file (a config file, documents, spans).
    #[error(transparent)]
    Core(#[from] kanon_core::Error),
    /// The language model failed to answer.
    #[error(transparent)]
    Llm(#[from] kanon_llm::Error),
    /// A config file or builder value that cannot be used.
    #[error("sanitizer config: {0}")]
    Config(String),
    /// A config file that is not valid JSON for [`crate::SanitizerConfig`].
    #[error("{path}: sanitizer config: {message}")]
    ConfigFile { path: PathBuf, message: String },
    /// A span that is not a span of its document's text.
    #[error(
        "document {document:?}: span {start}..{end} is not a span of its {chars}-character text"
    )]
    InvalidSpan {
        document: String,
        start: usize,
        end: usize,
        chars: usize,
    },
    /// The strategy needs generalizations from a language model and none was given.
    #[error("strategy {strategy} needs a language model (--llm) for {entity_type} spans")]
    ModelRequired {
        strategy: &'static str,
        entity_type: kanon_core::EntityType,
    },
}

pub type Result<T> = std::result::Result<T, Error>;
