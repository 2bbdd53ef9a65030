use std::io::Write;

use anyhow::{Result, bail};
use kanon_label::LabelerConfig;
use kanon_label::corpus::{self, LabelJob};

use crate::cli::LabelRunArgs;
use crate::progress::Bars;

pub fn run(args: &LabelRunArgs, out: &mut dyn Write) -> Result<()> {
    let (Some(index), Some(docs), Some(corpus_dir)) = (&args.index, &args.docs, &args.out) else {
        bail!("--index, --docs and --out are required");
    };
    let job = LabelJob {
        config: LabelerConfig {
            k: args.k,
            max_arity: args.max_arity,
            strategy: args.strategy,
            seed: args.seed,
            match_case: !args.ignore_case,
            phrases: args.phrases,
        },
        format: args.format,
        shard_size: args.shard_size,
        shard: args.shard,
        ..LabelJob::new(index, docs, corpus_dir)
    };
    let bars = Bars::new();
    let summary = corpus::run(&job, &bars)?;
    bars.finish();
    write!(out, "{}", summary.render())?;
    Ok(())
}
