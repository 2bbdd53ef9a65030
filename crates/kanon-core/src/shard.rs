//! One part of a run split across machines by a batch scheduler (a Slurm job array, a Kubernetes
//! Indexed Job), and the record that lets `kanon merge` put the parts back together.
//!
//! Shard `I/N` takes the `I`-th of `N` contiguous blocks of the input documents (0-based, as
//! Slurm's `SLURM_ARRAY_TASK_ID` and Kubernetes' `JOB_COMPLETION_INDEX` count). Every output of
//! kanon lists documents in input order, so the shards' outputs, concatenated in shard order,
//! are the output of one run over all documents.
//!
//! ```
//! use kanon_core::shard::Shard;
//!
//! let shard: Shard = "1/4".parse()?;
//! assert_eq!(shard.range(10), 2..5);
//! let covered: usize = (0..4).map(|i| Shard::new(i, 4).unwrap().range(10).len()).sum();
//! assert_eq!(covered, 10);
//! # Ok::<(), String>(())
//! ```

use std::fmt;
use std::io::Write;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::{Error, PathContext, Result};

/// Version of the shard record (`*.shard.json`, `shard.json` in a corpus directory).
pub const SHARD_FORMAT_VERSION: u32 = 1;

/// Part `index` of `count` (0-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Shard {
    index: usize,
    count: usize,
}

impl Shard {
    /// `None` unless `index < count`.
    pub fn new(index: usize, count: usize) -> Option<Shard> {
        (index < count).then_some(Shard { index, count })
    }

    /// Which part this is, from 0 to `count - 1`.
    pub fn index(&self) -> usize {
        self.index
    }

    /// How many parts the run is split into (at least 1).
    pub fn count(&self) -> usize {
        self.count
    }

    /// The positions of this shard's documents among `len` documents: blocks whose sizes differ
    /// by at most one, together covering every position once.
    pub fn range(&self, len: usize) -> Range<usize> {
        let bound = |i: usize| (len as u128 * i as u128 / self.count as u128) as usize;
        bound(self.index)..bound(self.index + 1)
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
        let usage = || {
            format!(
                "shard {s:?} is not I/N (part I of N, 0-based: 0/4 … 3/4, as Slurm's \
                 SLURM_ARRAY_TASK_ID and Kubernetes' JOB_COMPLETION_INDEX count)"
            )
        };
        let (index, count) = s.trim().split_once('/').ok_or_else(usage)?;
        let index: usize = index.trim().parse().map_err(|_| usage())?;
        let count: usize = count.trim().parse().map_err(|_| usage())?;
        Shard::new(index, count).ok_or_else(|| {
            format!("shard {s:?}: the part must be below the number of parts (0 to {count} - 1)")
        })
    }
}

impl Serialize for Shard {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Shard {
    fn deserialize<D: serde::Deserializer<'de>>(
        deserializer: D,
    ) -> std::result::Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// What a shard's output is, so that `kanon merge` knows how to join it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OutputKind {
    /// A labeled corpus directory (`kanon label`).
    Corpus,
    /// Spans JSONL (`kanon detect`).
    Spans,
    /// Spans in TAB's system format, one JSON object (`kanon detect --export tab`).
    SpansTab,
    /// Sanitized documents JSONL (`kanon sanitize`).
    Sanitized,
    /// A sanitization audit JSONL (`kanon sanitize --audit`).
    Audit,
}

/// Written beside a shard's output once the output is complete: which part of which input it
/// holds, and with what settings, so that a merge can refuse parts that do not belong together.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShardRecord {
    /// [`SHARD_FORMAT_VERSION`] when written; another version is refused on reading.
    pub shard_format_version: u32,
    /// What the output beside the record is.
    pub kind: OutputKind,
    /// Which part of the run the output holds.
    pub shard: Shard,
    /// The input documents as the job named them (for people: the parts of a run in separate
    /// directories name their inputs differently; [`ShardRecord::input_fingerprint`] is compared).
    pub input: String,
    /// Documents in the whole input (after a `limit`).
    pub input_documents: usize,
    /// A hash of the whole input's contents ([`Fingerprint`]).
    pub input_fingerprint: String,
    /// The position of this shard's first document in the whole input.
    pub first: usize,
    /// Documents in this shard.
    pub documents: usize,
    /// The job's settings without its output paths and its shard: equal across the parts of one
    /// run.
    pub settings: serde_json::Value,
}

