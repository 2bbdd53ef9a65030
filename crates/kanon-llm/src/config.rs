//! Which backend to open, as data: JSON in a config file, or two command-line options.
//!
//! ```
//! use kanon_llm::LlmConfig;
//!
//! let config: LlmConfig = serde_json::from_str(
//!     r#"{"backend": "http", "url": "http://localhost:8000", "model": "mistral-7b-instruct"}"#,
//! ).unwrap();
//! assert_eq!(config, LlmConfig::from_cli("http://localhost:8000", Some("mistral-7b-instruct")).unwrap());
//! ```

use std::path::{Path, PathBuf};
use std::time::Duration;

use kanon_core::config::ConfigFile;
use serde::{Deserialize, Serialize};

use crate::{ChatModel, Error, HttpModel, Result, ScriptedModel};

/// The model `--llm embedded` runs when no `--model` is given.
pub const DEFAULT_EMBEDDED_MODEL: &str = "smollm2-135m-instruct";

/// A backend and its settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "backend", rename_all = "lowercase", deny_unknown_fields)]
pub enum LlmConfig {
    /// A GGUF run in-process (needs kanon-llm's `embedded` feature).
    Embedded {
        /// A model name of kanon's model cache (`kanon models list`) or the path of a `.gguf` file.
        #[serde(default = "default_embedded_model")]
        model: String,
        /// Threads of one generation; all cores when absent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        threads: Option<usize>,
        /// The largest context; the model's own when absent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_context: Option<u32>,
        /// Keep a prompt's KV cells for the next request and read only what it does not share
        /// (answers are the same either way; `false` to measure what the reuse saves).
        #[serde(default = "reuse_by_default", skip_serializing_if = "is_true")]
        reuse_prompt_prefix: bool,
    },
    /// An OpenAI-compatible endpoint.
    Http {
        /// The server: a base URL (`http://localhost:8000`, with or without `/v1`) or the full
        /// `…/v1/chat/completions` endpoint.
        url: String,
        /// More servers of the same model (a vLLM / llama.cpp pool): each request goes to the
        /// least busy of `url` and these, at most `max_in_flight` open at each.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        servers: Vec<String>,
        /// The model name the server serves, sent with every request and part of the cache key.
        model: String,
        /// The environment variable that holds the API key, if the server wants one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        api_key_env: Option<String>,
        /// The limit on one whole request, connection to last byte, in seconds.
        #[serde(default = "default_timeout_seconds")]
        timeout_seconds: u64,
        /// Retries after the first attempt, with a doubling pause.
        #[serde(default = "default_retries")]
        retries: u32,
        /// Requests open at once at each server.
        #[serde(default = "default_max_in_flight")]
        max_in_flight: usize,
    },
    /// Canned answers, for tests and demonstrations: the first rule whose needle the last user
    /// message contains gives the reply.
    Scripted {
        /// The model name the answers are cached under.
        #[serde(default = "default_scripted_name")]
        name: String,
        /// `(needle, reply)` rules, the first match answering.
        #[serde(default)]
        replies: Vec<(String, String)>,
        /// The reply when no rule matches; without one, such a request is an error.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        fallback: Option<String>,
    },
}

impl ConfigFile for LlmConfig {}

fn default_embedded_model() -> String {
    DEFAULT_EMBEDDED_MODEL.to_owned()
}
fn default_timeout_seconds() -> u64 {
    120
}
fn default_retries() -> u32 {
    4
}
fn default_max_in_flight() -> usize {
    4
}
fn default_scripted_name() -> String {
    "scripted".to_owned()
}

impl LlmConfig {
    /// From `--llm` and `--model`: `embedded` (with a model name or a `.gguf` path, by default
    /// [`DEFAULT_EMBEDDED_MODEL`]) or an `http://` / `https://` URL (with the model name the
    /// server knows, which is then required); URLs separated by commas are a pool of servers of
    /// that model.
    pub fn from_cli(llm: &str, model: Option<&str>) -> Result<LlmConfig> {
        let llm = llm.trim();
        if llm == "embedded" {
            return Ok(LlmConfig::Embedded {
                model: model.map_or_else(default_embedded_model, str::to_owned),
                threads: None,
                max_context: None,
                reuse_prompt_prefix: true,
            });
        }
        if llm.starts_with("http://") || llm.starts_with("https://") {
            let model = model.ok_or_else(|| {
                Error::load(
                    llm,
                    "an HTTP endpoint needs --model, the name the server serves the model by",
                )
            })?;
            let mut urls = llm.split(',').map(str::trim).filter(|url| !url.is_empty());
            return Ok(LlmConfig::Http {
                url: urls.next().unwrap_or(llm).to_owned(),
                servers: urls.map(str::to_owned).collect(),
                model: model.to_owned(),
                api_key_env: None,
                timeout_seconds: default_timeout_seconds(),
                retries: default_retries(),
                max_in_flight: default_max_in_flight(),
            });
        }
        Err(Error::load(
            llm,
            "--llm takes `embedded`, the URL of an OpenAI-compatible server (http://… or \
             https://…), or an LLM config file (.toml or .json)",
        ))
    }

