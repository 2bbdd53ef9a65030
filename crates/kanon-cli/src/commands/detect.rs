use std::io::Write;

use anyhow::Result;
use kanon_core::config::ConfigFile;
use kanon_tagger::detect::{DetectConfig, DetectJob, run as detect};

use crate::cli::DetectArgs;
use crate::progress::Bars;

pub fn run(args: &DetectArgs, out: &mut dyn Write) -> Result<()> {
    let mut config = match &args.config {
        Some(path) => DetectConfig::load(path)?,
        None => DetectConfig::default(),
    };
    if args.threshold.is_some() {
        config.threshold = args.threshold;
    }
    if args.raw_spans {
        config.tidy = false;
    }
    if let Some(budget) = args.token_budget {
        config.token_budget = budget;
    }
    if let Some(confidence) = args.person_confidence {
        config.person_confidence = confidence;
    }
    config.validate().map_err(anyhow::Error::msg)?;
    let job = DetectJob {
        model: args.model.clone(),
        docs: args.docs.clone(),
        out: args.out.clone(),
        format: args.export.unwrap_or_default(),
        config,
        shard: args.shard,
    };
    let bars = Bars::new();
    let summary = detect(&job, &bars)?;
    bars.finish();
    write!(out, "{}", summary.render())?;
    Ok(())
}
