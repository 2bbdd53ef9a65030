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
//!
//! A pool of servers of the same model (several vLLM or llama.cpp servers, [`HttpModelBuilder::servers`])
//! is one model: each attempt goes to the server with the most free slots, at most
//! `max_in_flight` requests open at each; a server that failed is left alone for a second
//! (doubling with each further failure, up to a minute), so a retry moves on to another. Answers do not depend on which server gave them (the same model, request and
//! seed), so the response cache is shared across the pool.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, PoisonError};
use std::time::Duration;

use serde_json::{Value, json};

use crate::limit::{Permit, Semaphore};
use crate::{
    ChatModel, ChatRequest, ChatResponse, Choice, Error, ModelId, Result, TokenLogprob, Usage,
};

/// The longest pause between two attempts, whatever the back-off or the server ask for.
const MAX_PAUSE: Duration = Duration::from_secs(60);
/// How much of an error body is quoted in an error message.
const QUOTE_CHARS: usize = 300;

/// A client of one model at one OpenAI-compatible endpoint, or at a pool of them. Thread-safe;
/// at most `max_in_flight` requests are open at once at each server, the rest wait.
pub struct HttpModel {
    servers: Vec<Server>,
    model: String,
    api_key: Option<String>,
    agent: ureq::Agent,
    retries: u32,
    backoff: Duration,
    requests: AtomicU64,
    built: std::time::Instant,
    released: Releases,
}

/// Counts the slots freed at any server of the pool, so that a request waiting for a slot wakes
/// at the first one, wherever it is.
#[derive(Debug, Default)]
struct Releases {
    generation: Mutex<u64>,
    changed: Condvar,
}

impl Releases {
    fn generation(&self) -> u64 {
        *self
            .generation
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn notify(&self) {
        *self
            .generation
            .lock()
            .unwrap_or_else(PoisonError::into_inner) += 1;
        self.changed.notify_all();
    }

    /// Waits until a slot is freed after `seen` was read, or `timeout` passes.
    fn wait_past(&self, seen: u64, timeout: Duration) {
        let guard = self
            .generation
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let _ = self
            .changed
            .wait_timeout_while(guard, timeout, |generation| *generation == seen);
    }
}

/// A slot at one server, for one attempt; freeing it wakes the requests that wait for one.
struct Slot<'a> {
    permit: Option<Permit<'a>>,
    released: &'a Releases,
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        self.permit.take();
        self.released.notify();
    }
}

/// One server of the pool.
#[derive(Debug)]
struct Server {
    endpoint: String,
    in_flight: Semaphore,
    /// Attempts that failed since its last answer.
    failures: AtomicU32,
    /// Until when (milliseconds since the model was built) the server is left alone after a
    /// failure: a second, then twice as long after each further failure, up to a minute.
    resting_until: AtomicU64,
}

impl Server {
    fn answered(&self) {
        self.failures.store(0, Ordering::Relaxed);
        self.resting_until.store(0, Ordering::Relaxed);
    }

    fn failed(&self, now_ms: u64) {
        let failures = self.failures.fetch_add(1, Ordering::Relaxed).min(6);
        let rest = (1000u64 << failures).min(60_000);
        self.resting_until.store(now_ms + rest, Ordering::Relaxed);
    }
}

