//! `kanon sanitize` as a job: documents and their spans in, `{"id","text","edits"}` JSONL out
//! (shareable: no original, candidate or guess), and on request an audit JSONL beside it (as
//! sensitive as the input: see [`crate::audit`]). Written document by document to `OUT.partial`
//! (each document's figures to `OUT.partial.runs`), so an interrupted run resumes where it
//! stopped; the outputs are then written in input order, atomically. Model answers go through a [`ResponseCache`], so reruns
//! are free and identical.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use kanon_core::Progress;
use kanon_core::config::ConfigFile;
use kanon_core::io::{JsonlLog, read_documents, with_suffix};
use kanon_core::shard::{Fingerprint, OutputKind, Shard, ShardRecord};
use kanon_core::spans::SpansRecord;
use kanon_llm::{CacheStats, CachedModel, ChatModel, LlmConfig, ResponseCache};
use serde::{Deserialize, Serialize};

use crate::audit::AuditDocument;
use crate::config::SanitizerConfig;
use crate::edit::SanitizedDocument;
use crate::error::{Error, Result};
use crate::group::Mention;
use crate::sanitizer::{SanitizeStats, Sanitized, Sanitizer};
use crate::summary::SanitizeSummary;

/// Where the spans to replace come from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "from", rename_all = "kebab-case", deny_unknown_fields)]
pub enum SpanSource {
    /// A spans file (`kanon detect`'s output): `{"id","spans":[{"start","end","type",…}]}`; a
    /// span without a type is MISC.
    File {
        /// The spans JSONL.
        path: PathBuf,
    },
    /// The DIRECT and QUASI mentions of the TAB-schema documents, all annotators united, their
    /// entities linked ([`kanon_core::tab::TabDocument::masked_mentions`]).
    Gold,
}

/// The knobs of a sanitization, whichever way they come: `kanon sanitize`'s options (which
/// flatten into this type), a run config's `[sanitize]` section (this type plus the stage's
/// inputs) or a job file. Every default is defined here.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct SanitizeSettings {
    /// Only the first N documents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "clap", arg(long))]
    pub limit: Option<usize>,
    /// How spans are replaced, and every knob of the sanitizer (configs/sanitize.toml lists
    /// every key).
    #[serde(default, rename = "config")]
    #[cfg_attr(feature = "clap", arg(skip))]
    pub sanitizer: SanitizerConfig,
    /// The language model that proposes generalizations, opened only when the strategy
    /// generalizes; none: a generalizing strategy fails on the first span that needs it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "clap", arg(skip))]
    pub llm: Option<LlmConfig>,
    /// The attacker of INTACT's inference attacks, when it is not `llm` (a stronger model over
    /// HTTP beside the embedded generator, or the reverse).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "clap", arg(skip))]
    pub attacker_llm: Option<LlmConfig>,
    /// Where model answers are kept, keyed by request: a rerun asks the model nothing it was
    /// asked before (default: `$KANON_LLM_CACHE`, else `~/.cache/kanon/llm`).
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(skip))]
    pub cache: ResponseCache,
    /// Documents sanitized at once: more only helps a model that answers requests in
    /// parallel, an HTTP server or pool (up to its servers × `max_in_flight`); the embedded
    /// model answers one at a time. The output is the same for any number.
    #[serde(default = "one_worker", skip_serializing_if = "is_one")]
    #[cfg_attr(feature = "clap", arg(long, default_value_t = one_worker()))]
    pub workers: usize,
    /// Only part I/N of the documents (after the limit; 0-based: 0/4 … 3/4; a Slurm array task
    /// or a Kubernetes Indexed Job); `kanon merge` joins the parts' outputs (and audits) into
    /// those of one run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "clap", arg(long, value_name = "I/N"))]
    pub shard: Option<Shard>,
    /// The KG the KG attacker reads (`kanon index build`'s output): INTACT refuses any
    /// candidate with which a document matches fewer than `config.kg_attack.k` people of it.
    /// None: no KG attacker.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "clap", arg(long, value_name = "DIR"))]
    pub index: Option<PathBuf>,
}

