use std::path::PathBuf;

/// Errors of the LLM backends.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The model could not be loaded (missing file, bad GGUF, ...).
    #[error("loading model {model}: {message}")]
    Load { model: String, message: String },
    /// The backend failed to answer (HTTP error after retries, decoding failure, ...).
    #[error("{backend}: {message}")]
    Backend { backend: String, message: String },
    /// A scripted backend got a request it has no answer for.
    #[error("scripted model {model}: no canned answer for a prompt ending in {tail:?}")]
    NoScript { model: String, tail: String },
    #[error("invalid request: {0}")]
    InvalidRequest(String),
}

pub type Result<T> = std::result::Result<T, Error>;
