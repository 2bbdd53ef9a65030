use std::io::Write;

use anyhow::Result;
use kanon_eval::job::{UtilityJob, utility};

use crate::cli::EvalUtilityArgs;

pub fn run(args: &EvalUtilityArgs, out: &mut dyn Write) -> Result<()> {
    let report = utility(&UtilityJob {
        docs: args.docs.clone(),
        sanitized: args.sanitized.clone(),
    })?;
    if args.json {
        serde_json::to_writer_pretty(&mut *out, &report)?;
        writeln!(out)?;
    } else {
        write!(out, "{}", report.render())?;
    }
    Ok(())
}
