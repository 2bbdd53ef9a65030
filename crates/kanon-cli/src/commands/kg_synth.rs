use std::io::Write;

use anyhow::Result;
use kanon_kg::job::{SynthJob, synth};
use kanon_kg::synth::SynthConfig;

use crate::cli::KgSynthArgs;

pub fn run(args: &KgSynthArgs, out: &mut dyn Write) -> Result<()> {
    let summary = synth(&SynthJob {
        config: SynthConfig {
            people: args.people,
            seed: args.seed,
            doc_rate: args.doc_rate,
        },
        out: args.out.clone(),
        docs: args.docs.clone(),
    })?;
    write!(out, "{}", summary.render())?;
    Ok(())
}
