use std::io::Write;

use anyhow::{Context, Result};
use kanon_core::Document;
use kanon_index::{Index, IndexBuilder};
use kanon_label::LabelerConfig;
use kanon_label::corpus::{CorpusFormat, LabelJob};

use crate::cli::QuickstartArgs;
use crate::progress::Bars;

/// The README's main command: every stage on the bundled sample, each output under `--out`.
pub fn run(args: &QuickstartArgs, out: &mut dyn Write) -> Result<()> {
    let (kg, _) = kanon_kg::store::read_kg_dir(&args.kg).with_context(|| {
        format!(
            "reading the sample KG {} (run from the repository root)",
            args.kg.display()
        )
    })?;
    let index_dir = args.out.join("index");
    writeln!(
        out,
        "== 1. index: {} people from {}",
        kg.len(),
        args.kg.display()
    )?;
    let bars = Bars::new();
    let meta = IndexBuilder::new()
        .source(args.kg.display().to_string())
        .build(&kg, &index_dir, &bars)?;
    bars.finish();
    writeln!(
        out,
        "built {} in {:.2}s",
        index_dir.display(),
        meta.build_seconds
    )?;
    let index = Index::open(&index_dir)?;
    super::index_stats::stats(&index, false, out)?;

    let first: Document = kanon_core::io::read_jsonl::<Document>(&args.docs)?
        .next()
        .context("the sample corpus is empty")??
        .1;
    writeln!(out, "\n== 2. gazetteer: KG terms in document {}", first.id)?;
    writeln!(out, "{}", first.text)?;
    super::index_match::print_matches(&index, &first.text, false, false, out)?;

    let found: Vec<String> = index
        .find_terms(&first.text)
        .iter()
        .filter_map(|m| index.term_text(m.term))
        .take(3)
        .collect();
    writeln!(
        out,
        "\n== 3. how many people share the first {} of them",
        found.len()
    )?;
    super::index_query::query(&index, &found, out)?;
    drop(index);

    let corpus_dir = args.out.join("corpus");
    writeln!(
        out,
        "\n== 4. label: k-anonymity masks for {} (k = 5, max arity 3, greedy)",
        args.docs.display()
    )?;
    let job = LabelJob {
        index_dir,
        docs: args.docs.clone(),
        out: corpus_dir.clone(),
        config: LabelerConfig::default(),
        format: CorpusFormat::Conll,
        shard_size: 10_000,
    };
    let bars = Bars::new();
    let started = std::time::Instant::now();
    let manifest = kanon_label::corpus::run(&job, &bars)?;
    bars.finish();
    super::label::summary(&manifest, started.elapsed().as_secs_f64(), &corpus_dir, out)?;
    writeln!(
        out,
        "\n== 5. why document {} was masked as it was",
        first.id
    )?;
    if let Some(report) = kanon_label::corpus::find_report(&corpus_dir, &first.id)? {
        write!(out, "{}", kanon_label::explain::explain(&report))?;
    }
    Ok(())
}
