/// A foreign error kept as a source (llama.cpp's, the HTTP client's).
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Errors of the LLM backends. Where a library underneath failed (llama.cpp, the HTTP client),
/// its error is kept as the source and the message says what kanon was doing.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file that cannot be read or written, or a cache entry that holds what it should not
    /// (kanon-core's errors, naming the file).
    #[error(transparent)]
    Io(#[from] kanon_core::Error),
    /// The model could not be loaded (missing file, bad GGUF, ...).
    #[error("loading model {model}: {message}")]
    Load {
        model: String,
        message: String,
        #[source]
        source: Option<BoxError>,
    },
    /// The backend failed to answer (HTTP error after retries, decoding failure, ...).
    #[error("{backend}: {message}")]
    Backend {
        backend: String,
        message: String,
        #[source]
        source: Option<BoxError>,
    },
    /// A scripted backend got a request it has no answer for.
    #[error("scripted model {model}: no canned answer for a prompt ending in {tail:?}")]
    NoScript { model: String, tail: String },
    #[error("invalid request: {0}")]
    InvalidRequest(String),
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// A load failure kanon describes itself.
    pub fn load(model: impl Into<String>, message: impl Into<String>) -> Error {
        Error::Load {
            model: model.into(),
            message: message.into(),
            source: None,
        }
    }

    /// A load failure of a library underneath, kept as the source.
    pub fn load_from(
        model: impl Into<String>,
        message: impl Into<String>,
        source: impl Into<BoxError>,
    ) -> Error {
        Error::Load {
            model: model.into(),
            message: message.into(),
            source: Some(source.into()),
        }
    }

    /// A failure to answer that kanon describes itself.
    pub fn backend(backend: impl Into<String>, message: impl Into<String>) -> Error {
        Error::Backend {
            backend: backend.into(),
            message: message.into(),
            source: None,
        }
    }

    /// A failure to answer of a library underneath, kept as the source.
    pub fn backend_from(
        backend: impl Into<String>,
        message: impl Into<String>,
        source: impl Into<BoxError>,
    ) -> Error {
        Error::Backend {
            backend: backend.into(),
            message: message.into(),
            source: Some(source.into()),
        }
    }
}
