use std::io::Write;

use anyhow::Result;
use kanon_index::job::{BuildJob, build};

use crate::cli::IndexBuildArgs;
use crate::progress::Bars;

pub fn run(args: &IndexBuildArgs, out: &mut dyn Write) -> Result<()> {
    let job = BuildJob {
        kg: args.kg.clone(),
        out: args.out.clone(),
        whitelist: args.whitelist.clone(),
        replace_whitelist: args.replace_whitelist,
    };
    let bars = Bars::new();
    let summary = build(&job, &bars)?;
    bars.finish();
    write!(out, "{}", summary.render())?;
    Ok(())
}
