//! What several subcommands share: resolving the LLM, attacker and TPS options, Ctrl-C, and
//! printing a report.

use std::io::Write;

use anyhow::Result;
use serde::Serialize;

/// A flag the first Ctrl-C sets, for a command that stops after the step or document in flight
/// and keeps its work; a second Ctrl-C quits at once.
pub(super) fn stop_on_ctrl_c() -> Result<std::sync::Arc<std::sync::atomic::AtomicBool>> {
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
pub(super) fn print_report<T: Serialize>(
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
pub(super) fn neural_attacker(
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
        precision: args.neural_precision,
    }))
}

/// The language model the options name: `--llm` (a config file, a URL or `embedded`), its
/// `--llm-model` and `--llm-threads`.
pub(super) fn llm_config(args: &crate::cli::LlmArgs) -> Result<kanon_llm::LlmConfig> {
    let llm = kanon_llm::LlmConfig::resolve(&args.llm, args.llm_model.as_deref())?;
    Ok(match args.llm_threads {
        Some(threads) => llm.with_threads(threads),
        None => llm,
    })
}

/// The generator of a generalizing strategy the options name: none for `--llm none` (kanon's
/// hierarchies and, with an index, the KG attacker alone) or a strategy that generalizes nothing
/// (a masking strategy opens no model, so its `--llm` is never read).
pub(super) fn generator_config(
    args: &crate::cli::LlmArgs,
    strategy: kanon_sanitize::Strategy,
) -> Result<Option<kanon_llm::LlmConfig>> {
    if !strategy.generalizes() || args.llm == "none" {
        return Ok(None);
    }
    llm_config(args).map(Some)
}

/// The TPS models the options name.
pub(super) fn tps_models(args: &crate::cli::TpsModelArgs) -> Result<kanon_eval::job::TpsModels> {
    Ok(kanon_eval::job::TpsModels {
        llm: llm_config(&args.llm)?,
        encoder: args.encoder.clone(),
        information: args.tps_information,
    })
}

/// Who each attacked document is about, from `--truth`: a JSON file mapping ids to names when
/// it names a file, else a field of the records; the id itself without it.
pub(super) fn truth(truth: Option<&str>) -> kanon_eval::job::Truth {
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
pub(super) fn announce_device(action: &str, device: &burn::tensor::Device) {
    #[allow(clippy::print_stderr)]
    {
        eprintln!("{action} on {}", kanon_tagger::device::describe(device));
    }
}
