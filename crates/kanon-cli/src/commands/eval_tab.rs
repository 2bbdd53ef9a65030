use std::io::Write;

use anyhow::Result;
use kanon_eval::job::{EvalJob, tab};

use crate::cli::EvalTabArgs;

pub fn run(args: &EvalTabArgs, out: &mut dyn Write) -> Result<()> {
    let report = tab(&EvalJob {
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
