/// Errors of kanon-index. Files that cannot be read, or hold what they should not (a corrupt
/// postings file, an index of another format version), are kanon-core's errors naming the file.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file could not be read or written, or is not an index of this version.
    #[error(transparent)]
    Core(#[from] kanon_core::Error),
    /// The KG to index could not be read.
    #[error(transparent)]
    Kg(#[from] kanon_kg::Error),
    /// The gazetteer file is not one kanon wrote, or is truncated or corrupt.
    #[error("gazetteer automaton: {0}")]
    Automaton(String),
    /// A request the index cannot answer as asked (too many people for 32-bit ids, a fuzzy distance
    /// above 2); the message says why.
    #[error("{0}")]
    Usage(String),
}

/// The result of kanon-index's fallible functions.
pub type Result<T> = std::result::Result<T, Error>;
