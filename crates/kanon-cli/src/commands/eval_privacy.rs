use std::io::Write;
use std::path::Path;

use anyhow::Result;
use kanon_eval::PrivacyReport;
use kanon_eval::job::{PrivacyJob, Truth, privacy};

use crate::cli::EvalPrivacyArgs;
use crate::progress::Bars;

pub fn run(args: &EvalPrivacyArgs, out: &mut dyn Write) -> Result<()> {
    let truth = match &args.truth {
        None => Truth::Id,
        Some(map) if Path::new(map).is_file() => Truth::Map { path: map.into() },
        Some(field) => Truth::Field {
            field: field.clone(),
        },
    };
    let bars = Bars::new();
    let report = privacy(
        &PrivacyJob {
            background: args.background.clone(),
            sanitized: args.sanitized.clone(),
            truth,
            neural: super::neural_attacker(&args.neural)?,
        },
        &bars,
    )?;
    bars.finish();
    super::print_report(out, args.json, &report, PrivacyReport::render)
}
