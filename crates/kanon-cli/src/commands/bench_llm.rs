use std::io::Write;

use anyhow::Result;

use crate::cli::BenchLlmArgs;

#[cfg(feature = "embedded-llm")]
pub fn run(args: &BenchLlmArgs, out: &mut dyn Write) -> Result<()> {
    use kanon_bench::llm::{LlmBench, run as bench};

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

/// A build without the embedded runtime (the GPU bundle's) has nothing to measure.
#[cfg(not(feature = "embedded-llm"))]
pub fn run(_args: &BenchLlmArgs, _out: &mut dyn Write) -> Result<()> {
    anyhow::bail!(
        "this kanon was built without the embedded LLM runtime (feature `embedded-llm`, on by \
         default; the GPU bundle leaves it out): build it with \
         `cargo build --release -p kanon-cli`"
    )
}
