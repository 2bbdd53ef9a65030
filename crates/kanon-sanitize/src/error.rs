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
    /// A config value that cannot be used (a config file's problems are kanon-core errors naming
    /// the file and the key).
    #[error("sanitizer config: {0}")]
    Config(String),
    /// Two documents of one input share an id.
    #[error("{path}: document id {id:?} appears twice")]
    DuplicateDocument { path: PathBuf, id: String },
    /// Gold spans were asked of documents that have no annotations.
    #[error(
        "--gold-spans needs TAB-schema documents (a JSON array with annotations); {path} is JSONL"
    )]
    GoldNeedsTab { path: PathBuf },
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
    /// A masked string still stood as a word in the rendered text: the document is not written
    /// (the string itself is never named in an error).
    #[error(
        "document {document:?}: a masked string survived rendering; the document was not written (please report this)"
    )]
    Leak { document: String },
    /// Asked to stop (Ctrl-C): the finished documents are kept, and a rerun resumes after them.
    #[error(
        "stopped after {done} of {documents} documents; {partial} keeps them for a rerun to resume from"
    )]
    Stopped {
        done: usize,
        documents: usize,
        partial: PathBuf,
    },
    /// The strategy needs generalizations from a language model and none was given.
    #[error("strategy {strategy} needs a language model (--llm) for {entity_type} spans")]
    ModelRequired {
        strategy: &'static str,
        entity_type: kanon_core::EntityType,
    },
}

pub type Result<T> = std::result::Result<T, Error>;
