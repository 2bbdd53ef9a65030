//! The crate's one error type.

use std::path::PathBuf;

/// What can go wrong opening or running the service. Errors of a request are answered over
/// HTTP (`crate::server`), never as this type.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Reading a file, a config or a record.
    #[error(transparent)]
    Core(#[from] kanon_core::Error),
    /// Loading the detector or running it.
    #[error(transparent)]
    Detect(Box<kanon_detect::Error>),
    /// Opening the sanitizer's models or sanitizing.
    #[error(transparent)]
    Sanitize(Box<kanon_sanitize::Error>),
    /// Opening the release gate's attackers or certifying.
    #[error(transparent)]
    Gate(Box<kanon_gate::Error>),
    /// A setting out of range, or settings that do not go together.
    #[error("{0}")]
    Setting(String),
    /// The service has no detector: no `--model`, no `[detect.method] model`.
    #[error(
        "no detector to serve: give a tagger checkpoint (`--model DIR` or `model` in [detect.method])"
    )]
    NoModel,
    /// The config file names a detector the service does not run.
    #[error(
        "the service runs kanon's tagger; `{0}` detects over a documents file only (kanon detect {0})"
    )]
    UnsupportedDetector(String),
    /// Binding the listening socket.
    #[error("listening on {address}")]
    Bind {
        /// The address asked for.
        address: String,
        /// Why it failed.
        #[source]
        source: std::io::Error,
    },
    /// Starting the runtime, a thread, or serving connections.
    #[error("{what}")]
    Io {
        /// What the service was doing.
        what: String,
        /// Why it failed.
        #[source]
        source: std::io::Error,
    },
    /// The detector's thread stopped (it panicked, or failed to load the model).
    #[error("the detector's thread stopped: {0}")]
    DetectorGone(String),
    /// A path the config names does not exist.
    #[error("{what} {path} does not exist")]
    Missing {
        /// What the path is for.
        what: &'static str,
        /// The path.
        path: PathBuf,
    },
}

/// The crate's result.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The errors of the stage crates, boxed (they are large, and rare).
macro_rules! boxed_from {
    ($($variant:ident: $type:ty),*) => {$(
        impl From<$type> for Error {
            fn from(err: $type) -> Self {
                Error::$variant(Box::new(err))
            }
        }
    )*};
}

boxed_from!(Detect: kanon_detect::Error, Sanitize: kanon_sanitize::Error, Gate: kanon_gate::Error);
