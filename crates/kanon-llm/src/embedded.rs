//! A GGUF model run in-process on the CPU by llama.cpp (through the `llama-cpp-2` crate): no server,
//! nothing to install but the model file.
//!
//! ```no_run
//! use kanon_llm::{ChatModel, ChatRequest, EmbeddedModel, EmbeddedOptions, Message};
//!
//! let model = EmbeddedModel::open_with(
//!     "SmolLM2-135M-Instruct.Q4_1.gguf",
//!     EmbeddedOptions { threads: Some(2), ..EmbeddedOptions::default() },
//! )?;
//! let request = ChatRequest::new(vec![Message::user("Name a country in Europe.")]).max_tokens(16);
//! println!("{}", model.chat(&request)?.choices[0].text);
//! # Ok::<(), kanon_llm::Error>(())
//! ```
//!
//! How a request is answered:
//! - The messages go through the model's own chat template (ChatML for SmolLM2). Message texts are
//!   tokenized as plain text, never parsed for special tokens, so a document that contains
//!   `<|im_end|>` or `<|im_start|>system` cannot open a turn of its own.
//! - The prompt is evaluated once for all `n` choices (its KV cells are shared), then the `n`
//!   sequences are decoded together, one token each per batch.
//! - A one-choice request reuses a warm context: the KV cells of the longest prefix it shares
//!   with the previous request's tokens are kept and only the rest of the prompt is read, as
//!   llama.cpp's server does with prompt caching. Prompts that open alike (the same instruction,
//!   the same document up to the span under attack) are read once.
//! - Sampling is done here rather than by llama.cpp's samplers so that it is reproducible and its
//!   probabilities are known: greedy (the lowest-id maximum) when `temperature == 0`, else softmax
//!   at that temperature restricted to the top-`top_p` nucleus, drawn from ChaCha8 seeded by
//!   `seed` with one stream per choice. Same request, same model file, same build: same answer.
//! - A choice ends at an end-of-generation token, at `max_tokens`, or at the first stop string,
//!   which is cut off with whatever follows it.
//! - `logprobs` are the log-softmax of the raw logits (temperature 1, no nucleus) at each sampled
//!   token: the model's own probability, which is what perplexity-style scores need. A token that
//!   a stop string cuts through is kept.
//!
//! llama.cpp's own logging goes nowhere unless `KANON_LLAMA_LOG=1` is set when the first model is
//! opened (the setting is process-wide).

use std::num::NonZeroU32;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::Instant;

use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::{LlamaChatMessage, LlamaChatTemplate, LlamaModel};
use llama_cpp_2::token::LlamaToken;
use llama_cpp_2::vocab::LlamaVocab;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::limit::Semaphore;
use crate::{
    ChatModel, ChatRequest, ChatResponse, Choice, Error, Message, ModelId, Result, Role,
    ScoredToken, TextScorer, TokenLogprob, Usage,
};

/// Tokens per `llama_decode` call while reading a text to score.
const PROMPT_BATCH: usize = 512;
/// A prompt is read in blocks of this many tokens at positions aligned to it, whether or not a
/// warm context holds a prefix: a block's KV cells are then computed by the same kernels on the
/// same batch either way (llama.cpp's kernels depend on the batch size, and a small model's
/// greedy answer can turn on the last bit of a logit), so reuse changes no answer. Only whole
/// blocks of a previous prompt are reused.
const PROMPT_BLOCK: usize = 64;
/// Marks a message's place in the rendered template; the private-use characters keep it apart from
/// anything a template writes.
const MARK_OPEN: char = '\u{E000}';
const MARK_CLOSE: char = '\u{E001}';

/// How an [`EmbeddedModel`] runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct EmbeddedOptions {
    /// Threads of one generation; all cores when `None`.
    pub threads: Option<usize>,
    /// The largest context (prompt plus all choices' tokens); the model's training context when
    /// `None`.
    pub max_context: Option<u32>,
    /// Generations run at once across threads; the others wait. llama.cpp's worker threads spin
    /// while they wait for work, so two generations sharing cores are slower together than one
    /// after the other: keep this at 1 unless `threads × max_in_flight` ≤ cores.
    pub max_in_flight: usize,
    /// Keeps the KV cells of a one-choice request's prompt for the next request and reads only
    /// what the next prompt does not share with it.
    pub reuse_prompt_prefix: bool,
}

impl Default for EmbeddedOptions {
    fn default() -> Self {
        EmbeddedOptions {
            threads: None,
            max_context: None,
            max_in_flight: 1,
            reuse_prompt_prefix: true,
        }
    }
}

