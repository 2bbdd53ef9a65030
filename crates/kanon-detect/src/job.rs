//! Running any detector over a documents file: [`MethodJob`], resumable (`OUT.partial`),
//! shardable (`Shard`, with the record `kanon merge` checks), writing the spans JSONL of `kanon
//! detect` or TAB's system format (and, for `reid-greedy`, the search's path on request). The one
//! runner of `kanon detect` and of a run's detect stage.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use burn::tensor::Device;
use kanon_core::background::Background;
use kanon_core::config::ConfigFile;
use kanon_core::io::{JsonlLog, read_documents, with_suffix};
use kanon_core::shard::{OutputKind, Part, Shard, ShardRecord};
use kanon_core::spans::{SpanRecord, SpansRecord, write_spans, write_system_format};
use kanon_core::{Document, Progress, Span};
use kanon_llm::LlmConfig;
use kanon_tagger::{DetectConfig, SpansFormat};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::greedy::{GreedySettings, Stop, Trajectory};
use crate::ic::InformationThreshold;
use crate::idf::IdfDetector;
use crate::lexical::LexicalOverlap;
use crate::reid::{ReidModel, ReidModelJob};
use crate::reid_greedy::ReidGreedy;
use crate::tagger::TaggerDetector;
use crate::words::Words;
use crate::{Detector, Error, MASK_LABEL, Result, mask_record};

/// A detection method and its settings (a config file's `[method]` table, `name = "…"` picking it;
/// without `name`, the tagger).
// `remote = "Self"`: the derived (de)serializers become inherent functions, which the trait
// impls below call — Deserialize after giving `name` its default, which serde's tags lack.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "name",
    rename_all = "kebab-case",
    deny_unknown_fields,
    remote = "Self"
)]
pub enum Method {
    /// kanon's tagger, trained on a KG-labeled corpus: typed, scored spans.
    Tagger {
        /// Its checkpoint directory (`kanon train`'s); in a run config with a train stage, the
        /// trained one, and left out.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        model: Option<PathBuf>,
        /// How it decides, tidies and batches: the keys of a detect config, at this level.
        #[serde(flatten)]
        config: DetectConfig,
    },
    /// Greedy masking guided by a re-identification model trained on the background.
    ReidGreedy {
        /// The re-identification model: its checkpoint, trained on the background on first use.
        model: ReidModelJob,
        /// When the search stops, and how many candidates it scores again.
        #[serde(default)]
        search: GreedySettings,
    },
    /// Words whose in-context probability under a language model is below `p`.
    IcThreshold {
        /// The probability below which a word is masked (default 1e-5).
        #[serde(default = "default_p")]
        p: f64,
        /// The scoring language model (default: the embedded one).
        #[serde(default)]
        llm: LlmConfig,
    },
    /// The rarest words up to `budget` (a share of each document's words).
    Idf {
        /// The share of each document's words to mask (default 0.3).
        #[serde(default = "default_budget")]
        budget: f64,
    },
    /// Words that the person's background text holds.
    NerLexical,
}

fn default_p() -> f64 {
    1e-5
}

fn default_budget() -> f64 {
    0.3
}

impl Default for Method {
    /// The tagger with the default decoding and no checkpoint (a run's train stage gives it).
    fn default() -> Self {
        Method::Tagger {
            model: None,
            config: DetectConfig::default(),
        }
    }
}

impl Serialize for Method {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        Method::serialize(self, serializer)
    }
}

impl<'de> Deserialize<'de> for Method {
    /// The table with `name = "tagger"` when it has no `name`: a run config's tagger section reads
    /// as the detect config it was before the tag was added. Unknown keys are errors, named.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        let mut table = serde_json::Map::<String, serde_json::Value>::deserialize(deserializer)?;
        table
            .entry("name")
            .or_insert_with(|| serde_json::Value::from("tagger"));
        // serde buffers a tagged table, so the key of a wrong value is not tracked below it: the
        // message names the type expected, the error's line the table.
        Method::deserialize(serde_json::Value::Object(table)).map_err(serde::de::Error::custom)
    }
}

