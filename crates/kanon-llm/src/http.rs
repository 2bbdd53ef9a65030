//! Any OpenAI-compatible `/v1/chat/completions` endpoint: vLLM, llama.cpp's server, Ollama, a hosted
//! API. Nothing is contacted until [`ChatModel::chat`] is called, and only at the configured URL.
//!
//! ```no_run
//! use std::time::Duration;
//! use kanon_llm::{ChatModel, ChatRequest, HttpModel, Message};
//!
//! let model = HttpModel::builder("http://localhost:8000", "mistralai/Mistral-7B-Instruct-v0.2")
//!     .api_key_env("OPENAI_API_KEY")
//!     .timeout(Duration::from_secs(60))
//!     .max_in_flight(8)
//!     .build()?;
//! let answer = model.chat(&ChatRequest::new(vec![Message::user("Say hi")]))?;
//! # Ok::<(), kanon_llm::Error>(())
//! ```
//!
//! Failures to connect, 429 and 5xx answers are retried with exponential back-off (a `Retry-After`
//! header in seconds is honoured); other statuses and bodies that do not parse fail at once with
//! [`Error::Backend`]. The reply is untrusted text: every field is checked, none is assumed.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde_json::{Value, json};

use crate::limit::Semaphore;
use crate::{
    ChatModel, ChatRequest, ChatResponse, Choice, Error, ModelId, Result, TokenLogprob, Usage,
};

/// The longest pause between two attempts, whatever the back-off or the server ask for.
const MAX_PAUSE: Duration = Duration::from_secs(60);
/// How much of an error body is quoted in an error message.
const QUOTE_CHARS: usize = 300;

/// A client of one model at one OpenAI-compatible endpoint. Thread-safe; at most
/// `max_in_flight` requests are open at once, the rest wait.
pub struct HttpModel {
    endpoint: String,
    model: String,
    api_key: Option<String>,
    agent: ureq::Agent,
    retries: u32,
    backoff: Duration,
    in_flight: Semaphore,
    requests: AtomicU64,
}

impl std::fmt::Debug for HttpModel {
    // By hand, so that the API key never reaches a log.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpModel")
            .field("endpoint", &self.endpoint)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "<set>"))
            .field("retries", &self.retries)
            .field("backoff", &self.backoff)
            .finish_non_exhaustive()
    }
}

/// Settings of an [`HttpModel`]; see [`HttpModel::builder`].
#[derive(Debug, Clone)]
pub struct HttpModelBuilder {
    url: String,
    model: String,
    api_key_env: Option<String>,
    timeout: Duration,
    retries: u32,
    backoff: Duration,
    max_in_flight: usize,
}

impl HttpModel {
    /// `url` is the server (`http://host:8000`), its `/v1`, or the full
    /// `/v1/chat/completions` address; `model` is the name the server knows the model by.
    /// Defaults: no API key, 120 s per request, 4 retries starting at 0.5 s, 4 requests in flight.
    pub fn builder(url: impl Into<String>, model: impl Into<String>) -> HttpModelBuilder {
        HttpModelBuilder {
            url: url.into(),
            model: model.into(),
            api_key_env: None,
            timeout: Duration::from_secs(120),
            retries: 4,
            backoff: Duration::from_millis(500),
            max_in_flight: 4,
        }
    }

    /// The address requests go to.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// HTTP requests sent so far, retries included.
    pub fn requests(&self) -> u64 {
        self.requests.load(Ordering::Relaxed)
    }

    fn backend_error(&self, failure: Failure) -> Error {
        let backend = format!("http {}", self.endpoint);
        match failure.source {
            Some(source) => Error::backend_from(backend, failure.message, source),
            None => Error::backend(backend, failure.message),
        }
    }