/// Where the time of one request went.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Timings {
    /// Creating the llama.cpp context (the KV cache) for this request.
    pub setup_seconds: f64,
    /// Prompt tokens of the request.
    pub prompt_tokens: usize,
    /// Reading the prompt tokens a warm context did not hold.
    pub prompt_seconds: f64,
    /// Tokens sampled over all choices.
    pub generated_tokens: usize,
    /// Sampling and decoding after the prompt.
    pub generation_seconds: f64,
    /// Prompt tokens whose KV cells a warm context already held (not read again).
    #[serde(default)]
    pub reused_prompt_tokens: usize,
}

/// A GGUF chat model loaded once and shared by every thread. A request gets a llama.cpp context of
/// its own, or (one choice, prefix reuse on) a warm one whose KV cells past the prefix it shares
/// with the previous prompt are cleared first, so requests never see each other's state.
pub struct EmbeddedModel {
    /// Lives for the process: warm contexts borrow it. Its weights are mapped from the file, so
    /// what stays after the model is dropped is address space, not memory in use.
    model: &'static LlamaModel,
    /// Contexts kept warm for prefix reuse, with the tokens their KV cells hold (sequence 0).
    warm: Mutex<Vec<WarmContext>>,
    reuse_prompt_prefix: bool,
    template: LlamaChatTemplate,
    path: PathBuf,
    name: String,
    threads: usize,
    max_context: u32,
    in_flight: Semaphore,
    /// llama.cpp may write to the model while it creates a context, so creations take turns.
    creating: Mutex<()>,
}

impl std::fmt::Debug for EmbeddedModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmbeddedModel")
            .field("path", &self.path)
            .field("threads", &self.threads)
            .field("max_context", &self.max_context)
            .finish_non_exhaustive()
    }
}

/// llama.cpp's backend is process-wide and can be initialised once.
fn backend() -> Result<&'static LlamaBackend> {
    static BACKEND: OnceLock<std::result::Result<LlamaBackend, String>> = OnceLock::new();
    // The error is kept as text: a failed initialisation is remembered for the process.
    BACKEND
        .get_or_init(|| {
            let mut backend = LlamaBackend::init().map_err(|err| err.to_string())?;
            let log = std::env::var("KANON_LLAMA_LOG").is_ok_and(|v| !v.is_empty() && v != "0");
            if !log {
                backend.void_logs();
            }
            Ok(backend)
        })
        .as_ref()
        .map_err(|message| {
            Error::load(
                "llama.cpp",
                format!("cannot initialise the llama.cpp backend: {message}"),
            )
        })
}

