//! Chat-completion backends behind one small trait, [`ChatModel`]:
//!
//! - [`EmbeddedModel`] (feature `embedded`): a GGUF model run in-process on the CPU by llama.cpp;
//! - [`HttpModel`]: any OpenAI-compatible `/v1/chat/completions` server (vLLM, llama.cpp, Ollama);
//! - [`CachedModel`]: every answer of another model kept on disk, so reruns are free and identical;
//! - [`ScriptedModel`]: canned answers for tests.
//!
//! The embedded model also scores given texts ([`TextScorer`]: each token's log-probability), which
//! information-content measures use.
//!
//! [`LlmConfig`] names one of them as data (`{"backend": "http", …}`) and [`open`] opens it.
//!
//! ```
//! use kanon_llm::{CachedModel, ChatModel, ChatRequest, Message, ScriptedModel};
//!
//! let model = ScriptedModel::new("canned").reply("Paris", "1. France\n2. Europe");
//! let dir = tempfile::tempdir().unwrap();
//! let cached = CachedModel::new(model, dir.path()).unwrap();
//! let request = ChatRequest::new(vec![Message::user("Where is Paris?")]);
//! let response = cached.chat(&request).unwrap();
//! assert_eq!(response.choices[0].text, "1. France\n2. Europe");
//! assert_eq!(cached.chat(&request).unwrap(), response); // from disk this time
//! assert_eq!(cached.inner().calls(), 1);
//! assert_eq!((cached.stats().hits, cached.stats().misses), (1, 1));
//! ```

#![warn(missing_docs)]

pub mod cache;
pub mod config;
#[cfg(feature = "embedded")]
pub mod embedded;
/// [`Error`], the one error of the crate.
pub mod error;
pub mod http;
mod limit;
pub mod score;
pub mod scripted;
pub mod types;

pub use cache::{CacheStats, CachedModel, ResponseCache, default_cache_dir};
pub use config::{LlmConfig, open, open_scorer};
#[cfg(feature = "embedded")]
pub use embedded::{EmbeddedModel, EmbeddedOptions, Timings};
pub use error::{Error, Result};
pub use http::{HttpModel, HttpModelBuilder};
pub use score::{ScoredToken, TextScorer};
pub use scripted::ScriptedModel;
pub use types::{ChatRequest, ChatResponse, Choice, Message, ModelId, Role, TokenLogprob, Usage};

/// A chat-completion model. Implementations must be deterministic for a given request when
/// `request.seed` is set (the cache relies on it) and thread-safe (callers fan out with rayon).
pub trait ChatModel: Send + Sync {
    /// Which backend and model answer: part of every cache key.
    fn id(&self) -> ModelId;

    /// Answers `request` with `request.n` choices.
    fn chat(&self, request: &ChatRequest) -> Result<ChatResponse>;
}

/// So that structs holding a `Box<dyn ChatModel>` can derive `Debug`.
impl std::fmt::Debug for dyn ChatModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let id = self.id();
        write!(f, "ChatModel({} {})", id.backend, id.model)
    }
}

impl<M: ChatModel + ?Sized> ChatModel for Box<M> {
    fn id(&self) -> ModelId {
        (**self).id()
    }
    fn chat(&self, request: &ChatRequest) -> Result<ChatResponse> {
        (**self).chat(request)
    }
}

impl<M: ChatModel + ?Sized> ChatModel for std::sync::Arc<M> {
    fn id(&self) -> ModelId {
        (**self).id()
    }
    fn chat(&self, request: &ChatRequest) -> Result<ChatResponse> {
        (**self).chat(request)
    }
}
