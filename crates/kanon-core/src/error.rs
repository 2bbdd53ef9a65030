//! The errors every kanon crate shares: a file that could not be read or written ([`Error::Io`],
//! the OS error kept as its source), a file whose content is not what it should be
//! ([`Error::Parse`] with a line, [`Error::Format`] without one), and an on-disk format of another
//! version ([`Error::Version`]). Other crates wrap this enum (`#[error(transparent)] Core(…)`), so
//! these helpers exist once.

use std::path::{Path, PathBuf};

/// Errors of kanon-core: IO and parse errors that always name the file (and line, where there is
/// one).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Reading or writing `path` failed. The message is the OS error, which is the source: printed
    /// as a chain (`{:#}` of anyhow) it reads `PATH: No such file or directory (os error 2)`.
    #[error("{path}")]
    Io {
        /// The file that could not be read or written.
        path: PathBuf,
        /// The OS error, kept as the source so that it is printed once.
        #[source]
        source: std::io::Error,
    },
    /// Line `line` of `path` is not what it should be (a JSONL record, a config key).
    #[error("{path}:{line}: {message}")]
    Parse {
        /// The file whose content is wrong.
        path: PathBuf,
        /// The 1-based line of the problem (0 when only the file is known, e.g. a JSON document's check).
        line: u64,
        /// What is wrong, naming the field where there is one.
        message: String,
    },
    /// `path` is not what it should be, with no line to point at.
    #[error("{path}: {message}")]
    Format {
        /// The file whose content is wrong.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
    /// `path` holds an on-disk format of a version this kanon does not read.
    #[error(
        "{path}: {what} format version {found} is not supported (this kanon reads version {expected}); {remedy}"
    )]
    Version {
        /// The file in the unsupported format.
        path: PathBuf,
        /// What the file is (`index`, `corpus`, `checkpoint labels`).
        what: &'static str,
        /// The version the file holds.
        found: u32,
        /// The version this kanon reads and writes.
        expected: u32,
        /// How to get a file this kanon reads.
        remedy: &'static str,
    },
}

/// The result of kanon-core's fallible functions.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// [`Error::Io`]: `source` happened reading or writing `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    /// [`Error::Parse`]: line `line` (1-based) of `path` is wrong in the way `message` says.
    pub fn parse(path: impl Into<PathBuf>, line: u64, message: impl Into<String>) -> Self {
        Error::Parse {
            path: path.into(),
            line,
            message: message.into(),
        }
    }

    /// [`Error::Format`]: `path` is wrong in the way `message` says, with no line to point at.
    pub fn format(path: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        Error::Format {
            path: path.into(),
            message: message.into(),
        }
    }
}

/// Names the file an IO error is about: `std::fs::read(&path).with_path(&path)?`, in any crate
/// whose error converts from [`Error`].
pub trait PathContext<T> {
    /// The error as an [`Error::Io`] naming `path`; a success passes through.
    fn with_path(self, path: impl AsRef<Path>) -> Result<T>;
}

impl<T> PathContext<T> for std::io::Result<T> {
    fn with_path(self, path: impl AsRef<Path>) -> Result<T> {
        self.map_err(|source| Error::io(path.as_ref(), source))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The error and its sources joined by `: `, as the binary prints them (anyhow's `{:#}`).
    fn chain(error: &dyn std::error::Error) -> String {
        let mut text = error.to_string();
        let mut source = error.source();
        while let Some(cause) = source {
            text.push_str(": ");
            text.push_str(&cause.to_string());
            source = cause.source();
        }
        text
    }

    #[test]
    fn an_io_error_names_its_file_once_and_its_cause_once() {
        let missing = Path::new("/no/such/dir/file.json");
        let err = std::fs::read(missing).with_path(missing).unwrap_err();
        let text = chain(&err);
        assert!(text.starts_with("/no/such/dir/file.json: "), "{text}");
        let cause = std::error::Error::source(&err).map(ToString::to_string);
        let cause = cause.expect("the OS error is the source");
        assert_eq!(text.matches(&cause).count(), 1, "{text}");
        assert_eq!(text.matches("file.json").count(), 1, "{text}");
    }
}