impl Method {
    /// `ic-threshold` with its defaults: `p` = 1e-5, the embedded model.
    pub fn ic_threshold() -> Method {
        Method::IcThreshold {
            p: default_p(),
            llm: LlmConfig::default(),
        }
    }

    /// `idf` with its default budget, 30 % of each document's words.
    pub fn idf() -> Method {
        Method::Idf {
            budget: default_budget(),
        }
    }

    /// Its name on the command line.
    pub fn name(&self) -> &'static str {
        match self {
            Method::Tagger { .. } => "tagger",
            Method::ReidGreedy { .. } => "reid-greedy",
            Method::IcThreshold { .. } => "ic-threshold",
            Method::Idf { .. } => "idf",
            Method::NerLexical => "ner-lexical",
        }
    }

    fn needs_background(&self) -> bool {
        matches!(self, Method::ReidGreedy { .. } | Method::NerLexical)
    }

    /// Whether it runs a model on the device its caller picks: the tagger does (the
    /// re-identification guide always runs on the CPU), so callers resolve a device only for it.
    pub fn uses_device(&self) -> bool {
        matches!(self, Method::Tagger { .. })
    }

    /// Checks the settings' values (a probability, a share).
    pub fn validate(&self) -> std::result::Result<(), String> {
        match self {
            Method::Tagger { config, .. } => config.validate(),
            Method::ReidGreedy { search, .. } => search.validate(),
            Method::IcThreshold { p, .. } if !(*p > 0.0 && *p < 1.0) => {
                Err(format!("p {p} is not a probability in (0, 1)"))
            }
            Method::Idf { budget } if !(0.0..=1.0).contains(budget) => {
                Err(format!("budget {budget} is not a share in [0, 1]"))
            }
            _ => Ok(()),
        }
    }
}

/// Detection over a documents file with one of the detectors.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MethodJob {
    /// Documents (JSONL `{"id","person","text"}`, TAB JSON, text files: as `kanon detect`).
    pub docs: PathBuf,
    /// The spans JSONL to write (resumable through `OUT.partial`).
    pub out: PathBuf,
    /// Public texts about the population (`[{"name", "public_knowledge"}]`): needed by
    /// `reid-greedy` and `ner-lexical`; `idf` counts words over them too.
    #[serde(default)]
    pub background: Option<PathBuf>,
    /// The detector and its settings.
    pub method: Method,
    /// `reid-greedy`: also write each document's search path (word offsets, the true person's
    /// rank after each step; no text) to this JSONL.
    #[serde(default)]
    pub trace: Option<PathBuf>,
    /// The spans file's form: spans JSONL, or TAB's system format.
    #[serde(default)]
    pub format: SpansFormat,
    /// Only part `I/N` of the documents (a batch scheduler's array task); `kanon merge` joins
    /// the parts' spans into the spans of one run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
}

impl ConfigFile for MethodJob {}

/// What a detection run did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MethodSummary {
    /// The method's name.
    pub method: String,
    /// Its model's depth and precision (the tagger's), when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Documents detected, resumed ones included.
    pub documents: usize,
    /// Documents of an earlier, interrupted run kept.
    pub resumed: usize,
    /// Spans written.
    pub spans: usize,
    /// Words of the documents.
    pub words: usize,
    /// Of those, the words masked.
    pub masked_words: usize,
    /// Documents whose search stopped short of its goal, by why (`reid-greedy`: the true person
    /// still among the model's `top_k` guesses when `max_share` of the words were masked, or
    /// when no word was left), resumed ones included. Empty for the detectors that cannot stop
    /// short.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub stopped_short: BTreeMap<Stop, usize>,
    /// Seconds of this run (not of an interrupted one before it).
    pub seconds: f64,
    /// The spans file.
    pub out: PathBuf,
}

impl MethodSummary {
    /// What a person reads: the headline, on a line of its own.
    pub fn render(&self) -> String {
        format!("{}\n", self.headline())
    }