    /// From `--llm` and `--model` as [`LlmConfig::from_cli`] reads them, or from an LLM config
    /// file when `llm` names one (`.toml` or `.json`; `model` is then the file's).
    pub fn resolve(llm: &str, model: Option<&str>) -> Result<LlmConfig> {
        let path = Path::new(llm.trim());
        if path
            .extension()
            .is_some_and(|ext| ext == "toml" || ext == "json")
        {
            return Ok(LlmConfig::load(path)?);
        }
        LlmConfig::from_cli(llm, model)
    }

    /// Sets the threads of an embedded model (other backends have none to set).
    pub fn with_threads(mut self, wanted: usize) -> Self {
        if let LlmConfig::Embedded { threads, .. } = &mut self {
            *threads = Some(wanted);
        }
        self
    }
}

fn reuse_by_default() -> bool {
    true
}

fn is_true(value: &bool) -> bool {
    *value
}

impl Default for LlmConfig {
    /// The embedded default model.
    fn default() -> Self {
        LlmConfig::Embedded {
            model: default_embedded_model(),
            threads: None,
            max_context: None,
            reuse_prompt_prefix: true,
        }
    }
}

/// Opens the backend a config names. Nothing is contacted over the network here.
///
/// To keep answers on disk, wrap the result: `ResponseCache::Default.wrap(open(&config)?)`.
pub fn open(config: &LlmConfig) -> Result<Box<dyn ChatModel>> {
    match config {
        LlmConfig::Embedded {
            model,
            threads,
            max_context,
            reuse_prompt_prefix,
        } => open_embedded(model, *threads, *max_context, *reuse_prompt_prefix),
        LlmConfig::Http { .. } => Ok(Box::new(http_model(config)?)),
        LlmConfig::Scripted {
            name,
            replies,
            fallback,
        } => {
            let mut scripted = ScriptedModel::new(name.clone());
            for (needle, reply) in replies {
                scripted = scripted.reply(needle.clone(), reply.clone());
            }
            if let Some(fallback) = fallback {
                scripted = scripted.fallback(fallback.clone());
            }
            Ok(Box::new(scripted))
        }
    }
}

/// The GGUF file an embedded model name or path stands for: a path when it ends in `.gguf` or
/// names an existing file, else a model of kanon's cache (`$KANON_CACHE`), which must have been
/// fetched.
pub fn resolve_gguf(model: &str) -> Result<PathBuf> {
    let path = Path::new(model);
    if model.ends_with(".gguf") || path.is_file() {
        return Ok(path.to_owned());
    }
    let load_error = |message: String| Error::load(model, message);
    let spec = kanon_models::spec(model).map_err(|err| {
        Error::load_from(model, "neither a .gguf file nor a model kanon knows", err)
    })?;
    let file = spec
        .files
        .iter()
        .map(|(file, _)| *file)
        .find(|file| file.ends_with(".gguf"))
        .ok_or_else(|| load_error("this model has no GGUF file: it is not an LLM".into()))?;
    let cache = kanon_models::Cache::from_env();
    let dir = cache.find(spec).ok_or_else(|| {
        load_error(format!(
            "not in the model cache {}: run `kanon models fetch {model}` first",
            cache.root().display()
        ))
    })?;
    Ok(dir.join(file))
}

