//! An on-disk response cache in front of any [`ChatModel`], so that reruns are reproducible and free.
//!
//! Every answer is one JSON file, `DIR/ab/abcdef….json`, named by the SHA-256 of the canonical JSON
//! of `{"format", "model": ModelId, "request": ChatRequest}`: the backend, the model and every
//! request field (messages, n, temperature, top-p, max tokens, stop, seed, logprobs). The file also
//! holds the model id and the request, so an entry can be read by a person and checked on load.
//!
//! Writes go to a temporary file in the same directory and are renamed into place, so a crash or a
//! concurrent writer never leaves half an entry. A file that exists but does not parse, or that
//! answers another request, is an error naming the file (`Error::Io`, a format error of
//! kanon-core) rather than a silent miss: a damaged cache is worth knowing about, and deleting the file is the
//! fix. Errors of the inner model are not cached.
//!
//! Where answers go is a [`ResponseCache`]: the default directory ([`default_cache_dir`]), one the
//! user names, or none kept (a temporary directory removed with the model).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use kanon_core::PathContext;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::{ChatModel, ChatRequest, ChatResponse, Error, ModelId, Result};

/// Bumped when the key or the entry layout changes, so old entries are never misread.
const CACHE_FORMAT: u32 = 1;

/// Where answers are cached unless told otherwise: `$KANON_LLM_CACHE`, else
/// `~/.cache/kanon/llm`.
pub fn default_cache_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("KANON_LLM_CACHE") {
        return PathBuf::from(dir);
    }
    let home = std::env::var_os("HOME").map_or_else(|| PathBuf::from("."), PathBuf::from);
    home.join(".cache").join("kanon").join("llm")
}

/// Where a run keeps model answers. Serialised as `"default"`, `"off"` or `{dir = "…"}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub enum ResponseCache {
    /// [`default_cache_dir`].
    #[default]
    Default,
    /// Nothing kept after the run: answers live in a temporary directory while it lasts.
    Off,
    /// This directory.
    Dir(PathBuf),
}

impl ResponseCache {
    /// From `--cache DIR` and `--no-cache`.
    pub fn from_cli(dir: Option<&Path>, off: bool) -> Self {
        match (dir, off) {
            (_, true) => ResponseCache::Off,
            (Some(dir), false) => ResponseCache::Dir(dir.to_owned()),
            (None, false) => ResponseCache::Default,
        }
    }

    /// Puts `model` behind this cache.
    pub fn wrap<M: ChatModel>(&self, model: M) -> Result<CachedModel<M>> {
        match self {
            ResponseCache::Default => CachedModel::new(model, default_cache_dir()),
            ResponseCache::Dir(dir) => CachedModel::new(model, dir),
            ResponseCache::Off => {
                let temp = tempfile::tempdir().with_path(std::env::temp_dir())?;
                let mut cached = CachedModel::new(model, temp.path())?;
                cached.temp = Some(temp);
                Ok(cached)
            }
        }
    }
}

/// A model whose answers are kept on disk. Its [`ChatModel::id`] is the inner model's.
#[derive(Debug)]
pub struct CachedModel<M: ChatModel> {
    inner: M,
    dir: PathBuf,
    /// The directory of a cache that keeps nothing, removed on drop.
    temp: Option<tempfile::TempDir>,
    hits: AtomicU64,
    misses: AtomicU64,
}

thread_local! {
    static THREAD_STATS: std::cell::Cell<CacheStats> = const {
        std::cell::Cell::new(CacheStats { hits: 0, misses: 0 })
    };
}

/// Hits and misses since the cache was opened.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheStats {
    /// Requests answered from disk.
    pub hits: u64,
    /// Requests passed on to the inner model (and their answers stored).
    pub misses: u64,
}

impl CacheStats {
    /// Hits and misses of every cache asked from the calling thread, so far: the difference
    /// around a piece of work is that work's, even while other threads use the same caches.
    pub fn of_this_thread() -> CacheStats {
        THREAD_STATS.with(std::cell::Cell::get)
    }
}

#[derive(Serialize)]
struct Key<'a> {
    format: u32,
    model: &'a ModelId,
    request: &'a ChatRequest,
}

#[derive(Serialize, Deserialize)]
struct Entry {
    format: u32,
    model: ModelId,
    request: ChatRequest,
    response: ChatResponse,
}

impl<M: ChatModel> CachedModel<M> {
    /// Caches `inner`'s answers under `dir`, created if missing.
    pub fn new(inner: M, dir: impl Into<PathBuf>) -> Result<Self> {
        let dir = dir.into();
        std::fs::create_dir_all(&dir).with_path(&dir)?;
        Ok(CachedModel {
            inner,
            dir,
            temp: None,
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        })
    }

    /// The directory the answers are stored in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The model whose answers are cached.
    pub fn inner(&self) -> &M {
        &self.inner
    }

    /// The model whose answers were cached; the answers stay on disk.
    pub fn into_inner(self) -> M {
        self.inner
    }

