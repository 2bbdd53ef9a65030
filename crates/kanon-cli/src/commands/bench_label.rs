use std::io::Write;

use anyhow::Result;
use kanon_bench::label::{LabelBench, run as bench};

use crate::cli::BenchLabelArgs;

pub fn run(args: &BenchLabelArgs, out: &mut dyn Write) -> Result<()> {
    let figures = bench(
        &LabelBench {
            kanon: kanon_bench::kanon_exe()?,
            people: args.people,
            docs: args.docs,
            k: args.k,
            max_arity: args.max_arity,
            seed: args.seed,
            reference_docs: args.reference_docs,
            work_dir: args.work_dir.clone(),
        },
        out,
    )?;
    if let Some(path) = &args.json {
        kanon_core::io::write_json(path, &figures)?;
    }
    Ok(())
}
