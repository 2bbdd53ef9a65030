use std::io::Write;

use anyhow::Result;
use kanon_bench::tagger::{TaggerBench, run as bench};

use crate::cli::BenchTaggerArgs;

pub fn run(args: &BenchTaggerArgs, out: &mut dyn Write) -> Result<()> {
    let figures = bench(
        &TaggerBench {
            kanon: kanon_bench::kanon_exe()?,
            mode: args.mode,
            pretrained: args.pretrained.clone(),
            docs: args.docs.clone(),
            max_len: args.max_len,
            token_budget: args.token_budget,
            steps: args.steps,
            warmup_steps: args.warmup_steps,
            batch: args.batch,
            seq: args.seq,
            device: args.device,
            random_init: args.random_init.clone(),
            precision: args.precision,
        },
        out,
    )?;
    if let Some(path) = &args.json {
        kanon_core::io::write_json(path, &figures)?;
    }
    Ok(())
}
