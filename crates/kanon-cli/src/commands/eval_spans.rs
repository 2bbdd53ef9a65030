use std::io::Write;

use anyhow::Result;
use kanon_eval::job::{EvalJob, spans};

use crate::cli::EvalSpansArgs;

pub fn run(args: &EvalSpansArgs, out: &mut dyn Write) -> Result<()> {
    let report = spans(&EvalJob {
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
