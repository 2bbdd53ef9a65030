//! Progress reporting for long jobs, implemented by the CLI (progress bars) and ignored in tests.

/// Receives progress of a long job: stages with a known amount of work.
pub trait Progress: Sync {
    /// A new stage starts; `total` units of work (0 when unknown).
    fn stage(&self, name: &str, total: u64);
    /// `n` more units of the current stage are done.
    fn advance(&self, n: u64);
    /// A short status beside the progress (a loss, a throughput); never sensitive text.
    fn message(&self, _message: &str) {}
}

/// Reports nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoProgress;

impl Progress for NoProgress {
    fn stage(&self, _name: &str, _total: u64) {}
    fn advance(&self, _n: u64) {}
}
