use std::io::Write;

use anyhow::Result;
use kanon_bench::llm::{LlmBench, run as bench};

use crate::cli::BenchLlmArgs;

pub fn run(args: &BenchLlmArgs, out: &mut dyn Write) -> Result<()> {
    let figures = bench(
        &LlmBench {
            model: args.model.clone(),
            runs: args.runs,
            max_tokens: args.max_tokens,
        },
        out,
    )?;
    if let Some(path) = &args.json {
        kanon_core::io::write_json(path, &figures)?;
    }
    Ok(())
}
