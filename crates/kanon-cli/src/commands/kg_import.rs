use std::io::Write;

use anyhow::Result;
use kanon_kg::job::{ImportJob, import};

use crate::cli::KgImportArgs;
use crate::progress::Bars;

pub fn run(args: &KgImportArgs, out: &mut dyn Write) -> Result<()> {
    let job = ImportJob {
        sources: args.sources.clone(),
        out: args.out.clone(),
        lang: args.lang.clone(),
        skip_invalid: args.skip_invalid,
    };
    let bars = Bars::new();
    let summary = import(&job, &bars)?;
    bars.finish();
    write!(out, "{}", summary.render())?;
    Ok(())
}
