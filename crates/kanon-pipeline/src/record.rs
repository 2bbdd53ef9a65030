//! The record a stage leaves in its directory (`RUN_DIR/<stage>/stage.json`): the hash of its
//! inputs and parameters, whether it finished, and its figures, so that a later run skips it,
//! resumes it or redoes it; and the hasher that makes that hash.

use std::io::Read;
use std::path::Path;

use kanon_core::PathContext;
use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::Xxh3;

use crate::error::{Error, Result};
use crate::stage::Stage;

/// The on-disk format of [`StageRecord`].
pub const STAGE_FORMAT_VERSION: u32 = 1;
/// The record's file in a stage's directory.
pub const STAGE_FILE: &str = "stage.json";

/// Where a stage stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum State {
    /// Started and not finished: a rerun resumes it.
    Running,
    /// Finished.
    Done,
}

/// What a stage left in its directory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StageRecord {
    /// [`STAGE_FORMAT_VERSION`] of the kanon that wrote it.
    pub format_version: u32,
    /// The stage.
    pub stage: Stage,
    /// Of its parameters, its input files and the hashes of the stages it reads.
    pub hash: String,
    /// Running or done.
    pub state: State,
    /// Seconds of its last invocation.
    #[serde(default)]
    pub seconds: f64,
    /// Peak resident memory during its last invocation, when the system says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_rss_bytes: Option<u64>,
    /// Its one-line summary (counts and times, never document text).
    #[serde(default)]
    pub summary: String,
    /// Its figures, as its job reported them.
    #[serde(default)]
    pub figures: serde_json::Value,
}

impl StageRecord {
    /// The record in `dir`, if there is one; a record of another format version is an error.
    pub fn read(dir: &Path) -> Result<Option<StageRecord>> {
        let path = dir.join(STAGE_FILE);
        if !path.exists() {
            return Ok(None);
        }
        let record: StageRecord = kanon_core::config::load(&path)?;
        if record.format_version != STAGE_FORMAT_VERSION {
            return Err(kanon_core::Error::format(
                &path,
                format!(
                    "stage record format {} (this kanon reads {STAGE_FORMAT_VERSION}): remove the run directory or pass --force",
                    record.format_version
                ),
            )
            .into());
        }
        Ok(Some(record))
    }

    /// Writes the record into the stage's directory, atomically.
    pub fn write(&self, dir: &Path) -> Result<()> {
        std::fs::create_dir_all(dir).with_path(dir)?;
        Ok(kanon_core::io::write_json(&dir.join(STAGE_FILE), self)?)
    }
}

/// Builds a stage's hash from its parameters and inputs.
pub struct StageHasher {
    hasher: Xxh3,
}

impl std::fmt::Debug for StageHasher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StageHasher").finish_non_exhaustive()
    }
}

impl StageHasher {
    /// A hasher for `stage`: the stage's name and the record format come first.
    pub fn new(stage: Stage) -> Self {
        let mut hasher = Xxh3::new();
        hasher.update(b"kanon-stage/");
        hasher.update(&STAGE_FORMAT_VERSION.to_le_bytes());
        hasher.update(stage.name().as_bytes());
        StageHasher { hasher }
    }

    /// Parameters, as their JSON form.
    pub fn params<T: Serialize>(&mut self, params: &T) -> Result<&mut Self> {
        let json = serde_json::to_vec(params)
            .map_err(|e| Error::Setting(format!("parameters not serializable: {e}")))?;
        self.bytes(&json);
        Ok(self)
    }

    /// The hash of a stage read.
    pub fn upstream(&mut self, hash: &str) -> &mut Self {
        self.bytes(hash.as_bytes())
    }

    /// A file's contents, or a directory's files (their relative paths and contents, in order).
    pub fn path(&mut self, path: &Path) -> Result<&mut Self> {
        self.walk(path, path)?;
        Ok(self)
    }

    fn walk(&mut self, root: &Path, path: &Path) -> Result<()> {
        let meta = std::fs::metadata(path).with_path(path)?;
        let relative = path.strip_prefix(root).unwrap_or(path);
        self.bytes(relative.to_string_lossy().as_bytes());
        if meta.is_dir() {
            let mut entries: Vec<_> = std::fs::read_dir(path)
                .with_path(path)?
                .map(|entry| entry.map(|e| e.path()))
                .collect::<std::io::Result<_>>()
                .with_path(path)?;
            entries.sort();
            for entry in entries {
                self.walk(root, &entry)?;
            }
        } else {
            let mut file = std::fs::File::open(path).with_path(path)?;
            let mut buffer = vec![0u8; 1 << 16];
            loop {
                let n = file.read(&mut buffer).with_path(path)?;
                if n == 0 {
                    break;
                }
                self.hasher.update(&buffer[..n]);
            }
            self.hasher.update(&meta.len().to_le_bytes());
        }
        Ok(())
    }

    fn bytes(&mut self, bytes: &[u8]) -> &mut Self {
        // Length first, so that consecutive parts cannot run into each other.
        self.hasher.update(&(bytes.len() as u64).to_le_bytes());
        self.hasher.update(bytes);
        self
    }

    /// The hash, as 32 hex digits (XXH3-128).
    pub fn finish(&self) -> String {
        format!("{:032x}", self.hasher.digest128())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_change_with_parameters_contents_and_upstream() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("docs.jsonl");
        std::fs::write(&file, "a").unwrap();
        let hash = |params: u32, upstream: &str| {
            StageHasher::new(Stage::Label)
                .params(&params)
                .unwrap()
                .path(dir.path())
                .unwrap()
                .upstream(upstream)
                .finish()
        };
        let first = hash(1, "x");
        assert_eq!(first, hash(1, "x"));
        assert_ne!(first, hash(2, "x"));
        assert_ne!(first, hash(1, "y"));
        std::fs::write(&file, "b").unwrap();
        assert_ne!(first, hash(1, "x"));
    }
}