impl Default for SanitizeSettings {
    fn default() -> Self {
        SanitizeSettings {
            limit: None,
            sanitizer: SanitizerConfig::default(),
            llm: None,
            attacker_llm: None,
            cache: ResponseCache::default(),
            workers: one_worker(),
            shard: None,
            index: None,
        }
    }
}

/// Documents in, sanitized documents out: the inputs, the outputs and the settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SanitizeJob {
    /// Documents: JSONL `{"id","text"}` or a TAB-schema JSON array.
    pub docs: PathBuf,
    /// Where the spans to replace come from.
    pub spans: SpanSource,
    /// Output JSONL `{"id","text","edits"}`: the shareable file.
    pub out: PathBuf,
    /// Also write the audit here (JSONL, one document per line: originals, candidates and the
    /// attacker's guesses). As sensitive as the input; off by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audit: Option<PathBuf>,
    /// Also write the run's figures as JSON here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<PathBuf>,
    /// Also write each sanitized text as plain text, `<texts>/<id>.txt` (the form of plain-text
    /// input: a `.txt` file or a directory of them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub texts: Option<PathBuf>,
    /// How it is done.
    #[serde(flatten)]
    pub settings: SanitizeSettings,
}

fn one_worker() -> usize {
    1
}

fn is_one(workers: &usize) -> bool {
    *workers == 1
}

impl SanitizeJob {
    /// What must be equal across the parts of a sharded run: everything but where the inputs
    /// are (their contents are compared), where the outputs go, the cache, the workers and the
    /// shard.
    fn shard_settings(&self) -> Result<serde_json::Value> {
        let mut settings = kanon_core::shard::settings_of(
            self,
            &[
                "docs", "out", "audit", "summary", "texts", "cache", "workers", "shard", "index",
            ],
        );
        if let Some(index) = &self.settings.index {
            settings["index"] = serde_json::json!(
                Fingerprint::new()
                    .file(&index.join(kanon_index::meta::META_FILE))?
                    .finish()
            );
        }
        if let SpanSource::File { path } = &self.spans {
            settings["spans"] = serde_json::json!({
                "from": "file",
                "fingerprint": Fingerprint::new().file(path)?.finish(),
            });
        }
        Ok(settings)
    }
}

impl ConfigFile for SanitizeJob {
    fn check(&self) -> std::result::Result<(), String> {
        self.settings
            .sanitizer
            .check()
            .map_err(|problem| format!("config.{problem}"))
    }
}