    /// One line: counts, share masked, the documents that stopped short and why, speed, the
    /// output.
    pub fn headline(&self) -> String {
        let share = self.masked_words as f64 / self.words.max(1) as f64;
        let fresh = self.documents - self.resumed;
        format!(
            "{}{}: {} documents ({} kept from an interrupted run), {} spans, {} of {} words masked ({:.1} %){}, {:.1} s ({:.2} documents/s) → {}",
            self.method,
            self.model
                .as_ref()
                .map_or(String::new(), |model| format!(" ({model})")),
            self.documents,
            self.resumed,
            self.spans,
            self.masked_words,
            self.words,
            100.0 * share,
            self.stopped_short_note(),
            self.seconds,
            fresh as f64 / self.seconds.max(1e-9),
            self.out.display()
        )
    }

    /// `, 3 stopped short (max-share 2, no-candidate 1)`, or nothing when none did.
    fn stopped_short_note(&self) -> String {
        let total: usize = self.stopped_short.values().sum();
        if total == 0 {
            return String::new();
        }
        let reasons: Vec<String> = self
            .stopped_short
            .iter()
            .map(|(stop, count)| format!("{} {count}", stop.name()))
            .collect();
        format!(", {total} stopped short ({})", reasons.join(", "))
    }
}

/// One finished document in the partial log: its spans as written and, for `reid-greedy`, the
/// search path.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Done {
    id: String,
    spans: Vec<SpanRecord>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    trace: Option<TraceRecord>,
}

/// A document's search path, in word offsets: what was masked at each step and the true
/// person's rank after it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TraceRecord {
    /// The document.
    pub id: String,
    /// The true person's rank before any masking.
    pub initial_rank: usize,
    /// The steps, in order.
    pub steps: Vec<TraceStep>,
    /// Why the search stopped.
    pub stop: crate::greedy::Stop,
}

/// One step of a search path: the words it masked as character spans, and the rank after it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TraceStep {
    /// The words masked at this step.
    pub spans: Vec<Span>,
    /// The true person's rank after it.
    pub rank: usize,
}

fn trace_of(id: &str, words: &Words, path: &Trajectory) -> TraceRecord {
    TraceRecord {
        id: id.to_owned(),
        initial_rank: path.initial_rank,
        steps: path
            .steps
            .iter()
            .map(|step| TraceStep {
                spans: step.words.iter().map(|&w| words.spans[w]).collect(),
                rank: step.rank,
            })
            .collect(),
        stop: path.stop,
    }
}

fn read_background(job: &MethodJob) -> Result<Option<Background>> {
    match &job.background {
        Some(path) => Ok(Some(Background::read(path)?)),
        None if job.method.needs_background() => Err(Error::Setting(format!(
            "{} needs the public texts about the population (`background`, `--background BG.json`)",
            job.method.name()
        ))),
        None => Ok(None),
    }
}

