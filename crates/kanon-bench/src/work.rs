//! What the benchmarks share: a working directory, and the synthetic KG and index inside it,
//! built by `kanon index build` as a child process so that its time and peak memory are a user's.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use kanon_core::PathContext;

use crate::resources::peak_rss_children;
use crate::{Error, Result};

/// The benchmark's working directory: the one given, or a temporary one removed on drop.
#[derive(Debug)]
pub struct WorkDir {
    _temp: Option<tempfile::TempDir>,
    /// The directory itself.
    pub path: PathBuf,
}

impl WorkDir {
    /// The directory `given` (created if missing), else a new temporary one.
    pub fn new(given: Option<&Path>) -> Result<WorkDir> {
        let (temp, path) = match given {
            Some(dir) => (None, dir.to_owned()),
            None => {
                let temp = tempfile::tempdir().with_path(std::env::temp_dir())?;
                let path = temp.path().to_owned();
                (Some(temp), path)
            }
        };
        std::fs::create_dir_all(&path).with_path(&path)?;
        Ok(WorkDir { _temp: temp, path })
    }

    /// Where the KG of `people` synthetic people from `seed` is written.
    pub fn kg_dir(&self, people: usize, seed: u64) -> PathBuf {
        self.path.join(format!("kg-{people}-{seed}"))
    }

    /// Where the index of `people` synthetic people from `seed` is built; benchmarks share it.
    pub fn index_dir(&self, people: usize, seed: u64) -> PathBuf {
        self.path.join(format!("index-{people}-{seed}"))
    }
}

/// Runs `kanon index build` on `kg_dir`; returns its wall time in seconds and its peak RSS in bytes.
pub fn build_index_in_child(kanon: &Path, kg_dir: &Path, index_dir: &Path) -> Result<(f64, u64)> {
    let threads = rayon::current_num_threads();
    let started = Instant::now();
    let status = Command::new(kanon)
        .args(["--threads", &threads.to_string(), "index", "build", "--kg"])
        .arg(kg_dir)
        .arg("--out")
        .arg(index_dir)
        .status()
        .map_err(|e| child_error("kanon index build", e))?;
    let seconds = started.elapsed().as_secs_f64();
    if !status.success() {
        return Err(child_error("kanon index build", status));
    }
    Ok((seconds, peak_rss_children().unwrap_or(0)))
}

/// A child process that could not start or did not succeed.
pub(crate) fn child_error(command: &str, problem: impl std::fmt::Display) -> Error {
    Error::Child {
        command: command.to_owned(),
        problem: problem.to_string(),
    }
}
