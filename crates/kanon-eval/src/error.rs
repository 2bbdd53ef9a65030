/// Errors of kanon-eval: files that cannot be read or hold what they should not (kanon-core's
/// errors, naming the file).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Core(#[from] kanon_core::Error),
}

pub type Result<T> = std::result::Result<T, Error>;
