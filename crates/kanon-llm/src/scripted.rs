//! A deterministic backend for tests: canned answers chosen by what the last user message contains.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::{ChatModel, ChatRequest, ChatResponse, Choice, Error, ModelId, Result, Usage};

/// Answers with the reply of the first rule whose needle the last user message contains, else
/// with the fallback, else an error. Counts its calls so tests can assert on them.
#[derive(Debug, Default)]
pub struct ScriptedModel {
    name: String,
    rules: Vec<(String, String)>,
    fallback: Option<String>,
    calls: AtomicU64,
}

impl ScriptedModel {
    /// A model named `name` with no rules and no fallback yet: every request fails until some are added.
    pub fn new(name: impl Into<String>) -> Self {
        ScriptedModel {
            name: name.into(),
            ..ScriptedModel::default()
        }
    }

    /// Adds a rule: when the last user message contains `needle`, answer `reply`.
    pub fn reply(mut self, needle: impl Into<String>, reply: impl Into<String>) -> Self {
        self.rules.push((needle.into(), reply.into()));
        self
    }

    /// The answer when no rule matches.
    pub fn fallback(mut self, reply: impl Into<String>) -> Self {
        self.fallback = Some(reply.into());
        self
    }

    /// How many requests this model has answered.
    pub fn calls(&self) -> u64 {
        self.calls.load(Ordering::Relaxed)
    }
}

impl ChatModel for ScriptedModel {
    fn id(&self) -> ModelId {
        ModelId::new("scripted", self.name.clone())
    }

    fn chat(&self, request: &ChatRequest) -> Result<ChatResponse> {
        let prompt = request.last_user_message();
        let reply = self
            .rules
            .iter()
            .find(|(needle, _)| prompt.contains(needle.as_str()))
            .map(|(_, reply)| reply.clone())
            .or_else(|| self.fallback.clone())
            .ok_or_else(|| Error::NoScript {
                model: self.name.clone(),
                tail: prompt
                    .chars()
                    .rev()
                    .take(60)
                    .collect::<Vec<_>>()
                    .into_iter()
                    .rev()
                    .collect(),
            })?;
        self.calls.fetch_add(1, Ordering::Relaxed);
        let choices = (0..request.n.max(1))
            .map(|_| Choice {
                text: reply.clone(),
                logprobs: None,
            })
            .collect();
        Ok(ChatResponse {
            choices,
            usage: Usage::default(),
        })
    }
}
