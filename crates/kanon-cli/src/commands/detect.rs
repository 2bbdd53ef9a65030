//! `kanon detect`: the tagger's options (over a detect config file), or a detector that needs no
//! KG, into one [`kanon_detect::job::MethodJob`] run by [`kanon_detect::job::run`]. Which options
//! a detector takes is clap's to check: each detector is a subcommand with only its own.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};
use burn::tensor::Device;
use kanon_core::config::ConfigFile;
use kanon_detect::greedy::GreedySettings;
use kanon_detect::job::{Method, MethodJob};
use kanon_detect::reid::ReidModelJob;
use kanon_tagger::classifier::ClassifierConfig;
use kanon_tagger::detect::DetectConfig;

use crate::cli::{
    DetectArgs, DetectIoArgs, DetectMethod, IcThresholdArgs, ReidGreedyArgs, TaggerDetectArgs,
};
use crate::progress::Bars;

pub fn run(args: &DetectArgs, out: &mut dyn Write) -> Result<()> {
    // The detectors without a KG run on the CPU (the re-identification guide always does).
    let (job, device) = match &args.method {
        None => tagger_job(&args.tagger)?,
        Some(DetectMethod::Tagger(tagger)) => tagger_job(tagger)?,
        Some(DetectMethod::ReidGreedy(reid)) => (
            job(
                &reid.io,
                reid_greedy(reid)?,
                reid.background.background.clone(),
                reid.trace.clone(),
            )?,
            kanon_tagger::device::cpu(),
        ),
        Some(DetectMethod::IcThreshold(ic)) => (
            job(&ic.io, ic_threshold(ic)?, None, None)?,
            kanon_tagger::device::cpu(),
        ),
        Some(DetectMethod::Idf(idf)) => {
            let mut method = Method::idf();
            if let (Method::Idf { budget }, Some(wanted)) = (&mut method, idf.budget) {
                *budget = wanted;
            }
            let background = idf.background.clone();
            (
                job(&idf.io, method, background, None)?,
                kanon_tagger::device::cpu(),
            )
        }
        Some(DetectMethod::NerLexical(lexical)) => (
            job(
                &lexical.io,
                Method::NerLexical,
                lexical.background.background.clone(),
                None,
            )?,
            kanon_tagger::device::cpu(),
        ),
    };
    let bars = Bars::new();
    let summary = kanon_detect::job::run(&job, &device, &bars)?;
    bars.finish();
    write!(out, "{}", summary.render())?;
    Ok(())
}

fn reid_greedy(reid: &ReidGreedyArgs) -> Result<Method> {
    let defaults = GreedySettings::default();
    let mut config = ClassifierConfig {
        word_masks: true,
        ..ClassifierConfig::default()
    };
    if let Some(epochs) = reid.reid_epochs {
        config.epochs = epochs;
    }
    Ok(Method::ReidGreedy {
        model: ReidModelJob {
            checkpoint: required(&reid.reid_model, "--reid-model")?,
            pretrained: kanon_models::DEFAULT_ENCODER.into(),
            config,
            precision: Default::default(),
        },
        search: GreedySettings {
            top_k: reid.top_k.unwrap_or(defaults.top_k),
            max_share: reid.max_share.unwrap_or(defaults.max_share),
            shortlist: reid.shortlist.unwrap_or(defaults.shortlist),
        },
    })
}

fn ic_threshold(ic: &IcThresholdArgs) -> Result<Method> {
    let mut method = Method::ic_threshold();
    if let Method::IcThreshold { p, llm } = &mut method {
        *p = ic.min_probability.unwrap_or(*p);
        *llm = super::shared::llm_config(&ic.llm)?;
    }
    Ok(method)
}

/// A detector without a KG over `--docs` into `--out` (spans JSONL, the whole input).
fn job(
    io: &DetectIoArgs,
    method: Method,
    background: Option<PathBuf>,
    trace: Option<PathBuf>,
) -> Result<MethodJob> {
    let (docs, out) = io_paths(io)?;
    Ok(MethodJob {
        docs,
        out,
        background,
        method,
        trace,
        format: Default::default(),
        shard: None,
    })
}

/// The tagger's job (its options over `--config`) and the device it runs on.
fn tagger_job(args: &TaggerDetectArgs) -> Result<(MethodJob, Device)> {
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
    if args.precision.is_some() {
        config.precision = args.precision;
    }
    if let Some(confidence) = args.person_confidence {
        config.person_confidence = confidence;
    }
    if let Some(min_score) = args.min_score {
        config.min_score = min_score;
    }
    if let Some(min_score) = args.lowercase_min_score {
        config.lowercase_min_score = min_score;
    }
    if let Some(words) = args.lowercase_words {
        config.lowercase_words = words;
    }
    config.validate().map_err(anyhow::Error::msg)?;
    let (docs, out) = io_paths(&args.io)?;
    let job = MethodJob {
        docs,
        out,
        background: None,
        method: Method::Tagger {
            model: Some(required(&args.model, "--model")?),
            config,
        },
        trace: None,
        format: args.export.unwrap_or_default(),
        shard: args.shard,
    };
    let device = args.device.resolve()?;
    super::shared::announce_device("detecting", &device);
    Ok((job, device))
}

/// `--docs` and `--out`, which clap requires of every detector.
fn io_paths(io: &DetectIoArgs) -> Result<(PathBuf, PathBuf)> {
    Ok((required(&io.docs, "--docs")?, required(&io.out, "--out")?))
}

/// An option clap requires (so absent only where clap let a subcommand stand in for it).
fn required(value: &Option<PathBuf>, option: &str) -> Result<PathBuf> {
    value
        .clone()
        .with_context(|| format!("{option} is required"))
}
