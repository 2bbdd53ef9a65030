use std::path::PathBuf;

/// Errors of kanon-eval.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Core(#[from] kanon_core::Error),
    #[error("{path}: {message}")]
    Format { path: PathBuf, message: String },
}

pub type Result<T> = std::result::Result<T, Error>;