impl EmbeddedModel {
    /// Loads a GGUF file with the default options.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        Self::open_with(path, EmbeddedOptions::default())
    }

    /// Loads a GGUF file: checks that it is one, loads it with llama.cpp and checks that its chat
    /// template (its own, else ChatML) renders a message.
    pub fn open_with(path: impl AsRef<Path>, options: EmbeddedOptions) -> Result<Self> {
        let path = path.as_ref();
        let model_name = path.display().to_string();
        let load_error = |message: &str| Error::load(&model_name, message);
        // Checked here because llama.cpp only logs why a load failed, and its logs are off.
        let metadata = std::fs::metadata(path)
            .map_err(|err| Error::load_from(&model_name, "cannot read the file", err))?;
        if !metadata.is_file() {
            return Err(load_error("not a file"));
        }
        let mut magic = [0u8; 4];
        let magic_read = std::fs::File::open(path)
            .and_then(|mut file| std::io::Read::read_exact(&mut file, &mut magic));
        if magic_read.is_err() || &magic != b"GGUF" {
            return Err(load_error(
                "not a GGUF file (it does not start with `GGUF`)",
            ));
        }
        let backend = backend()?;
        let model = LlamaModel::load_from_file(backend, path, &LlamaModelParams::default())
            .map_err(|err| {
                Error::load_from(
                    &model_name,
                    "llama.cpp cannot load it: a damaged file or an unsupported architecture \
                     (KANON_LLAMA_LOG=1 shows llama.cpp's reasons)",
                    err,
                )
            })?;
        // A model without a template of its own is most likely a ChatML fine-tune.
        let template = match model.chat_template(None) {
            Ok(template) => template,
            Err(_) => LlamaChatTemplate::new("chatml").map_err(|err| {
                Error::load_from(&model_name, "no chat template of its own, nor ChatML", err)
            })?,
        };
        let threads = options.threads.unwrap_or_else(|| {
            std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
        });
        let n_ctx_train = model.n_ctx_train().max(1);
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |f| f.to_string_lossy().into_owned(),
        );
        let embedded = EmbeddedModel {
            max_context: options
                .max_context
                .unwrap_or(n_ctx_train)
                .clamp(1, n_ctx_train),
            model: Box::leak(Box::new(model)),
            warm: Mutex::new(Vec::new()),
            reuse_prompt_prefix: options.reuse_prompt_prefix,
            template,
            path: path.to_owned(),
            name,
            threads: threads.max(1),
            in_flight: Semaphore::new(options.max_in_flight),
            creating: Mutex::new(()),
        };
        // Fails now, not at the first request, when llama.cpp does not know the template.
        embedded
            .prompt_tokens(&[Message::user("hello")])
            .map_err(|err| Error::load_from(&model_name, "its chat template does not work", err))?;
        Ok(embedded)
    }

    /// The GGUF file the model was loaded from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Threads of one generation.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// The largest context a request may fill: prompt plus all choices' tokens.
    pub fn max_context(&self) -> u32 {
        self.max_context
    }

    /// The prompt's token ids: the messages rendered by the chat template, ready for the
    /// assistant's turn.
    pub fn prompt_tokens(&self, messages: &[Message]) -> Result<Vec<i32>> {
        Ok(self.tokenize_chat(messages)?.iter().map(|t| t.0).collect())
    }

    fn tokenize_chat(&self, messages: &[Message]) -> Result<Vec<LlamaToken>> {
        let invalid = |message: String| Error::InvalidRequest(message);
        let marked = !messages
            .iter()
            .any(|m| m.content.contains(MARK_OPEN) || m.content.contains(MARK_CLOSE));
        let chat = messages
            .iter()
            .enumerate()
            .map(|(i, message)| {
                let role = match message.role {
                    Role::System => "system",
                    Role::User => "user",
                    Role::Assistant => "assistant",
                };
                let content = if marked {
                    format!("{MARK_OPEN}{i}{MARK_CLOSE}")
                } else {
                    message.content.clone()
                };
                LlamaChatMessage::new(role.to_owned(), content)
                    .map_err(|err| invalid(format!("message {i}: {err}")))
            })
            .collect::<Result<Vec<_>>>()?;
        let rendered = self
            .model
            .apply_chat_template(&self.template, &chat, true)
            .map_err(|err| invalid(format!("applying the chat template: {err}")))?;
        let vocab = self.model.vocab();
        let mut tokens = Vec::new();
        if vocab.should_add_bos() {
            tokens.push(vocab.bos());
        }
        let pieces = if marked {
            split_marks(&rendered, messages)
        } else {
            None
        };
        match pieces {
            Some(pieces) => {
                for (text, special) in pieces {
                    tokens.extend(vocab.tokenize(text.as_bytes(), false, special));
                }
            }
            // A template that rewrote the marks: the whole text is parsed, as llama.cpp's own
            // server does.
            None => {
                let chat = messages
                    .iter()
                    .map(|m| {
                        let role = match m.role {
                            Role::System => "system",
                            Role::User => "user",
                            Role::Assistant => "assistant",
                        };
                        LlamaChatMessage::new(role.to_owned(), m.content.clone())
                            .map_err(|err| invalid(err.to_string()))
                    })
                    .collect::<Result<Vec<_>>>()?;
                let rendered = self
                    .model
                    .apply_chat_template(&self.template, &chat, true)
                    .map_err(|err| invalid(format!("applying the chat template: {err}")))?;
                tokens.extend(vocab.tokenize(rendered.as_bytes(), false, true));
            }
        }
        // The template may write the BOS token itself.
        if tokens.len() > 1 && tokens[0] == vocab.bos() && tokens[1] == vocab.bos() {
            tokens.remove(0);
        }
        Ok(tokens)
    }

    /// Answers `request` and says where the time went.
    pub fn chat_timed(&self, request: &ChatRequest) -> Result<(ChatResponse, Timings)> {
        request.validate()?;
        let prompt = self.tokenize_chat(&request.messages)?;
        let _permit = self.in_flight.acquire();
        self.generate(&prompt, request)
    }

    fn generate(
        &self,
        prompt: &[LlamaToken],
        request: &ChatRequest,
    ) -> Result<(ChatResponse, Timings)> {
        let backend_name = format!("embedded {}", self.name);
        let Plan {
            n,
            n_seq,
            budget,
            warm,
            n_ctx,
            params,
        } = self.plan(prompt, request)?;

        let started = Instant::now();
        let (mut ctx, kept) = self.context_for(prompt, warm, n_ctx, params, &backend_name)?;
        let mut timings = Timings {
            setup_seconds: started.elapsed().as_secs_f64(),
            prompt_tokens: prompt.len(),
            reused_prompt_tokens: kept,
            ..Timings::default()
        };

        let started = Instant::now();
        let mut batch = LlamaBatch::new(PROMPT_BATCH.max(n), n_seq);
        let last_logits = read_prompt(&mut ctx, &mut batch, prompt, kept, n_seq, &backend_name)?;
        timings.prompt_seconds = started.elapsed().as_secs_f64();

        let started = Instant::now();
        let mut sequences: Vec<Sequence> = (0..n)
            .map(|choice| Sequence::new(request.seed, choice, last_logits, budget == 0))
            .collect();
        let mut sampler = Sampler {
            request,
            stops: request
                .stop
                .iter()
                .map(|s| s.as_bytes())
                .filter(|s| !s.is_empty())
                .collect(),
            budget,
            scratch: Vec::new(),
        };
        self.decode_choices(
            &mut ctx,
            &mut batch,
            prompt.len(),
            &mut sequences,
            &mut sampler,
            &backend_name,
        )?;
        timings.generated_tokens = sequences.iter().map(|seq| seq.generated).sum();
        timings.generation_seconds = started.elapsed().as_secs_f64();
        if warm {
            self.keep_warm(ctx, prompt, &sequences[0].decoded);
        }

        let choices = sequences
            .into_iter()
            .map(|seq| seq.into_choice(request.logprobs))
            .collect();
        let response = ChatResponse {
            choices,
            usage: Usage {
                prompt_tokens: prompt.len() as u64,
                completion_tokens: timings.generated_tokens as u64,
            },
        };
        Ok((response, timings))
    }

    /// How `request` runs: each choice's token budget, and the context it needs.
    fn plan(&self, prompt: &[LlamaToken], request: &ChatRequest) -> Result<Plan> {
        let n = request.n as usize;
        let capacity = self.max_context as usize;
        if prompt.is_empty() || prompt.len() >= capacity {
            return Err(Error::InvalidRequest(format!(
                "the prompt has {} tokens; the context holds {capacity}",
                prompt.len()
            )));
        }
        let budget = (request.max_tokens as usize).min((capacity - prompt.len()) / n);
        let n_ctx = u32::try_from(prompt.len() + n * budget.max(1))
            .ok()
            .and_then(NonZeroU32::new)
            .ok_or_else(|| Error::InvalidRequest("the context would be too large".into()))?;
        let threads = i32::try_from(self.threads).unwrap_or(i32::MAX);
        let n_seq = i32::try_from(n).map_err(|_| Error::InvalidRequest(format!("n = {n}")))?;
        let warm = n == 1 && self.reuse_prompt_prefix;
        // A warm context holds any request that fits the model's context.
        let n_ctx = if warm {
            NonZeroU32::new(self.max_context).unwrap_or(n_ctx)
        } else {
            n_ctx
        };
        let params = LlamaContextParams::default()
            .with_n_ctx(Some(n_ctx))
            .with_n_batch(PROMPT_BATCH.max(n) as u32)
            .with_n_ubatch(PROMPT_BATCH.max(n) as u32)
            .with_n_seq_max(request.n)
            // One pool of KV cells for all choices, so the prompt's cells are shared.
            .with_kv_unified(true)
            .with_n_threads(threads)
            .with_n_threads_batch(threads);
        Ok(Plan {
            n,
            n_seq,
            budget,
            warm,
            n_ctx,
            params,
        })
    }

    /// A warm context holding a prefix of `prompt` and how many of its tokens it holds, or a new
    /// context of `n_ctx` tokens holding none.
    fn context_for(
        &self,
        prompt: &[LlamaToken],
        warm: bool,
        n_ctx: NonZeroU32,
        params: LlamaContextParams,
        backend_name: &str,
    ) -> Result<(LlamaContext<'static>, usize)> {
        if warm && let Some(reused) = self.take_warm(prompt) {
            return Ok(reused);
        }
        let _creating = self.creating.lock().unwrap_or_else(PoisonError::into_inner);
        let ctx = self.model.new_context(backend()?, params).map_err(|err| {
            Error::backend_from(
                backend_name,
                format!("creating a context of {n_ctx} tokens"),
                err,
            )
        })?;
        Ok((ctx, 0))
    }

    /// Decodes one token of every unfinished choice per batch until all are done.
    fn decode_choices(
        &self,
        ctx: &mut LlamaContext<'static>,
        batch: &mut LlamaBatch<'_>,
        prompt_len: usize,
        sequences: &mut [Sequence],
        sampler: &mut Sampler<'_>,
        backend_name: &str,
    ) -> Result<()> {
        let vocab = self.model.vocab();
        loop {
            batch.clear();
            for (seq_id, seq) in sequences.iter_mut().enumerate() {
                if seq.done {
                    continue;
                }
                let logits = ctx.get_logits_ith(seq.logits_at);
                let Some(token) = seq.advance(logits, &vocab, sampler) else {
                    continue;
                };
                let position = (prompt_len + seq.generated - 1) as i32;
                batch
                    .add(token, position, &[seq_id as i32], true)
                    .map_err(|err| Error::backend_from(backend_name, "filling a batch", err))?;
                seq.logits_at = batch.n_tokens() - 1;
                seq.decoded.push(token);
            }
            if batch.n_tokens() == 0 {
                return Ok(());
            }
            ctx.decode(batch)
                .map_err(|err| Error::backend_from(backend_name, "generating", err))?;
        }
    }

    /// Keeps a one-choice request's context for the next request; its KV cells hold the prompt and
    /// every generated token that was decoded.
    fn keep_warm(&self, ctx: LlamaContext<'static>, prompt: &[LlamaToken], decoded: &[LlamaToken]) {
        let mut tokens = prompt.to_vec();
        tokens.extend_from_slice(decoded);
        self.warm
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(WarmContext {
                ctx,
                tokens,
                prompt_len: prompt.len(),
            });
    }
}

