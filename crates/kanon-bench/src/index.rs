//! `kanon bench index`: the index at scale on a synthetic population.
//! - build: `kanon index build` run as a child process on a KG directory, timed, with its peak RSS;
//! - intersections: p50/p99 latency of 2- and 3-term counts over terms of real people of the index;
//! - gazetteer: MB/s over synthetic biographies, on one thread and on all.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use kanon_core::Document;
use kanon_index::Index;
use kanon_kg::synth::{SynthConfig, synthesize};
use kanon_kg::{KnowledgeGraph, TermGenerator, Vocabulary, Whitelist};
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::Serialize;

use crate::resources::{gib, peak_rss_self};
use crate::work::{WorkDir, build_index_in_child};
use crate::{Result, check, percentile};

/// The knobs of `kanon bench index`.
#[derive(Debug, Clone)]
pub struct IndexBench {
    /// The `kanon` binary that builds the index.
    pub kanon: PathBuf,
    /// Gazetteer passes over the biographies; the median is reported.
    pub passes: usize,
    /// People in the synthetic KG.
    pub people: usize,
    /// The seed of the synthetic population and of the sampled queries.
    pub seed: u64,
    /// Intersection queries per arity.
    pub queries: usize,
    /// Biographies for the gazetteer throughput.
    pub docs: usize,
    /// Working directory (KG and index); a temporary one when absent.
    pub work_dir: Option<PathBuf>,
}

/// What `kanon bench index` measured (serialised for `--json`; seconds, bytes, microseconds and
/// MB of 10^6 bytes as their names say).
#[derive(Debug, Serialize)]
pub struct Figures {
    people: usize,
    threads: usize,
    synth_seconds: f64,
    build_seconds: f64,
    build_people_per_second: f64,
    build_peak_rss_bytes: u64,
    terms: u64,
    postings: u64,
    open_seconds: f64,
    reader_peak_rss_bytes: u64,
    intersection2_p50_us: f64,
    intersection2_p99_us: f64,
    intersection3_p50_us: f64,
    intersection3_p99_us: f64,
    gazetteer_docs: usize,
    gazetteer_mb: f64,
    gazetteer_mb_per_s_one_thread: f64,
    gazetteer_mb_per_s_all_threads: f64,
    gazetteer_matches_per_doc: f64,
}

/// Runs the benchmark, writing what it does and its figures to `out`.
pub fn run(args: &IndexBench, out: &mut dyn Write) -> Result<Figures> {
    let work = WorkDir::new(args.work_dir.as_deref())?;
    let kg_dir = work.kg_dir(args.people, args.seed);
    let index_dir = work.index_dir(args.people, args.seed);
    let threads = rayon::current_num_threads();

    // 1. The population (and biographies for a sample of it), written as a KG directory.
    let started = Instant::now();
    let doc_rate = (args.docs as f64 / args.people.max(1) as f64).min(1.0);
    let (kg, docs) = synthesize(&SynthConfig {
        people: args.people,
        seed: args.seed,
        doc_rate,
    });
    kanon_kg::store::write_kg_dir(&kg_dir, &kg, &[], vec![], Default::default())?;
    let synth_seconds = started.elapsed().as_secs_f64();
    writeln!(
        out,
        "synthesized {} people and {} biographies in {synth_seconds:.1}s",
        kg.len(),
        docs.len()
    )?;
    // The same generator picks the people, then the terms of each query.
    let mut rng = ChaCha8Rng::seed_from_u64(args.seed ^ 0x5eed);
    let sampled = sample_people_terms(&kg, args.queries, &mut rng);
    drop(kg);

    // 2. Build in a child process: its own wall time and peak memory, as a user would see them.
    let (build_seconds, build_peak_rss_bytes) =
        build_index_in_child(&args.kanon, &kg_dir, &index_dir)?;

    // 3. Intersections.
    let started = Instant::now();
    let index = Index::open(&index_dir)?;
    let open_seconds = started.elapsed().as_secs_f64();
    check!(
        index.num_people() as usize == args.people,
        "index holds every person"
    );
    let (p50_2, p99_2) = intersection_latencies(&index, &sampled, &mut rng, args.queries, 2)?;
    let (p50_3, p99_3) = intersection_latencies(&index, &sampled, &mut rng, args.queries, 3)?;

    // 4. Gazetteer throughput.
    let bytes: usize = docs.iter().map(|d| d.text.len()).sum();
    let gazetteer = gazetteer_throughput(&index, &docs, args.passes)?;

    let mb = bytes as f64 / 1e6;
    let figures = Figures {
        people: args.people,
        threads,
        synth_seconds,
        build_seconds,
        build_people_per_second: args.people as f64 / build_seconds,
        build_peak_rss_bytes,
        terms: index.meta().terms,
        postings: index.meta().postings,
        open_seconds,
        reader_peak_rss_bytes: peak_rss_self().unwrap_or(0),
        intersection2_p50_us: p50_2,
        intersection2_p99_us: p99_2,
        intersection3_p50_us: p50_3,
        intersection3_p99_us: p99_3,
        gazetteer_docs: docs.len(),
        gazetteer_mb: mb,
        gazetteer_mb_per_s_one_thread: mb / gazetteer.one_thread_seconds,
        gazetteer_mb_per_s_all_threads: mb / gazetteer.all_threads_seconds,
        gazetteer_matches_per_doc: gazetteer.matches as f64 / docs.len().max(1) as f64,
    };
    report(&figures, out)?;
    Ok(figures)
}

