//! The service's settings: `[serve]` (address, limits, batching) and, from the same file, the
//! run-config sections the service reads — `[detect]` (the tagger and how it decides),
//! `[sanitize]` (the strategy, its language models and the KG index) and `[certify]` (the
//! release gate) — as `kanon run` reads them, so one file configures a run and its service.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use kanon_core::config::ConfigFile;
use kanon_detect::job::Method;
use kanon_eval::privacy::NeuralAttackerJob;
use kanon_gate::GateConfig;
use kanon_pipeline::RunConfig;
use kanon_sanitize::SanitizeSettings;
use kanon_tagger::DetectConfig;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// How much the service logs on standard error. Never a document's text above `debug`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogLevel {
    /// Nothing but the start and stop lines.
    Off,
    /// A line per request: method, path, status, documents, milliseconds.
    #[default]
    Info,
    /// Also the message of each refused request, which may quote the request's text.
    Debug,
}

kanon_core::named_choices!(
    LogLevel,
    "log level",
    [Off = "off", Info = "info", Debug = "debug"]
);

/// `[serve]`: where the service listens and what it accepts. Every key has a default.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ServeSettings {
    /// `HOST:PORT` to listen on (port 0: any free port).
    pub address: String,
    /// Largest request body, in bytes; larger ones get 413.
    pub max_body_bytes: usize,
    /// Most documents in one `/v1/detect` or `/v1/sanitize` request; more get 413.
    pub max_documents: usize,
    /// Requests being answered at once; past it, 429 with `Retry-After`.
    pub max_in_flight: usize,
    /// Seconds a request may take before it is answered 503 (its work is dropped where it can
    /// be: a document still waiting for the detector is not detected).
    pub timeout_seconds: f64,
    /// What a 429's `Retry-After` says, in seconds.
    pub retry_after_seconds: u64,
    /// Milliseconds the batcher waits for more requests after the first one before running the
    /// tagger, unless `batch_tokens` fill first (0: only what is already waiting).
    pub batch_wait_ms: u64,
    /// Estimated word pieces that end a batch's collection (the tagger then cuts the batch into
    /// forward passes of `[detect.method] token_budget`).
    pub batch_tokens: usize,
    /// Worker threads of the HTTP runtime (the tagger and the sanitizer run on their own).
    pub http_threads: usize,
    /// What is logged on standard error.
    pub log: LogLevel,
}

impl Default for ServeSettings {
    fn default() -> Self {
        ServeSettings {
            address: "127.0.0.1:3000".into(),
            max_body_bytes: 2 << 20,
            max_documents: 256,
            max_in_flight: 64,
            timeout_seconds: 120.0,
            retry_after_seconds: 1,
            batch_wait_ms: 2,
            batch_tokens: 16_384,
            http_threads: 2,
            log: LogLevel::Info,
        }
    }
}

impl ServeSettings {
    /// Checks the values: limits of at least 1, a positive timeout, an address that parses.
    pub fn validate(&self) -> std::result::Result<(), String> {
        if self.address.parse::<SocketAddr>().is_err() {
            return Err(format!(
                "address {:?} is not HOST:PORT (an IP address and a port, e.g. 127.0.0.1:3000)",
                self.address
            ));
        }
        for (key, value) in [
            ("max_body_bytes", self.max_body_bytes),
            ("max_documents", self.max_documents),
            ("max_in_flight", self.max_in_flight),
            ("batch_tokens", self.batch_tokens),
            ("http_threads", self.http_threads),
        ] {
            if value == 0 {
                return Err(format!("{key} must be at least 1"));
            }
        }
        if !(self.timeout_seconds.is_finite() && self.timeout_seconds > 0.0) {
            return Err(format!(
                "timeout_seconds {} is not a positive number of seconds",
                self.timeout_seconds
            ));
        }
        Ok(())
    }

    /// The request timeout.
    pub fn timeout(&self) -> Duration {
        Duration::from_secs_f64(self.timeout_seconds)
    }
}

/// The release gate as the service runs it: `[certify]`'s knobs and what its attackers know.
#[derive(Debug, Clone, PartialEq)]
pub struct GateSettings {
    /// Attackers, k, caps (`[certify.config]`).
    pub config: GateConfig,
    /// The KG's index for the KG attacker (the sanitizer's `index`).
    pub index: Option<PathBuf>,
    /// Public texts `[{"name","public_knowledge"}]` for BM25 and the neural attacker; a
    /// request names each document's person (`person`) in it.
    pub background: Option<PathBuf>,
    /// The neural attacker's checkpoint (trained on the background when absent).
    pub neural: Option<NeuralAttackerJob>,
}