/// How one request runs, from [`EmbeddedModel::plan`].
struct Plan {
    /// Choices (`request.n`).
    n: usize,
    /// The same, as llama.cpp counts sequences.
    n_seq: i32,
    /// Tokens each choice may generate.
    budget: usize,
    /// Whether the request reuses a warm context and keeps it warm after.
    warm: bool,
    /// Tokens of a new context.
    n_ctx: NonZeroU32,
    params: LlamaContextParams,
}

/// Reads `prompt[kept..]` into every choice's sequence (the first `kept` tokens are already in the
/// context), in blocks aligned to [`PROMPT_BLOCK`]; returns where the logits of the prompt's last
/// token are in the last batch.
fn read_prompt(
    ctx: &mut LlamaContext<'static>,
    batch: &mut LlamaBatch<'_>,
    prompt: &[LlamaToken],
    kept: usize,
    n_seq: i32,
    backend_name: &str,
) -> Result<i32> {
    // The prompt belongs to every choice's sequence: evaluated once, cached once.
    let all_seqs: Vec<i32> = (0..n_seq).collect();
    let mut last_logits = 0;
    for (chunk_index, chunk) in prompt[kept..].chunks(PROMPT_BLOCK).enumerate() {
        batch.clear();
        let base = kept + chunk_index * PROMPT_BLOCK;
        for (offset, &token) in chunk.iter().enumerate() {
            let position = base + offset;
            let last = position + 1 == prompt.len();
            batch
                .add(token, position as i32, &all_seqs, last)
                .map_err(|err| Error::backend_from(backend_name, "filling a batch", err))?;
            if last {
                last_logits = offset as i32;
            }
        }
        ctx.decode(batch)
            .map_err(|err| Error::backend_from(backend_name, "reading the prompt", err))?;
    }
    Ok(last_logits)
}

