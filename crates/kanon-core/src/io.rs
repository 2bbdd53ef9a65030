//! File IO with errors that name the file and line, and atomic writes (temp file + rename), so that an
//! interrupted run never leaves a half-written index, corpus or checkpoint behind.

use std::fs::{self, File};
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;

use crate::error::{Error, Result};

/// Writes `path` atomically: `write` fills a temporary file beside it, which is synced and renamed over
/// `path` only when `write` succeeds.
pub fn atomic_write<F>(path: &Path, write: F) -> Result<()>
where
    F: FnOnce(&mut BufWriter<File>) -> std::io::Result<()>,
{
    let tmp = temp_path(path);
    let result = (|| {
        let file = File::create(&tmp)?;
        let mut writer = BufWriter::new(file);
        write(&mut writer)?;
        let file = writer.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if let Err(source) = result {
        let _ = fs::remove_file(&tmp);
        return Err(Error::io(path, source));
    }
    Ok(())
}

/// Writes a directory atomically: `build` fills a temporary sibling directory, which replaces `dir`
/// (if any) only when `build` succeeds.
pub fn atomic_dir<E, F>(dir: &Path, build: F) -> std::result::Result<(), E>
where
    E: From<Error>,
    F: FnOnce(&Path) -> std::result::Result<(), E>,
{
    let tmp = temp_path(dir);
    if tmp.exists() {
        fs::remove_dir_all(&tmp).map_err(|e| Error::io(&tmp, e))?;
    }
    fs::create_dir_all(&tmp).map_err(|e| Error::io(&tmp, e))?;
    if let Err(err) = build(&tmp) {
        let _ = fs::remove_dir_all(&tmp);
        return Err(err);
    }
    if dir.exists() {
        let old = dir.with_extension("old.tmp");
        let _ = fs::remove_dir_all(&old);
        fs::rename(dir, &old).map_err(|e| Error::io(dir, e))?;
        fs::rename(&tmp, dir).map_err(|e| Error::io(dir, e))?;
        let _ = fs::remove_dir_all(&old);
    } else {
        if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
            fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
        }
        fs::rename(&tmp, dir).map_err(|e| Error::io(dir, e))?;
    }
    Ok(())
}

fn temp_path(path: &Path) -> PathBuf {
    let mut name = path
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_else(|| "out".into());
    name.push(format!(".{}.tmp", std::process::id()));
    path.with_file_name(name)
}

/// Opens a file for buffered reading, naming it in the error.
pub fn open(path: &Path) -> Result<BufReader<File>> {
    File::open(path)
        .map(BufReader::new)
        .map_err(|e| Error::io(path, e))
}

/// Reads a JSONL file record by record. Blank lines are skipped; a malformed line is an error naming
/// the file, the line and what is wrong with it (e.g. a missing field).
pub fn read_jsonl<T: DeserializeOwned>(path: &Path) -> Result<JsonlReader<T>> {
    Ok(JsonlReader {
        path: path.to_owned(),
        reader: open(path)?,
        line: 0,
        buf: String::new(),
        _marker: std::marker::PhantomData,
    })
}

/// Iterator over the records of a JSONL file; see [`read_jsonl`].
#[derive(Debug)]
pub struct JsonlReader<T> {
    path: PathBuf,
    reader: BufReader<File>,
    line: u64,
    buf: String,
    _marker: std::marker::PhantomData<T>,
}

impl<T: DeserializeOwned> Iterator for JsonlReader<T> {
    type Item = Result<(u64, T)>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            self.buf.clear();
            self.line += 1;
            match self.reader.read_line(&mut self.buf) {
                Ok(0) => return None,
                Ok(_) => {}
                Err(e) => return Some(Err(Error::io(&self.path, e))),
            }
            let line = self.buf.trim();
            if line.is_empty() {
                continue;
            }
            return Some(
                serde_json::from_str(line)
                    .map(|value| (self.line, value))
                    .map_err(|e| Error::parse(&self.path, self.line, e.to_string())),
            );
        }
    }
}

/// Writes records as JSONL (one compact JSON object a line).
pub fn write_jsonl<T: serde::Serialize, W: Write>(
    writer: &mut W,
    records: impl IntoIterator<Item = T>,
) -> std::io::Result<()> {
    for record in records {
        serde_json::to_writer(&mut *writer, &record)?;
        writer.write_all(b"\n")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Document;

    #[test]
    fn jsonl_errors_name_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("docs.jsonl");
        fs::write(&path, "{\"id\":\"a\",\"text\":\"x\"}\n\n{\"id\":\"b\"}\n").unwrap();
        let mut records = read_jsonl::<Document>(&path).unwrap();
        let (line, first) = records.next().unwrap().unwrap();
        assert_eq!((line, first.id.as_str()), (1, "a"));
        let err = records.next().unwrap().unwrap_err().to_string();
        assert!(err.contains("docs.jsonl:3:"), "{err}");
        assert!(err.contains("missing field `text`"), "{err}");
    }

    #[test]
    fn atomic_write_leaves_old_file_on_failure() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.txt");
        atomic_write(&path, |w| w.write_all(b"first")).unwrap();
        let err = atomic_write(&path, |w| {
            w.write_all(b"partial")?;
            Err(std::io::Error::other("disk full"))
        });
        assert!(err.is_err());
        assert_eq!(fs::read_to_string(&path).unwrap(), "first");
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            1,
            "temp file removed"
        );
    }

    #[test]
    fn atomic_dir_replaces_only_on_success() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("index");
        atomic_dir::<Error, _>(&target, |tmp| {
            fs::write(tmp.join("a"), "1").map_err(|e| Error::io(tmp, e))
        })
        .unwrap();
        let failed = atomic_dir::<Error, _>(&target, |tmp| {
            fs::write(tmp.join("a"), "2").map_err(|e| Error::io(tmp, e))?;
            Err(Error::parse(tmp, 1, "boom"))
        });
        assert!(failed.is_err());
        assert_eq!(fs::read_to_string(target.join("a")).unwrap(), "1");
    }
}