/// One finished document in `OUT.partial`: the shareable document and, when an audit is asked
/// for, its audit (so the partial file is as sensitive as the audit only when one is asked for).
#[derive(Debug, Clone, Serialize, Deserialize)]
struct PartialDocument {
    #[serde(flatten)]
    document: SanitizedDocument,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    audit: Option<AuditDocument>,
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

/// The sentence encoder whose embeddings choose `substitute`'s words.
const SUBSTITUTE_ENCODER: &str = kanon_models::DEFAULT_ENCODER;

/// Sanitizes the documents, resuming from `OUT.partial` when an earlier run left one.
pub fn run(job: &SanitizeJob, progress: &dyn Progress) -> Result<SanitizeSummary> {
    run_until(job, progress, &|| false)
}

/// [`run`], asking `should_stop` before each document (from the worker that would take it): `true` ends the run with
/// [`Error::Stopped`], the finished documents kept in `OUT.partial` for a rerun to resume from
/// (a Ctrl-C that loses nothing).
pub fn run_until(
    job: &SanitizeJob,
    progress: &dyn Progress,
    should_stop: &(dyn Fn() -> bool + Sync),
) -> Result<SanitizeSummary> {
    let started = Instant::now();
    let config = &job.settings.sanitizer;
    config.validate()?;
    let Inputs {
        docs,
        mut spans,
        part,
    } = read_inputs(job)?;
    let models = SanitizerModels::open(&job.settings)?;
    let sanitizer = models.sanitizer(config)?;
    let mut finished = Finished::resume(job)?;

    progress.stage("sanitize", docs.len() as u64);
    progress.advance(finished.by_id.len() as u64);
    let resumed = docs
        .iter()
        .filter(|doc| finished.by_id.contains_key(&doc.id))
        .count() as u64;
    let pending: Vec<(&kanon_core::Document, Vec<Mention>)> = docs
        .iter()
        .filter(|doc| !finished.by_id.contains_key(&doc.id))
        .map(|doc| (doc, spans.remove(&doc.id).unwrap_or_default()))
        .collect();
    finished.sanitize(job, &sanitizer, &pending, progress, should_stop)?;
    if finished.by_id.len() < docs.len() {
        return Err(Error::Stopped {
            done: finished.by_id.len(),
            documents: docs.len(),
            partial: finished.partial.path().to_owned(),
        });
    }

    let (ordered, runs) = finished.write_outputs(job, &docs, part.as_ref())?;
    let mut summary = SanitizeSummary {
        strategy: config.strategy.to_string(),
        model: models.name(),
        documents: ordered.len() as u64,
        resumed_documents: resumed,
        wall_seconds: started.elapsed().as_secs_f64(),
        ..SanitizeSummary::default()
    };
    for doc in &ordered {
        if let Some(run) = runs.get(&doc.id) {
            summary.stats.add(&run.stats);
            summary.cache_hits += run.cache.hits;
            summary.cache_misses += run.cache.misses;
            summary.document_seconds += run.seconds;
        }
    }
    if let Some(path) = &job.summary {
        kanon_core::io::write_json(path, &summary)?;
    }
    Ok(summary)
}

/// The documents to sanitize (after `limit` and the shard), their spans by document id, and the
/// shard's part.
#[derive(Debug, Clone)]
pub struct Inputs {
    /// The documents, in input order.
    pub docs: Vec<kanon_core::Document>,
    /// Each document's spans, by id.
    pub spans: HashMap<String, Vec<Mention>>,
    /// The shard's part, when one was asked for.
    pub part: Option<kanon_core::shard::Part>,
}

/// Reads the documents and their spans and checks them: ids are unique and, when texts are
/// written, each names a text file (so a bad id fails before any model call).
fn read_inputs(job: &SanitizeJob) -> Result<Inputs> {
    let inputs = read_documents_and_spans(
        &job.docs,
        &job.spans,
        job.settings.limit,
        job.settings.shard,
    )?;
    if let Some(dir) = &job.texts {
        for doc in &inputs.docs {
            kanon_core::io::text_path(dir, &doc.id)?;
        }
    }
    Ok(inputs)
}

/// Reads documents (`docs`) and their spans as `kanon sanitize` does — a spans file checked span
/// by span (errors name the file, the line and the values), or a TAB file's gold mentions —
/// keeping the first `limit` and the `shard`'s part; ids must be unique. Any job that renders
/// through the sanitizer reads its inputs here.
pub fn read_documents_and_spans(
    docs_path: &std::path::Path,
    span_source: &SpanSource,
    limit: Option<usize>,
    shard: Option<Shard>,
) -> Result<Inputs> {
    let read = read_documents(docs_path)?;
    let mut docs = read.docs;
    let mut given = None;
    let spans: HashMap<String, Vec<Mention>> = match span_source {
        SpanSource::File { path } => {
            let (spans, lines) = read_given_spans(path)?;
            given = Some((path, lines));
            spans
        }
        SpanSource::Gold => {
            let Some(tab) = &read.tab else {
                return Err(Error::GoldNeedsTab {
                    path: docs_path.to_owned(),
                });
            };
            tab.iter()
                .map(|doc| {
                    let mentions = doc
                        .masked_mentions()
                        .into_iter()
                        .map(|m| Mention {
                            span: m.span,
                            entity_type: m.entity_type,
                            entity_id: Some(m.entity),
                        })
                        .collect();
                    (doc.doc_id.clone(), mentions)
                })
                .collect()
        }
    };
    if let Some(limit) = limit {
        docs.truncate(limit);
    }
    let part = kanon_core::shard::keep_part(&mut docs, shard);
    if let Some((path, lines)) = given {
        check_given_spans(path, &lines, &spans, &docs)?;
    }
    let mut seen = HashSet::new();
    for doc in &docs {
        if !seen.insert(doc.id.as_str()) {
            return Err(Error::DuplicateDocument {
                path: docs_path.to_owned(),
                id: doc.id.clone(),
            });
        }
    }
    Ok(Inputs { docs, spans, part })
}

/// The line of the spans file each document's spans are on, in their order there.
type SpanLines = HashMap<String, Vec<u64>>;

/// Reads a spans file (a document's spans on several lines joined), each span as written: an
/// empty or reversed one is an error naming the file, the line and the values.
fn read_given_spans(path: &std::path::Path) -> Result<(HashMap<String, Vec<Mention>>, SpanLines)> {
    let mut spans: HashMap<String, Vec<Mention>> = HashMap::new();
    let mut lines: SpanLines = HashMap::new();
    for record in kanon_core::io::read_jsonl::<SpansRecord>(path)? {
        let (line, record) = record?;
        let mentions = spans.entry(record.id.clone()).or_default();
        let at = lines.entry(record.id.clone()).or_default();
        for span in record.spans {
            if span.start >= span.end {
                return Err(kanon_core::Error::parse(
                    path,
                    line,
                    format!(
                        "document {:?}, span {}: `start` = {}, `end` = {} is empty or reversed",
                        record.id,
                        mentions.len(),
                        span.start,
                        span.end
                    ),
                )
                .into());
            }
            mentions.push(Mention::of_record(&span));
            at.push(line);
        }
    }
    Ok((spans, lines))
}

/// Checks that every span of the documents to sanitize lies inside its text: an error names the
/// spans file, the line and the values as written.
fn check_given_spans(
    path: &std::path::Path,
    lines: &SpanLines,
    spans: &HashMap<String, Vec<Mention>>,
    docs: &[kanon_core::Document],
) -> Result<()> {
    for doc in docs {
        let Some(mentions) = spans.get(&doc.id) else {
            continue;
        };
        let chars = doc.text.chars().count();
        for (index, mention) in mentions.iter().enumerate() {
            if mention.span.end > chars {
                return Err(kanon_core::Error::parse(
                    path,
                    lines[&doc.id][index],
                    format!(
                        "document {:?}, span {index}: `start` = {}, `end` = {} is not a span of its {chars}-character text",
                        doc.id, mention.span.start, mention.span.end
                    ),
                )
                .into());
            }
        }
    }
    Ok(())
}

/// The models a strategy needs, opened as `kanon sanitize` opens them; the [`Sanitizer`]
/// borrows them. `kanon certify` and `kanon serve` open theirs with it too.
pub struct SanitizerModels {
    generator: Option<CachedModel<Box<dyn ChatModel>>>,
    attacker: Option<CachedModel<Box<dyn ChatModel>>>,
    substitutes: Option<crate::substitute::EmbeddingSubstitutes>,
    kg: Option<crate::kg_attack::KgAttacker>,
}

impl std::fmt::Debug for SanitizerModels {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SanitizerModels")
            .field("model", &self.name())
            .field("substitutes", &self.substitutes.is_some())
            .field("kg", &self.kg.is_some())
            .finish()
    }
}

