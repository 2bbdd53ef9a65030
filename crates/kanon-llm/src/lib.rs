//! Chat-completion backends behind one small trait, [`ChatModel`].
//!
//! ```
//! use kanon_llm::{ChatModel, ChatRequest, Message, ScriptedModel};
//!
//! let model = ScriptedModel::new("canned").reply("Paris", "1. France\n2. Europe");
//! let request = ChatRequest::new(vec![Message::user("Where is Paris?")]);
//! let response = model.chat(&request).unwrap();
//! assert_eq!(response.choices[0].text, "1. France\n2. Europe");
//! ```

pub mod error;
pub mod scripted;
pub mod types;

pub use error::{Error, Result};
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
