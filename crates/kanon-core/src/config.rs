//! Config and job files, one way for every crate: TOML when the name ends in `.toml`, JSON
//! otherwise. Reading is strict (structs say `deny_unknown_fields`) and an error names the file,
//! the line and the key (`sanitize.toml:3: key `candidates`: invalid type: …`); writing is atomic.
//!
//! ```
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Debug, PartialEq, Serialize, Deserialize)]
//! #[serde(default, deny_unknown_fields)]
//! struct Knobs { k: u64, name: String }
//! impl Default for Knobs {
//!     fn default() -> Self { Knobs { k: 5, name: "greedy".into() } }
//! }
//!
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("knobs.toml");
//! kanon_core::config::save(&path, &Knobs { k: 7, ..Knobs::default() })?;
//! assert_eq!(std::fs::read_to_string(&path)?, "k = 7\nname = \"greedy\"\n");
//! assert_eq!(kanon_core::config::load::<Knobs>(&path)?.k, 7);
//!
//! std::fs::write(&path, "k = 7\nnmae = \"random\"\n")?;
//! let err = kanon_core::config::load::<Knobs>(&path).unwrap_err().to_string();
//! assert!(err.contains("knobs.toml:2: unknown field `nmae`"), "{err}");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::io::Write;
use std::path::Path;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::{Error, PathContext, Result};

/// A config or job struct kept in a file. `load` reads it (TOML or JSON, strictly) and then
/// [`check`](ConfigFile::check)s what its types cannot say; `save` writes it atomically.
pub trait ConfigFile: Serialize + DeserializeOwned {
    /// A value the types allow but kanon does not (a probability above 1), said as
    /// `key = value (why)`.
    fn check(&self) -> std::result::Result<(), String> {
        Ok(())
    }

    /// Reads the file: a problem names the file, the line where there is one, and the key.
    fn load(path: &Path) -> Result<Self> {
        let value: Self = load(path)?;
        value
            .check()
            .map_err(|problem| Error::format(path, problem))?;
        Ok(value)
    }

    /// Writes the file: TOML when its name ends in `.toml`, else JSON.
    fn save(&self, path: &Path) -> Result<()> {
        save(path, self)
    }
}

/// Whether `path` is read and written as TOML (else JSON).
pub fn is_toml(path: &Path) -> bool {
    path.extension().is_some_and(|ext| ext == "toml")
}

/// Reads a config or job file.
pub fn load<T: DeserializeOwned>(path: &Path) -> Result<T> {
    let text = std::fs::read_to_string(path).with_path(path)?;
    if is_toml(path) {
        from_toml(path, &text)
    } else {
        from_json(path, &text)
    }
}

/// Writes a config or job file atomically: pretty TOML or pretty JSON, with a final newline.
pub fn save<T: Serialize>(path: &Path, value: &T) -> Result<()> {
    if !is_toml(path) {
        return crate::io::write_json(path, value);
    }
    let text = toml::to_string_pretty(value)
        .map_err(|e| Error::format(path, format!("cannot be written as TOML: {e}")))?;
    crate::io::atomic_write(path, |w| w.write_all(text.as_bytes()))
}

/// Parses TOML text read from `path` (named in errors).
pub fn from_toml<T: DeserializeOwned>(path: &Path, text: &str) -> Result<T> {
    let deserializer =
        toml::Deserializer::parse(text).map_err(|e| toml_error(path, text, &e, "."))?;
    serde_path_to_error::deserialize(deserializer)
        .map_err(|e| toml_error(path, text, e.inner(), &e.path().to_string()))
}

/// Parses JSON text read from `path` (named in errors).
pub fn from_json<T: DeserializeOwned>(path: &Path, text: &str) -> Result<T> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let value: T = serde_path_to_error::deserialize(&mut deserializer)
        .map_err(|e| json_error(path, e.inner(), &e.path().to_string()))?;
    deserializer.end().map_err(|e| json_error(path, &e, "."))?;
    Ok(value)
}