/// Everything the service needs, resolved: from a config file ([`ServiceConfig::load`]), from
/// a command line, or built by hand.
#[derive(Debug, Clone, PartialEq)]
pub struct ServiceConfig {
    /// `[serve]`.
    pub serve: ServeSettings,
    /// The tagger's checkpoint directory.
    pub model: Option<PathBuf>,
    /// How the tagger decides (`[detect.method]`'s keys).
    pub detect: DetectConfig,
    /// The sanitizer's settings (`[sanitize]`): strategy, models, cache, index.
    pub sanitize: SanitizeSettings,
    /// The release gate, when `[certify]` is there.
    pub gate: Option<GateSettings>,
}

impl Default for ServiceConfig {
    /// No model, the tagger's default decisions, the sanitizer's defaults with
    /// `numbered-label` (no language model to open), no gate.
    fn default() -> Self {
        let mut sanitize = SanitizeSettings::default();
        sanitize.sanitizer.strategy = kanon_sanitize::Strategy::NumberedLabel;
        ServiceConfig {
            serve: ServeSettings::default(),
            model: None,
            detect: DetectConfig::default(),
            sanitize,
            gate: None,
        }
    }
}

/// A service config file: `[serve]` beside a run config's sections.
#[derive(Debug, Deserialize)]
struct ServeFile {
    #[serde(default)]
    serve: ServeSettings,
    #[serde(flatten)]
    run: RunConfig,
}

impl ServiceConfig {
    /// Reads a config file (TOML or JSON): `[serve]` and the sections of a run config that the
    /// service reads (`[detect]`, `[sanitize]`, `[certify]`; the others are checked and
    /// ignored). Relative paths are relative to the file. A run config with a `[train]`
    /// section and no `model` serves what `kanon run` trained: `runs/<name>/train/model`.
    pub fn load(path: &Path) -> Result<ServiceConfig> {
        let file: ServeFile = kanon_core::config::load(path)?;
        let ServeFile { serve, mut run } = file;
        serve
            .validate()
            .map_err(|problem| kanon_core::Error::format(path, format!("serve: {problem}")))?;
        run.resolve_paths(path.parent().unwrap_or(Path::new("")));
        let mut config = ServiceConfig {
            serve,
            ..ServiceConfig::default()
        };
        if let Some(detect) = &run.detect {
            match &detect.method {
                Method::Tagger {
                    model,
                    config: tagger,
                } => {
                    config.model = model.clone();
                    config.detect = *tagger;
                }
                other => return Err(Error::UnsupportedDetector(other.name().into())),
            }
            config.detect.validate().map_err(|problem| {
                kanon_core::Error::format(path, format!("detect.method: {problem}"))
            })?;
        }
        // What `kanon run` made, where the config names no file in its place.
        let name = run
            .name
            .clone()
            .or_else(|| path.file_stem().map(|s| s.to_string_lossy().into_owned()))
            .unwrap_or_else(|| "run".into());
        let made = |stage: kanon_pipeline::Stage, file: &str| {
            kanon_pipeline::RunPaths::new(Path::new("runs").join(&name))
                .stage_dir(stage)
                .join(file)
        };
        if config.model.is_none() && run.train.is_some() {
            config.model = Some(made(kanon_pipeline::Stage::Train, "model"));
        }
        if let Some(sanitize) = &run.sanitize {
            config.sanitize = sanitize.settings.clone();
            config.sanitize.sanitizer.check().map_err(|problem| {
                kanon_core::Error::format(path, format!("sanitize.config.{problem}"))
            })?;
        }
        if let Some(certify) = &run.certify {
            certify.config.validate().map_err(|problem| {
                kanon_core::Error::format(path, format!("certify.config.{problem}"))
            })?;
            let index = config.sanitize.index.clone().or_else(|| {
                run.index
                    .as_ref()
                    .map(|_| made(kanon_pipeline::Stage::Index, "index"))
            });
            config.gate = Some(GateSettings {
                config: certify.config.clone(),
                index,
                background: certify.background.clone(),
                neural: certify.neural.clone(),
            });
        }
        Ok(config)
    }

    /// Checks what the types allow but the service does not.
    pub fn validate(&self) -> Result<()> {
        self.serve.validate().map_err(Error::Setting)?;
        self.detect.validate().map_err(Error::Setting)?;
        self.sanitize.sanitizer.validate()?;
        if let Some(gate) = &self.gate {
            gate.config.validate().map_err(Error::Setting)?;
        }
        Ok(())
    }
}