    /// One request with its retries; the choices the server gave (maybe fewer than asked).
    fn complete(&self, request: &ChatRequest, n: u32, seed: u64) -> Result<ChatResponse> {
        let mut body = json!({
            "model": self.model,
            "messages": request.messages,
            "n": n,
            "temperature": request.temperature,
            "top_p": request.top_p,
            "max_tokens": request.max_tokens,
            "seed": seed,
        });
        // Only sent when set: some servers reject an empty `stop` or any `logprobs` field.
        if !request.stop.is_empty() {
            body["stop"] = json!(request.stop);
        }
        if request.logprobs {
            body["logprobs"] = json!(true);
        }
        let body = body.to_string();
        let mut attempt = 0;
        loop {
            let (failure, after) = match self.send(&body) {
                Ok(Outcome::Body(text)) => {
                    return parse_response(&text)
                        .map_err(|message| self.backend_error(Failure::said(message)));
                }
                Ok(Outcome::Fatal(failure)) => return Err(self.backend_error(failure)),
                Ok(Outcome::Retry { failure, after }) => (failure, after),
                Err(failure) => (failure, None),
            };
            if attempt >= self.retries {
                return Err(self.backend_error(Failure {
                    message: format!(
                        "gave up after {} attempt(s): {}",
                        attempt + 1,
                        failure.message
                    ),
                    source: failure.source,
                }));
            }
            let backoff = self
                .backoff
                .saturating_mul(1u32.checked_shl(attempt).unwrap_or(u32::MAX));
            std::thread::sleep(after.unwrap_or(backoff).min(MAX_PAUSE));
            attempt += 1;
        }
    }

    /// Sends once. `Err` is a transport failure worth retrying.
    fn send(&self, body: &str) -> std::result::Result<Outcome, Failure> {
        self.requests.fetch_add(1, Ordering::Relaxed);
        let mut call = self
            .agent
            .post(&self.endpoint)
            .header("content-type", "application/json");
        if let Some(key) = &self.api_key {
            call = call.header("authorization", format!("Bearer {key}"));
        }
        let mut response = match call.send(body) {
            Ok(response) => response,
            Err(
                err @ (ureq::Error::ConnectionFailed
                | ureq::Error::Io(_)
                | ureq::Error::Timeout(ureq::Timeout::Connect | ureq::Timeout::Resolve)),
            ) => return Err(Failure::caused("cannot reach the server", err)),
            Err(err @ ureq::Error::Timeout(_)) => {
                return Ok(Outcome::Fatal(Failure::caused(
                    "the request timed out",
                    err,
                )));
            }
            Err(err) => return Ok(Outcome::Fatal(Failure::caused("request failed", err))),
        };
        let status = response.status().as_u16();
        let retry_after = response
            .headers()
            .get("retry-after")
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.trim().parse::<u64>().ok())
            .map(Duration::from_secs);
        let text = match response.body_mut().read_to_string() {
            Ok(text) => text,
            Err(err @ ureq::Error::Io(_)) => {
                return Err(Failure::caused("reading the answer", err));
            }
            Err(err) => return Ok(Outcome::Fatal(Failure::caused("reading the answer", err))),
        };
        Ok(match status {
            200..=299 => Outcome::Body(text),
            429 | 500..=599 => Outcome::Retry {
                failure: Failure::said(format!("HTTP {status}: {}", quote(&text))),
                after: retry_after,
            },
            _ => Outcome::Fatal(Failure::said(format!("HTTP {status}: {}", quote(&text)))),
        })
    }
}

/// Why a request failed: kanon's words, and the HTTP client's error when it had one.
struct Failure {
    message: String,
    source: Option<ureq::Error>,
}

impl Failure {
    fn said(message: impl Into<String>) -> Self {
        Failure {
            message: message.into(),
            source: None,
        }
    }

    fn caused(message: &str, source: ureq::Error) -> Self {
        Failure {
            message: message.to_owned(),
            source: Some(source),
        }
    }
}

enum Outcome {
    Body(String),
    Retry {
        failure: Failure,
        after: Option<Duration>,
    },
    Fatal(Failure),
}

impl HttpModelBuilder {
    /// Reads the API key (sent as `Authorization: Bearer …`) from this environment variable when
    /// the model is built; an unset variable is an error, not a silent anonymous request.
    pub fn api_key_env(mut self, name: impl Into<String>) -> Self {
        self.api_key_env = Some(name.into());
        self
    }

    /// The limit on one whole request, connection to last byte.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Retries after the first attempt.
    pub fn retries(mut self, retries: u32) -> Self {
        self.retries = retries;
        self
    }

    /// The first pause; each retry doubles it.
    pub fn backoff(mut self, backoff: Duration) -> Self {
        self.backoff = backoff;
        self
    }

