use std::io::Write;

use anyhow::Result;
use kanon_eval::job::{EvalSpansJob, run as evaluate};

use crate::cli::EvalSpansArgs;

pub fn run(args: &EvalSpansArgs, out: &mut dyn Write) -> Result<()> {
    let report = evaluate(&EvalSpansJob {
        gold: args.gold.clone(),
        pred: args.pred.clone(),
    })?;
    if args.json {
        serde_json::to_writer_pretty(&mut *out, &report)?;
        writeln!(out)?;
    } else {
        write!(out, "{}", report.render())?;
    }
    Ok(())
}
