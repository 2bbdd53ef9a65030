/// Errors of kanon-index. Files that cannot be read, or hold what they should not (a corrupt
/// postings file, an index of another format version), are kanon-core's errors naming the file.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Core(#[from] kanon_core::Error),
    #[error(transparent)]
    Kg(#[from] kanon_kg::Error),
    #[error("gazetteer automaton: {0}")]
    Automaton(String),
    #[error("{0}")]
    Usage(String),
}

pub type Result<T> = std::result::Result<T, Error>;