/// What sampling any choice's next token needs besides the choice's own state.
struct Sampler<'r> {
    request: &'r ChatRequest,
    /// The non-empty stop strings, as bytes.
    stops: Vec<&'r [u8]>,
    /// Tokens each choice may generate.
    budget: usize,
    /// Reused by [`sample`] across draws.
    scratch: Vec<(f64, u32)>,
}

/// Tokens scored per window: beyond it, a text is read in windows that overlap by half, each
/// token scored with at least half a window of context.
const SCORE_WINDOW: usize = 1024;

impl EmbeddedModel {
    /// Each token of `text` (tokenized as plain text, never parsed for special tokens) with its
    /// log-probability given the text before it. The model reads the text after its start-of-text
    /// token, in windows of at most [`SCORE_WINDOW`] tokens that overlap by half.
    pub fn score_text(&self, text: &str) -> Result<Vec<ScoredToken>> {
        let backend_name = format!("embedded {}", self.name);
        let vocab = self.model.vocab();
        let tokens = vocab.tokenize(text.as_bytes(), false, false);
        if tokens.is_empty() {
            return Ok(Vec::new());
        }
        // Character offsets of each token, from its bytes.
        let mut bytes = Vec::with_capacity(text.len());
        let mut byte_starts = Vec::with_capacity(tokens.len() + 1);
        for &token in &tokens {
            byte_starts.push(bytes.len());
            bytes.extend_from_slice(&vocab.token_to_piece(token, false, None));
        }
        byte_starts.push(bytes.len());
        // SentencePiece tokenizers may add a space in front of the text.
        let shift = if bytes == text.as_bytes() {
            0
        } else if bytes.first() == Some(&b' ') && &bytes[1..] == text.as_bytes() {
            1
        } else {
            return Err(Error::backend(
                &backend_name,
                "its tokens do not spell the scored text out again",
            ));
        };
        let mut char_at_byte = vec![0usize; text.len() + 1];
        for (index, (byte, _)) in text.char_indices().enumerate() {
            char_at_byte[byte] = index;
        }
        char_at_byte[text.len()] = text.chars().count();
        let to_char = |byte: usize, round_up: bool| {
            let mut b = byte.saturating_sub(shift).min(text.len());
            while !text.is_char_boundary(b) {
                if round_up { b += 1 } else { b -= 1 }
            }
            char_at_byte[b]
        };

        let bos = vocab.bos();
        let window = SCORE_WINDOW.min(self.max_context as usize - 1).max(2);
        let half = window / 2;
        let threads = i32::try_from(self.threads).unwrap_or(i32::MAX);
        let n_ctx = NonZeroU32::new((window + 1) as u32)
            .ok_or_else(|| Error::InvalidRequest("an empty context".into()))?;
        let params = || {
            LlamaContextParams::default()
                .with_n_ctx(Some(n_ctx))
                .with_n_batch(PROMPT_BATCH as u32)
                .with_n_ubatch(PROMPT_BATCH as u32)
                .with_n_seq_max(1)
                .with_n_threads(threads)
                .with_n_threads_batch(threads)
        };
        let _permit = self.in_flight.acquire();
        let mut logprobs = vec![f32::NAN; tokens.len()];
        let mut batch = LlamaBatch::new(PROMPT_BATCH, 1);
        // Window w reads tokens [from, from + window) and scores those from `score_from` on.
        let mut from = 0;
        let mut score_from = 0;
        loop {
            let until = (from + window).min(tokens.len());
            let mut ctx = {
                let _creating = self.creating.lock().unwrap_or_else(PoisonError::into_inner);
                self.model
                    .new_context(backend()?, params())
                    .map_err(|err| {
                        Error::backend_from(&backend_name, "creating a scoring context", err)
                    })?
            };
            // Position 0 is the start-of-text token; token i of the window sits at i + 1.
            let input: Vec<LlamaToken> = std::iter::once(bos)
                .chain(tokens[from..until].iter().copied())
                .collect();
            for (chunk_index, chunk) in input.chunks(PROMPT_BATCH).enumerate() {
                batch.clear();
                let base = chunk_index * PROMPT_BATCH;
                for (offset, &token) in chunk.iter().enumerate() {
                    batch
                        .add(token, (base + offset) as i32, &[0], true)
                        .map_err(|err| {
                            Error::backend_from(&backend_name, "filling a batch", err)
                        })?;
                }
                ctx.decode(&mut batch)
                    .map_err(|err| Error::backend_from(&backend_name, "reading the text", err))?;
                for offset in 0..chunk.len() {
                    // The logits at input position p predict input position p + 1, which is
                    // the text's token from + p.
                    let target = from + base + offset;
                    if target >= until || target < score_from {
                        continue;
                    }
                    let logits = ctx.get_logits_ith(offset as i32);
                    logprobs[target] = log_softmax_at(logits, tokens[target].0 as usize);
                }
            }
            if until == tokens.len() {
                break;
            }
            score_from = until;
            from = until - half;
        }
        Ok(tokens
            .iter()
            .enumerate()
            .map(|(i, _)| ScoredToken {
                start: to_char(byte_starts[i], false),
                end: to_char(byte_starts[i + 1], true),
                logprob: logprobs[i],
            })
            .collect())
    }
}

