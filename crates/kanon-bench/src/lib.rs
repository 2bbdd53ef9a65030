//! kanon's benchmarks, behind `kanon bench …`: each measures one stage at scale, in the way a user
//! runs it (the slow parts in child processes of the `kanon` binary, so that their time and peak
//! memory are their own), and checks its own results before it reports a figure.
//!
//! - [`index`]: index build throughput and peak memory, intersection latency, gazetteer MB/s;
//! - [`label`]: labeling throughput end to end and in memory, and the fast Algorithm 1 against the
//!   plain reference (the same decisions, checked);
//! - [`tagger`]: the BERT tagger's inference documents/s and training tokens/s, comparable with
//!   `scripts/bench_tagger_torch.py`;
//! - `llm` (feature `embedded-llm`): the embedded LLM runtime's prompt and generated tokens/s,
//!   comparable with llama.cpp's `llama-bench`.
//!
//! Every benchmark returns its figures (serde, for `--json`) and writes what it does to a log.
//!
//! ```
//! // Percentiles the benchmarks report, over sorted samples.
//! assert_eq!(kanon_bench::percentile(&[1.0, 2.0, 3.0, 4.0, 5.0], 0.5), 3.0);
//! assert_eq!(kanon_bench::median(&mut [3.0, 1.0, 2.0]), 2.0);
//! ```

#![warn(missing_docs)]

pub mod index;
pub mod label;
#[cfg(feature = "embedded-llm")]
pub mod llm;
pub mod resources;
pub mod tagger;
pub mod work;

use std::path::PathBuf;

/// Errors of the benchmarks: a stage failed, a child process failed, or a benchmark's own check of
/// its results did not hold.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file of the benchmark could not be read or written.
    #[error(transparent)]
    Core(#[from] kanon_core::Error),
    /// The synthetic KG could not be written.
    #[error(transparent)]
    Kg(#[from] kanon_kg::Error),
    /// The index could not be opened.
    #[error(transparent)]
    Index(#[from] kanon_index::Error),
    /// Labeling failed.
    #[error(transparent)]
    Label(#[from] kanon_label::Error),
    /// The tagger could not be built, loaded or run.
    #[error(transparent)]
    Tagger(#[from] kanon_tagger::Error),
    /// The LLM could not be loaded or run.
    #[error(transparent)]
    Llm(#[from] kanon_llm::Error),
    /// The pretrained model is not cached.
    #[error(transparent)]
    Models(#[from] kanon_models::Error),
    /// A child process (`kanon index build`, `kanon label`, …) could not run or failed.
    #[error("{command}: {problem}")]
    Child {
        /// The command (`kanon label`).
        command: String,
        /// Why it could not start, or how it failed (its exit status or standard error).
        problem: String,
    },
    /// Writing the benchmark's log failed.
    #[error("writing the benchmark's report")]
    Report(#[from] std::io::Error),
    /// A benchmark's check of its own results failed: its figures would mean nothing.
    #[error("check failed: {0}")]
    Check(String),
}

/// The result of the benchmarks.
pub type Result<T> = std::result::Result<T, Error>;

/// Fails the benchmark with [`Error::Check`] unless `cond` holds.
macro_rules! check {
    ($cond:expr, $($message:tt)+) => {
        if !$cond {
            return Err($crate::Error::Check(format!($($message)+)));
        }
    };
}
pub(crate) use check;

/// The `q` quantile of sorted samples (nearest rank).
pub fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

/// The median of samples (sorted in place).
pub fn median(values: &mut [f64]) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// The `kanon` binary that runs the benchmark's child processes: the running one.
pub fn kanon_exe() -> Result<PathBuf> {
    std::env::current_exe().map_err(|e| Error::Child {
        command: "kanon".into(),
        problem: format!("cannot find the running executable: {e}"),
    })
}
