//! Requests and responses, shaped like OpenAI's chat-completion API.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Message {
    pub role: Role,
    pub content: String,
}

impl Message {
    pub fn system(content: impl Into<String>) -> Self {
        Message {
            role: Role::System,
            content: content.into(),
        }
    }
    pub fn user(content: impl Into<String>) -> Self {
        Message {
            role: Role::User,
            content: content.into(),
        }
    }
    pub fn assistant(content: impl Into<String>) -> Self {
        Message {
            role: Role::Assistant,
            content: content.into(),
        }
    }
}

/// One chat-completion request. Every field is part of the cache key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatRequest {
    pub messages: Vec<Message>,
    /// Number of choices to sample.
    pub n: u32,
    pub temperature: f32,
    pub top_p: f32,
    pub max_tokens: u32,
    pub stop: Vec<String>,
    pub seed: u64,
    /// Return per-token log-probabilities of the sampled text.
    pub logprobs: bool,
}

impl ChatRequest {
    /// Greedy decoding of one choice, 256 tokens at most, seed 0.
    pub fn new(messages: Vec<Message>) -> Self {
        ChatRequest {
            messages,
            n: 1,
            temperature: 0.0,
            top_p: 1.0,
            max_tokens: 256,
            stop: Vec::new(),
            seed: 0,
            logprobs: false,
        }
    }
    pub fn n(mut self, n: u32) -> Self {
        self.n = n;
        self
    }
    pub fn temperature(mut self, temperature: f32) -> Self {
        self.temperature = temperature;
        self
    }
    pub fn top_p(mut self, top_p: f32) -> Self {
        self.top_p = top_p;
        self
    }
    pub fn max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = max_tokens;
        self
    }
    pub fn stop(mut self, stop: Vec<String>) -> Self {
        self.stop = stop;
        self
    }
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }
    pub fn logprobs(mut self, logprobs: bool) -> Self {
        self.logprobs = logprobs;
        self
    }

    /// The checks every real backend makes before it spends time on a request: at least one
    /// message and one choice, a finite temperature ≥ 0 and a top-p in (0, 1].
    /// The text of the last user message (empty when there is none): what a scripted model or a
    /// test keys its answer on.
    pub fn last_user_message(&self) -> &str {
        self.messages
            .iter()
            .rev()
            .find(|message| message.role == Role::User)
            .map_or("", |message| message.content.as_str())
    }

    pub fn validate(&self) -> crate::Result<()> {
        let invalid = |message: String| Err(crate::Error::InvalidRequest(message));
        if self.messages.is_empty() {
            return invalid("no messages".into());
        }
        if self.n == 0 {
            return invalid("n = 0 asks for no choice".into());
        }
        if !(self.temperature.is_finite() && self.temperature >= 0.0) {
            return invalid(format!(
                "temperature {} is not a finite number ≥ 0",
                self.temperature
            ));
        }
        if !(self.top_p.is_finite() && self.top_p > 0.0 && self.top_p <= 1.0) {
            return invalid(format!("top_p {} is not in (0, 1]", self.top_p));
        }
        Ok(())
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TokenLogprob {
    pub token: String,
    pub logprob: f32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Choice {
    pub text: String,
    /// Per-token log-probabilities when the request asked for them and the backend has them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logprobs: Option<Vec<TokenLogprob>>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatResponse {
    pub choices: Vec<Choice>,
    #[serde(default)]
    pub usage: Usage,
}

impl ChatResponse {
    pub fn texts(&self) -> impl Iterator<Item = &str> {
        self.choices.iter().map(|choice| choice.text.as_str())
    }
}

/// Which backend and model answered: `embedded` + file name, `http` + endpoint model name, ...
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ModelId {
    pub backend: String,
    pub model: String,
}

impl ModelId {
    pub fn new(backend: impl Into<String>, model: impl Into<String>) -> Self {
        ModelId {
            backend: backend.into(),
            model: model.into(),
        }
    }
}