impl TextScorer for EmbeddedModel {
    /// `embedded` and the file name, as for chat.
    fn id(&self) -> ModelId {
        ModelId::new("embedded", self.name.clone())
    }

    fn token_logprobs(&self, text: &str) -> Result<Vec<ScoredToken>> {
        self.score_text(text)
    }
}

impl ChatModel for EmbeddedModel {
    /// `embedded` and the file name.
    fn id(&self) -> ModelId {
        ModelId::new("embedded", self.name.clone())
    }

    fn chat(&self, request: &ChatRequest) -> Result<ChatResponse> {
        self.chat_timed(request).map(|(response, _)| response)
    }
}

/// A context kept for prefix reuse and the tokens its KV cells hold.
struct WarmContext {
    ctx: LlamaContext<'static>,
    tokens: Vec<LlamaToken>,
    /// The first `prompt_len` tokens were read as a prompt (in aligned blocks); the rest were
    /// generated one at a time.
    prompt_len: usize,
}

impl EmbeddedModel {
    /// The warm context sharing the longest prefix with `prompt`, its cells past the last whole
    /// prompt block of that prefix cleared, and how many prompt tokens it holds; `None` when there
    /// is none.
    fn take_warm(&self, prompt: &[LlamaToken]) -> Option<(LlamaContext<'static>, usize)> {
        let shared = |tokens: &[LlamaToken]| {
            tokens
                .iter()
                .zip(prompt)
                .take_while(|(a, b)| a == b)
                .count()
        };
        let WarmContext {
            mut ctx,
            tokens,
            prompt_len,
        } = {
            let mut pool = self.warm.lock().unwrap_or_else(PoisonError::into_inner);
            let best = (0..pool.len()).max_by_key(|&i| shared(&pool[i].tokens))?;
            pool.swap_remove(best)
        };
        // Whole prompt blocks only, and one token at least left to read for its logits.
        let kept = shared(&tokens[..prompt_len]).min(prompt.len().saturating_sub(1));
        let kept = kept / PROMPT_BLOCK * PROMPT_BLOCK;
        // Everything past the shared prefix goes; should llama.cpp refuse, all of it goes.
        let cleared = u32::try_from(kept)
            .ok()
            .and_then(|from| ctx.clear_kv_cache_seq(Some(0), Some(from), None).ok())
            .unwrap_or(false);
        if cleared {
            Some((ctx, kept))
        } else {
            ctx.clear_kv_cache();
            Some((ctx, 0))
        }
    }
}

