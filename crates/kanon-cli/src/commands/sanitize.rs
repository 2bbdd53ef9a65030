//! `kanon sanitize`: documents plus spans (a detector's, or TAB-schema gold annotations) →
//! `{"id","text","edits"}` JSONL, written document by document to `OUT.partial` so an interrupted
//! run resumes where it stopped; model answers are cached on disk so reruns are free.
//!
//! Original span text is never printed: the summary has counts and times only.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use kanon_core::tab::TabDocument;
use kanon_core::{Document, EntityType, Progress, Span};
use kanon_llm::{CacheStats, CachedModel, ChatModel, LlmConfig};
use kanon_sanitize::{Mention, SanitizeStats, Sanitizer, SanitizerConfig, Strategy};
use serde::{Deserialize, Serialize};

use crate::cli::SanitizeArgs;
use crate::progress::Bars;

/// One line of a spans file (`kanon detect`'s output); fields other than these are ignored.
#[derive(Deserialize)]
struct SpansRecord {
    id: String,
    spans: Vec<SpanRecord>,
}

#[derive(Deserialize)]
struct SpanRecord {
    start: usize,
    end: usize,
    /// Absent for detectors without types (the `mask` scheme): such spans are MISC.
    #[serde(rename = "type", default)]
    entity_type: Option<EntityType>,
    #[serde(default)]
    entity_id: Option<String>,
}

/// Per document, kept beside the partial output so that a resumed run still reports every
/// document.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct DocumentRun {
    id: String,
    seconds: f64,
    cache: CacheStats,
    stats: SanitizeStats,
}

/// The figures a run reports (also written as JSON with `--summary`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Summary {
    pub strategy: String,
    pub model: Option<String>,
    pub documents: u64,
    pub resumed_documents: u64,
    pub stats: SanitizeStats,
    pub cache_hits: u64,
    pub cache_misses: u64,
    /// Seconds spent sanitizing, summed over documents (resumed ones included).
    pub document_seconds: f64,
    /// Seconds of this invocation, end to end (model loading included).
    pub wall_seconds: f64,
}

fn percent(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

impl Summary {
    /// The summary as a person reads it.
    pub fn render(&self) -> String {
        let stats = &self.stats;
        let selected = stats.selected_spans();
        let mut lines = vec![format!(
            "sanitized {} documents ({} resumed from an earlier run), strategy {}{}",
            self.documents,
            self.resumed_documents,
            self.strategy,
            self.model
                .as_ref()
                .map(|model| format!(", model {model}"))
                .unwrap_or_default()
        )];
        lines.push(format!(
            "spans: {} in {} entities ({} overlapping spans dropped); labeled direct identifiers: {}; masked by the strategy: {}",
            stats.spans,
            stats.entities,
            stats.overlapping_spans,
            stats.direct_spans,
            stats.masked_spans
        ));
        if selected > 0 {
            let ranks: Vec<String> = stats
                .chosen
                .iter()
                .enumerate()
                .map(|(rank, &count)| format!("{}: {:.1} %", rank + 1, percent(count, selected)))
                .collect();
            lines.push(format!(
                "generalized spans: {selected}; took candidate {}; fell back to the label: {:.1} % (every candidate guessed {:.1} %, no usable candidate {:.1} %)",
                if ranks.is_empty() { "-".to_owned() } else { ranks.join(", ") },
                percent(stats.all_guessed_spans + stats.no_candidate_spans, selected),
                percent(stats.all_guessed_spans, selected),
                percent(stats.no_candidate_spans, selected),
            ));
            lines.push(format!(
                "date ladder: {} entities; model candidates dropped (revealing an original, copying the example, unfinished): {}",
                stats.ladder_entities, stats.rejected_candidates
            ));
        }
        let calls = stats.llm_calls();
        lines.push(format!(
            "LLM calls: {calls} ({} generation, {} attack): {:.2} per span, {:.2} per generalized span; cache: {} hits, {} misses",
            stats.generation_calls,
            stats.attack_calls,
            calls as f64 / stats.spans.max(1) as f64,
            calls as f64 / selected.max(1) as f64,
            self.cache_hits,
            self.cache_misses,
        ));
        lines.push(format!(
            "time: {:.1} s sanitizing, {:.2} s per document, {:.2} spans/s; {:.1} s wall for this run",
            self.document_seconds,
            self.document_seconds / self.documents.max(1) as f64,
            stats.spans as f64 / self.document_seconds.max(1e-9),
            self.wall_seconds,
        ));
        lines.join("\n") + "\n"
    }
}

/// Documents: a TAB-schema JSON array (starts with `[`) or JSONL `{"id","text"}`.
fn read_documents(path: &Path) -> Result<(Vec<Document>, Option<Vec<TabDocument>>)> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    if bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[') {
        let tab = kanon_core::tab::read_tab(path)?;
        let docs = tab.iter().map(TabDocument::to_document).collect();
        return Ok((docs, Some(tab)));
    }
    let mut docs = Vec::new();
    for record in kanon_core::io::read_jsonl::<Document>(path)? {
        docs.push(record?.1);
    }
    Ok((docs, None))
}