/// The terms of randomly drawn people (as many as there are queries, within the population), for
/// queries that ask what the labeler asks: combinations of one person's facts.
fn sample_people_terms(
    kg: &KnowledgeGraph,
    queries: usize,
    rng: &mut ChaCha8Rng,
) -> Vec<Vec<String>> {
    let whitelist = Whitelist::english();
    let generator = TermGenerator::new(Vocabulary::embedded(), &whitelist);
    (0..queries.min(kg.len()).max(1))
        .map(|_| {
            let person = &kg.people[rng.random_range(0..kg.len())];
            generator
                .terms(person)
                .into_iter()
                .map(|t| t.term)
                .collect()
        })
        .collect()
}

/// The p50 and p99 latency, in microseconds, of `queries` intersection counts of `arity` terms of
/// one sampled person each, checked against the person and (for the first 200) the full set.
fn intersection_latencies(
    index: &Index,
    sampled: &[Vec<String>],
    rng: &mut ChaCha8Rng,
    queries: usize,
    arity: usize,
) -> Result<(f64, f64)> {
    let mut times = Vec::with_capacity(queries);
    let mut checked = 0;
    while times.len() < queries {
        let Some(terms) = sampled.choose(rng) else {
            return Err(crate::Error::Check("no people to sample terms from".into()));
        };
        if terms.len() < arity {
            continue;
        }
        let picked: Vec<&String> = terms.choose_multiple(rng, arity).collect();
        let ids: Vec<u32> = picked.iter().filter_map(|t| index.term_id(t)).collect();
        check!(
            ids.len() == arity,
            "every generated term is indexed: {picked:?}"
        );
        let t = Instant::now();
        let count = index.intersection_count(&ids, u64::MAX);
        times.push(t.elapsed().as_secs_f64() * 1e6);
        // The person the terms came from has all of them.
        check!(count >= 1, "intersection of one person's terms is empty");
        if checked < 200 {
            check!(
                count == index.intersection(&ids).len(),
                "count agrees with the set"
            );
            checked += 1;
        }
    }
    times.sort_by(f64::total_cmp);
    Ok((percentile(&times, 0.5), percentile(&times, 0.99)))
}

/// The gazetteer over all biographies: median seconds of a pass on one thread and on all, and the
/// terms found.
struct GazetteerTimes {
    one_thread_seconds: f64,
    all_threads_seconds: f64,
    matches: usize,
}

/// Runs the gazetteer over the biographies `passes` times on one thread and on all (this machine's
/// speed varies: the median pass is kept), checking that both find the same terms and every
/// biography its person.
fn gazetteer_throughput(index: &Index, docs: &[Document], passes: usize) -> Result<GazetteerTimes> {
    let mut one_thread_times = Vec::new();
    let mut all_threads_times = Vec::new();
    let mut matches = 0;
    let mut matches_par = 0;
    for _ in 0..passes.max(1) {
        let started = Instant::now();
        matches = docs.iter().map(|d| index.find_terms(&d.text).len()).sum();
        one_thread_times.push(started.elapsed().as_secs_f64());
        let started = Instant::now();
        matches_par = docs
            .par_iter()
            .map(|d| index.find_terms(&d.text).len())
            .sum();
        all_threads_times.push(started.elapsed().as_secs_f64());
    }
    one_thread_times.sort_by(f64::total_cmp);
    all_threads_times.sort_by(f64::total_cmp);
    check!(matches == matches_par, "parallel gazetteer agrees");
    check!(
        docs.is_empty() || matches >= docs.len(),
        "every biography names its person"
    );
    Ok(GazetteerTimes {
        one_thread_seconds: percentile(&one_thread_times, 0.5),
        all_threads_seconds: percentile(&all_threads_times, 0.5),
        matches,
    })
}

fn report(f: &Figures, out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(out, "people                 {}", f.people)?;
    writeln!(out, "threads                {}", f.threads)?;
    writeln!(
        out,
        "build (kanon index build, KG read included)  {:.1}s  {:.0} people/s  peak RSS {:.2} GiB",
        f.build_seconds,
        f.build_people_per_second,
        gib(f.build_peak_rss_bytes)
    )?;
    writeln!(out, "terms / postings       {} / {}", f.terms, f.postings)?;
    writeln!(
        out,
        "open (load postings + gazetteer)  {:.2}s, reader peak RSS {:.2} GiB",
        f.open_seconds,
        gib(f.reader_peak_rss_bytes)
    )?;
    writeln!(
        out,
        "2-term intersection    p50 {:.2} µs  p99 {:.2} µs",
        f.intersection2_p50_us, f.intersection2_p99_us
    )?;
    writeln!(
        out,
        "3-term intersection    p50 {:.2} µs  p99 {:.2} µs",
        f.intersection3_p50_us, f.intersection3_p99_us
    )?;
    writeln!(
        out,
        "gazetteer (median)     {:.1} MB/s on 1 thread, {:.1} MB/s on {} ({} docs, {:.1} MB, {:.1} matches/doc)",
        f.gazetteer_mb_per_s_one_thread,
        f.gazetteer_mb_per_s_all_threads,
        f.threads,
        f.gazetteer_docs,
        f.gazetteer_mb,
        f.gazetteer_matches_per_doc
    )?;
    Ok(())
}
