//! `kanon sanitize`: settings from the options (over a config file) into a
//! [`kanon_sanitize::SanitizeJob`]. Original span text is never printed: the summary has counts
//! and times only.

use std::io::Write;
use std::sync::atomic::Ordering;

use anyhow::Result;
use kanon_core::config::ConfigFile;
use kanon_llm::ResponseCache;
use kanon_sanitize::{SanitizeJob, SanitizerConfig, SpanSource};

use crate::cli::SanitizeArgs;
use crate::progress::Bars;

pub fn run(args: &SanitizeArgs, out: &mut dyn Write) -> Result<()> {
    let mut settings = args.settings.clone();
    let sanitizer = &mut settings.sanitizer;
    if let Some(path) = &args.config {
        *sanitizer = SanitizerConfig::load(path)?;
    }
    sanitizer.strategy = args.strategy.unwrap_or(sanitizer.strategy);
    sanitizer.candidates = args.candidates.unwrap_or(sanitizer.candidates);
    sanitizer.attacker_guesses = args.guesses.unwrap_or(sanitizer.attacker_guesses);
    sanitizer.seed = args.seed.unwrap_or(sanitizer.seed);
    sanitizer.max_tokens = args.max_tokens.unwrap_or(sanitizer.max_tokens);
    sanitizer.temperature = args.temperature.unwrap_or(sanitizer.temperature);
    let strategy = sanitizer.strategy;
    settings.llm = super::shared::generator_config(&args.llm, strategy)?;
    // Only INTACT attacks; a separate attacker is opened only then.
    if let (Some(spec), kanon_sanitize::Strategy::Intact) = (&args.attacker_llm, strategy) {
        settings.attacker_llm = Some(super::shared::llm_config(&crate::cli::LlmArgs {
            llm: spec.clone(),
            llm_model: args.attacker_model.clone(),
            llm_threads: args.llm.llm_threads,
        })?);
    }
    settings.cache = ResponseCache::from_cli(args.cache.as_deref(), args.no_cache);
    let job = SanitizeJob {
        docs: args.docs.clone(),
        spans: match &args.spans {
            Some(path) => SpanSource::File { path: path.clone() },
            None => SpanSource::Gold,
        },
        out: args.out.clone(),
        audit: args.audit.clone(),
        summary: args.summary.clone(),
        texts: args.texts.clone().or_else(|| {
            // Plain text in, plain text out: `out.jsonl` keeps the edits, `out/` the texts.
            kanon_core::io::is_plain_text_input(&args.docs).then(|| {
                let dir = args.out.with_extension("");
                if dir == args.out {
                    kanon_core::io::with_suffix(&args.out, ".texts")
                } else {
                    dir
                }
            })
        }),
        settings,
    };
    // The first Ctrl-C stops after the document in flight (the finished ones stay in
    // OUT.partial, and a rerun resumes after them); a second one quits at once.
    let stop = super::shared::stop_on_ctrl_c()?;
    let should_stop = move || stop.load(Ordering::SeqCst);
    let bars = Bars::new();
    let summary = kanon_sanitize::job::run_until(&job, &bars, &should_stop)?;
    bars.finish();
    write!(out, "{}", summary.render())?;
    writeln!(out, "-> {}", args.out.display())?;
    Ok(())
}
