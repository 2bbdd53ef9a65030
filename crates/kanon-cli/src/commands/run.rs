//! `kanon run`: a run config into a [`kanon_pipeline::Pipeline`], its events shown as lines for a
//! person or as JSON for a script.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{Context, Result};
use kanon_core::{NoProgress, Progress};
use kanon_pipeline::{Event, Pipeline, RunConfig, RunOptions, Stage};
use serde_json::json;

use crate::cli::{LogFormat, RunArgs};
use crate::progress::Bars;

pub fn run(args: &RunArgs, out: &mut dyn Write) -> Result<()> {
    let config = RunConfig::load_with(&args.config, &args.overrides)?;
    let dir = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("runs").join(config.name.as_deref().unwrap_or("run")));
    let pipeline = Pipeline::new(config, &dir)
        .with_context(|| format!("checking {}", args.config.display()))?;

    // At the first Ctrl-C, training saves its state after the step in flight and sanitization
    // stops after the document in flight; the other stages are short and atomic (labeling keeps
    // its shards), so Ctrl-C quits at once there, as does a second Ctrl-C.
    let graceful = Arc::new(AtomicBool::new(false));
    let stop = Arc::new(AtomicBool::new(false));
    {
        let (graceful, stop) = (Arc::clone(&graceful), Arc::clone(&stop));
        ctrlc::set_handler(move || {
            if !graceful.load(Ordering::SeqCst) || stop.swap(true, Ordering::SeqCst) {
                std::process::exit(130);
            }
        })
        .context("installing the Ctrl-C handler")?;
    }
    let should_stop = move || stop.load(Ordering::SeqCst);
    let options = RunOptions {
        from: args.from,
        until: args.until,
        force: args.force,
        should_stop: Some(&should_stop),
        device: args.device,
    };

    let bars = (!args.quiet && args.log_format == LogFormat::Text).then(Bars::new);
    let progress: &dyn Progress = match &bars {
        Some(bars) => bars,
        None => &NoProgress,
    };
    let mut failed_write = None;
    let mut on_event = |event: &Event<'_>| {
        if let Event::Started { stage, .. } = event {
            graceful.store(
                matches!(stage, Stage::Train | Stage::Sanitize),
                Ordering::SeqCst,
            );
        }
        if let Event::Finished { .. } = event {
            graceful.store(false, Ordering::SeqCst);
            if let Some(bars) = &bars {
                bars.finish();
            }
        }
        let line = match args.log_format {
            LogFormat::Json => Some(event_json(event).to_string()),
            LogFormat::Text if args.quiet => None,
            LogFormat::Text => event_text(event),
        };
        if let Some(line) = line
            && let Err(err) = writeln!(out, "{line}").and_then(|()| out.flush())
        {
            failed_write.get_or_insert(err);
        }
    };
    let result = pipeline.run(&options, progress, &mut on_event);
    if let Some(bars) = &bars {
        bars.finish();
    }
    let report = result?;
    if let Some(err) = failed_write {
        return Err(err).context("writing the run's events");
    }
    if args.quiet {
        writeln!(out, "{}", pipeline.paths().report_markdown().display())?;
    } else if args.log_format == LogFormat::Text {
        write!(
            out,
            "{}",
            report.render(&pipeline.paths().report_markdown())
        )?;
    }
    Ok(())
}

fn event_text(event: &Event<'_>) -> Option<String> {
    Some(match event {
        Event::Plan(plan) => {
            let mut table = String::from("stage     plan");
            for planned in plan.iter() {
                table += &format!(
                    "\n{:<9} {}",
                    planned.stage.name(),
                    planned.action.describe()
                );
            }
            table
        }
        Event::Fetching { model } => {
            format!("fetching {model} from the package registry (first use) …")
        }
        Event::Started { stage, action } => format!("== {stage} ({})", action.describe()),
        Event::Finished { stage, record } => {
            format!("{stage} done in {:.1}s: {}", record.seconds, record.summary)
        }
        Event::Reported { .. } => return None,
    })
}

fn event_json(event: &Event<'_>) -> serde_json::Value {
    match event {
        Event::Plan(plan) => json!({"event": "plan", "stages": plan}),
        Event::Fetching { model } => json!({"event": "fetching", "model": model}),
        Event::Started { stage, action } => {
            json!({"event": "started", "stage": stage, "action": action})
        }
        Event::Finished { stage, record } => {
            json!({"event": "finished", "stage": stage, "seconds": record.seconds,
                   "peak_rss_bytes": record.peak_rss_bytes, "summary": record.summary})
        }
        Event::Reported { markdown } => json!({"event": "reported", "markdown": markdown}),
    }
}