impl SanitizerModels {
    /// Opens the generator only when the strategy generalizes, the attacker only for INTACT,
    /// the encoder only for `substitute` and the KG attacker when a generalizing strategy has
    /// an index.
    pub fn open(settings: &SanitizeSettings) -> Result<Self> {
        let config = &settings.sanitizer;
        let generator = match &settings.llm {
            Some(llm) if config.strategy.generalizes() => {
                Some(settings.cache.wrap(kanon_llm::open(llm)?)?)
            }
            _ => None,
        };
        let attacker = match &settings.attacker_llm {
            Some(llm) if config.strategy == crate::Strategy::Intact => {
                Some(settings.cache.wrap(kanon_llm::open(llm)?)?)
            }
            _ => None,
        };
        let substitutes = if config.strategy == crate::Strategy::Substitute {
            let dir =
                kanon_models::resolve_pretrained(SUBSTITUTE_ENCODER).map_err(Error::Models)?;
            let encoder =
                kanon_tagger::encoder::SentenceEncoder::load(&dir, &burn::tensor::Device::flex())
                    .map_err(Error::Encoder)?;
            Some(crate::substitute::EmbeddingSubstitutes::new(encoder)?)
        } else {
            None
        };
        let kg = match &settings.index {
            // Beside INTACT's KG attacker, the index checks any generalization's truth.
            Some(dir) if config.strategy.generalizes() => {
                Some(crate::kg_attack::KgAttacker::open(dir, config.kg_attack)?)
            }
            _ => None,
        };
        Ok(SanitizerModels {
            generator,
            attacker,
            substitutes,
            kg,
        })
    }

