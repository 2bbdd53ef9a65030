//! `kanon detect`: the tagger's options (over a detect config file) into a
//! [`kanon_tagger::DetectJob`], or a detector that needs no KG into a
//! [`kanon_detect::job::MethodJob`]. Which options a detector takes is clap's to check: each
//! detector is a subcommand with only its own.

use std::io::Write;

use anyhow::{Context, Result};
use kanon_core::config::ConfigFile;
use kanon_detect::greedy::GreedySettings;
use kanon_detect::job::{Method, MethodJob, run as detect_with_method};
use kanon_detect::reid::ReidModelJob;
use kanon_tagger::classifier::ClassifierConfig;
use kanon_tagger::detect::{DetectConfig, DetectJob, run as detect};

use crate::cli::{DetectArgs, DetectIoArgs, DetectMethod, TaggerDetectArgs};
use crate::progress::Bars;

pub fn run(args: &DetectArgs, out: &mut dyn Write) -> Result<()> {
    let (io, method, background, trace) = match &args.method {
        None => return run_tagger(&args.tagger, out),
        Some(DetectMethod::Tagger(tagger)) => return run_tagger(tagger, out),
        Some(DetectMethod::ReidGreedy(reid)) => {
            let defaults = GreedySettings::default();
            let mut config = ClassifierConfig {
                word_masks: true,
                ..ClassifierConfig::default()
            };
            if let Some(epochs) = reid.reid_epochs {
                config.epochs = epochs;
            }
            let method = Method::ReidGreedy {
                model: ReidModelJob {
                    checkpoint: required(&reid.reid_model, "--reid-model")?,
                    pretrained: kanon_models::DEFAULT_ENCODER.into(),
                    config,
                },
                search: GreedySettings {
                    top_k: reid.top_k.unwrap_or(defaults.top_k),
                    max_share: reid.max_share.unwrap_or(defaults.max_share),
                    shortlist: reid.shortlist.unwrap_or(defaults.shortlist),
                },
            };
            let background = reid.background.background.clone();
            (&reid.io, method, background, reid.trace.clone())
        }
        Some(DetectMethod::IcThreshold(ic)) => {
            let mut method = Method::ic_threshold();
            if let Method::IcThreshold { p, llm } = &mut method {
                *p = ic.min_probability.unwrap_or(*p);
                *llm = super::shared::llm_config(&ic.llm)?;
            }
            (&ic.io, method, None, None)
        }
        Some(DetectMethod::Idf(idf)) => {
            let mut method = Method::idf();
            if let (Method::Idf { budget }, Some(wanted)) = (&mut method, idf.budget) {
                *budget = wanted;
            }
            (&idf.io, method, idf.background.clone(), None)
        }
        Some(DetectMethod::NerLexical(lexical)) => (
            &lexical.io,
            Method::NerLexical,
            lexical.background.background.clone(),
            None,
        ),
    };
    let (docs, spans) = io_paths(io)?;
    let job = MethodJob {
        docs,
        out: spans,
        background,
        method,
        trace,
    };
    let bars = Bars::new();
    let summary = detect_with_method(&job, &bars)?;
    bars.finish();
    write!(out, "{}", summary.render())?;
    Ok(())
}

fn run_tagger(args: &TaggerDetectArgs, out: &mut dyn Write) -> Result<()> {
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
    let (docs, spans) = io_paths(&args.io)?;
    let job = DetectJob {
        model: required(&args.model, "--model")?,
        docs,
        out: spans,
        format: args.export.unwrap_or_default(),
        config,
        shard: args.shard,
    };
    let device = args.device.resolve()?;
    let bars = Bars::new();
    super::shared::announce_device("detecting", &device);
    let summary = detect(&job, &device, &bars)?;
    bars.finish();
    write!(out, "{}", summary.render())?;
    Ok(())
}

/// `--docs` and `--out`, which clap requires of every detector.
fn io_paths(io: &DetectIoArgs) -> Result<(std::path::PathBuf, std::path::PathBuf)> {
    Ok((required(&io.docs, "--docs")?, required(&io.out, "--out")?))
}

/// An option clap requires (so absent only where clap let a subcommand stand in for it).
fn required(value: &Option<std::path::PathBuf>, option: &str) -> Result<std::path::PathBuf> {
    value
        .clone()
        .with_context(|| format!("{option} is required"))
}