impl std::fmt::Debug for HttpModel {
    // By hand, so that the API key never reaches a log.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpModel")
            .field("endpoints", &self.endpoints())
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
    servers: Vec<String>,
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
            servers: Vec::new(),
            model: model.into(),
            api_key_env: None,
            timeout: Duration::from_secs(120),
            retries: 4,
            backoff: Duration::from_millis(500),
            max_in_flight: 4,
        }
    }

    /// The address requests go to (the first server's, in a pool).
    pub fn endpoint(&self) -> &str {
        &self.servers[0].endpoint
    }

    /// The addresses of every server of the pool.
    pub fn endpoints(&self) -> Vec<&str> {
        self.servers.iter().map(|s| s.endpoint.as_str()).collect()
    }

    /// HTTP requests sent so far, retries included.
    pub fn requests(&self) -> u64 {
        self.requests.load(Ordering::Relaxed)
    }

    fn now_ms(&self) -> u64 {
        self.built.elapsed().as_millis() as u64
    }

    /// The server for the next attempt, and its slot: the one with the most free slots among
    /// those not resting after a failure (all of them, when every one is resting); when every
    /// such server is full, a wait for the first slot freed at any of them.
    fn pick(&self) -> (&Server, Slot<'_>) {
        loop {
            let generation = self.released.generation();
            let now = self.now_ms();
            let mut order: Vec<&Server> = self
                .servers
                .iter()
                .filter(|server| server.resting_until.load(Ordering::Relaxed) <= now)
                .collect();
            if order.is_empty() {
                order = self.servers.iter().collect();
                order.sort_by_key(|server| server.resting_until.load(Ordering::Relaxed));
            } else {
                order.sort_by_key(|server| std::cmp::Reverse(server.in_flight.free()));
            }
            for server in &order {
                if let Some(permit) = server.in_flight.try_acquire() {
                    let slot = Slot {
                        permit: Some(permit),
                        released: &self.released,
                    };
                    return (server, slot);
                }
            }
            // Woken by any slot freed; at most a tenth of a second, for a resting server's
            // return.
            self.released
                .wait_past(generation, Duration::from_millis(100));
        }
    }

    fn backend_error(&self, endpoint: &str, failure: Failure) -> Error {
        let backend = format!("http {endpoint}");
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
        self.post(Route::Chat, &body.to_string(), parse_response)
    }

    /// Posts `body` to a server of the pool at `route`, retrying transport failures and
    /// overloaded servers, and parses the answer with `parse`.
    fn post<T>(
        &self,
        route: Route,
        body: &str,
        parse: impl Fn(&str) -> std::result::Result<T, String>,
    ) -> Result<T> {
        let mut attempt = 0;
        loop {
            // The slot is held for the attempt only, not for the pause after it.
            let (endpoint, failure, after) = {
                let (server, _slot) = self.pick();
                let endpoint = route.of(&server.endpoint);
                match self.send(&endpoint, body) {
                    Ok(Outcome::Body(text)) => {
                        server.answered();
                        return parse(&text).map_err(|message| {
                            self.backend_error(&endpoint, Failure::said(message))
                        });
                    }
                    Ok(Outcome::Fatal(failure)) => {
                        return Err(self.backend_error(&endpoint, failure));
                    }
                    Ok(Outcome::Retry { failure, after }) => {
                        server.failed(self.now_ms());
                        (endpoint, failure, after)
                    }
                    Err(failure) => {
                        server.failed(self.now_ms());
                        (endpoint, failure, None)
                    }
                }
            };
            if attempt >= self.retries {
                return Err(self.backend_error(
                    &endpoint,
                    Failure {
                        message: format!(
                            "gave up after {} attempt(s): {}",
                            attempt + 1,
                            failure.message
                        ),
                        source: failure.source,
                    },
                ));
            }
            let backoff = self
                .backoff
                .saturating_mul(1u32.checked_shl(attempt).unwrap_or(u32::MAX));
            std::thread::sleep(after.unwrap_or(backoff).min(MAX_PAUSE));
            attempt += 1;
        }
    }

    /// Sends once. `Err` is a transport failure worth retrying.
    fn send(&self, endpoint: &str, body: &str) -> std::result::Result<Outcome, Failure> {
        self.requests.fetch_add(1, Ordering::Relaxed);
        let mut call = self
            .agent
            .post(endpoint)
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

    /// More servers of the same model (a pool): requests go to the least busy server.
    pub fn servers(mut self, urls: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.servers.extend(urls.into_iter().map(Into::into));
        self
    }

    /// Requests open at once at each server, across all threads (at least 1).
    pub fn max_in_flight(mut self, max_in_flight: usize) -> Self {
        self.max_in_flight = max_in_flight;
        self
    }

    /// The model: fails when an endpoint is not an `http://` or `https://` URL or the API key's
    /// environment variable is unset.
    pub fn build(self) -> Result<HttpModel> {
        let load_error =
            |message: String| Error::load(format!("{} at {}", self.model, self.url), message);
        let endpoints = std::iter::once(&self.url)
            .chain(&self.servers)
            .enumerate()
            .map(|(i, url)| {
                endpoint_of(url).map_err(|message| match i {
                    0 => load_error(message),
                    _ => load_error(format!("server {url}: {message}")),
                })
            })
            .collect::<Result<Vec<String>>>()?;
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
        let servers = endpoints
            .into_iter()
            .map(|endpoint| Server {
                endpoint,
                in_flight: Semaphore::new(self.max_in_flight),
                failures: AtomicU32::new(0),
                resting_until: AtomicU64::new(0),
            })
            .collect();
        Ok(HttpModel {
            servers,
            model: self.model,
            api_key,
            agent,
            retries: self.retries,
            backoff: self.backoff,
            requests: AtomicU64::new(0),
            built: std::time::Instant::now(),
            released: Releases::default(),
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
        let mut response = ChatResponse {
            choices: Vec::with_capacity(request.n as usize),
            usage: Usage::default(),
        };
        let mut round = 0u64;
        while response.choices.len() < request.n as usize {
            let missing = request.n - response.choices.len() as u32;
            let part = self.complete(request, missing, request.seed.wrapping_add(round))?;
            if part.choices.is_empty() {
                return Err(self.backend_error(
                    &self.endpoints().join(", "),
                    Failure::said("the answer has no choices"),
                ));
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

/// Which API of a server a request goes to.
#[derive(Debug, Clone, Copy)]
enum Route {
    /// `/v1/chat/completions`: the server's address as configured.
    Chat,
    /// `/v1/completions`, for the log-probabilities of a given text (`echo`).
    Completions,
}

impl Route {
    fn of(self, chat_endpoint: &str) -> String {
        match self {
            Route::Chat => chat_endpoint.to_owned(),
            Route::Completions => match chat_endpoint.strip_suffix("/chat/completions") {
                Some(base) => format!("{base}/completions"),
                None => chat_endpoint.to_owned(),
            },
        }
    }
}

impl crate::TextScorer for HttpModel {
    fn id(&self) -> ModelId {
        ChatModel::id(self)
    }

    /// The text's own tokens and log-probabilities from `/v1/completions` with `echo` and
    /// `logprobs` (what vLLM and OpenAI's completion models return); a server that does not
    /// give them back is an error, never a guess. The first token, which the API scores given
    /// nothing, counts as certain.
    fn token_logprobs(&self, text: &str) -> Result<Vec<crate::ScoredToken>> {
        let body = json!({
            "model": self.model,
            "prompt": text,
            "max_tokens": 1,
            "temperature": 0.0,
            "echo": true,
            "logprobs": 0,
        });
        let chars = text.chars().count();
        self.post(Route::Completions, &body.to_string(), |answer| {
            parse_prompt_logprobs(answer, chars)
        })
    }
}

/// The prompt's tokens of a `/v1/completions` answer with `echo` (`choices[0].logprobs` with
/// `tokens`, `token_logprobs` and character `text_offset`s), cut at the prompt's end.
fn parse_prompt_logprobs(
    text: &str,
    prompt_chars: usize,
) -> std::result::Result<Vec<crate::ScoredToken>, String> {
    let body: Value = serde_json::from_str(text)
        .map_err(|err| format!("the answer is not JSON ({err}): {}", quote(text)))?;
    if let Some(error) = body.get("error") {
        return Err(format!("the server said: {}", quote(&error.to_string())));
    }
    let logprobs = body
        .pointer("/choices/0/logprobs")
        .filter(|l| !l.is_null())
        .ok_or_else(|| {
            "the answer has no log-probabilities of the text (`choices[0].logprobs` of \
             /v1/completions with `echo`): this endpoint cannot score a given text"
                .to_owned()
        })?;
    let field = |name: &str| {
        logprobs
            .get(name)
            .and_then(Value::as_array)
            .ok_or_else(|| format!("`choices[0].logprobs.{name}` is missing or not a list"))
    };
    let (offsets, values) = (field("text_offset")?, field("token_logprobs")?);
    if offsets.len() != values.len() {
        return Err("`text_offset` and `token_logprobs` differ in length".into());
    }
    let mut starts = Vec::with_capacity(offsets.len());
    for (i, offset) in offsets.iter().enumerate() {
        let start = offset
            .as_u64()
            .ok_or_else(|| format!("`text_offset[{i}]` is not a number"))?
            as usize;
        if start >= prompt_chars {
            break;
        }
        let logprob = match &values[i] {
            Value::Null if i == 0 => 0.0,
            value => value
                .as_f64()
                .ok_or_else(|| format!("`token_logprobs[{i}]` is not a number"))?
                as f32,
        };
        starts.push((start, logprob));
    }
    if starts.is_empty() && prompt_chars > 0 {
        return Err("the answer scores none of the text's tokens".into());
    }
    let mut tokens = Vec::with_capacity(starts.len());
    for (k, &(start, logprob)) in starts.iter().enumerate() {
        let end = starts.get(k + 1).map_or(prompt_chars, |next| next.0);
        if end < start {
            return Err(format!("`text_offset[{}]` goes backwards", k + 1));
        }
        tokens.push(crate::ScoredToken {
            start,
            end,
            logprob,
        });
    }
    Ok(tokens)
}

/// The chat-completions address of a server given as `http://host:port`, its `/v1`, or the full
/// address.
fn endpoint_of(url: &str) -> std::result::Result<String, String> {
    let trimmed = url.trim().trim_end_matches('/');
    if !(trimmed.starts_with("http://") || trimmed.starts_with("https://")) {
        return Err("the URL must start with http:// or https://".into());
    }
    Ok(if trimmed.ends_with("/chat/completions") {
        trimmed.to_owned()
    } else if trimmed.ends_with("/v1") {
        format!("{trimmed}/chat/completions")
    } else {
        format!("{trimmed}/v1/chat/completions")
    })
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
        for (body, says) in [
            ("", "not JSON"),
            ("null", "no `choices` array"),
            ("[]", "no `choices` array"),
            ("{}", "no `choices` array"),
            (r#"{"choices": 3}"#, "no `choices` array"),
            (r#"{"choices": [{}]}"#, "choice 0: no `message.content`"),
            (
                r#"{"choices": [{"message": {"content": null}}]}"#,
                "choice 0: no `message.content`",
            ),
            (
                r#"{"choices": [{"message": {"content": 7}}]}"#,
                "`message.content` is not text: 7",
            ),
            (
                r#"{"choices": [{"message": {"content": "x"}, "logprobs": {"content": [{"token": 1}]}}]}"#,
                "choice 0",
            ),
            (
                r#"{"choices": [{"message": {"content": "x"}, "logprobs": 5}]}"#,
                "choice 0",
            ),
            (
                r#"{"error": {"message": "model not found"}}"#,
                "the server answered an error: model not found",
            ),
        ] {
            let err = parse_response(body).err().unwrap_or_default();
            assert!(err.contains(says), "{body}: {err:?} does not say {says:?}");
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
