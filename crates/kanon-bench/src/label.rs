//! `kanon bench label`: labeling synthetic biographies against a synthetic index.
//! - end to end: `kanon label` run as a child process (index open, read, label, write the corpus),
//!   timed, with its peak RSS;
//! - labeling alone: documents per second on all threads, in memory;
//! - the fast implementation against the plain reference on the same documents, one thread each,
//!   checking that both decide exactly the same.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use kanon_core::Document;
use kanon_index::Index;
use kanon_kg::synth::{SynthConfig, synthesize};
use kanon_label::document::{document_matches, document_terms};
use kanon_label::reference::{self, StoreIntersections};
use kanon_label::{LabelerConfig, MaskStrategy, decide, document_rng};
use rayon::prelude::*;
use serde::Serialize;

use crate::resources::{gib, peak_rss_children};
use crate::work::{WorkDir, build_index_in_child, child_error};
use crate::{Result, check};

/// The knobs of `kanon bench label`.
#[derive(Debug, Clone)]
pub struct LabelBench {
    /// The `kanon` binary that builds the index and labels end to end.
    pub kanon: PathBuf,
    /// People in the synthetic KG.
    pub people: usize,
    /// Biographies to label.
    pub docs: usize,
    /// The k of k-anonymity the documents are labeled for.
    pub k: u64,
    /// The largest combination of terms checked.
    pub max_arity: usize,
    /// The seed of the synthetic population and of the labeler.
    pub seed: u64,
    /// Documents labeled by both implementations, one thread each, for the speed-up.
    pub reference_docs: usize,
    /// Working directory (KG, index, corpus); a temporary one when absent. An index built there
    /// by `kanon bench index` for the same people and seed is reused.
    pub work_dir: Option<PathBuf>,
}

/// What `kanon bench label` measured (serialised for `--json`; seconds and bytes as their names
/// say).
#[derive(Debug, Serialize)]
pub struct Figures {
    people: usize,
    docs: usize,
    k: u64,
    max_arity: usize,
    threads: usize,
    end_to_end_seconds: f64,
    end_to_end_docs_per_second: f64,
    end_to_end_peak_rss_bytes: u64,
    labeling_seconds: f64,
    labeling_docs_per_second: f64,
    reference_docs: usize,
    short: Comparison,
    long_docs: usize,
    long: Comparison,
}

/// The fast implementation against the plain reference on the same documents, one thread each.
#[derive(Debug, Serialize)]
pub struct Comparison {
    terms_per_doc: f64,
    fast_seconds: f64,
    reference_seconds: f64,
    speedup: f64,
    fast_intersections: u64,
    reference_intersections: u64,
}

fn compare(index: &Index, docs: &[Document], config: &LabelerConfig) -> Result<Comparison> {
    let terms: Vec<Vec<u32>> = docs
        .iter()
        .map(|d| document_terms(&document_matches(index, &d.text, config)))
        .collect();
    let started = Instant::now();
    let fast: Vec<_> = docs
        .iter()
        .zip(&terms)
        .map(|(doc, t)| {
            decide(
                index.postings(),
                t,
                config,
                document_rng(config.seed, &doc.id),
            )
        })
        .collect();
    let fast_seconds = started.elapsed().as_secs_f64();
    let started = Instant::now();
    let plain: Vec<_> = docs
        .iter()
        .zip(&terms)
        .map(|(doc, t)| {
            let source = StoreIntersections {
                store: index.postings(),
                terms: t,
            };
            reference::decide(&source, t.len(), config, document_rng(config.seed, &doc.id))
        })
        .collect();
    let reference_seconds = started.elapsed().as_secs_f64();
    for (doc, (f, p)) in docs.iter().zip(fast.iter().zip(&plain)) {
        check!(
            f.masks == p.masks,
            "document {} decided differently by the fast and the reference implementations",
            doc.id
        );
    }
    Ok(Comparison {
        terms_per_doc: terms.iter().map(Vec::len).sum::<usize>() as f64 / docs.len().max(1) as f64,
        fast_seconds,
        reference_seconds,
        speedup: reference_seconds / fast_seconds.max(1e-9),
        fast_intersections: fast.iter().map(|d| d.intersections).sum(),
        reference_intersections: plain.iter().map(|d| d.intersections).sum(),
    })
}

