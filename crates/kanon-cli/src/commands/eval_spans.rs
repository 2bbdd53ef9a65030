use std::io::Write;

use anyhow::Result;
use kanon_eval::SpanReport;
use kanon_eval::job::{EvalJob, spans};

use crate::cli::EvalSpansArgs;

pub fn run(args: &EvalSpansArgs, out: &mut dyn Write) -> Result<()> {
    let report = spans(&EvalJob {
        gold: args.gold.clone(),
        pred: args.pred.clone(),
        docs: args.docs.clone(),
        weighting: None,
    })?;
    super::shared::print_report(out, args.json, &report, SpanReport::render)
}
