//! `kanon bench llm`: the embedded LLM runtime (llama.cpp in-process) on a cached GGUF.
//! - prompt tokens/s and generated tokens/s, greedy, over a fixed set of prompts, median of runs;
//! - generated tokens/s when five choices are sampled at once (what the sanitizer's attacker asks);
//! - load time and peak RSS.
//!
//! It checks that greedy answers are identical from run to run and never empty.

use std::io::Write;
use std::time::Instant;

use kanon_llm::{ChatRequest, EmbeddedModel, EmbeddedOptions, Message, Timings};
use serde::Serialize;

use crate::resources::{gib, peak_rss_self};
use crate::{Result, check, median};

/// The knobs of `kanon bench llm` (threads: those of the global rayon pool, `kanon --threads N`).
#[derive(Debug, Clone)]
pub struct LlmBench {
    /// A model of the cache (`kanon models list`) or a `.gguf` file.
    pub model: String,
    /// Runs over the prompt set; medians are reported.
    pub runs: usize,
    /// The most tokens generated per answer.
    pub max_tokens: u32,
}

/// A fictional biography, long enough (~450 tokens with the instructions) to time prompt reading
/// the way the sanitizer's prompts will load it.
const BIOGRAPHY: &str = "Lilian Trosterud (born 5 August 1962 in Tromsø) is a Norwegian marine \
biologist and former politician for the Centre Party. She grew up on a fishing farm on the island of \
Kvaløya, where her father kept a small fleet of coastal boats, and she attended Tromsø Cathedral \
School before studying biology at the University of Bergen. Her doctoral thesis, defended in 1991, \
described the spawning migrations of Arctic cod along the coast of Finnmark and was supervised by \
the oceanographer Harald Sverdrup. From 1992 to 2004 she worked at the Institute of Marine Research \
in Bergen, leading a group that counted fish stocks in the Barents Sea together with Russian \
colleagues from Murmansk. In 2005 she was elected to the Storting for Troms, where she sat on the \
Standing Committee on Business and Industry and spoke mostly about fisheries quotas, coastal \
shipping and the rights of small-boat fishermen. She was re-elected in 2009 but left parliament in \
2013 to become director of the Polar Museum in Tromsø. Trosterud is married to the ceramicist Odd \
Eriksen; they have two daughters and live in a wooden house in the old town of Tromsø. She received \
the Fridtjof Nansen Award for Outstanding Research in 2001 and was appointed Knight of the First \
Class of the Order of St. Olav in 2016. She is a keen cross-country skier and has completed the \
Birkebeinerrennet fourteen times.";

fn prompts() -> Vec<Vec<Message>> {
    let system = Message::system("You are a helpful assistant.");
    vec![
        vec![
            system.clone(),
            Message::user("What is the capital of France?"),
        ],
        vec![
            system.clone(),
            Message::user("Write a short paragraph about the history of Norway."),
        ],
        vec![
            system.clone(),
            Message::user(
                "Give five ways to describe the city of Bergen, from the most specific to the most \
                 general, one per line.",
            ),
        ],
        vec![
            system,
            Message::user(format!(
                "Read this biography and answer: where did she study, and what did she study?\n\n{BIOGRAPHY}"
            )),
        ],
    ]
}

/// What `kanon bench llm` measured (serialised for `--json`).
#[derive(Debug, Serialize)]
pub struct Figures {
    model: String,
    threads: usize,
    runs: usize,
    max_tokens: u32,
    load_seconds: f64,
    prompts: usize,
    prompt_tokens_per_run: usize,
    generated_tokens_per_run: usize,
    /// Median over runs of (prompt tokens / prompt time), all prompts of a run together.
    prompt_tokens_per_second: f64,
    /// Median over runs of (generated tokens / generation time), greedy, one choice.
    generated_tokens_per_second: f64,
    /// The same with five choices sampled at once (temperature 0.8), tokens of all choices.
    generated_tokens_per_second_n5: f64,
    /// Creating the context (KV cache) of one request, median.
    setup_seconds_median: f64,
    peak_rss_bytes: u64,
}

