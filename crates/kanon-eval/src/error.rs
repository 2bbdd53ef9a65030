/// Errors of kanon-eval: files that cannot be read or hold what they should not (kanon-core's
/// errors, naming the file).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Core(#[from] kanon_core::Error),
    /// Predictions for a document the gold does not have: the figures would be wrong.
    #[error("predicted document {id:?} is not in the gold")]
    UnknownDocument { id: String },
    /// The search engine behind the lexical attacker failed.
    #[error("searching the background texts")]
    Search(#[source] Box<dyn std::error::Error + Send + Sync>),
}

pub type Result<T> = std::result::Result<T, Error>;