/// The DIRECT and QUASI mentions of every annotator (their union: a span one annotator marked is
/// masked even if another did not). Annotators name entities separately, so their entity ids are
/// joined where their mentions overlap; overlapping mentions are then left to the sanitizer,
/// which keeps the earliest, longest one.
pub fn gold_mentions(doc: &TabDocument) -> Vec<Mention> {
    let mut mentions: Vec<(String, Mention)> = Vec::new();
    for (annotator, annotation) in &doc.annotations {
        for (index, mention) in annotation.entity_mentions.iter().enumerate() {
            if !mention.identifier_type.to_mask() {
                continue;
            }
            let key = format!(
                "{annotator}\u{1}{}",
                mention
                    .entity_id
                    .clone()
                    .unwrap_or_else(|| format!("mention-{index}"))
            );
            mentions.push((
                key,
                Mention {
                    span: mention.span(),
                    entity_type: mention.entity_type,
                    entity_id: None,
                },
            ));
        }
    }
    // Union-find over entity keys, joined by overlapping mentions.
    let keys: Vec<String> = {
        let mut keys: Vec<String> = mentions.iter().map(|(key, _)| key.clone()).collect();
        keys.sort();
        keys.dedup();
        keys
    };
    let index_of: HashMap<&str, usize> = keys
        .iter()
        .enumerate()
        .map(|(i, key)| (key.as_str(), i))
        .collect();
    let mut parent: Vec<usize> = (0..keys.len()).collect();
    fn root(parent: &mut [usize], mut node: usize) -> usize {
        while parent[node] != node {
            parent[node] = parent[parent[node]];
            node = parent[node];
        }
        node
    }
    let mut by_start: Vec<usize> = (0..mentions.len()).collect();
    by_start.sort_by_key(|&i| mentions[i].1.span.start);
    for (position, &a) in by_start.iter().enumerate() {
        for &b in &by_start[position + 1..] {
            if mentions[b].1.span.start >= mentions[a].1.span.end {
                break;
            }
            let (ra, rb) = (
                root(&mut parent, index_of[mentions[a].0.as_str()]),
                root(&mut parent, index_of[mentions[b].0.as_str()]),
            );
            parent[ra.max(rb)] = ra.min(rb);
        }
    }
    mentions
        .into_iter()
        .map(|(key, mut mention)| {
            let group = root(&mut parent, index_of[key.as_str()]);
            mention.entity_id = Some(keys[group].clone());
            mention
        })
        .collect()
}

fn read_spans(path: &Path) -> Result<HashMap<String, Vec<Mention>>> {
    let mut by_id: HashMap<String, Vec<Mention>> = HashMap::new();
    for record in kanon_core::io::read_jsonl::<SpansRecord>(path)? {
        let (_, record) = record?;
        by_id
            .entry(record.id)
            .or_default()
            .extend(record.spans.into_iter().map(|span| Mention {
                span: Span::new(span.start, span.end.max(span.start)),
                entity_type: span.entity_type.unwrap_or(EntityType::Misc),
                entity_id: span.entity_id,
            }));
    }
    Ok(by_id)
}

/// `OUT.partial` (the output so far) and `OUT.partial.runs` (each document's figures).
fn partial_paths(out: &Path) -> (PathBuf, PathBuf) {
    let mut partial = out.as_os_str().to_owned();
    partial.push(".partial");
    let mut runs = partial.clone();
    runs.push(".runs");
    (PathBuf::from(partial), PathBuf::from(runs))
}