struct Sequence {
    /// Tokens added to a batch and decoded, in order (their KV cells follow the prompt's).
    decoded: Vec<LlamaToken>,
    rng: ChaCha8Rng,
    /// Where this sequence's logits are in the last decoded batch.
    logits_at: i32,
    done: bool,
    /// Bytes, not text: a token may end inside a UTF-8 character that the next one completes.
    bytes: Vec<u8>,
    token_starts: Vec<usize>,
    logprobs: Vec<TokenLogprob>,
    generated: usize,
    /// Where a stop string begins.
    cut: Option<usize>,
}

impl Sequence {
    /// A choice's sequence before its first token: its own stream of `seed` (stream `choice`), its
    /// logits at `logits_at` of the prompt's last batch.
    fn new(seed: u64, choice: usize, logits_at: i32, done: bool) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(choice as u64);
        Sequence {
            rng,
            logits_at,
            done,
            bytes: Vec::new(),
            token_starts: Vec::new(),
            logprobs: Vec::new(),
            generated: 0,
            cut: None,
            decoded: Vec::new(),
        }
    }

    /// Samples the next token from `logits` and appends its text. `Some(token)` when the choice
    /// goes on and the token must be decoded; `None` when it ended (an end-of-generation token, a
    /// stop string, or its budget spent).
    fn advance(
        &mut self,
        logits: &[f32],
        vocab: &LlamaVocab<'_>,
        sampler: &mut Sampler<'_>,
    ) -> Option<LlamaToken> {
        let request = sampler.request;
        let token = sample(
            logits,
            request.temperature,
            request.top_p,
            &mut self.rng,
            &mut sampler.scratch,
        );
        let token = LlamaToken(token as i32);
        if vocab.is_eog(token) {
            self.done = true;
            return None;
        }
        self.generated += 1;
        let piece = vocab.token_to_piece(token, false, None);
        if request.logprobs {
            self.logprobs.push(TokenLogprob {
                token: String::from_utf8_lossy(&piece).into_owned(),
                logprob: log_softmax_at(logits, token.0 as usize),
            });
        }
        self.token_starts.push(self.bytes.len());
        let stops = &sampler.stops;
        let searched_from = self
            .bytes
            .len()
            .saturating_sub(stops.iter().map(|s| s.len()).max().unwrap_or(1) - 1);
        self.bytes.extend_from_slice(&piece);
        if let Some(cut) = find_stop(&self.bytes, stops, searched_from) {
            self.cut = Some(cut);
            self.done = true;
            return None;
        }
        if self.generated >= sampler.budget {
            self.done = true;
            return None;
        }
        Some(token)
    }

    /// The choice's text up to its stop string, with the log-probabilities of the tokens that
    /// begin before it when asked for.
    fn into_choice(self, logprobs: bool) -> Choice {
        let end = self.cut.unwrap_or(self.bytes.len());
        let logprobs = logprobs.then(|| {
            let kept = self
                .token_starts
                .iter()
                .filter(|&&start| start < end)
                .count();
            self.logprobs.into_iter().take(kept).collect()
        });
        Choice {
            text: String::from_utf8_lossy(&self.bytes[..end]).into_owned(),
            logprobs,
        }
    }
}

/// The rendered template split at the marks into (text, parse special tokens?) pieces; `None` when
/// a mark is missing or out of order.
fn split_marks<'a>(rendered: &'a str, messages: &'a [Message]) -> Option<Vec<(&'a str, bool)>> {
    let mut pieces = Vec::with_capacity(2 * messages.len() + 1);
    let mut rest = rendered;
    for (i, message) in messages.iter().enumerate() {
        let mark = format!("{MARK_OPEN}{i}{MARK_CLOSE}");
        let at = rest.find(&mark)?;
        pieces.push((&rest[..at], true));
        pieces.push((message.content.as_str(), false));
        rest = &rest[at + mark.len()..];
    }
    if rest.contains(MARK_OPEN) {
        return None;
    }
    pieces.push((rest, true));
    pieces.retain(|(text, _)| !text.is_empty());
    Some(pieces)
}

/// The start of the earliest stop string that ends after `from`.
fn find_stop(bytes: &[u8], stops: &[&[u8]], from: usize) -> Option<usize> {
    stops
        .iter()
        .filter_map(|stop| {
            bytes[from..]
                .windows(stop.len())
                .position(|window| window == *stop)
                .map(|at| from + at)
        })
        .min()
}