    /// Hits and misses of this cache since it was opened, across all threads.
    pub fn stats(&self) -> CacheStats {
        CacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
        }
    }

    /// The file that holds (or would hold) the answer to `request`.
    pub fn entry_path(&self, request: &ChatRequest) -> Result<PathBuf> {
        let id = self.inner.id();
        let key = serde_json::to_vec(&Key {
            format: CACHE_FORMAT,
            model: &id,
            request,
        })
        .map_err(|err| Error::InvalidRequest(format!("cannot serialise the cache key: {err}")))?;
        let digest = hex(&Sha256::digest(&key));
        Ok(self.dir.join(&digest[..2]).join(format!("{digest}.json")))
    }

    fn read(
        &self,
        path: &Path,
        id: &ModelId,
        request: &ChatRequest,
    ) -> Result<Option<ChatResponse>> {
        let bytes = match std::fs::read(path) {
            Ok(bytes) => bytes,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(kanon_core::Error::io(path, source).into()),
        };
        let entry: Entry = serde_json::from_slice(&bytes)
            .map_err(|err| corrupt(path, &format!("not a cache entry ({err})")))?;
        if entry.format != CACHE_FORMAT || &entry.model != id || &entry.request != request {
            return Err(corrupt(path, "the entry answers a different request"));
        }
        Ok(Some(entry.response))
    }

    fn write(&self, path: &Path, entry: &Entry) -> Result<()> {
        let parent = path.parent().unwrap_or(&self.dir);
        std::fs::create_dir_all(parent).with_path(parent)?;
        let mut file = tempfile::NamedTempFile::new_in(parent).with_path(path)?;
        let json = serde_json::to_vec_pretty(entry).map_err(|err| {
            Error::InvalidRequest(format!("cannot serialise the cache entry: {err}"))
        })?;
        file.write_all(&json).with_path(path)?;
        file.as_file().sync_all().with_path(path)?;
        file.persist(path)
            .map_err(|err| err.error)
            .with_path(path)?;
        Ok(())
    }
}

fn corrupt(path: &Path, message: &str) -> Error {
    kanon_core::Error::format(
        path,
        format!("corrupt LLM cache entry: {message}; delete the file to recompute it"),
    )
    .into()
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes.iter().fold(String::with_capacity(64), |mut out, b| {
        let _ = write!(out, "{b:02x}");
        out
    })
}

impl<M: ChatModel> ChatModel for CachedModel<M> {
    fn id(&self) -> ModelId {
        self.inner.id()
    }

    fn chat(&self, request: &ChatRequest) -> Result<ChatResponse> {
        // JSON has no NaN or infinity: such a request could be stored but never read back.
        if !request.temperature.is_finite() || !request.top_p.is_finite() {
            return Err(Error::InvalidRequest(format!(
                "temperature {} and top_p {} must be finite numbers",
                request.temperature, request.top_p
            )));
        }
        let id = self.inner.id();
        let path = self.entry_path(request)?;
        if let Some(response) = self.read(&path, &id, request)? {
            self.hits.fetch_add(1, Ordering::Relaxed);
            THREAD_STATS.with(|stats| {
                let mut now = stats.get();
                now.hits += 1;
                stats.set(now);
            });
            return Ok(response);
        }
        self.misses.fetch_add(1, Ordering::Relaxed);
        THREAD_STATS.with(|stats| {
            let mut now = stats.get();
            now.misses += 1;
            stats.set(now);
        });
        let response = self.inner.chat(request)?;
        let entry = Entry {
            format: CACHE_FORMAT,
            model: id,
            request: request.clone(),
            response,
        };
        self.write(&path, &entry)?;
        Ok(entry.response)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Message, ScriptedModel};

    #[test]
    fn a_cache_that_keeps_nothing_leaves_nothing() {
        let cached = ResponseCache::Off
            .wrap(ScriptedModel::new("m").fallback("x"))
            .unwrap();
        let dir = cached.dir().to_owned();
        let request = ChatRequest::new(vec![Message::user("hello")]);
        cached.chat(&request).unwrap();
        cached.chat(&request).unwrap();
        assert_eq!((cached.stats().hits, cached.stats().misses), (1, 1));
        assert!(dir.is_dir());
        drop(cached);
        assert!(
            !dir.exists(),
            "the temporary directory is removed with the model"
        );
    }

    #[test]
    fn cache_settings_round_trip_and_read_from_the_command_line() {
        for cache in [
            ResponseCache::Default,
            ResponseCache::Off,
            ResponseCache::Dir("/tmp/answers".into()),
        ] {
            let json = serde_json::to_string(&cache).unwrap();
            assert_eq!(serde_json::from_str::<ResponseCache>(&json).unwrap(), cache);
        }
        assert_eq!(
            ResponseCache::from_cli(Some(Path::new("c")), false),
            ResponseCache::Dir("c".into())
        );
        assert_eq!(ResponseCache::from_cli(None, true), ResponseCache::Off);
        assert_eq!(ResponseCache::from_cli(None, false), ResponseCache::Default);
    }
}
