use std::io::Write;
use std::sync::atomic::Ordering;

use anyhow::Result;
use kanon_core::config::ConfigFile;
use kanon_tagger::train::{TrainConfig, TrainJob, TrainOptions, run as train};

use crate::cli::TrainArgs;
use crate::progress::Bars;

pub fn run(args: &TrainArgs, out: &mut dyn Write) -> Result<()> {
    let mut config = match &args.config {
        Some(path) => TrainConfig::load(path)?,
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
    if let Some(scheme) = args.scheme {
        config.scheme = scheme;
    }
    if args.student_layers.is_some() {
        config.student_layers = args.student_layers;
    }
    config
        .check()
        .map_err(|problem| anyhow::anyhow!("training config: {problem}"))?;
    let job = TrainJob {
        pretrained: args.pretrained.clone(),
        corpus: args.corpus.clone(),
        out: args.out.clone(),
        config,
    };
    // The first Ctrl-C asks the run to save its state and stop after the step in flight; a
    // second one quits at once.
    let interrupted = super::shared::stop_on_ctrl_c()?;
    let should_stop = move |_step: usize| interrupted.load(Ordering::SeqCst);
    let device = args.device.resolve()?;
    let options = TrainOptions {
        device,
        resume: args.resume,
        should_stop: Some(&should_stop),
    };
    let bars = Bars::new();
    super::shared::announce_device("training", &options.device);
    let report = train(&job, &options, &bars)?;
    bars.finish();
    write!(out, "{}", report.render(&args.out))?;
    Ok(())
}