    /// `backend:model` of the generator, and of the attacker when there is one: the summary's
    /// `model`.
    pub fn name(&self) -> Option<String> {
        let name = |model: &CachedModel<Box<dyn ChatModel>>| {
            let id = model.id();
            format!("{}:{}", id.backend, id.model)
        };
        self.generator.as_ref().map(|model| match &self.attacker {
            Some(attacker) => format!("{}, attacker {}", name(model), name(attacker)),
            None => name(model),
        })
    }

    /// The KG attacker, when one was opened.
    pub fn kg(&self) -> Option<&crate::kg_attack::KgAttacker> {
        self.kg.as_ref()
    }

    /// A sanitizer with `config`, borrowing the opened models.
    pub fn sanitizer(&self, config: &SanitizerConfig) -> Result<Sanitizer<'_>> {
        let mut sanitizer = Sanitizer::new(config.clone())?;
        if let Some(substitutes) = &self.substitutes {
            sanitizer = sanitizer.with_substitutes(substitutes);
        }
        if let Some(model) = &self.generator {
            sanitizer = sanitizer.with_model(model);
        }
        if let Some(attacker) = &self.attacker {
            sanitizer = sanitizer.with_attacker(attacker);
        }
        if let Some(kg) = &self.kg {
            sanitizer = sanitizer.with_kg(kg);
        }
        Ok(sanitizer)
    }
}

/// The finished documents: those an earlier run left in `OUT.partial` and those of this run,
/// each appended to the partial files as it finishes.
struct Finished {
    partial: JsonlLog<PartialDocument>,
    runs_log: JsonlLog<DocumentRun>,
    by_id: HashMap<String, PartialDocument>,
    runs: BTreeMap<String, DocumentRun>,
}

