//! File IO with errors that name the file and line, and atomic writes (temp file + rename), so that an
//! interrupted run never leaves a half-written index, corpus or checkpoint behind.

use std::fs::{self, File};
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;

use crate::Document;
use crate::error::{Error, Result};
use crate::tab::TabDocument;

/// Writes `path` atomically: `write` fills a temporary file beside it, which is synced and renamed over
/// `path` only when `write` succeeds. A missing parent directory is created.
pub fn atomic_write<F>(path: &Path, write: F) -> Result<()>
where
    F: FnOnce(&mut BufWriter<File>) -> std::io::Result<()>,
{
    write_atomically(path, false, write)
}

/// [`atomic_write`] for a file as sensitive as the input (an audit): on Unix it is readable and
/// writable by its owner only from the moment it is created (mode 0600), whatever the umask.
pub fn atomic_write_private<F>(path: &Path, write: F) -> Result<()>
where
    F: FnOnce(&mut BufWriter<File>) -> std::io::Result<()>,
{
    write_atomically(path, true, write)
}

fn write_atomically<F>(path: &Path, private: bool, write: F) -> Result<()>
where
    F: FnOnce(&mut BufWriter<File>) -> std::io::Result<()>,
{
    let tmp = temp_path(path);
    let result = (|| {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            fs::create_dir_all(parent)?;
        }
        let mut options = fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        if private {
            use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
            options.mode(0o600);
            // A temporary file an interrupted write left keeps its mode when opened again.
            if let Ok(meta) = fs::symlink_metadata(&tmp)
                && meta.permissions().mode() & 0o077 != 0
            {
                fs::remove_file(&tmp)?;
            }
        }
        #[cfg(not(unix))]
        let _ = private;
        let file = options.open(&tmp)?;
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

/// Writes `value` as pretty JSON with a final newline, atomically (figures, summaries, manifests).
pub fn write_json<T: serde::Serialize + ?Sized>(path: &Path, value: &T) -> Result<()> {
    atomic_write(path, |w| {
        serde_json::to_writer_pretty(&mut *w, value)?;
        w.write_all(b"\n")
    })
}

/// Whether the file's first non-blank byte is `[`: a JSON array (the TAB schema), not JSONL.
pub fn starts_with_json_array(path: &Path) -> Result<bool> {
    let mut reader = open(path)?;
    loop {
        let buf = reader.fill_buf().map_err(|e| Error::io(path, e))?;
        if buf.is_empty() {
            return Ok(false);
        }
        if let Some(&byte) = buf.iter().find(|b| !b.is_ascii_whitespace()) {
            return Ok(byte == b'[');
        }
        let n = buf.len();
        reader.consume(n);
    }
}

/// The documents of a file kanon reads texts from, and their TAB annotations when there are any.
#[derive(Debug, Clone, Default)]
pub struct Documents {
    /// The documents in file order (a directory's files in path order).
    pub docs: Vec<Document>,
    /// The same documents as read, when the file is TAB-schema JSON.
    pub tab: Option<Vec<TabDocument>>,
}

/// Reads documents, as a user brings them:
/// - a TAB-schema JSON array (the file starts with `[`);
/// - JSONL `{"id","text",…}`;
/// - a plain text file (`.txt`): one document, its id the file name without `.txt`;
/// - a directory: its `.txt` files, recursively in path order, each id its path relative to the
///   directory without `.txt` (`cases/2019/a.txt` → `2019/a`);
/// - `-`: standard input as one plain-text document with the id `stdin`.
pub fn read_documents(path: &Path) -> Result<Documents> {
    let plain = |id: String, text: String| Document {
        id,
        person: None,
        text,
        split: None,
    };
    if path == Path::new("-") {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
            .map_err(|e| Error::io(path, e))?;
        return Ok(Documents {
            docs: vec![plain("stdin".into(), text)],
            tab: None,
        });
    }
    if path.is_dir() {
        let mut files = Vec::new();
        text_files(path, &mut files)?;
        files.sort();
        if files.is_empty() {
            return Err(Error::format(
                path,
                "a directory of documents holds no .txt file",
            ));
        }
        let docs = files
            .into_iter()
            .map(|file| {
                let text = fs::read_to_string(&file).map_err(|e| Error::io(&file, e))?;
                let relative = file.strip_prefix(path).unwrap_or(&file).with_extension("");
                let id = relative
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy())
                    .collect::<Vec<_>>()
                    .join("/");
                Ok(plain(id, text))
            })
            .collect::<Result<_>>()?;
        return Ok(Documents { docs, tab: None });
    }
    if path.extension().is_some_and(|ext| ext == "txt") {
        let text = fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        let id = path
            .file_stem()
            .map_or_else(|| "document".into(), |s| s.to_string_lossy().into_owned());
        return Ok(Documents {
            docs: vec![plain(id, text)],
            tab: None,
        });
    }
    if starts_with_json_array(path)? {
        let tab = crate::tab::read_tab(path)?;
        let docs = tab.iter().map(TabDocument::to_document).collect();
        return Ok(Documents {
            docs,
            tab: Some(tab),
        });
    }
    let docs = read_jsonl::<Document>(path)?
        .map(|record| record.map(|(_, doc)| doc))
        .collect::<Result<_>>()?;
    Ok(Documents { docs, tab: None })
}

/// The `.txt` files under `dir`, recursively.
fn text_files(dir: &Path, files: &mut Vec<PathBuf>) -> Result<()> {
    for entry in fs::read_dir(dir).map_err(|e| Error::io(dir, e))? {
        let path = entry.map_err(|e| Error::io(dir, e))?.path();
        if path.is_dir() {
            text_files(&path, files)?;
        } else if path.extension().is_some_and(|ext| ext == "txt") {
            files.push(path);
        }
    }
    Ok(())
}

/// Whether documents are read as plain text (a `.txt` file, a directory of them, standard input),
/// so that their sanitized texts are written back as plain text too.
pub fn is_plain_text_input(path: &Path) -> bool {
    path == Path::new("-") || path.is_dir() || path.extension().is_some_and(|ext| ext == "txt")
}

/// The file a document's text goes to under `dir`: `<dir>/<id>.txt`, its id's `/` as
/// subdirectories. An id that could leave `dir` (`..`, a root, a drive) is refused.
pub fn text_path(dir: &Path, id: &str) -> Result<PathBuf> {
    let relative = Path::new(id);
    let safe = !id.is_empty()
        && relative
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)));
    if !safe {
        return Err(Error::format(
            dir,
            format!("document id {id:?} cannot name a file inside the directory"),
        ));
    }
    let mut path = dir.join(relative).into_os_string();
    path.push(".txt");
    Ok(PathBuf::from(path))
}