    /// Requests open at once across all threads (at least 1).
    pub fn max_in_flight(mut self, max_in_flight: usize) -> Self {
        self.max_in_flight = max_in_flight;
        self
    }

    pub fn build(self) -> Result<HttpModel> {
        let load_error =
            |message: String| Error::load(format!("{} at {}", self.model, self.url), message);
        let trimmed = self.url.trim().trim_end_matches('/');
        if !(trimmed.starts_with("http://") || trimmed.starts_with("https://")) {
            return Err(load_error(
                "the URL must start with http:// or https://".into(),
            ));
        }
        let endpoint = if trimmed.ends_with("/chat/completions") {
            trimmed.to_owned()
        } else if trimmed.ends_with("/v1") {
            format!("{trimmed}/chat/completions")
        } else {
            format!("{trimmed}/v1/chat/completions")
        };
        let api_key = match &self.api_key_env {
            None => None,
            Some(name) => Some(std::env::var(name).map_err(|_| {
                load_error(format!(
                    "the API key's environment variable {name} is not set"
                ))
            })?),
        };
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(self.timeout))
            // Statuses are classified here (retry or fail), not turned into errors by ureq.
            .http_status_as_error(false)
            .build()
            .into();
        Ok(HttpModel {
            endpoint,
            model: self.model,
            api_key,
            agent,
            retries: self.retries,
            backoff: self.backoff,
            in_flight: Semaphore::new(self.max_in_flight),
            requests: AtomicU64::new(0),
        })
    }
}

impl ChatModel for HttpModel {
    /// The model name only, not the URL: the same model behind another address answers the
    /// same, so a cache survives moving the server.
    fn id(&self) -> ModelId {
        ModelId::new("http", self.model.clone())
    }

    /// Servers that ignore `n` (llama.cpp's, Ollama's) return one choice: the missing ones are
    /// asked for again with the seed advanced by one per round, so `n` choices always come back
    /// and a rerun asks exactly the same requests.
    fn chat(&self, request: &ChatRequest) -> Result<ChatResponse> {
        request.validate()?;
        let _permit = self.in_flight.acquire();
        let mut response = ChatResponse {
            choices: Vec::with_capacity(request.n as usize),
            usage: Usage::default(),
        };
        let mut round = 0u64;
        while response.choices.len() < request.n as usize {
            let missing = request.n - response.choices.len() as u32;
            let part = self.complete(request, missing, request.seed.wrapping_add(round))?;
            if part.choices.is_empty() {
                return Err(self.backend_error(Failure::said("the answer has no choices")));
            }
            response.usage.prompt_tokens += part.usage.prompt_tokens;
            response.usage.completion_tokens += part.usage.completion_tokens;
            response.choices.extend(part.choices);
            round += 1;
        }
        response.choices.truncate(request.n as usize);
        Ok(response)
    }
}

/// The first characters of an answer, for error messages.
fn quote(text: &str) -> String {
    let mut quoted: String = text.chars().take(QUOTE_CHARS).collect();
    if quoted.len() < text.len() {
        quoted.push('…');
    }
    format!("{quoted:?}")
}

/// Parses an OpenAI chat-completion body; the error says which field is wrong.
fn parse_response(text: &str) -> std::result::Result<ChatResponse, String> {
    let body: Value = serde_json::from_str(text)
        .map_err(|err| format!("the answer is not JSON ({err}): {}", quote(text)))?;
    if let Some(error) = body.get("error") {
        let message = error
            .get("message")
            .and_then(Value::as_str)
            .map_or_else(|| error.to_string(), str::to_owned);
        return Err(format!("the server answered an error: {message}"));
    }
    let choices = body
        .get("choices")
        .and_then(Value::as_array)
        .ok_or_else(|| format!("the answer has no `choices` array: {}", quote(text)))?;
    let mut parsed = Vec::with_capacity(choices.len());
    for (position, choice) in choices.iter().enumerate() {
        let index = choice
            .get("index")
            .and_then(Value::as_u64)
            .unwrap_or(position as u64);
        parsed.push((
            index,
            parse_choice(choice).map_err(|e| format!("choice {position}: {e}"))?,
        ));
    }
    // Servers may stream choices out of order; `index` is the order asked for.
    parsed.sort_by_key(|(index, _)| *index);
    let usage = body.get("usage");
    let count = |field: &str| {
        usage
            .and_then(|u| u.get(field))
            .and_then(Value::as_u64)
            .unwrap_or(0)
    };
    Ok(ChatResponse {
        choices: parsed.into_iter().map(|(_, choice)| choice).collect(),
        usage: Usage {
            prompt_tokens: count("prompt_tokens"),
            completion_tokens: count("completion_tokens"),
        },
    })
}

