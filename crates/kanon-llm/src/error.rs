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
        /// The model file or name.
        model: String,
        /// Why it could not be loaded.
        message: String,
        /// The library's own error, when there is one.
        #[source]
        source: Option<BoxError>,
    },
    /// The backend failed to answer (HTTP error after retries, decoding failure, ...).
    #[error("{backend}: {message}")]
    Backend {
        /// The backend and model (`embedded SmolLM2-135M-Instruct.Q4_1.gguf`, an HTTP endpoint).
        backend: String,
        /// What kanon was doing and what went wrong.
        message: String,
        /// The library's own error, when there is one.
        #[source]
        source: Option<BoxError>,
    },
    /// A scripted backend got a request it has no answer for.
    #[error("scripted model {model}: no canned answer for a prompt ending in {tail:?}")]
    NoScript {
        /// The scripted model's name.
        model: String,
        /// The last characters of the last user message (60 at most).
        tail: String,
    },
    /// A request no backend can answer (no message, n = 0, a temperature below 0, a top-p outside
    /// (0, 1], a prompt longer than the context); the message says which.
    #[error("invalid request: {0}")]
    InvalidRequest(String),
}

/// The result of kanon-llm's fallible functions.
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