/// `key `a.b`: ` before a message about a value below the top level. An unknown field is named
/// by the message itself, so the key is where it stands.
fn keyed(key: &str, message: &str) -> String {
    let key = if message.starts_with("unknown field") {
        key.rsplit_once('.').map_or(".", |(parent, _)| parent)
    } else {
        key
    };
    if key == "." || key.is_empty() {
        message.to_owned()
    } else {
        format!("key `{key}`: {message}")
    }
}

fn toml_error(path: &Path, text: &str, error: &toml::de::Error, key: &str) -> Error {
    let message = keyed(key, error.message().trim_end());
    match error.span() {
        Some(span) => {
            let line = text[..span.start.min(text.len())].matches('\n').count() as u64 + 1;
            Error::parse(path, line, message)
        }
        None => Error::format(path, message),
    }
}

fn json_error(path: &Path, error: &serde_json::Error, key: &str) -> Error {
    let full = error.to_string();
    // serde_json ends its messages with the position, which the error says as its line.
    let bare = full
        .rsplit_once(" at line ")
        .map_or(full.as_str(), |(message, _)| message);
    let message = keyed(key, bare);
    match error.line() {
        0 => Error::format(path, message),
        line => Error::parse(path, line as u64, message),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[serde(default, deny_unknown_fields)]
    struct Inner {
        threshold: f32,
        budget: usize,
    }

    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
    #[serde(default, deny_unknown_fields)]
    struct Outer {
        seed: u64,
        limit: Option<usize>,
        inner: Inner,
    }

    impl Default for Inner {
        fn default() -> Self {
            Inner {
                threshold: 0.6,
                budget: 4096,
            }
        }
    }

    #[test]
    fn round_trips_through_toml_and_json() {
        let dir = tempfile::tempdir().unwrap();
        let value = Outer {
            limit: Some(3),
            ..Outer::default()
        };
        for name in ["c.toml", "c.json"] {
            let path = dir.path().join(name);
            save(&path, &value).unwrap();
            assert_eq!(load::<Outer>(&path).unwrap(), value);
        }
        let toml = std::fs::read_to_string(dir.path().join("c.toml")).unwrap();
        assert!(toml.contains("threshold = 0.6\n"), "{toml}");
        let json = std::fs::read_to_string(dir.path().join("c.json")).unwrap();
        assert!(
            json.ends_with("}\n") && json.contains("\"limit\": 3"),
            "{json}"
        );
    }

    #[test]
    fn errors_name_the_file_the_line_and_the_key() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.toml");
        std::fs::write(&path, "seed = 1\n\n[inner]\nbudget = \"big\"\n").unwrap();
        let err = load::<Outer>(&path).unwrap_err().to_string();
        assert!(err.contains("c.toml:4: key `inner.budget`"), "{err}");
        assert!(err.contains("invalid type"), "{err}");

        std::fs::write(&path, "seed = 1\nsed = 2\n").unwrap();
        let err = load::<Outer>(&path).unwrap_err().to_string();
        assert!(err.contains("c.toml:2: unknown field `sed`"), "{err}");
        std::fs::write(&path, "[inner]\nbudget = 1\nbugdet = 2\n").unwrap();
        let err = load::<Outer>(&path).unwrap_err().to_string();
        assert!(
            err.contains("c.toml:3: key `inner`: unknown field `bugdet`"),
            "{err}"
        );

        let path = dir.path().join("c.json");
        std::fs::write(&path, "{\"seed\": 1,\n \"inner\": {\"threshold\": \"x\"}}").unwrap();
        let err = load::<Outer>(&path).unwrap_err().to_string();
        assert!(err.contains("c.json:2: key `inner.threshold`"), "{err}");
        assert!(!err.contains("column"), "{err}");
        std::fs::write(&path, "{\"seed\": 1} trailing").unwrap();
        assert!(load::<Outer>(&path).is_err());
    }

    #[test]
    fn missing_keys_take_their_defaults() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.toml");
        std::fs::write(&path, "[inner]\nbudget = 8\n").unwrap();
        let value: Outer = load(&path).unwrap();
        assert_eq!(
            (value.seed, value.inner.budget, value.inner.threshold),
            (0, 8, 0.6)
        );
    }
}