/// The HTTP model of an `http` config.
fn http_model(config: &LlmConfig) -> Result<HttpModel> {
    let LlmConfig::Http {
        url,
        servers,
        model,
        api_key_env,
        timeout_seconds,
        retries,
        max_in_flight,
    } = config
    else {
        unreachable!("called for http configs only");
    };
    let mut builder = HttpModel::builder(url, model)
        .servers(servers)
        .timeout(Duration::from_secs(*timeout_seconds))
        .retries(*retries)
        .max_in_flight(*max_in_flight);
    if let Some(name) = api_key_env {
        builder = builder.api_key_env(name);
    }
    builder.build()
}

/// Opens the model `config` names as a [`TextScorer`]: the embedded model, or an
/// OpenAI-compatible server's `/v1/completions` with `echo` and `logprobs` (vLLM's, OpenAI's
/// completion models; a server that does not return them fails on the first text). A scripted
/// model cannot score.
pub fn open_scorer(config: &LlmConfig) -> Result<Box<dyn crate::TextScorer>> {
    match config {
        LlmConfig::Embedded {
            model,
            threads,
            max_context,
            ..
        } => scoring_model(model, *threads, *max_context),
        LlmConfig::Http { .. } => Ok(Box::new(http_model(config)?)),
        LlmConfig::Scripted { name, .. } => Err(Error::load(
            name,
            "a scripted model writes canned answers; it cannot score texts",
        )),
    }
}

#[cfg(feature = "embedded")]
fn embedded_model(
    model: &str,
    threads: Option<usize>,
    max_context: Option<u32>,
    reuse_prompt_prefix: bool,
) -> Result<crate::EmbeddedModel> {
    let path = resolve_gguf(model)?;
    let options = crate::EmbeddedOptions {
        threads,
        max_context,
        reuse_prompt_prefix,
        ..crate::EmbeddedOptions::default()
    };
    crate::EmbeddedModel::open_with(path, options)
}

#[cfg(feature = "embedded")]
fn open_embedded(
    model: &str,
    threads: Option<usize>,
    max_context: Option<u32>,
    reuse_prompt_prefix: bool,
) -> Result<Box<dyn ChatModel>> {
    Ok(Box::new(embedded_model(
        model,
        threads,
        max_context,
        reuse_prompt_prefix,
    )?))
}

#[cfg(feature = "embedded")]
fn scoring_model(
    model: &str,
    threads: Option<usize>,
    max_context: Option<u32>,
) -> Result<Box<dyn crate::TextScorer>> {
    // Scoring reads whole texts in windows: nothing to reuse.
    Ok(Box::new(embedded_model(
        model,
        threads,
        max_context,
        false,
    )?))
}

#[cfg(not(feature = "embedded"))]
fn no_runtime(model: &str) -> Error {
    Error::load(
        model,
        "this build has no embedded LLM runtime: build kanon-llm with `--features embedded` \
         (the kanon binary has it by default; it needs cmake and libclang-dev)",
    )
}

#[cfg(not(feature = "embedded"))]
fn open_embedded(
    model: &str,
    _threads: Option<usize>,
    _max_context: Option<u32>,
    _reuse_prompt_prefix: bool,
) -> Result<Box<dyn ChatModel>> {
    Err(no_runtime(model))
}

