use std::io::Write;

use anyhow::Result;
use kanon_eval::PrivacyReport;
use kanon_eval::job::{PrivacyJob, privacy};

use crate::cli::EvalPrivacyArgs;
use crate::progress::Bars;

pub fn run(args: &EvalPrivacyArgs, out: &mut dyn Write) -> Result<()> {
    let truth = super::shared::truth(args.truth.as_deref());
    let bars = Bars::new();
    let report = privacy(
        &PrivacyJob {
            background: args.background.clone(),
            sanitized: args.sanitized.clone(),
            truth,
            neural: super::shared::neural_attacker(&args.neural)?,
        },
        &bars,
    )?;
    bars.finish();
    super::shared::print_report(out, args.json, &report, PrivacyReport::render)
}
