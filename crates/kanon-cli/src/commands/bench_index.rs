use std::io::Write;

use anyhow::Result;
use kanon_bench::index::{IndexBench, run as bench};

use crate::cli::BenchIndexArgs;

pub fn run(args: &BenchIndexArgs, out: &mut dyn Write) -> Result<()> {
    let figures = bench(
        &IndexBench {
            kanon: kanon_bench::kanon_exe()?,
            passes: args.passes,
            people: args.people,
            seed: args.seed,
            queries: args.queries,
            docs: args.docs,
            work_dir: args.work_dir.clone(),
        },
        out,
    )?;
    if let Some(path) = &args.json {
        kanon_core::io::write_json(path, &figures)?;
    }
    Ok(())
}
