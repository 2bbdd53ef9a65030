use std::path::PathBuf;

/// Errors of kanon-tagger.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Core(#[from] kanon_core::Error),
    #[error("{path}: tokenizer: {message}")]
    Tokenizer { path: PathBuf, message: String },
    #[error("tokenizing: {0}")]
    Encode(String),
    #[error("the tokenizer has no {0:?} token")]
    MissingSpecialToken(String),
    #[error("{path}: model config: {message}")]
    Config { path: PathBuf, message: String },
    #[error("{path}: resuming: {message}")]
    Resume { path: PathBuf, message: String },
    #[error("{path}: weights: {message}")]
    Weights { path: PathBuf, message: String },
}

pub type Result<T> = std::result::Result<T, Error>;