/// Runs the benchmark, writing what it does and its figures to `out`.
pub fn run(args: &LabelBench, out: &mut dyn Write) -> Result<Figures> {
    let work = WorkDir::new(args.work_dir.as_deref())?;
    let threads = rayon::current_num_threads();
    let index_dir = work.index_dir(args.people, args.seed);
    let (docs, docs_path) = prepare(args, &work, &index_dir, out)?;

    // End to end, as a user runs it.
    let corpus_dir = work.path.join("corpus");
    let (end_to_end_seconds, end_to_end_peak_rss_bytes) =
        label_in_child(args, &index_dir, &docs_path, &corpus_dir, out)?;

    // Labeling alone, in memory.
    let index = Index::open(&index_dir)?;
    let config = LabelerConfig {
        k: args.k,
        max_arity: args.max_arity,
        strategy: MaskStrategy::Greedy,
        seed: args.seed,
        ..LabelerConfig::default()
    };
    let labeling_seconds = label_in_memory(&index, &docs, &config)?;

    // Fast against reference, one thread each, same documents: the biographies, and long documents
    // (ten biographies each, like a file that names many people).
    let sample: Vec<Document> = docs.iter().take(args.reference_docs).cloned().collect();
    let short = compare(&index, &sample, &config)?;
    let long_docs = long_documents(&docs, args.reference_docs);
    let long = compare(&index, &long_docs, &config)?;

    let figures = Figures {
        people: args.people,
        docs: docs.len(),
        k: args.k,
        max_arity: args.max_arity,
        threads,
        end_to_end_seconds,
        end_to_end_docs_per_second: docs.len() as f64 / end_to_end_seconds,
        end_to_end_peak_rss_bytes,
        labeling_seconds,
        labeling_docs_per_second: docs.len() as f64 / labeling_seconds,
        reference_docs: sample.len(),
        short,
        long_docs: long_docs.len(),
        long,
    };
    report(&figures, out)?;
    Ok(figures)
}

/// The biographies to label, written to a file of the working directory, and the index of their
/// population (one already built there for the same people and seed is reused). Returns the
/// biographies and their file.
fn prepare(
    args: &LabelBench,
    work: &WorkDir,
    index_dir: &Path,
    out: &mut dyn Write,
) -> Result<(Vec<Document>, PathBuf)> {
    let kg_dir = work.kg_dir(args.people, args.seed);
    let docs_path = work.path.join(format!(
        "docs-{}-{}-{}.jsonl",
        args.people, args.seed, args.docs
    ));
    // The population and its biographies (person i is the same whatever the doc rate).
    let doc_rate = (args.docs as f64 / args.people.max(1) as f64 * 1.05).min(1.0);
    let (kg, mut docs) = synthesize(&SynthConfig {
        people: args.people,
        seed: args.seed,
        doc_rate,
    });
    check!(
        docs.len() >= args.docs,
        "{} people give only {} biographies",
        args.people,
        docs.len()
    );
    docs.truncate(args.docs);
    kanon_core::io::atomic_write(&docs_path, |w| kanon_core::io::write_jsonl(w, &docs))?;
    let reusable = Index::open(index_dir).is_ok_and(|i| i.num_people() as usize == args.people);
    if !reusable {
        kanon_kg::store::write_kg_dir(&kg_dir, &kg, &[], vec![], Default::default())?;
        build_index_in_child(&args.kanon, &kg_dir, index_dir)?;
    }
    drop(kg);
    writeln!(
        out,
        "{} people indexed, {} biographies to label",
        args.people,
        docs.len()
    )?;
    Ok((docs, docs_path))
}