/// `path` with `suffix` added to its file name: `out.jsonl` → `out.jsonl.partial`.
pub fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// A JSONL file that a long run appends to a record at a time, synced after each, so that a
/// killed run loses at most the record in flight and a rerun resumes after the last complete
/// line (`kanon sanitize` keeps its output so far in `OUT.partial`).
#[derive(Debug)]
pub struct JsonlLog<T> {
    path: PathBuf,
    file: File,
    _records: std::marker::PhantomData<fn(T)>,
}

impl<T: serde::Serialize + DeserializeOwned> JsonlLog<T> {
    /// Opens `path` for appending (creating it) and returns the records of its complete lines.
    /// The first line that does not parse (the torn last line of a killed run) is cut off with
    /// everything after it, so that appending continues cleanly.
    pub fn open(path: &Path) -> Result<(Self, Vec<T>)> {
        let mut records = Vec::new();
        if let Ok(file) = File::open(path) {
            let mut good_bytes = 0u64;
            for line in BufReader::new(file).split(b'\n') {
                let line = line.map_err(|e| Error::io(path, e))?;
                match serde_json::from_slice::<T>(&line) {
                    Ok(record) => {
                        records.push(record);
                        good_bytes += line.len() as u64 + 1;
                    }
                    Err(_) => break,
                }
            }
            fs::OpenOptions::new()
                .write(true)
                .open(path)
                .and_then(|file| file.set_len(good_bytes))
                .map_err(|e| Error::io(path, e))?;
        }
        let file = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| Error::io(path, e))?;
        let log = JsonlLog {
            path: path.to_owned(),
            file,
            _records: std::marker::PhantomData,
        };
        Ok((log, records))
    }

    /// Appends one record as a line and syncs it to disk.
    pub fn append(&mut self, record: &T) -> Result<()> {
        let mut line = serde_json::to_vec(record).map_err(|e| Error::io(&self.path, e.into()))?;
        line.push(b'\n');
        self.file
            .write_all(&line)
            .and_then(|()| self.file.sync_data())
            .map_err(|e| Error::io(&self.path, e))
    }

    /// The file appended to.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Closes and deletes the file: the run it belonged to is complete.
    pub fn remove(self) -> Result<()> {
        let JsonlLog { path, file, .. } = self;
        drop(file);
        fs::remove_file(&path).map_err(|e| Error::io(&path, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_private_file_is_its_owners_alone_from_its_creation() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("audit.jsonl");
        // Even where an interrupted write left a readable temporary file.
        std::fs::write(temp_path(&path), "old").unwrap();
        atomic_write_private(&path, |w| {
            let tmp = std::fs::metadata(temp_path(&path))?;
            assert_eq!(tmp.permissions().mode() & 0o777, 0o600);
            w.write_all(b"secret\n")
        })
        .unwrap();
        let meta = std::fs::metadata(&path).unwrap();
        assert_eq!(meta.permissions().mode() & 0o777, 0o600);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "secret\n");
    }
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
    fn plain_text_files_and_directories_are_documents() {
        let dir = tempfile::tempdir().unwrap();
        let cases = dir.path().join("cases");
        fs::create_dir_all(cases.join("2019")).unwrap();
        fs::write(cases.join("b.txt"), "Second.").unwrap();
        fs::write(cases.join("2019/a.txt"), "First.").unwrap();
        fs::write(cases.join("notes.md"), "not a document").unwrap();
        let docs = read_documents(&cases).unwrap().docs;
        let ids: Vec<&str> = docs.iter().map(|d| d.id.as_str()).collect();
        assert_eq!(ids, ["2019/a", "b"]);
        assert_eq!(docs[0].text, "First.");
        let one = read_documents(&cases.join("b.txt")).unwrap().docs;
        assert_eq!((one[0].id.as_str(), one[0].text.as_str()), ("b", "Second."));
        assert!(is_plain_text_input(&cases) && !is_plain_text_input(Path::new("d.jsonl")));

        fs::write(cases.join("bad.txt"), [0xff, 0xfe]).unwrap();
        let err = read_documents(&cases).unwrap_err().to_string();
        assert!(err.contains("bad.txt"), "{err}");
        let empty = dir.path().join("empty");
        fs::create_dir_all(&empty).unwrap();
        assert!(
            read_documents(&empty)
                .unwrap_err()
                .to_string()
                .contains("no .txt file")
        );

        let out = dir.path().join("out");
        assert_eq!(text_path(&out, "2019/a").unwrap(), out.join("2019/a.txt"));
        for bad in ["../escape", "/etc/passwd", "", "a/../../b"] {
            assert!(text_path(&out, bad).is_err(), "{bad}");
        }
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

    #[test]
    fn a_jsonl_log_resumes_after_its_last_complete_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.jsonl.partial");
        fs::write(&path, "{\"id\":\"a\",\"text\":\"x\"}\n{\"id\":\"b\",\"te").unwrap();
        let (mut log, done) = JsonlLog::<Document>::open(&path).unwrap();
        assert_eq!(done.len(), 1);
        log.append(&Document {
            id: "c".into(),
            person: None,
            text: "y".into(),
            split: None,
        })
        .unwrap();
        drop(log);
        let (log, done) = JsonlLog::<Document>::open(&path).unwrap();
        let ids: Vec<&str> = done.iter().map(|d| d.id.as_str()).collect();
        assert_eq!(ids, ["a", "c"], "the torn line was cut off");
        log.remove().unwrap();
        assert!(!path.exists());
        assert_eq!(
            with_suffix(Path::new("dir/out.jsonl"), ".partial"),
            PathBuf::from("dir/out.jsonl.partial")
        );
    }

    #[test]
    fn documents_are_read_from_jsonl_or_tab_json() {
        let dir = tempfile::tempdir().unwrap();
        let jsonl = dir.path().join("docs.jsonl");
        fs::write(&jsonl, "\n{\"id\":\"a\",\"text\":\"x\"}\n").unwrap();
        let read = read_documents(&jsonl).unwrap();
        assert!(read.tab.is_none() && read.docs[0].id == "a");
        let tab = dir.path().join("docs.json");
        fs::write(
            &tab,
            "  \n [{\"doc_id\": \"t\", \"text\": \"x\", \"dataset_type\": \"dev\"}]",
        )
        .unwrap();
        let read = read_documents(&tab).unwrap();
        assert_eq!(read.docs[0].id, "t");
        assert_eq!(read.tab.unwrap()[0].doc_id, "t");
    }
}
