use std::io::Write;

use anyhow::{Context, Result};
use kanon_core::Document;
use kanon_index::{BuildJob, Index, MatchRow, QueryReport};
use kanon_label::corpus::{CorpusFormat, LabelJob};

use crate::cli::QuickstartArgs;
use crate::progress::Bars;

/// A short tour: every stage on the bundled sample, each output under `--out`.
pub fn run(args: &QuickstartArgs, out: &mut dyn Write) -> Result<()> {
    let meta = kanon_kg::store::read_meta(&args.kg).with_context(|| {
        format!(
            "reading the sample KG {} (run from the repository root)",
            args.kg.display()
        )
    })?;
    let index_dir = args.out.join("index");
    writeln!(
        out,
        "== 1. index: {} people from {}",
        meta.people,
        args.kg.display()
    )?;
    let bars = Bars::new();
    let built = kanon_index::job::build(&BuildJob::new(&args.kg, &index_dir), &bars)?;
    bars.finish();
    writeln!(
        out,
        "built {} in {:.2}s",
        index_dir.display(),
        built.meta.build_seconds
    )?;
    let index = Index::open(&index_dir)?;
    write!(out, "{}", index.stats().render())?;

    let first: Document = kanon_core::io::read_jsonl::<Document>(&args.docs)?
        .next()
        .context("the sample corpus is empty")??
        .1;
    writeln!(out, "\n== 2. gazetteer: KG terms in document {}", first.id)?;
    writeln!(out, "{}", first.text)?;
    for row in MatchRow::find(&index, &first.text, false) {
        write!(out, "{}", row.render())?;
    }

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
    write!(out, "{}", QueryReport::new(&index, &found).render())?;
    drop(index);

    let corpus_dir = args.out.join("corpus");
    writeln!(
        out,
        "\n== 4. label: k-anonymity masks for {} (k = 5, max arity 3, greedy)",
        args.docs.display()
    )?;
    let job = LabelJob {
        format: CorpusFormat::Conll,
        ..LabelJob::new(index_dir, &args.docs, &corpus_dir)
    };
    let bars = Bars::new();
    let labeled = kanon_label::corpus::run(&job, &bars)?;
    bars.finish();
    write!(out, "{}", labeled.render())?;
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