/// A logit that is NaN counts as impossible rather than poisoning the comparison.
fn finite(logit: f32) -> f32 {
    if logit.is_nan() {
        f32::NEG_INFINITY
    } else {
        logit
    }
}

fn sample(
    logits: &[f32],
    temperature: f32,
    top_p: f32,
    rng: &mut ChaCha8Rng,
    scratch: &mut Vec<(f64, u32)>,
) -> usize {
    let (argmax, max) =
        logits
            .iter()
            .enumerate()
            .fold((0, f32::NEG_INFINITY), |(best, max), (i, &l)| {
                let l = finite(l);
                if l > max { (i, l) } else { (best, max) }
            });
    if temperature <= 0.0 || !max.is_finite() {
        return argmax;
    }
    let inverse = 1.0 / f64::from(temperature);
    scratch.clear();
    scratch.extend(logits.iter().enumerate().map(|(i, &l)| {
        (
            ((f64::from(finite(l)) - f64::from(max)) * inverse).exp(),
            i as u32,
        )
    }));
    let mut total: f64 = scratch.iter().map(|(w, _)| w).sum();
    if top_p < 1.0 {
        scratch.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        let wanted = f64::from(top_p) * total;
        let mut kept = 0.0;
        let mut len = 0;
        for (w, _) in scratch.iter() {
            kept += w;
            len += 1;
            if kept >= wanted {
                break;
            }
        }
        scratch.truncate(len);
        total = kept;
    }
    let mut target = rng.random::<f64>() * total;
    for &(w, i) in scratch.iter() {
        if target < w {
            return i as usize;
        }
        target -= w;
    }
    // Rounding left the target past the end: the last kept token.
    scratch.last().map_or(argmax, |&(_, i)| i as usize)
}

fn log_softmax_at(logits: &[f32], token: usize) -> f32 {
    let max = logits
        .iter()
        .map(|&l| finite(l))
        .fold(f32::NEG_INFINITY, f32::max);
    let sum: f64 = logits
        .iter()
        .map(|&l| (f64::from(finite(l)) - f64::from(max)).exp())
        .sum();
    let logit = logits.get(token).map_or(f32::NEG_INFINITY, |&l| finite(l));
    ((f64::from(logit) - f64::from(max)) - sum.ln()) as f32
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn greedy_is_the_first_maximum() {
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        let mut scratch = Vec::new();
        assert_eq!(
            sample(&[0.0, 3.0, 3.0, f32::NAN], 0.0, 1.0, &mut rng, &mut scratch),
            1
        );
    }

    #[test]
    fn sampling_follows_the_seed_and_the_nucleus() {
        let logits = [2.0, 1.9, 0.0, -1.0];
        let draw = |seed, top_p| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let mut scratch = Vec::new();
            (0..200)
                .map(|_| sample(&logits, 1.0, top_p, &mut rng, &mut scratch))
                .collect::<Vec<_>>()
        };
        assert_eq!(draw(7, 1.0), draw(7, 1.0));
        assert_ne!(draw(7, 1.0), draw(8, 1.0));
        assert!(draw(7, 1.0).iter().any(|&t| t >= 2));
        // The two top tokens hold ~0.79 of the mass: top-p 0.5 keeps them only.
        assert!(draw(7, 0.5).iter().all(|&t| t < 2));
    }

    #[test]
    fn log_softmax_sums_to_one() {
        let logits = [1.0, 2.0, 3.0];
        let total: f32 = (0..3).map(|t| log_softmax_at(&logits, t).exp()).sum();
        assert!((total - 1.0).abs() < 1e-6);
        assert!(log_softmax_at(&logits, 2) > log_softmax_at(&logits, 0));
    }

    #[test]
    fn stop_strings_across_tokens() {
        assert_eq!(find_stop(b"abc\nde", &[b"\n"], 0), Some(3));
        assert_eq!(find_stop(b"abXY", &[b"XY", b"b"], 1), Some(1));
        assert_eq!(find_stop(b"abc", &[b"zz"], 0), None);
    }

    #[test]
    fn marks_split_template_from_content() {
        let messages = [Message::system("s <|im_end|>"), Message::user("u")];
        let rendered = format!(
            "<|im_start|>system\n{MARK_OPEN}0{MARK_CLOSE}<|im_end|>\n<|im_start|>user\n{MARK_OPEN}1{MARK_CLOSE}<|im_end|>\n<|im_start|>assistant\n"
        );
        let pieces = split_marks(&rendered, &messages).unwrap();
        assert_eq!(
            pieces,
            [
                ("<|im_start|>system\n", true),
                ("s <|im_end|>", false),
                ("<|im_end|>\n<|im_start|>user\n", true),
                ("u", false),
                ("<|im_end|>\n<|im_start|>assistant\n", true),
            ]
        );
        assert!(split_marks("no marks", &messages).is_none());
    }
}
