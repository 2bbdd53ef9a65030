//! kanon-tagger's error type: one enum for every failure of the crate.

use std::path::PathBuf;

/// A foreign error kept as a source: the tokenizers crate's, burn's stores and records.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Errors of kanon-tagger. A failure of a library underneath (tokenizers, burn's stores) is kept
/// as the source; the message says what kanon was doing and with which file.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file kanon reads or writes (a corpus, a config, a checkpoint's JSON) failed.
    #[error(transparent)]
    Core(#[from] kanon_core::Error),
    /// The pretrained model is not cached, or not a model kanon knows.
    #[error(transparent)]
    Models(#[from] kanon_models::Error),
    /// A `tokenizer.json` that cannot be read or parsed.
    #[error("{path}: cannot load the tokenizer")]
    Tokenizer {
        /// The tokenizer file.
        path: PathBuf,
        /// The tokenizers crate's error.
        #[source]
        source: BoxError,
    },
    /// The tokenizer failed on a text (or on turning its truncation off).
    #[error("tokenizing a text")]
    Encode(#[source] BoxError),
    /// The tokenizer lacks a special token kanon needs (`[CLS]`, `[SEP]`, `[PAD]`, `[MASK]`).
    #[error("the tokenizer has no {0:?} token")]
    MissingSpecialToken(String),
    /// A model config, labels file or training config that cannot be used.
    #[error("{path}: {message}")]
    Config {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
    /// A detection or training setting that cannot be used (a threshold above 1).
    #[error("{0}")]
    Setting(String),
    /// The state an interrupted run left cannot be resumed.
    #[error("{path}: resuming: {message}")]
    Resume {
        /// The resume directory or the file of it at fault.
        path: PathBuf,
        /// What is wrong, and what to do.
        message: String,
    },
    /// A weights or optimiser-state file that cannot be read or written.
    #[error("{path}: cannot {action}")]
    Store {
        /// The file.
        path: PathBuf,
        /// `read the weights`, `write the optimiser state`, …
        action: &'static str,
        /// burn's error (a store's or a record's).
        #[source]
        source: BoxError,
    },
    /// Weights that do not fit the model (missing tensors, wrong shapes).
    #[error("{path}: weights: {problem}")]
    Weights {
        /// The weights file.
        path: PathBuf,
        /// Which tensors are missing or misfit.
        problem: String,
    },
    /// A tensor's values could not be read back from the device.
    #[error("reading a tensor's values")]
    TensorData(#[source] BoxError),
}

/// A result of kanon-tagger.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// A store failure on `path` while doing `action`, keeping the store's error as the source.
    pub fn store<E>(path: impl Into<PathBuf>, action: &'static str) -> impl FnOnce(E) -> Error
    where
        E: std::error::Error + Send + Sync + 'static,
    {
        let path = path.into();
        move |source| Error::Store {
            path,
            action,
            source: Box::new(source),
        }
    }
}
