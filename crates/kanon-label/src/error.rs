/// Errors of kanon-label.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Core(#[from] kanon_core::Error),
    #[error(transparent)]
    Index(#[from] kanon_index::Error),
    #[error("{0}")]
    Usage(String),
}

pub type Result<T> = std::result::Result<T, Error>;
