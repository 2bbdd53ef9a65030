//! Requests and responses, shaped like OpenAI's chat-completion API.

use serde::{Deserialize, Serialize};

/// Who speaks a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Instructions that frame the conversation.
    System,
    /// The user's turn: what the model answers.
    User,
    /// The model's own earlier turn (in few-shot prompts).
    Assistant,
}

/// One turn of a conversation.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Message {
    /// Who speaks.
    pub role: Role,
    /// What is said, as plain text: never parsed for special tokens.
    pub content: String,
}

impl Message {
    /// A system message.
    pub fn system(content: impl Into<String>) -> Self {
        Message {
            role: Role::System,
            content: content.into(),
        }
    }
    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        Message {
            role: Role::User,
            content: content.into(),
        }
    }
    /// An assistant message.
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
    /// The conversation, ending with the turn to answer.
    pub messages: Vec<Message>,
    /// Number of choices to sample.
    pub n: u32,
    /// Sampling temperature, ≥ 0; 0 is greedy decoding.
    pub temperature: f32,
    /// Nucleus sampling: tokens are drawn from the smallest set whose probability reaches `top_p`, in
    /// (0, 1]; 1 keeps every token.
    pub top_p: f32,
    /// Tokens each choice may generate, at most.
    pub max_tokens: u32,
    /// Strings that end a choice where they first appear (cut off with what follows).
    pub stop: Vec<String>,
    /// The seed of the sampling: the same request gives the same answer.
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
    /// The request with `n` choices.
    pub fn n(mut self, n: u32) -> Self {
        self.n = n;
        self
    }
    /// The request at this sampling temperature.
    pub fn temperature(mut self, temperature: f32) -> Self {
        self.temperature = temperature;
        self
    }
    /// The request with this nucleus.
    pub fn top_p(mut self, top_p: f32) -> Self {
        self.top_p = top_p;
        self
    }
    /// The request with this token budget per choice.
    pub fn max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = max_tokens;
        self
    }
    /// The request with these stop strings.
    pub fn stop(mut self, stop: Vec<String>) -> Self {
        self.stop = stop;
        self
    }
    /// The request with this seed.
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }
    /// The request asking (or not) for per-token log-probabilities.
    pub fn logprobs(mut self, logprobs: bool) -> Self {
        self.logprobs = logprobs;
        self
    }

    /// The text of the last user message (empty when there is none): what a scripted model or a
    /// test keys its answer on.
    pub fn last_user_message(&self) -> &str {
        self.messages
            .iter()
            .rev()
            .find(|message| message.role == Role::User)
            .map_or("", |message| message.content.as_str())
    }

    /// The checks every real backend makes before it spends time on a request: at least one
    /// message and one choice, a finite temperature ≥ 0 and a top-p in (0, 1].
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

/// A generated token and the model's log-probability of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TokenLogprob {
    /// The token's text (lossy UTF-8 where a token ends inside a character).
    pub token: String,
    /// The natural log of the token's probability, at temperature 1 and without a nucleus.
    pub logprob: f32,
}

/// One sampled answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Choice {
    /// The answer's text, a stop string and what follows it cut off.
    pub text: String,
    /// Per-token log-probabilities when the request asked for them and the backend has them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logprobs: Option<Vec<TokenLogprob>>,
}

/// Tokens a request used, as the backend counts them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Tokens of the prompt.
    pub prompt_tokens: u64,
    /// Tokens generated over all choices.
    pub completion_tokens: u64,
}

/// A model's answer to a [`ChatRequest`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatResponse {
    /// The choices, in order (as many as asked for, unless a server gave fewer).
    pub choices: Vec<Choice>,
    /// Tokens used (zero when the backend does not say).
    #[serde(default)]
    pub usage: Usage,
}

impl ChatResponse {
    /// The choices' texts, in order.
    pub fn texts(&self) -> impl Iterator<Item = &str> {
        self.choices.iter().map(|choice| choice.text.as_str())
    }
}

/// Which backend and model answered: `embedded` + file name, `http` + endpoint model name, ...
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ModelId {
    /// The backend: `embedded`, `http`, `scripted`.
    pub backend: String,
    /// The model as the backend names it: a GGUF file name, an endpoint's model name.
    pub model: String,
}

impl ModelId {
    /// The id of `model` run by `backend`.
    pub fn new(backend: impl Into<String>, model: impl Into<String>) -> Self {
        ModelId {
            backend: backend.into(),
            model: model.into(),
        }
    }
}
