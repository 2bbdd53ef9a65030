use std::io::Write;

use anyhow::{Context, Result};
use kanon_kg::MergeStats;
use kanon_kg::synth::{SynthConfig, synthesize};

use crate::cli::KgSynthArgs;

pub fn run(args: &KgSynthArgs, out: &mut dyn Write) -> Result<()> {
    let config = SynthConfig {
        people: args.people,
        seed: args.seed,
        doc_rate: args.doc_rate,
    };
    let (kg, docs) = synthesize(&config);
    let report = kanon_kg::import::SourceReport {
        format: format!("synth(seed={})", args.seed),
        people: kg.len(),
        facts: kg.num_facts(),
        docs: docs.len(),
        ..Default::default()
    };
    // The docs go to --docs when given (the corpus), else beside the KG.
    let (kg_docs, separate_docs) = match &args.docs {
        Some(_) => (&[][..], Some(&docs)),
        None => (&docs[..], None),
    };
    kanon_kg::store::write_kg_dir(&args.out, &kg, kg_docs, vec![report], MergeStats::default())
        .with_context(|| format!("writing {}", args.out.display()))?;
    if let (Some(path), Some(docs)) = (&args.docs, separate_docs) {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("creating {}", parent.display()))?;
        }
        kanon_core::io::atomic_write(path, |w| kanon_core::io::write_jsonl(w, docs.iter()))?;
    }
    writeln!(
        out,
        "synthesized {} people, {} facts, {} biographies (seed {}) -> {}",
        kg.len(),
        kg.num_facts(),
        docs.len(),
        args.seed,
        args.out.display()
    )?;
    Ok(())
}
