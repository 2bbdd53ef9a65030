use std::path::PathBuf;

/// Errors of kanon-kg. Input errors always name the file and, where there is one, the line and field.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Core(#[from] kanon_core::Error),
    #[error("{path}:{line}: field `{field}`: {message}")]
    Invalid {
        path: PathBuf,
        line: u64,
        field: String,
        message: String,
    },
    #[error("{0}")]
    Usage(String),
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn invalid(
        path: impl Into<PathBuf>,
        line: u64,
        field: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Error::Invalid {
            path: path.into(),
            line,
            field: field.into(),
            message: message.into(),
        }
    }
}