/// Runs `kanon label` on the biographies into `corpus_dir` (emptied first) and copies what it
/// prints to `out`; returns its wall time in seconds and its peak RSS in bytes.
fn label_in_child(
    args: &LabelBench,
    index_dir: &Path,
    docs_path: &Path,
    corpus_dir: &Path,
    out: &mut dyn Write,
) -> Result<(f64, u64)> {
    let _ = std::fs::remove_dir_all(corpus_dir);
    let started = Instant::now();
    let status = Command::new(&args.kanon)
        .args([
            "label",
            "--k",
            &args.k.to_string(),
            "--max-arity",
            &args.max_arity.to_string(),
        ])
        .arg("--index")
        .arg(index_dir)
        .arg("--docs")
        .arg(docs_path)
        .arg("--out")
        .arg(corpus_dir)
        .stdout(std::process::Stdio::piped())
        .output()
        .map_err(|e| child_error("kanon label", e))?;
    let seconds = started.elapsed().as_secs_f64();
    if !status.status.success() {
        return Err(child_error(
            "kanon label",
            String::from_utf8_lossy(&status.stderr),
        ));
    }
    let peak_rss_bytes = peak_rss_children().unwrap_or(0);
    out.write_all(&status.stdout)?;
    Ok((seconds, peak_rss_bytes))
}

/// Finds the terms of every biography and decides its masks, on all threads; returns the seconds
/// it took. Fails unless something was masked.
fn label_in_memory(index: &Index, docs: &[Document], config: &LabelerConfig) -> Result<f64> {
    let started = Instant::now();
    let masks: usize = docs
        .par_iter()
        .map(|doc| {
            let terms = document_terms(&document_matches(index, &doc.text, config));
            decide(
                index.postings(),
                &terms,
                config,
                document_rng(config.seed, &doc.id),
            )
            .masks
            .len()
        })
        .sum();
    let seconds = started.elapsed().as_secs_f64();
    check!(
        masks > 0,
        "the biographies name their people: something must be masked"
    );
    Ok(seconds)
}

/// Documents of ten biographies each (`reference_docs / 10` of them, at least one), like a file
/// that names many people.
fn long_documents(docs: &[Document], reference_docs: usize) -> Vec<Document> {
    docs.chunks(10)
        .take((reference_docs / 10).max(1))
        .map(|chunk| Document {
            id: format!("long-{}", chunk[0].id),
            person: chunk[0].person.clone(),
            text: chunk
                .iter()
                .map(|d| d.text.as_str())
                .collect::<Vec<_>>()
                .join("\n\n"),
            split: None,
        })
        .collect()
}

/// Writes the figures as a person reads them: a line per measure.
fn report(figures: &Figures, out: &mut dyn Write) -> Result<()> {
    let threads = figures.threads;
    writeln!(
        out,
        "end to end (kanon label: open index, read, label, write corpus)  {:.1}s  {:.0} docs/s  peak RSS {:.2} GiB",
        figures.end_to_end_seconds,
        figures.end_to_end_docs_per_second,
        gib(figures.end_to_end_peak_rss_bytes)
    )?;
    writeln!(
        out,
        "labeling alone (gazetteer + Algorithm 1, {threads} threads)  {:.1}s  {:.0} docs/s",
        figures.labeling_seconds, figures.labeling_docs_per_second
    )?;
    for (name, n, c) in [
        ("biographies", figures.reference_docs, &figures.short),
        ("long documents", figures.long_docs, &figures.long),
    ] {
        writeln!(
            out,
            "fast vs reference, {n} {name} ({:.1} terms each), 1 thread: {:.3}s vs {:.3}s = {:.1}x ({} vs {} intersections), same decisions",
            c.terms_per_doc,
            c.fast_seconds,
            c.reference_seconds,
            c.speedup,
            c.fast_intersections,
            c.reference_intersections
        )?;
    }
    Ok(())
}
