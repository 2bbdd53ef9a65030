//! `kanon certify`: options (over a sanitizer config and a gate config) into a
//! [`kanon_gate::GateJob`]. Prints the summary table: counts, rates and ids, never text.

use std::io::Write;
use std::sync::atomic::Ordering;

use anyhow::Result;
use kanon_core::config::ConfigFile;
use kanon_eval::job::Truth;
use kanon_eval::privacy::NeuralAttackerJob;
use kanon_gate::{BackgroundSource, GateConfig, GateJob};
use kanon_llm::ResponseCache;
use kanon_sanitize::{SanitizeSettings, SanitizerConfig, SpanSource};

use crate::cli::CertifyArgs;
use crate::progress::Bars;

pub fn run(args: &CertifyArgs, out: &mut dyn Write) -> Result<()> {
    let mut sanitize = SanitizeSettings::default();
    if let Some(path) = &args.config {
        sanitize.sanitizer = SanitizerConfig::load(path)?;
    }
    sanitize.sanitizer.strategy = args.strategy.unwrap_or(sanitize.sanitizer.strategy);
    // The sanitizer's KG attacker reads the gate's index.
    sanitize.index = args.index.clone();
    sanitize.llm = super::shared::generator_config(&args.llm, sanitize.sanitizer.strategy)?;
    sanitize.cache = ResponseCache::from_cli(args.cache.as_deref(), args.no_cache);
    sanitize.limit = args.limit;
    let mut gate = match &args.gate_config {
        Some(path) => GateConfig::load(path)?,
        None => GateConfig::default(),
    };
    if let Some(attackers) = &args.attackers {
        gate.attackers = attackers.clone();
    }
    gate.k = args.k.unwrap_or(gate.k);
    gate.max_arity = args.max_arity.unwrap_or(gate.max_arity);
    gate.top_k = args.top_k.unwrap_or(gate.top_k);
    gate.max_words_changed = args.max_words_changed.unwrap_or(gate.max_words_changed);
    gate.validate().map_err(anyhow::Error::msg)?;
    let job = GateJob {
        docs: args.docs.clone(),
        spans: match &args.spans {
            Some(path) => SpanSource::File { path: path.clone() },
            None => SpanSource::Gold,
        },
        certificates: args
            .certificates
            .clone()
            .unwrap_or_else(|| args.out.with_extension("certificates.jsonl")),
        out: args.out.clone(),
        summary: args.summary.clone(),
        index: args.index.clone(),
        background: match (&args.background, &args.background_kg) {
            (Some(path), _) => Some(BackgroundSource::Texts { path: path.clone() }),
            (None, Some(dir)) => Some(BackgroundSource::Kg { dir: dir.clone() }),
            (None, None) => None,
        },
        truth: if args.person_field || args.background_kg.is_some() {
            Truth::Field {
                field: "person".into(),
            }
        } else {
            Truth::Id
        },
        neural: args.neural.as_ref().map(|checkpoint| NeuralAttackerJob {
            checkpoint: checkpoint.clone(),
            pretrained: kanon_models::DEFAULT_ENCODER.into(),
            config: Default::default(),
            precision: args.neural_precision,
        }),
        gate,
        sanitize,
    };
    // The first Ctrl-C stops after the batch in flight (finished documents stay in
    // OUT.partial); a second one quits at once.
    let stop = super::shared::stop_on_ctrl_c()?;
    let should_stop = move || stop.load(Ordering::SeqCst);
    let bars = Bars::new();
    let summary = kanon_gate::job::run_until(&job, &bars, &should_stop)?;
    bars.finish();
    write!(out, "{}", summary.render())?;
    writeln!(
        out,
        "-> {} (certificates: {})",
        args.out.display(),
        job.certificates.display()
    )?;
    if args.fail_on_unsafe {
        kanon_gate::job::unsafe_documents(&summary)?;
    }
    Ok(())
}