/// Runs the benchmark, writing what it does and its figures to `out`.
pub fn run(args: &LlmBench, out: &mut dyn Write) -> Result<Figures> {
    check!(args.runs >= 1, "--runs must be at least 1");
    let path = kanon_llm::config::resolve_gguf(&args.model)?;
    // `kanon --threads N bench llm` sets the global pool; llama.cpp gets the same number.
    let threads = rayon::current_num_threads();
    let started = Instant::now();
    let model = EmbeddedModel::open_with(
        &path,
        EmbeddedOptions {
            threads: Some(threads),
            ..EmbeddedOptions::default()
        },
    )?;
    let load_seconds = started.elapsed().as_secs_f64();
    writeln!(
        out,
        "model {} ({:.1} MB), {threads} threads, loaded in {load_seconds:.2}s",
        path.display(),
        std::fs::metadata(&path).map_or(0.0, |m| m.len() as f64 / 1e6)
    )?;

    let prompts = prompts();
    let greedy = |messages: &Vec<Message>| {
        ChatRequest::new(messages.clone())
            .temperature(0.0)
            .max_tokens(args.max_tokens)
    };
    // Warm-up: page the weights in and let the CPU settle; not counted.
    model.chat_timed(&greedy(&prompts[0]).max_tokens(8))?;

    let mut prompt_rates = Vec::new();
    let mut generated_rates = Vec::new();
    let mut setups = Vec::new();
    let mut first_answers: Option<Vec<String>> = None;
    let mut per_run = Timings::default();
    for run in 0..args.runs {
        let mut total = Timings::default();
        let mut answers = Vec::new();
        for messages in &prompts {
            let (response, timings) = model.chat_timed(&greedy(messages))?;
            let text = response
                .choices
                .first()
                .map(|c| c.text.clone())
                .unwrap_or_default();
            check!(
                !text.trim().is_empty(),
                "an empty greedy answer in run {run}"
            );
            answers.push(text);
            setups.push(timings.setup_seconds);
            total.prompt_tokens += timings.prompt_tokens;
            total.prompt_seconds += timings.prompt_seconds;
            total.generated_tokens += timings.generated_tokens;
            total.generation_seconds += timings.generation_seconds;
        }
        match &first_answers {
            None => first_answers = Some(answers),
            Some(first) => check!(
                *first == answers,
                "greedy answers differ between run 0 and run {run}"
            ),
        }
        prompt_rates.push(total.prompt_tokens as f64 / total.prompt_seconds);
        generated_rates.push(total.generated_tokens as f64 / total.generation_seconds);
        writeln!(
            out,
            "run {run}: prompt {} tokens at {:.0} tok/s, generated {} tokens at {:.1} tok/s",
            total.prompt_tokens, prompt_rates[run], total.generated_tokens, generated_rates[run]
        )?;
        per_run = total;
    }

    let mut sampled_rates = Vec::new();
    for run in 0..args.runs {
        let request = greedy(&prompts[2]).n(5).temperature(0.8).seed(run as u64);
        let (_, timings) = model.chat_timed(&request)?;
        sampled_rates.push(timings.generated_tokens as f64 / timings.generation_seconds);
    }

    let figures = Figures {
        model: path.display().to_string(),
        threads,
        runs: args.runs,
        max_tokens: args.max_tokens,
        load_seconds,
        prompts: prompts.len(),
        prompt_tokens_per_run: per_run.prompt_tokens,
        generated_tokens_per_run: per_run.generated_tokens,
        prompt_tokens_per_second: median(&mut prompt_rates),
        generated_tokens_per_second: median(&mut generated_rates),
        generated_tokens_per_second_n5: median(&mut sampled_rates),
        setup_seconds_median: median(&mut setups),
        peak_rss_bytes: peak_rss_self().unwrap_or(0),
    };
    report(&figures, first_answers.as_deref().unwrap_or(&[]), out)?;
    Ok(figures)
}

fn report(f: &Figures, answers: &[String], out: &mut dyn Write) -> std::io::Result<()> {
    if let Some(answer) = answers.first() {
        writeln!(out, "first answer: {answer:?}")?;
    }
    writeln!(
        out,
        "prompt (median of {} runs)     {:.0} tokens/s ({} prompt tokens per run)",
        f.runs, f.prompt_tokens_per_second, f.prompt_tokens_per_run
    )?;
    writeln!(
        out,
        "generation, greedy (median)   {:.1} tokens/s ({} tokens per run, at most {} per answer)",
        f.generated_tokens_per_second, f.generated_tokens_per_run, f.max_tokens
    )?;
    writeln!(
        out,
        "generation, 5 choices at once {:.1} tokens/s (all choices' tokens)",
        f.generated_tokens_per_second_n5
    )?;
    writeln!(
        out,
        "context setup per request     {:.1} ms (median)",
        f.setup_seconds_median * 1e3
    )?;
    writeln!(
        out,
        "peak RSS                      {:.3} GiB",
        gib(f.peak_rss_bytes)
    )?;
    Ok(())
}