impl ShardRecord {
    /// The record of `part`, cut from the documents at `input`.
    pub fn new(kind: OutputKind, part: &Part, input: &Path, settings: serde_json::Value) -> Self {
        let range = part.shard.range(part.input_documents);
        ShardRecord {
            shard_format_version: SHARD_FORMAT_VERSION,
            kind,
            shard: part.shard,
            input: input.display().to_string(),
            input_documents: part.input_documents,
            input_fingerprint: part.input_fingerprint.clone(),
            first: range.start,
            documents: range.len(),
            settings,
        }
    }

    /// Where the record of the output at `output` lives: `DIR/shard.json` for a directory,
    /// `FILE.shard.json` beside a file.
    pub fn path_for(output: &Path, kind: OutputKind) -> PathBuf {
        match kind {
            OutputKind::Corpus => output.join("shard.json"),
            _ => crate::io::with_suffix(output, ".shard.json"),
        }
    }

    /// Writes the record of `output` (after the output itself, so that a record means a
    /// finished part).
    pub fn write(&self, output: &Path) -> Result<()> {
        crate::io::write_json(&Self::path_for(output, self.kind), self)
    }

    /// Removes a record an earlier sharded run left at `output`, so that an unsharded output is
    /// never taken for a part.
    pub fn remove_stale(output: &Path, kind: OutputKind) -> Result<()> {
        let path = Self::path_for(output, kind);
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::io(path, e)),
            _ => Ok(()),
        }
    }

    /// Reads the record of the output at `output` (a file or a corpus directory).
    pub fn read(output: &Path) -> Result<ShardRecord> {
        let path = if output.is_dir() {
            Self::path_for(output, OutputKind::Corpus)
        } else {
            crate::io::with_suffix(output, ".shard.json")
        };
        let bytes = std::fs::read(&path).map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                Error::format(
                    output,
                    format!(
                        "no shard record ({} is missing): is it the output of a finished \
                         `--shard I/N` run?",
                        path.display()
                    ),
                )
            } else {
                Error::io(&path, e)
            }
        })?;
        let record: ShardRecord = serde_json::from_slice(&bytes).map_err(|e| {
            Error::parse(&path, e.line() as u64, format!("not a shard record: {e}"))
        })?;
        if record.shard_format_version != SHARD_FORMAT_VERSION {
            return Err(Error::Version {
                path,
                what: "shard record",
                found: record.shard_format_version,
                expected: SHARD_FORMAT_VERSION,
                remedy: "rerun the shard with this kanon",
            });
        }
        Ok(record)
    }
}

/// The parts of one sharded output, checked to belong together, in shard order.
#[derive(Debug, Clone)]
pub struct ShardSet {
    /// The kind of every part's output.
    pub kind: OutputKind,
    /// Each part's output path and record, in shard order.
    pub parts: Vec<(PathBuf, ShardRecord)>,
}

