use std::io::Write;

use anyhow::{Context, Result, bail};
use kanon_core::config::ConfigFile;
use kanon_detect::greedy::GreedySettings;
use kanon_detect::job::{Method, MethodJob, MethodName, run as detect_with_method};
use kanon_detect::reid::ReidModelJob;
use kanon_tagger::classifier::ClassifierConfig;
use kanon_tagger::detect::{DetectConfig, DetectJob, run as detect};
use kanon_tagger::device::DeviceChoice;

use crate::cli::DetectArgs;
use crate::progress::Bars;

pub fn run(args: &DetectArgs, out: &mut dyn Write) -> Result<()> {
    check_method_options(args)?;
    if args.method != MethodName::Tagger {
        return run_method(args, out);
    }
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
    let job = DetectJob {
        model: args
            .model
            .clone()
            .context("the tagger needs its checkpoint: --model DIR")?,
        docs: args.docs.clone(),
        out: args.out.clone(),
        format: args.export.unwrap_or_default(),
        config,
        shard: args.shard,
    };
    let device = args.device.resolve()?;
    let bars = Bars::new();
    super::announce_device("detecting", &device);
    let summary = detect(&job, &device, &bars)?;
    bars.finish();
    write!(out, "{}", summary.render())?;
    Ok(())
}

/// Options of one method given to another are refused, not ignored.
fn check_method_options(args: &DetectArgs) -> Result<()> {
    use MethodName::{IcThreshold, Idf, ReidGreedy};
    let owned_by = [
        ("--top-k", args.top_k.is_some(), ReidGreedy),
        ("--max-share", args.max_share.is_some(), ReidGreedy),
        ("--shortlist", args.shortlist.is_some(), ReidGreedy),
        ("--reid-model", args.reid_model.is_some(), ReidGreedy),
        ("--reid-epochs", args.reid_epochs.is_some(), ReidGreedy),
        ("--trace", args.trace.is_some(), ReidGreedy),
        ("--p", args.min_probability.is_some(), IcThreshold),
        ("--llm", args.llm != "embedded", IcThreshold),
        ("--llm-model", args.llm_model.is_some(), IcThreshold),
        ("--llm-threads", args.llm_threads.is_some(), IcThreshold),
        ("--budget", args.budget.is_some(), Idf),
    ];
    if args.method != MethodName::Tagger && args.device != DeviceChoice::Auto {
        bail!(
            "--device is an option of --method tagger; --method {} runs on the CPU",
            args.method
        );
    }
    if let Some((option, _, owner)) = owned_by
        .iter()
        .find(|(_, given, owner)| *given && *owner != args.method)
    {
        bail!(
            "{option} is an option of --method {owner}, not of --method {}",
            args.method
        );
    }
    Ok(())
}

/// A detector without a KG (`--method` other than `tagger`).
fn run_method(args: &DetectArgs, out: &mut dyn Write) -> Result<()> {
    let tagger_only = [
        ("--model", args.model.is_some()),
        ("--config", args.config.is_some()),
        ("--export", args.export.is_some()),
        ("--threshold", args.threshold.is_some()),
        ("--raw-spans", args.raw_spans),
        ("--token-budget", args.token_budget.is_some()),
        ("--person-confidence", args.person_confidence.is_some()),
        ("--min-score", args.min_score.is_some()),
        ("--lowercase-min-score", args.lowercase_min_score.is_some()),
        ("--lowercase-words", args.lowercase_words.is_some()),
        ("--shard", args.shard.is_some()),
    ];
    if let Some((option, _)) = tagger_only.iter().find(|(_, given)| *given) {
        bail!(
            "{option} is an option of the tagger, not of --method {}",
            args.method
        );
    }

    let method = match args.method {
        MethodName::Tagger => unreachable!("handled by the caller"),
        MethodName::ReidGreedy => {
            let defaults = GreedySettings::default();
            let mut config = ClassifierConfig {
                word_masks: true,
                ..ClassifierConfig::default()
            };
            if let Some(epochs) = args.reid_epochs {
                config.epochs = epochs;
            }
            Method::ReidGreedy {
                model: ReidModelJob {
                    checkpoint: args
                        .reid_model
                        .clone()
                        .context("reid-greedy needs its model's checkpoint: --reid-model DIR")?,
                    pretrained: "all-minilm-l6-v2".into(),
                    config,
                },
                search: GreedySettings {
                    top_k: args.top_k.unwrap_or(defaults.top_k),
                    max_share: args.max_share.unwrap_or(defaults.max_share),
                    shortlist: args.shortlist.unwrap_or(defaults.shortlist),
                },
            }
        }
        MethodName::IcThreshold => {
            let llm = kanon_llm::LlmConfig::resolve(&args.llm, args.llm_model.as_deref())?;
            Method::IcThreshold {
                p: args.min_probability.unwrap_or(1e-5),
                llm: match args.llm_threads {
                    Some(threads) => llm.with_threads(threads),
                    None => llm,
                },
            }
        }
        MethodName::Idf => Method::Idf {
            budget: args.budget.unwrap_or(0.3),
        },
        MethodName::NerLexical => Method::NerLexical,
    };
    let job = MethodJob {
        docs: args.docs.clone(),
        out: args.out.clone(),
        background: args.background.clone(),
        method,
        trace: args.trace.clone(),
    };
    let bars = Bars::new();
    let summary = detect_with_method(&job, &bars)?;
    bars.finish();
    write!(out, "{}", summary.render())?;
    Ok(())
}
