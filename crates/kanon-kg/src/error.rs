use std::path::PathBuf;

/// Errors of kanon-kg. Input errors always name the file and, where there is one, the line and field.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file could not be read or written, or is not what it should be.
    #[error(transparent)]
    Core(#[from] kanon_core::Error),
    /// A record of an input is wrong: fails the import unless malformed lines are skipped.
    #[error("{path}:{line}: field `{field}`: {message}")]
    Invalid {
        /// The input file.
        path: PathBuf,
        /// The 1-based line of the record.
        line: u64,
        /// The field that is wrong (`property`, `evidences[0].obj_surface`), or `record` for the whole line.
        field: String,
        /// What is wrong with it.
        message: String,
    },
    /// A request that cannot be carried out as asked (e.g. label tables for a format that has no use
    /// for them); the message says why.
    #[error("{0}")]
    Usage(String),
}

/// The result of kanon-kg's fallible functions.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// [`Error::Invalid`]: `field` of line `line` of `path` is wrong in the way `message` says.
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