impl Finished {
    /// Opens the partial files (creating the output's directory), keeping what an earlier run
    /// finished.
    fn resume(job: &SanitizeJob) -> Result<Self> {
        if let Some(parent) = job.out.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|e| kanon_core::Error::io(parent, e))?;
        }
        let partial_path = with_suffix(&job.out, ".partial");
        let (partial, done) = JsonlLog::<PartialDocument>::open(&partial_path)?;
        // A document finished without its audit is redone when an audit is asked for now.
        let done: Vec<PartialDocument> = done
            .into_iter()
            .filter(|record| job.audit.is_none() || record.audit.is_some())
            .collect();
        let (runs_log, earlier_runs) =
            JsonlLog::<DocumentRun>::open(&with_suffix(&partial_path, ".runs"))?;
        let done_ids: HashSet<String> = done
            .iter()
            .map(|record| record.document.id.clone())
            .collect();
        let runs: BTreeMap<String, DocumentRun> = earlier_runs
            .into_iter()
            .filter(|run| done_ids.contains(&run.id))
            .map(|run| (run.id.clone(), run))
            .collect();
        let by_id: HashMap<String, PartialDocument> = done
            .into_iter()
            .map(|record| (record.document.id.clone(), record))
            .collect();
        Ok(Finished {
            partial,
            runs_log,
            by_id,
            runs,
        })
    }

    /// Sanitizes the pending documents on `job.settings.workers` threads; this thread writes each finished
    /// one to the partial files (in the order they finish: the output is put in input order at
    /// the end). The first failure stops the workers and is returned once they are done.
    fn sanitize(
        &mut self,
        job: &SanitizeJob,
        sanitizer: &Sanitizer<'_>,
        pending: &[(&kanon_core::Document, Vec<Mention>)],
        progress: &dyn Progress,
        should_stop: &(dyn Fn() -> bool + Sync),
    ) -> Result<()> {
        let mut total = SanitizeStats::default();
        let mut document_seconds = 0.0;
        let next = AtomicUsize::new(0);
        let stop = AtomicBool::new(false);
        let mut failure: Option<Error> = None;
        let (finished, results) = mpsc::channel::<Result<(usize, Sanitized, DocumentRun)>>();
        std::thread::scope(|scope| -> Result<()> {
            for _ in 0..job.settings.workers.clamp(1, pending.len().max(1)) {
                let finished = finished.clone();
                let (next, stop) = (&next, &stop);
                scope.spawn(move || {
                    work(pending, next, stop, sanitizer, should_stop, &finished);
                });
            }
            drop(finished);
            for result in results {
                let (_, sanitized, run) = match result {
                    Ok(done) => done,
                    Err(err) => {
                        failure.get_or_insert(err);
                        continue;
                    }
                };
                let record = PartialDocument {
                    document: sanitized.document,
                    audit: job.audit.is_some().then_some(sanitized.audit),
                };
                let written = self
                    .partial
                    .append(&record)
                    .and_then(|()| self.runs_log.append(&run));
                if let Err(err) = written {
                    stop.store(true, Ordering::SeqCst);
                    failure.get_or_insert(err.into());
                    continue;
                }
                total.add(&run.stats);
                document_seconds += run.seconds;
                self.by_id.insert(run.id.clone(), record);
                self.runs.insert(run.id.clone(), run);
                progress.advance(1);
                progress.message(&format!(
                    "{:.1} s/doc, {:.2} LLM calls/span",
                    document_seconds / total.documents.max(1) as f64,
                    total.llm_calls() as f64 / total.spans.max(1) as f64
                ));
            }
            Ok(())
        })?;
        match failure {
            Some(err) => Err(err),
            None => Ok(()),
        }
    }

    /// Writes the outputs (the sanitized documents in input order, the audit, the texts, the
    /// shard records) atomically, then removes the partial files; returns the documents written
    /// and each one's figures.
    fn write_outputs(
        mut self,
        job: &SanitizeJob,
        docs: &[kanon_core::Document],
        part: Option<&kanon_core::shard::Part>,
    ) -> Result<(Vec<SanitizedDocument>, BTreeMap<String, DocumentRun>)> {
        let (ordered, audits): (Vec<SanitizedDocument>, Vec<Option<AuditDocument>>) = docs
            .iter()
            .filter_map(|doc| self.by_id.remove(&doc.id))
            .map(|record| (record.document, record.audit))
            .unzip();
        if let Some(path) = &job.audit {
            let audits: Vec<AuditDocument> = audits.into_iter().flatten().collect();
            // As sensitive as the input: its owner's alone.
            kanon_core::io::atomic_write_private(path, |writer| {
                kanon_core::io::write_jsonl(writer, &audits)
            })?;
        }
        if let Some(dir) = &job.texts {
            for doc in &ordered {
                let path = kanon_core::io::text_path(dir, &doc.id)?;
                if let Some(parent) = path.parent() {
                    std::fs::create_dir_all(parent)
                        .map_err(|e| kanon_core::Error::io(parent, e))?;
                }
                kanon_core::io::atomic_write(&path, |w| {
                    std::io::Write::write_all(w, doc.text.as_bytes())
                })?;
            }
        }
        kanon_core::io::atomic_write(&job.out, |writer| {
            kanon_core::io::write_jsonl(writer, &ordered)
        })?;
        let outputs = [(&job.out, OutputKind::Sanitized)]
            .into_iter()
            .chain(job.audit.iter().map(|audit| (audit, OutputKind::Audit)));
        for (output, kind) in outputs {
            match part {
                Some(part) => {
                    ShardRecord::new(kind, part, &job.docs, job.shard_settings()?).write(output)?
                }
                None => ShardRecord::remove_stale(output, kind)?,
            }
        }
        // The output is complete: a partial file left behind would only be redone work.
        let _ = self.partial.remove();
        let _ = self.runs_log.remove();
        Ok((ordered, self.runs))
    }
}