/// Runs the job: detects every document of its part (keeping those an interrupted run finished,
/// from `OUT.partial`) and writes the spans atomically, with the shard's record for a part.
/// `device` is where the tagger runs; the other detectors ignore it.
pub fn run(job: &MethodJob, device: &Device, progress: &dyn Progress) -> Result<MethodSummary> {
    job.method.validate().map_err(Error::Setting)?;
    let mut docs = read_documents(&job.docs)?.docs;
    let background = read_background(job)?;
    if job.method.needs_background() {
        // Every document's person before any work: a long run does not fail at its end.
        let background = background.as_ref().expect("read above");
        for doc in &docs {
            crate::reid::person_of(background, doc)?;
        }
    }
    // Over every document, before the part is cut: `idf` counts words over all of them, so that
    // the parts' spans merged are those of one run.
    let runner = Runner::open(job, &docs, background, device, progress)?;
    let part = kanon_core::shard::keep_part(&mut docs, job.shard);

    let partial_path = with_suffix(&job.out, ".partial");
    let (mut partial, done) = JsonlLog::<Done>::open(&partial_path)?;
    let mut finished: HashMap<String, Done> = done
        .into_iter()
        .map(|mut d| {
            // The log of an earlier kanon holds bare offsets: its spans were all `MASK`.
            for span in &mut d.spans {
                span.label.get_or_insert_with(|| MASK_LABEL.into());
            }
            (d.id.clone(), d)
        })
        .collect();
    let resumed = docs.iter().filter(|d| finished.contains_key(&d.id)).count();
    progress.stage(
        &format!("detect ({})", job.method.name()),
        docs.len() as u64,
    );
    progress.advance(resumed as u64);
    let started = Instant::now();
    // Batches cut from the whole part, not from what is left of it, so that a resumed run hands
    // a detector the batches the interrupted one did. The tagger no longer needs it (a window's
    // scores are the same bits in any batch, `kanon_tagger::batching::by_padded_length`); a
    // detector that batches otherwise may. A document repeating an earlier one's id is not
    // detected again: the log is by id.
    let mut seen = std::collections::HashSet::new();
    for batch in docs.chunks(runner.batch_size()) {
        let pending: Vec<&Document> = batch
            .iter()
            .filter(|d| !finished.contains_key(&d.id) && seen.insert(d.id.as_str()))
            .collect();
        if pending.is_empty() {
            continue;
        }
        for record in runner.detect(&pending)? {
            partial.append(&record)?;
            finished.insert(record.id.clone(), record);
        }
        progress.advance(pending.len() as u64);
    }
    let seconds = started.elapsed().as_secs_f64();

    let gathered = Gathered::of(&docs, &finished);
    write_outputs(job, &gathered, part.as_ref())?;
    partial.remove()?;
    Ok(MethodSummary {
        method: job.method.name().into(),
        model: runner.model_note(),
        documents: docs.len(),
        resumed,
        spans: gathered.records.iter().map(|r| r.spans.len()).sum(),
        words: gathered.words,
        masked_words: gathered.masked_words,
        stopped_short: gathered.stopped_short(),
        seconds,
        out: job.out.clone(),
    })
}

/// Every document's spans in input order, their search paths, and the words they mask.
struct Gathered {
    records: Vec<SpansRecord>,
    traces: Vec<TraceRecord>,
    words: usize,
    masked_words: usize,
}

impl Gathered {
    /// The documents whose search stopped short, by why.
    fn stopped_short(&self) -> BTreeMap<Stop, usize> {
        let mut counts = BTreeMap::new();
        for trace in self.traces.iter().filter(|trace| trace.stop.short()) {
            *counts.entry(trace.stop).or_default() += 1;
        }
        counts
    }

    fn of(docs: &[Document], finished: &HashMap<String, Done>) -> Gathered {
        let mut gathered = Gathered {
            records: Vec::with_capacity(docs.len()),
            traces: Vec::new(),
            words: 0,
            masked_words: 0,
        };
        for doc in docs {
            let done = &finished[&doc.id];
            let doc_words = Words::of(&doc.text);
            gathered.words += doc_words.len();
            gathered.masked_words += doc_words
                .spans
                .iter()
                .filter(|w| {
                    done.spans
                        .iter()
                        .any(|s| s.start <= w.start && w.end <= s.end)
                })
                .count();
            gathered.records.push(SpansRecord {
                id: doc.id.clone(),
                spans: done.spans.clone(),
            });
            gathered.traces.extend(done.trace.clone());
        }
        gathered
    }
}