#[cfg(not(feature = "embedded"))]
fn scoring_model(
    model: &str,
    _threads: Option<usize>,
    _max_context: Option<u32>,
) -> Result<Box<dyn crate::TextScorer>> {
    Err(no_runtime(model))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::{ChatRequest, Message};

    #[test]
    fn from_cli_picks_the_backend() {
        assert_eq!(
            LlmConfig::from_cli("embedded", None).unwrap(),
            LlmConfig::Embedded {
                model: DEFAULT_EMBEDDED_MODEL.into(),
                threads: None,
                max_context: None,
                reuse_prompt_prefix: true,
            }
        );
        assert!(matches!(
            LlmConfig::from_cli("https://api.example/v1", Some("m")).unwrap(),
            LlmConfig::Http { url, model, .. } if url == "https://api.example/v1" && model == "m"
        ));
        assert!(matches!(
            LlmConfig::from_cli("http://a:8000, http://b:8000,", Some("m")).unwrap(),
            LlmConfig::Http { url, servers, .. } if url == "http://a:8000" && servers == ["http://b:8000"]
        ));
        assert!(LlmConfig::from_cli("http://localhost:8000", None).is_err());
        let err = LlmConfig::from_cli("gpt-4", None).unwrap_err().to_string();
        assert!(err.contains("embedded") && err.contains("http"), "{err}");
    }

    #[test]
    fn json_round_trip_and_unknown_fields() {
        let config: LlmConfig =
            serde_json::from_str(r#"{"backend": "embedded", "threads": 2}"#).unwrap();
        assert_eq!(
            config,
            LlmConfig::Embedded {
                model: DEFAULT_EMBEDDED_MODEL.into(),
                threads: Some(2),
                max_context: None,
                reuse_prompt_prefix: true,
            }
        );
        let json = serde_json::to_string(&config).unwrap();
        assert_eq!(serde_json::from_str::<LlmConfig>(&json).unwrap(), config);
        assert!(
            serde_json::from_str::<LlmConfig>(r#"{"backend": "embedded", "thread": 2}"#).is_err()
        );
        assert!(serde_json::from_str::<LlmConfig>(r#"{"backend": "gpt"}"#).is_err());
    }

    #[test]
    fn scripted_config_opens() {
        let config: LlmConfig = serde_json::from_str(
            r#"{"backend": "scripted", "replies": [["Paris", "France"]], "fallback": "?"}"#,
        )
        .unwrap();
        let model = open(&config).unwrap();
        let ask = |q: &str| {
            model
                .chat(&ChatRequest::new(vec![Message::user(q)]))
                .unwrap()
                .choices[0]
                .text
                .clone()
        };
        assert_eq!(ask("Where is Paris?"), "France");
        assert_eq!(ask("Where is Oslo?"), "?");
    }

    #[test]
    fn http_config_opens_without_contacting_anything() {
        let config = LlmConfig::from_cli("http://127.0.0.1:9", Some("m")).unwrap();
        let model = open(&config).unwrap();
        assert_eq!(model.id().backend, "http");
        assert_eq!(format!("{model:?}"), "ChatModel(http m)");
    }

    #[test]
    fn unknown_or_uncached_embedded_models_are_load_errors() {
        let err = resolve_gguf("no-such-model").unwrap_err();
        assert!(matches!(err, Error::Load { .. }), "{err}");
        assert!(err.to_string().contains("no-such-model"));
        // A BERT model of the registry is not an LLM.
        let err = resolve_gguf("all-minilm-l6-v2").unwrap_err().to_string();
        assert!(err.contains("GGUF"), "{err}");
        assert_eq!(
            resolve_gguf("/some/where/m.gguf").unwrap(),
            PathBuf::from("/some/where/m.gguf")
        );
    }

    #[cfg(not(feature = "embedded"))]
    #[test]
    fn embedded_without_the_feature_says_how_to_get_it() {
        let config = LlmConfig::from_cli("embedded", Some("/x.gguf")).unwrap();
        let err = open(&config).unwrap_err().to_string();
        assert!(err.contains("--features embedded"), "{err}");
    }

    #[test]
    fn every_backend_round_trips_through_toml_and_json_files() {
        let dir = tempfile::tempdir().unwrap();
        let configs = [
            LlmConfig::default().with_threads(2),
            LlmConfig::Http {
                url: "http://localhost:8000/v1".into(),
                servers: vec!["http://gpu2:8000/v1".into(), "http://gpu3:8000/v1".into()],
                model: "mistral-7b-instruct".into(),
                api_key_env: Some("OPENAI_API_KEY".into()),
                timeout_seconds: 60,
                retries: 2,
                max_in_flight: 8,
            },
            LlmConfig::Scripted {
                name: "demo".into(),
                replies: vec![("Paris".into(), "1. France".into())],
                fallback: Some("?".into()),
            },
        ];
        for config in configs {
            for name in ["llm.toml", "llm.json"] {
                let path = dir.path().join(name);
                config.save(&path).unwrap();
                assert_eq!(LlmConfig::load(&path).unwrap(), config);
                let resolved = LlmConfig::resolve(path.to_str().unwrap(), Some("ignored"));
                assert_eq!(resolved.unwrap(), config);
            }
        }
        let path = dir.path().join("llm.toml");
        std::fs::write(&path, "backend = \"http\"\nurl = \"http://x\"\n").unwrap();
        let err = LlmConfig::load(&path).unwrap_err().to_string();
        assert!(
            err.contains("llm.toml") && err.contains("missing field `model`"),
            "{err}"
        );
        assert_eq!(
            LlmConfig::resolve("embedded", Some("m.gguf")).unwrap(),
            LlmConfig::from_cli("embedded", Some("m.gguf")).unwrap()
        );
    }
}
