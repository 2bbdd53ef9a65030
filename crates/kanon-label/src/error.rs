/// Errors of kanon-label.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file could not be read or written, or is not what it should be.
    #[error(transparent)]
    Core(#[from] kanon_core::Error),
    /// The index could not be opened.
    #[error(transparent)]
    Index(#[from] kanon_index::Error),
    /// A job that cannot run as asked (k or max arity 0, corpora that do not merge); the message says
    /// why.
    #[error("{0}")]
    Usage(String),
}

/// The result of kanon-label's fallible functions.
pub type Result<T> = std::result::Result<T, Error>;