fn parse_choice(choice: &Value) -> std::result::Result<Choice, String> {
    let text = match choice.get("message").and_then(|m| m.get("content")) {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Null) | None => return Err("no `message.content` text".into()),
        Some(other) => return Err(format!("`message.content` is not text: {other}")),
    };
    let logprobs = match choice.get("logprobs") {
        None | Some(Value::Null) => None,
        Some(logprobs) => {
            let tokens = logprobs
                .get("content")
                .and_then(Value::as_array)
                .ok_or("`logprobs` has no `content` array")?;
            let tokens = tokens
                .iter()
                .enumerate()
                .map(|(i, token)| {
                    let text = token.get("token").and_then(Value::as_str);
                    let logprob = token.get("logprob").and_then(Value::as_f64);
                    match (text, logprob) {
                        (Some(text), Some(logprob)) => Ok(TokenLogprob {
                            token: text.to_owned(),
                            logprob: logprob as f32,
                        }),
                        _ => Err(format!(
                            "`logprobs.content[{i}]` lacks a `token` string or a `logprob` number"
                        )),
                    }
                })
                .collect::<std::result::Result<Vec<_>, _>>()?;
            Some(tokens)
        }
    };
    Ok(Choice { text, logprobs })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn endpoint_from_any_url_form() {
        for url in [
            "http://h:1",
            "http://h:1/",
            "http://h:1/v1",
            "http://h:1/v1/chat/completions",
        ] {
            let model = HttpModel::builder(url, "m").build().unwrap();
            assert_eq!(model.endpoint(), "http://h:1/v1/chat/completions", "{url}");
        }
        assert!(matches!(
            HttpModel::builder("ftp://h", "m").build(),
            Err(Error::Load { .. })
        ));
    }

    #[test]
    fn missing_api_key_variable_is_an_error() {
        let err = HttpModel::builder("http://h:1", "m")
            .api_key_env("KANON_TEST_SURELY_UNSET_VARIABLE")
            .build()
            .unwrap_err();
        assert!(err.to_string().contains("KANON_TEST_SURELY_UNSET_VARIABLE"));
    }

    #[test]
    fn debug_hides_the_key() {
        let mut model = HttpModel::builder("http://h:1", "m").build().unwrap();
        model.api_key = Some("sk-secret".into());
        assert!(!format!("{model:?}").contains("sk-secret"));
    }

    #[test]
    fn odd_bodies_are_errors_not_panics() {
        for body in [
            "",
            "null",
            "[]",
            "{}",
            r#"{"choices": 3}"#,
            r#"{"choices": [{}]}"#,
            r#"{"choices": [{"message": {"content": null}}]}"#,
            r#"{"choices": [{"message": {"content": 7}}]}"#,
            r#"{"choices": [{"message": {"content": "x"}, "logprobs": {"content": [{"token": 1}]}}]}"#,
            r#"{"choices": [{"message": {"content": "x"}, "logprobs": 5}]}"#,
            r#"{"error": {"message": "model not found"}}"#,
        ] {
            assert!(parse_response(body).is_err(), "{body}");
        }
    }

    #[test]
    fn choices_in_index_order_with_logprobs() {
        let body = r#"{"choices": [
            {"index": 1, "message": {"role": "assistant", "content": "b"}},
            {"index": 0, "message": {"role": "assistant", "content": "a"},
             "logprobs": {"content": [{"token": "a", "logprob": -0.5, "bytes": [97]}]}}],
            "usage": {"prompt_tokens": 3, "completion_tokens": 2}}"#;
        let response = parse_response(body).unwrap();
        assert_eq!(response.texts().collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(
            response.choices[0].logprobs,
            Some(vec![TokenLogprob {
                token: "a".into(),
                logprob: -0.5
            }])
        );
        assert_eq!(response.choices[1].logprobs, None);
        assert_eq!(response.usage.prompt_tokens, 3);
    }
}