/// The complete lines of a partial JSONL file, parsed; a torn last line (the process was killed
/// while writing it) is cut off so that appending continues cleanly.
fn read_complete_lines<T: serde::de::DeserializeOwned>(path: &Path) -> Result<Vec<T>> {
    let Ok(file) = File::open(path) else {
        return Ok(Vec::new());
    };
    let mut records = Vec::new();
    let mut good_bytes = 0u64;
    for line in BufReader::new(file).split(b'\n') {
        let line = line.with_context(|| format!("reading {}", path.display()))?;
        match serde_json::from_slice::<T>(&line) {
            Ok(record) => {
                records.push(record);
                good_bytes += line.len() as u64 + 1;
            }
            Err(_) => break,
        }
    }
    let file = OpenOptions::new()
        .write(true)
        .open(path)
        .with_context(|| format!("opening {}", path.display()))?;
    file.set_len(good_bytes)
        .with_context(|| format!("truncating {}", path.display()))?;
    Ok(records)
}

fn append_line<T: Serialize>(file: &mut File, path: &Path, record: &T) -> Result<()> {
    let mut line = serde_json::to_vec(record)?;
    line.push(b'\n');
    file.write_all(&line)
        .and_then(|()| file.sync_data())
        .with_context(|| format!("writing {}", path.display()))
}

/// Where answers are cached unless `--cache` says otherwise: `$KANON_LLM_CACHE`, else
/// `~/.cache/kanon/llm`.
pub fn default_cache_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("KANON_LLM_CACHE") {
        return PathBuf::from(dir);
    }
    let home = std::env::var_os("HOME").map_or_else(|| PathBuf::from("."), PathBuf::from);
    home.join(".cache").join("kanon").join("llm")
}

/// `--llm embedded`, `--llm URL`, or `--llm FILE.json` (an `LlmConfig`: any backend, e.g. a
/// scripted one for tests and demonstrations).
fn llm_config(llm: &str, model: Option<&str>) -> Result<LlmConfig> {
    if llm.ends_with(".json") {
        let text = std::fs::read_to_string(llm)
            .with_context(|| format!("reading the LLM config {llm}"))?;
        return serde_json::from_str(&text).with_context(|| format!("{llm}: LLM config"));
    }
    Ok(LlmConfig::from_cli(llm, model)?)
}

fn sanitizer_config(args: &SanitizeArgs) -> Result<SanitizerConfig> {
    let mut config = match &args.config {
        Some(path) => SanitizerConfig::load(path)?,
        None => SanitizerConfig::default(),
    };
    if let Some(strategy) = &args.strategy {
        config.strategy = strategy.parse::<Strategy>()?;
    }
    if let Some(candidates) = args.candidates {
        config.candidates = candidates;
    }
    if let Some(guesses) = args.guesses {
        config.attacker_guesses = guesses;
    }
    if let Some(seed) = args.seed {
        config.seed = seed;
    }
    if let Some(max_tokens) = args.max_tokens {
        config.max_tokens = max_tokens;
    }
    if let Some(temperature) = args.temperature {
        config.temperature = temperature;
    }
    config.validate()?;
    Ok(config)
}

