use std::io::Write;

use anyhow::{Context, Result, bail};
use kanon_label::corpus::{self, CorpusFormat, LabelJob};
use kanon_label::{LabelerConfig, Manifest};

use crate::cli::LabelRunArgs;
use crate::progress::Bars;

pub fn run(args: &LabelRunArgs, out: &mut dyn Write) -> Result<()> {
    let (Some(index), Some(docs), Some(corpus_dir)) = (&args.index, &args.docs, &args.out) else {
        bail!("--index, --docs and --out are required");
    };
    let format = match args.format.as_str() {
        "jsonl" => CorpusFormat::Jsonl,
        "conll" => CorpusFormat::Conll,
        other => bail!("unknown --format {other:?} (expected jsonl or conll)"),
    };
    let job = LabelJob {
        index_dir: index.clone(),
        docs: docs.clone(),
        out: corpus_dir.clone(),
        config: LabelerConfig {
            k: args.k,
            max_arity: args.max_arity,
            strategy: args.strategy.parse().map_err(anyhow::Error::msg)?,
            seed: args.seed,
        },
        format,
        shard_size: args.shard_size,
    };
    let bars = Bars::new();
    let started = std::time::Instant::now();
    let manifest =
        corpus::run(&job, &bars).with_context(|| format!("labeling {}", docs.display()))?;
    bars.finish();
    summary(&manifest, started.elapsed().as_secs_f64(), corpus_dir, out)
}

pub fn summary(
    manifest: &Manifest,
    seconds: f64,
    dir: &std::path::Path,
    out: &mut dyn Write,
) -> Result<()> {
    let s = &manifest.stats;
    writeln!(
        out,
        "labeled {} of {} documents in {seconds:.1}s ({} skipped: see skipped.jsonl) -> {}",
        s.labeled,
        s.documents,
        s.skipped,
        dir.display()
    )?;
    let splits: Vec<String> = s
        .per_split
        .iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect();
    writeln!(out, "splits: {}", splits.join(", "))?;
    writeln!(
        out,
        "KG terms per document {:.2}, masked terms per document {:.2}, masked tokens {:.1}%, documents without KG terms {}",
        s.terms_per_document,
        s.masks_per_document,
        100.0 * s.masked_token_share,
        s.documents_without_terms
    )?;
    let arities: Vec<String> = s
        .masks_by_arity
        .iter()
        .map(|(a, n)| format!("{a}: {n}"))
        .collect();
    writeln!(
        out,
        "masks by the arity that forced them: {}",
        arities.join(", ")
    )?;
    Ok(())
}