/// The spans file in the job's form, the shard's record (or a stale one removed), the traces.
fn write_outputs(job: &MethodJob, gathered: &Gathered, part: Option<&Part>) -> Result<()> {
    let records = &gathered.records;
    kanon_core::io::atomic_write(&job.out, |w| match job.format {
        SpansFormat::Jsonl => write_spans(w, records),
        SpansFormat::Tab => write_system_format(w, records),
    })?;
    let kind = match job.format {
        SpansFormat::Jsonl => OutputKind::Spans,
        SpansFormat::Tab => OutputKind::SpansTab,
    };
    match part {
        Some(part) => ShardRecord::new(
            kind,
            part,
            &job.docs,
            kanon_core::shard::settings_of(job, &["out", "shard", "docs", "trace"]),
        )
        .write(&job.out)?,
        None => ShardRecord::remove_stale(&job.out, kind)?,
    }
    if let Some(path) = &job.trace {
        write_traces(path, &gathered.traces)?;
    }
    Ok(())
}

fn write_traces(path: &Path, traces: &[TraceRecord]) -> Result<()> {
    Ok(kanon_core::io::atomic_write(path, |w| {
        kanon_core::io::write_jsonl(w, traces)
    })?)
}

/// A detector, or the greedy search, which also gives its path.
enum Runner {
    Plain(Box<dyn Detector>),
    Greedy(Box<ReidGreedy>),
}

impl Runner {
    /// The job's detector, loaded (the tagger on `device`) or built over `docs` and `background`.
    fn open(
        job: &MethodJob,
        docs: &[Document],
        background: Option<Background>,
        device: &Device,
        progress: &dyn Progress,
    ) -> Result<Runner> {
        Ok(match &job.method {
            Method::Tagger { model, config } => {
                let model = model.as_deref().ok_or_else(|| {
                    Error::Setting(
                        "the tagger needs a checkpoint directory (`model`, `--model DIR`)".into(),
                    )
                })?;
                Runner::Plain(Box::new(TaggerDetector::load(model, config, device)?))
            }
            Method::Idf { budget } => {
                let texts = docs.iter().map(|d| d.text.as_str());
                let background_texts = background
                    .iter()
                    .flat_map(|b| (0..b.len()).filter_map(move |p| b.text(p)));
                Runner::Plain(Box::new(IdfDetector::new(
                    texts.chain(background_texts),
                    *budget,
                )))
            }
            Method::NerLexical => {
                Runner::Plain(Box::new(LexicalOverlap::new(background.expect("checked"))))
            }
            Method::IcThreshold { p, llm } => {
                let scorer: Arc<dyn kanon_llm::TextScorer> =
                    Arc::from(kanon_llm::open_scorer(llm).map_err(Error::OpenLlm)?);
                Runner::Plain(Box::new(InformationThreshold::new(scorer, *p)?))
            }
            Method::ReidGreedy { model, search } => {
                let background = background.expect("checked");
                let model = ReidModel::load_or_train(&background, model, progress)?;
                Runner::Greedy(Box::new(ReidGreedy::new(model, background, *search)))
            }
        })
    }

    /// What its model is, for the summary.
    fn model_note(&self) -> Option<String> {
        match self {
            Runner::Plain(detector) => detector.model_note(),
            Runner::Greedy(_) => None,
        }
    }

    /// Documents handed to the detector at once.
    fn batch_size(&self) -> usize {
        match self {
            Runner::Plain(detector) => detector.batch_size().max(1),
            Runner::Greedy(_) => 1,
        }
    }

    /// The finished records of `docs`, in their order.
    fn detect(&self, docs: &[&Document]) -> Result<Vec<Done>> {
        match self {
            Runner::Plain(detector) => {
                let spans = detector.detect_many(docs)?;
                Ok(docs
                    .iter()
                    .zip(spans)
                    .map(|(doc, spans)| Done {
                        id: doc.id.clone(),
                        spans,
                        trace: None,
                    })
                    .collect())
            }
            Runner::Greedy(greedy) => docs
                .iter()
                .map(|doc| {
                    let (words, path) = greedy.trajectory(doc)?;
                    let masked = words.spans_of(&path.masked(words.len()), &doc.text);
                    Ok(Done {
                        id: doc.id.clone(),
                        spans: masked.into_iter().map(mask_record).collect(),
                        trace: Some(trace_of(&doc.id, &words, &path)),
                    })
                })
                .collect(),
        }
    }
}