/// One worker: takes the next pending document until none is left, a document fails or
/// `should_stop` says so, and sends each result with the document's figures.
fn work(
    pending: &[(&kanon_core::Document, Vec<Mention>)],
    next: &AtomicUsize,
    stop: &AtomicBool,
    sanitizer: &Sanitizer<'_>,
    should_stop: &(dyn Fn() -> bool + Sync),
    finished: &mpsc::Sender<Result<(usize, Sanitized, DocumentRun)>>,
) {
    while !stop.load(Ordering::SeqCst) {
        if should_stop() {
            stop.store(true, Ordering::SeqCst);
            break;
        }
        let i = next.fetch_add(1, Ordering::SeqCst);
        let Some((doc, mentions)) = pending.get(i) else {
            break;
        };
        let before = CacheStats::of_this_thread();
        let doc_started = Instant::now();
        let result = sanitizer
            .sanitize(&doc.id, &doc.text, mentions)
            .map(|sanitized| {
                let after = CacheStats::of_this_thread();
                let run = DocumentRun {
                    id: doc.id.clone(),
                    seconds: doc_started.elapsed().as_secs_f64(),
                    cache: CacheStats {
                        hits: after.hits - before.hits,
                        misses: after.misses - before.misses,
                    },
                    stats: sanitized.stats.clone(),
                };
                (i, sanitized, run)
            });
        if result.is_err() {
            stop.store(true, Ordering::SeqCst);
        }
        if finished.send(result).is_err() {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_job_round_trips_through_its_file_forms() {
        let dir = tempfile::tempdir().unwrap();
        let jobs = [
            SanitizeJob {
                docs: "docs.jsonl".into(),
                spans: SpanSource::File {
                    path: "spans.jsonl".into(),
                },
                out: "out.jsonl".into(),
                audit: Some("audit.jsonl".into()),
                summary: Some("summary.json".into()),
                texts: Some("texts".into()),
                settings: SanitizeSettings {
                    limit: Some(20),
                    sanitizer: SanitizerConfig::builder()
                        .strategy(crate::Strategy::MostSpecific)
                        .temperature(0.7)
                        .build()
                        .unwrap(),
                    llm: Some(LlmConfig::from_cli("http://localhost:8000", Some("m")).unwrap()),
                    attacker_llm: Some(
                        LlmConfig::from_cli("http://localhost:8001", Some("big")).unwrap(),
                    ),
                    cache: ResponseCache::Dir("answers".into()),
                    workers: 4,
                    shard: Some("2/3".parse().unwrap()),
                    index: Some("index".into()),
                },
            },
            SanitizeJob {
                docs: "tab.json".into(),
                spans: SpanSource::Gold,
                out: "out.jsonl".into(),
                audit: None,
                summary: None,
                texts: None,
                settings: SanitizeSettings {
                    cache: ResponseCache::Off,
                    ..SanitizeSettings::default()
                },
            },
        ];
        for job in jobs {
            for name in ["sanitize.toml", "sanitize.json"] {
                let path = dir.path().join(name);
                job.save(&path).unwrap();
                assert_eq!(SanitizeJob::load(&path).unwrap(), job);
            }
        }
        let path = dir.path().join("bad.toml");
        std::fs::write(
            &path,
            "docs = \"d\"\nout = \"o\"\nspans = { from = \"gold\" }\n[config]\ncandidates = 0\n",
        )
        .unwrap();
        let err = SanitizeJob::load(&path).unwrap_err().to_string();
        assert!(err.contains("bad.toml: config.candidates = 0"), "{err}");
        std::fs::write(
            &path,
            "docs = \"d\"\nout = \"o\"\nspans = { from = \"gold\" }\nlimt = 3\n",
        )
        .unwrap();
        let err = format!("{:#}", SanitizeJob::load(&path).unwrap_err());
        assert!(err.contains("limt"), "an unknown key is named: {err}");
    }
}