impl ShardSet {
    /// Reads the records of `outputs` (in any order) and checks that they are every part of one
    /// run: the same kind, input and settings, each part once, the blocks adjacent.
    pub fn open(outputs: &[PathBuf]) -> Result<ShardSet> {
        let Some(first_output) = outputs.first() else {
            return Err(Error::format(
                ".",
                "nothing to merge: name the shards' outputs",
            ));
        };
        let mut parts = outputs
            .iter()
            .map(|output| Ok((output.clone(), ShardRecord::read(output)?)))
            .collect::<Result<Vec<_>>>()?;
        parts.sort_by_key(|(_, record)| record.shard.index());
        let reference = parts[0].1.clone();
        let mismatch = |output: &Path, what: &str| {
            Error::format(
                output,
                format!(
                    "its {what} and {}'s differ: the parts are not of one run",
                    first_output.display()
                ),
            )
        };
        let count = reference.shard.count();
        for (output, record) in &parts {
            if record.kind != reference.kind {
                return Err(mismatch(output, "kind of output"));
            }
            if record.shard.count() != count {
                return Err(mismatch(output, "numbers of shards"));
            }
            if record.input_fingerprint != reference.input_fingerprint
                || record.input_documents != reference.input_documents
            {
                return Err(mismatch(output, "input"));
            }
            if record.settings != reference.settings {
                return Err(mismatch(output, "settings"));
            }
        }
        for index in 0..count {
            let found: Vec<&PathBuf> = parts
                .iter()
                .filter(|(_, record)| record.shard.index() == index)
                .map(|(output, _)| output)
                .collect();
            match found.as_slice() {
                [_] => {}
                [] => {
                    return Err(Error::format(
                        first_output,
                        format!("shard {index}/{count} is missing from the parts to merge"),
                    ));
                }
                [a, b, ..] => {
                    return Err(Error::format(
                        a,
                        format!(
                            "shard {index}/{count} is given twice (also {})",
                            b.display()
                        ),
                    ));
                }
            }
        }
        // Records written by this kanon are adjacent by construction; a hand-edited one is not.
        let mut next = 0;
        for (output, record) in &parts {
            if record.first != next {
                return Err(Error::format(
                    output,
                    format!(
                        "shard {} starts at document {} where {next} was expected",
                        record.shard, record.first
                    ),
                ));
            }
            next += record.documents;
        }
        if next != reference.input_documents {
            return Err(Error::format(
                first_output,
                format!(
                    "the shards hold {next} of the input's {} documents",
                    reference.input_documents
                ),
            ));
        }
        Ok(ShardSet {
            kind: reference.kind,
            parts,
        })
    }
}

/// A part and the whole input it was cut from, as its [`ShardRecord`] tells them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    /// Which part of the input this is.
    pub shard: Shard,
    /// Documents in the whole input.
    pub input_documents: usize,
    /// The whole input's [`Fingerprint`].
    pub input_fingerprint: String,
}

/// Cuts `docs` down to `shard`'s block; for a sharded job, the part it is.
pub fn keep_part(docs: &mut Vec<crate::Document>, shard: Option<Shard>) -> Option<Part> {
    let part = Part {
        shard: shard?,
        input_documents: docs.len(),
        input_fingerprint: Fingerprint::new().documents(docs).finish(),
    };
    let range = part.shard.range(part.input_documents);
    docs.truncate(range.end);
    docs.drain(..range.start);
    Some(part)
}

/// A hash of contents, for [`ShardRecord::input_fingerprint`] and settings that name files: equal
/// contents give equal fingerprints wherever the files are.
#[derive(Default)]
pub struct Fingerprint(xxhash_rust::xxh3::Xxh3);

impl fmt::Debug for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.finish())
    }
}

impl Fingerprint {
    /// A fingerprint of nothing yet.
    pub fn new() -> Self {
        Fingerprint::default()
    }

    /// Adds bytes.
    pub fn update(&mut self, bytes: &[u8]) -> &mut Self {
        self.0.update(bytes);
        self
    }

    /// Adds documents: each one's id and text, in order.
    pub fn documents(&mut self, docs: &[crate::Document]) -> &mut Self {
        for doc in docs {
            for part in [doc.id.as_bytes(), &[0], doc.text.as_bytes(), &[0]] {
                self.0.update(part);
            }
        }
        self
    }

    /// Adds a file's contents.
    pub fn file(&mut self, path: &Path) -> Result<&mut Self> {
        let mut reader = crate::io::open(path)?;
        std::io::copy(&mut reader, &mut HashWriter(&mut self.0)).with_path(path)?;
        Ok(self)
    }

    /// The hash of everything added so far, as `xxh3-128:` and 32 hex digits.
    pub fn finish(&self) -> String {
        format!("xxh3-128:{:032x}", self.0.digest128())
    }
}

struct HashWriter<'a>(&'a mut xxhash_rust::xxh3::Xxh3);

