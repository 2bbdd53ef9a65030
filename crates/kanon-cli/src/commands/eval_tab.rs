use std::io::Write;

use anyhow::Result;
use kanon_eval::TabReport;
use kanon_eval::job::{EvalJob, tab};

use crate::cli::EvalTabArgs;

pub fn run(args: &EvalTabArgs, out: &mut dyn Write) -> Result<()> {
    let weighting = if args.weighted {
        Some(super::shared::llm_config(&args.llm)?)
    } else {
        None
    };
    let report = tab(&EvalJob {
        gold: args.gold.clone(),
        pred: args.pred.clone(),
        docs: None,
        weighting,
    })?;
    super::shared::print_report(out, args.json, &report, TabReport::render)
}
