use std::path::PathBuf;

/// Errors of kanon-index.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Core(#[from] kanon_core::Error),
    #[error(transparent)]
    Kg(#[from] kanon_kg::Error),
    #[error("{path}: {message}")]
    Format { path: PathBuf, message: String },
    #[error(
        "{path}: index format version {found} is not supported (this kanon reads version {expected}); rebuild the index with `kanon index build`"
    )]
    Version {
        path: PathBuf,
        found: u32,
        expected: u32,
    },
    #[error("gazetteer automaton: {0}")]
    Automaton(String),
    #[error("{0}")]
    Usage(String),
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// An IO error naming its file (kept in kanon-core's variant, shared by every crate).
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Core(kanon_core::Error::io(path, source))
    }

    pub fn format(path: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        Error::Format {
            path: path.into(),
            message: message.into(),
        }
    }
}
