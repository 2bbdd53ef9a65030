//! The sanitizer's one error type.

use std::path::PathBuf;

/// Errors of the sanitizer.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Reading or writing a file (a config file, documents, spans).
    #[error(transparent)]
    Core(#[from] kanon_core::Error),
    /// The sentence encoder behind `substitute` failed.
    #[error("embedding words for substitutes")]
    Encoder(#[source] kanon_tagger::Error),
    /// The encoder behind `substitute` is not in the model cache.
    #[error("finding the encoder for substitutes")]
    Models(#[source] kanon_models::Error),
    /// The language model failed to answer.
    #[error(transparent)]
    Llm(#[from] kanon_llm::Error),
    /// The KG attacker's index could not be opened.
    #[error("opening the KG attacker's index {}", path.display())]
    Index {
        /// The index directory.
        path: PathBuf,
        /// What went wrong.
        #[source]
        source: kanon_index::Error,
    },
    /// A config value that cannot be used (a config file's problems are kanon-core errors naming
    /// the file and the key).
    #[error("sanitizer config: {0}")]
    Config(String),
    /// Two documents of one input share an id.
    #[error("{path}: document id {id:?} appears twice")]
    DuplicateDocument {
        /// The documents file.
        path: PathBuf,
        /// The repeated id.
        id: String,
    },
    /// Gold spans were asked of documents that have no annotations.
    #[error(
        "--gold-spans needs TAB-schema documents (a JSON array with annotations); {path} is JSONL"
    )]
    GoldNeedsTab {
        /// The documents file, which is not TAB-schema JSON.
        path: PathBuf,
    },
    /// A span that is not a span of its document's text.
    #[error(
        "document {document:?}: span {start}..{end} is not a span of its {chars}-character text"
    )]
    InvalidSpan {
        /// The document's id.
        document: String,
        /// The span's first character.
        start: usize,
        /// One past its last character.
        end: usize,
        /// The length of the document's text, in characters.
        chars: usize,
    },
    /// A masked string still stood as a word in the rendered text: the document is not written
    /// (the string itself is never named in an error).
    #[error(
        "document {document:?}: a masked string survived rendering; the document was not written (please report this)"
    )]
    Leak {
        /// The document's id.
        document: String,
    },
    /// Asked to stop (Ctrl-C): the finished documents are kept, and a rerun resumes after them.
    #[error(
        "stopped after {done} of {documents} documents; {partial} keeps them for a rerun to resume from"
    )]
    Stopped {
        /// Documents finished, this run's and an earlier run's.
        done: usize,
        /// Documents of the run (after `limit` and the shard).
        documents: usize,
        /// The partial output a rerun resumes from.
        partial: PathBuf,
    },
    /// The strategy needs generalizations from a language model and none was given.
    #[error("strategy {strategy} needs a language model (--llm) for {entity_type} spans")]
    ModelRequired {
        /// The strategy's name.
        strategy: &'static str,
        /// The type of the span that needed generalizations.
        entity_type: kanon_core::EntityType,
    },
}

/// A result whose error is the sanitizer's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;