pub fn run(args: &SanitizeArgs, out: &mut dyn Write) -> Result<()> {
    let started = Instant::now();
    let config = sanitizer_config(args)?;
    let (mut docs, tab) = read_documents(&args.docs)?;
    let mut spans: HashMap<String, Vec<Mention>> = match (&args.spans, args.gold_spans) {
        (Some(path), false) => read_spans(path)?,
        (None, true) => {
            let Some(tab) = &tab else {
                bail!(
                    "--gold-spans needs TAB-schema documents (a JSON array with annotations); {} is JSONL",
                    args.docs.display()
                );
            };
            tab.iter()
                .map(|doc| (doc.doc_id.clone(), gold_mentions(doc)))
                .collect()
        }
        _ => bail!("give either --spans SPANS.jsonl or --gold-spans"),
    };
    if let Some(limit) = args.limit {
        docs.truncate(limit);
    }
    let mut seen = HashSet::new();
    for doc in &docs {
        if !seen.insert(doc.id.as_str()) {
            bail!(
                "{}: document id {:?} appears twice",
                args.docs.display(),
                doc.id
            );
        }
    }

    // The model is opened only when the strategy can need one.
    let model: Option<CachedModel<Box<dyn ChatModel>>> = if config.strategy.generalizes() {
        let mut llm = llm_config(&args.llm, args.model.as_deref())?;
        if let (LlmConfig::Embedded { threads, .. }, Some(wanted)) = (&mut llm, args.llm_threads) {
            *threads = Some(wanted);
        }
        let opened = kanon_llm::open(&llm).context("opening the language model")?;
        let cache_dir = args.cache.clone().unwrap_or_else(default_cache_dir);
        Some(if args.no_cache {
            CachedModel::new(opened, tempfile::tempdir()?.keep())?
        } else {
            CachedModel::new(opened, &cache_dir)
                .with_context(|| format!("opening the cache {}", cache_dir.display()))?
        })
    } else {
        None
    };
    let model_name = model.as_ref().map(|model| {
        let id = model.id();
        format!("{}:{}", id.backend, id.model)
    });
    let mut sanitizer = Sanitizer::new(config.clone())?;
    if let Some(model) = &model {
        sanitizer = sanitizer.with_model(model);
    }

    if let Some(parent) = args.out.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("creating {}", parent.display()))?;
    }
    let (partial_path, runs_path) = partial_paths(&args.out);
    let done: Vec<kanon_sanitize::SanitizedDocument> = read_complete_lines(&partial_path)?;
    let mut runs: BTreeMap<String, DocumentRun> = read_complete_lines::<DocumentRun>(&runs_path)?
        .into_iter()
        .map(|run| (run.id.clone(), run))
        .collect();
    let done_ids: HashSet<String> = done.iter().map(|doc| doc.id.clone()).collect();
    runs.retain(|id, _| done_ids.contains(id));
    let mut partial = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&partial_path)
        .with_context(|| format!("opening {}", partial_path.display()))?;
    let mut runs_file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&runs_path)
        .with_context(|| format!("opening {}", runs_path.display()))?;

    let bars = Bars::new();
    bars.stage("sanitize", docs.len() as u64);
    bars.advance(done_ids.len() as u64);
    let resumed = docs.iter().filter(|doc| done_ids.contains(&doc.id)).count() as u64;
    let mut total = SanitizeStats::default();
    let mut document_seconds = 0.0;
    for doc in &docs {
        if done_ids.contains(&doc.id) {
            continue;
        }
        let before = model.as_ref().map(CachedModel::stats).unwrap_or_default();
        let doc_started = Instant::now();
        let mentions = spans.remove(&doc.id).unwrap_or_default();
        let sanitized = sanitizer
            .sanitize(&doc.id, &doc.text, &mentions)
            .with_context(|| format!("sanitizing document {:?}", doc.id))?;
        let after = model.as_ref().map(CachedModel::stats).unwrap_or_default();
        append_line(&mut partial, &partial_path, &sanitized.document)?;
        let run = DocumentRun {
            id: doc.id.clone(),
            seconds: doc_started.elapsed().as_secs_f64(),
            cache: CacheStats {
                hits: after.hits - before.hits,
                misses: after.misses - before.misses,
            },
            stats: sanitized.stats,
        };
        append_line(&mut runs_file, &runs_path, &run)?;
        runs.insert(run.id.clone(), run);
        total.add(&runs[&doc.id].stats);
        document_seconds += runs[&doc.id].seconds;
        bars.advance(1);
        bars.message(&format!(
            "{:.1} s/doc, {:.2} LLM calls/span",
            document_seconds / total.documents.max(1) as f64,
            total.llm_calls() as f64 / total.spans.max(1) as f64
        ));
    }
    bars.finish();
    drop(partial);
    drop(runs_file);

    // Everything is done: the output in input order, atomically, then the partial files go.
    let mut by_id: HashMap<String, kanon_sanitize::SanitizedDocument> =
        read_complete_lines::<kanon_sanitize::SanitizedDocument>(&partial_path)?
            .into_iter()
            .map(|doc| (doc.id.clone(), doc))
            .collect();
    let ordered: Vec<kanon_sanitize::SanitizedDocument> = docs
        .iter()
        .filter_map(|doc| by_id.remove(&doc.id))
        .collect();
    kanon_core::io::atomic_write(&args.out, |writer| {
        kanon_core::io::write_jsonl(writer, &ordered)
    })?;
    let _ = std::fs::remove_file(&partial_path);
    let _ = std::fs::remove_file(&runs_path);

    let mut summary = Summary {
        strategy: config.strategy.to_string(),
        model: model_name,
        documents: ordered.len() as u64,
        resumed_documents: resumed,
        wall_seconds: started.elapsed().as_secs_f64(),
        ..Summary::default()
    };
    for doc in &ordered {
        if let Some(run) = runs.get(&doc.id) {
            summary.stats.add(&run.stats);
            summary.cache_hits += run.cache.hits;
            summary.cache_misses += run.cache.misses;
            summary.document_seconds += run.seconds;
        }
    }
    if let Some(path) = &args.summary {
        super::write_json_file(path, &summary)?;
    }
    out.write_all(summary.render().as_bytes())?;
    writeln!(out, "-> {}", args.out.display())?;
    Ok(())
}
