use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{Context, Result, bail};
use kanon_tagger::LabelScheme;
use kanon_tagger::train::{TrainConfig, TrainOptions, resume_dir, train};

use crate::cli::TrainArgs;
use crate::progress::Bars;

pub fn run(args: &TrainArgs, out: &mut dyn Write) -> Result<()> {
    let mut config: TrainConfig = match &args.config {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading {}", path.display()))?;
            let mut value: serde_json::Value = serde_json::to_value(TrainConfig::default())?;
            let overrides: serde_json::Value = serde_json::from_str(&text)
                .with_context(|| format!("{}: not JSON", path.display()))?;
            if let (Some(base), Some(extra)) = (value.as_object_mut(), overrides.as_object()) {
                for (k, v) in extra {
                    if !base.contains_key(k) {
                        bail!("{}: unknown field {k:?}", path.display());
                    }
                    base.insert(k.clone(), v.clone());
                }
            }
            serde_json::from_value(value)
                .with_context(|| format!("{}: invalid field value", path.display()))?
        }
        None => TrainConfig::default(),
    };
    if let Some(epochs) = args.epochs {
        config.epochs = epochs;
    }
    if args.max_steps.is_some() {
        config.max_steps = args.max_steps;
    }
    if let Some(every) = args.checkpoint_every {
        config.checkpoint_every = every;
    }
    if let Some(seed) = args.seed {
        config.seed = seed;
    }
    if let Some(scheme) = &args.scheme {
        config.scheme = match scheme.as_str() {
            "typed" => LabelScheme::Typed,
            "mask" => LabelScheme::Mask,
            other => bail!("unknown --scheme {other:?} (expected typed or mask)"),
        };
    }
    let pretrained = resolve_pretrained(&args.pretrained)?;
    // The first Ctrl-C asks the run to save its state and stop after the step in flight; a
    // second one quits at once.
    let interrupted = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&interrupted);
    ctrlc::set_handler(move || {
        if flag.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
    })
    .context("installing the Ctrl-C handler")?;
    let should_stop = move |_step: usize| interrupted.load(Ordering::SeqCst);
    let options = TrainOptions {
        resume: args.resume,
        should_stop: Some(&should_stop),
    };
    let bars = Bars::new();
    let report = train(
        &pretrained,
        &args.corpus,
        &args.out,
        &config,
        &options,
        &bars,
    )
    .with_context(|| format!("training on {}", args.corpus.display()))?;
    bars.finish();
    if report.interrupted {
        writeln!(
            out,
            "interrupted after step {}: state saved in {}; continue with the same command and --resume",
            report.steps,
            resume_dir(&args.out).display()
        )?;
        return Ok(());
    }
    writeln!(
        out,
        "trained {} steps ({} epochs, {} windows) in {:.0}s, {:.0} tokens/s; loss {:.3} -> {:.3}; dev F1 by epoch {:?}; best {:.3} -> {}",
        report.steps,
        report.epochs_run,
        report.train_examples,
        report.seconds,
        report.tokens_per_second,
        report.first_loss,
        report.last_loss,
        report
            .dev_f1_by_epoch
            .iter()
            .map(|f| (f * 1000.0).round() / 1000.0)
            .collect::<Vec<_>>(),
        report.best_dev_f1,
        args.out.display()
    )?;
    Ok(())
}

/// A cached model's name, or a checkpoint directory.
pub fn resolve_pretrained(name_or_dir: &str) -> Result<PathBuf> {
    let dir = PathBuf::from(name_or_dir);
    if dir.join("config.json").exists() {
        return Ok(dir);
    }
    let spec = kanon_models::spec(name_or_dir)?;
    kanon_models::Cache::from_env().find(spec).with_context(|| {
        format!("{name_or_dir} is not cached: run `kanon models fetch {name_or_dir}`")
    })
}