impl Write for HashWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.update(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A job's settings for [`ShardRecord::settings`]: its serialized form without the named keys
/// (its output paths and its shard).
pub fn settings_of<T: Serialize>(job: &T, without: &[&str]) -> serde_json::Value {
    let mut value = serde_json::to_value(job).unwrap_or(serde_json::Value::Null);
    if let serde_json::Value::Object(map) = &mut value {
        for key in without {
            map.remove(*key);
        }
    }
    value
}

/// Joins JSONL parts of one document a line (spans, sanitized documents, audits) into `out`,
/// atomically, checking that each part holds as many lines as its record says.
pub fn merge_jsonl(set: &ShardSet, out: &Path) -> Result<usize> {
    let mut contents = Vec::with_capacity(set.parts.len());
    for (output, record) in &set.parts {
        let bytes = std::fs::read(output).with_path(output)?;
        let lines = bytes
            .split(|&b| b == b'\n')
            .filter(|line| line.iter().any(|b| !b.is_ascii_whitespace()))
            .count();
        if lines != record.documents {
            return Err(Error::format(
                output,
                format!(
                    "holds {lines} records where its shard record says {} documents: was it \
                     changed after its run?",
                    record.documents
                ),
            ));
        }
        contents.push(bytes);
    }
    crate::io::atomic_write(out, |w| {
        for bytes in &contents {
            w.write_all(bytes)?;
        }
        Ok(())
    })?;
    Ok(set.parts.iter().map(|(_, r)| r.documents).sum())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_read_their_form_and_cover_every_position_once() {
        assert_eq!("3/4".parse::<Shard>(), Ok(Shard { index: 3, count: 4 }));
        assert_eq!(Shard::new(3, 4).unwrap().to_string(), "3/4");
        assert!(
            "4/4"
                .parse::<Shard>()
                .unwrap_err()
                .contains("below the number")
        );
        assert!("1-4".parse::<Shard>().unwrap_err().contains("is not I/N"));
        assert!("a/4".parse::<Shard>().is_err());
        for len in [0, 1, 3, 7, 100] {
            for count in [1, 2, 4, 9] {
                let mut next = 0;
                for index in 0..count {
                    let range = Shard::new(index, count).unwrap().range(len);
                    assert_eq!(range.start, next);
                    assert!(range.len() <= len / count + 1);
                    next = range.end;
                }
                assert_eq!(next, len);
            }
        }
    }

    #[test]
    fn a_merge_refuses_parts_that_are_not_one_run() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, shard: &str, settings: serde_json::Value, lines: &str| {
            let path = dir.path().join(name);
            std::fs::write(&path, lines).unwrap();
            let part = Part {
                shard: shard.parse().unwrap(),
                input_documents: 3,
                input_fingerprint: Fingerprint::new().update(b"three documents").finish(),
            };
            // Each part names its input differently: the contents are compared.
            let input = format!("{name}.docs.jsonl");
            ShardRecord::new(OutputKind::Spans, &part, Path::new(&input), settings)
                .write(&path)
                .unwrap();
            path
        };
        let settings = serde_json::json!({"threshold": 0.5});
        let a = write("a.jsonl", "0/2", settings.clone(), "{\"id\":\"1\"}\n");
        let b = write(
            "b.jsonl",
            "1/2",
            settings.clone(),
            "{\"id\":\"2\"}\n{\"id\":\"3\"}\n",
        );
        let out = dir.path().join("all.jsonl");
        let set = ShardSet::open(&[b.clone(), a.clone()]).unwrap();
        assert_eq!(merge_jsonl(&set, &out).unwrap(), 3);
        assert_eq!(
            std::fs::read_to_string(&out).unwrap(),
            "{\"id\":\"1\"}\n{\"id\":\"2\"}\n{\"id\":\"3\"}\n"
        );

        let err = ShardSet::open(std::slice::from_ref(&a))
            .unwrap_err()
            .to_string();
        assert!(err.contains("shard 1/2 is missing"), "{err}");
        let err = ShardSet::open(&[a.clone(), a.clone(), b.clone()])
            .unwrap_err()
            .to_string();
        assert!(err.contains("shard 0/2 is given twice"), "{err}");
        let other = write(
            "c.jsonl",
            "1/2",
            serde_json::json!({"threshold": 0.1}),
            "{}\n{}\n",
        );
        let err = ShardSet::open(&[a.clone(), other]).unwrap_err().to_string();
        assert!(err.contains("c.jsonl: its settings and"), "{err}");
        let short = write("d.jsonl", "1/2", settings, "{}\n");
        let set = ShardSet::open(&[a, short]).unwrap();
        let err = merge_jsonl(&set, &out).unwrap_err().to_string();
        assert!(
            err.contains("d.jsonl: holds 1 records where its shard record says 2"),
            "{err}"
        );
        let err = ShardSet::open(&[dir.path().join("none.jsonl")])
            .unwrap_err()
            .to_string();
        assert!(err.contains("no shard record"), "{err}");
    }
}
