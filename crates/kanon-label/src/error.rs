use std::path::PathBuf;

/// Errors of kanon-label.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Core(#[from] kanon_core::Error),
    #[error(transparent)]
    Index(#[from] kanon_index::Error),
    #[error("{path}: {message}")]
    Format { path: PathBuf, message: String },
    #[error("{0}")]
    Usage(String),
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// An IO error naming its file (kept in kanon-core's variant, shared by every crate).
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Core(kanon_core::Error::io(path, source))
    }
}
