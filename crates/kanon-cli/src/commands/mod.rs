//! One file per subcommand: each resolves its settings and calls a library crate.

use std::io::Write;

use anyhow::Result;
use serde::Serialize;

use crate::cli::{BenchCommand, Cli, Command, EvalCommand, IndexCommand, KgCommand, LabelCommand};

mod bench_index;
mod bench_label;
mod bench_llm;
mod bench_tagger;
mod detect;
mod eval_privacy;
mod eval_report;
mod eval_spans;
mod eval_tab;
mod eval_utility;
mod index_build;
mod index_lookup;
mod index_match;
mod index_query;
mod index_stats;
mod kg_derive;
mod kg_import;
mod kg_synth;
mod label;
mod label_explain;
mod merge;
mod models;
mod quickstart;
mod run;
mod sanitize;
mod train;

pub fn run(cli: Cli) -> Result<()> {
    if let Some(threads) = cli.threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build_global()?;
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match cli.command {
        Command::Kg(KgCommand::Import(args)) => kg_import::run(&args, &mut out),
        Command::Kg(KgCommand::Synth(args)) => kg_synth::run(&args, &mut out),
        Command::Kg(KgCommand::Derive(args)) => kg_derive::run(&args, &mut out),
        Command::Index(IndexCommand::Build(args)) => index_build::run(&args, &mut out),
        Command::Index(IndexCommand::Query(args)) => index_query::run(&args, &mut out),
        Command::Index(IndexCommand::Stats(args)) => index_stats::run(&args, &mut out),
        Command::Index(IndexCommand::Match(args)) => index_match::run(&args, &mut out),
        Command::Index(IndexCommand::Lookup(args)) => index_lookup::run(&args, &mut out),
        Command::Label(args) => match &args.command {
            Some(LabelCommand::Explain(explain)) => label_explain::run(explain, &mut out),
            None => label::run(&args.run, &mut out),
        },
        Command::Models(command) => models::run(&command, &mut out),
        Command::Train(args) => train::run(&args, &mut out),
        Command::Detect(args) => detect::run(&args, &mut out),
        Command::Merge(args) => merge::run(&args, &mut out),
        Command::Sanitize(args) => sanitize::run(&args, &mut out),
        Command::Eval(EvalCommand::Spans(args)) => eval_spans::run(&args, &mut out),
        Command::Eval(EvalCommand::Tab(args)) => eval_tab::run(&args, &mut out),
        Command::Eval(EvalCommand::Privacy(args)) => eval_privacy::run(&args, &mut out),
        Command::Eval(EvalCommand::Utility(args)) => eval_utility::run(&args, &mut out),
        Command::Eval(EvalCommand::Report(args)) => eval_report::run(&args, &mut out),
        Command::Bench(BenchCommand::Index(args)) => bench_index::run(&args, &mut out),
        Command::Bench(BenchCommand::Label(args)) => bench_label::run(&args, &mut out),
        Command::Bench(BenchCommand::Llm(args)) => bench_llm::run(&args, &mut out),
        Command::Bench(BenchCommand::Tagger(args)) => bench_tagger::run(&args, &mut out),
        Command::Run(args) => run::run(&args, &mut out),
        Command::Quickstart(args) => quickstart::run(&args, &mut out),
    }?;
    out.flush()?;
    Ok(())
}

/// A flag the first Ctrl-C sets, for a command that stops after the step or document in flight
/// and keeps its work; a second Ctrl-C quits at once.
fn stop_on_ctrl_c() -> Result<std::sync::Arc<std::sync::atomic::AtomicBool>> {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    ctrlc::set_handler(move || {
        if flag.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
    })
    .map_err(|e| anyhow::anyhow!("installing the Ctrl-C handler: {e}"))?;
    Ok(stop)
}

/// Writes a report as pretty JSON (`--json`) or as `rendered`, what a person reads.
fn print_report<T: Serialize>(
    out: &mut dyn Write,
    json: bool,
    report: &T,
    rendered: impl FnOnce(&T) -> String,
) -> Result<()> {
    if json {
        serde_json::to_writer_pretty(&mut *out, report)?;
        writeln!(out)?;
    } else {
        write!(out, "{}", rendered(report))?;
    }
    Ok(())
}

/// The neural attacker the options name, if any.
fn neural_attacker(
    args: &crate::cli::NeuralAttackerArgs,
) -> Result<Option<kanon_eval::privacy::NeuralAttackerJob>> {
    use kanon_core::config::ConfigFile;
    let Some(checkpoint) = &args.neural else {
        return Ok(None);
    };
    let mut config = match &args.neural_config {
        Some(path) => kanon_tagger::classifier::ClassifierConfig::load(path)?,
        None => kanon_tagger::classifier::ClassifierConfig::default(),
    };
    if let Some(epochs) = args.neural_epochs {
        config.epochs = epochs;
    }
    Ok(Some(kanon_eval::privacy::NeuralAttackerJob {
        checkpoint: checkpoint.clone(),
        pretrained: args.neural_pretrained.clone(),
        config,
    }))
}

/// The language model the options name: `--llm` (a config file, a URL or `embedded`), its
/// `--llm-model` and `--llm-threads`.
fn llm_config(args: &crate::cli::LlmArgs) -> Result<kanon_llm::LlmConfig> {
    let llm = kanon_llm::LlmConfig::resolve(&args.llm, args.llm_model.as_deref())?;
    Ok(match args.llm_threads {
        Some(threads) => llm.with_threads(threads),
        None => llm,
    })
}

/// The TPS models the options name.
fn tps_models(args: &crate::cli::TpsModelArgs) -> Result<kanon_eval::job::TpsModels> {
    Ok(kanon_eval::job::TpsModels {
        llm: llm_config(&args.llm)?,
        encoder: args.encoder.clone(),
    })
}

/// Who each attacked document is about, from `--truth`: a JSON file mapping ids to names when
/// it names a file, else a field of the records; the id itself without it.
fn truth(truth: Option<&str>) -> kanon_eval::job::Truth {
    use kanon_eval::job::Truth;
    match truth {
        None => Truth::Id,
        Some(map) if std::path::Path::new(map).is_file() => Truth::Map { path: map.into() },
        Some(field) => Truth::Field {
            field: field.to_owned(),
        },
    }
}

/// Where the model runs, on stderr before the work starts (stdout is the command's report, and
/// the progress bars are hidden where stderr is not a terminal).
fn announce_device(action: &str, device: &burn::tensor::Device) {
    #[allow(clippy::print_stderr)]
    {
        eprintln!("{action} on {}", kanon_tagger::device::describe(device));
    }
}
