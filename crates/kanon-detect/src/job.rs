//! Running a detector of this crate over a documents file: [`MethodJob`], resumable, writing the
//! spans JSONL of `kanon detect` (and, for `reid-greedy`, the search's path on request).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use kanon_core::background::Background;
use kanon_core::config::ConfigFile;
use kanon_core::io::{JsonlLog, read_documents, with_suffix};
use kanon_core::spans::{SpanRecord, SpansRecord, write_spans};
use kanon_core::{Progress, Span};
use kanon_llm::LlmConfig;
use serde::{Deserialize, Serialize};

use crate::greedy::{GreedySettings, Trajectory};
use crate::ic::InformationThreshold;
use crate::idf::IdfDetector;
use crate::lexical::LexicalOverlap;
use crate::reid::{ReidModel, ReidModelJob};
use crate::reid_greedy::ReidGreedy;
use crate::words::Words;
use crate::{Detector, Error, Result};

/// A detection method and its settings (a config file's `[method]` table, `name = "…"` picking it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "name", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Method {
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
            Method::ReidGreedy { .. } => "reid-greedy",
            Method::IcThreshold { .. } => "ic-threshold",
            Method::Idf { .. } => "idf",
            Method::NerLexical => "ner-lexical",
        }
    }

    fn needs_background(&self) -> bool {
        matches!(self, Method::ReidGreedy { .. } | Method::NerLexical)
    }

    /// Checks the settings' values (a probability, a share).
    pub fn validate(&self) -> std::result::Result<(), String> {
        match self {
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

/// Detection over a documents file with a method of this crate.
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
}

impl ConfigFile for MethodJob {}

/// What a detection run did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MethodSummary {
    /// The method's name.
    pub method: String,
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

    /// One line: counts, share masked, speed, the output.
    pub fn headline(&self) -> String {
        let share = self.masked_words as f64 / self.words.max(1) as f64;
        let fresh = self.documents - self.resumed;
        format!(
            "{}: {} documents ({} kept from an interrupted run), {} spans, {} of {} words masked ({:.1} %), {:.1} s ({:.2} documents/s) → {}",
            self.method,
            self.documents,
            self.resumed,
            self.spans,
            self.masked_words,
            self.words,
            100.0 * share,
            self.seconds,
            fresh as f64 / self.seconds.max(1e-9),
            self.out.display()
        )
    }
}

/// One finished document in the partial log: its spans and, for `reid-greedy`, the search path.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Done {
    id: String,
    spans: Vec<Span>,
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

/// Runs the job: detects every document (keeping those an interrupted run finished, from
/// `OUT.partial`) and writes the spans atomically.
pub fn run(job: &MethodJob, progress: &dyn Progress) -> Result<MethodSummary> {
    job.method.validate().map_err(Error::Setting)?;
    let docs = read_documents(&job.docs)?.docs;
    let background = read_background(job)?;
    if job.method.needs_background() {
        // Every document's person before any work: a long run does not fail at its end.
        let background = background.as_ref().expect("read above");
        for doc in &docs {
            crate::reid::person_of(background, doc)?;
        }
    }
    let detector: Runner = match &job.method {
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
    };

    let partial_path = with_suffix(&job.out, ".partial");
    let (mut partial, done) = JsonlLog::<Done>::open(&partial_path)?;
    let mut finished: std::collections::HashMap<String, Done> =
        done.into_iter().map(|d| (d.id.clone(), d)).collect();
    let resumed = docs.iter().filter(|d| finished.contains_key(&d.id)).count();
    progress.stage(
        &format!("detect ({})", job.method.name()),
        docs.len() as u64,
    );
    progress.advance(resumed as u64);
    let started = Instant::now();
    for doc in &docs {
        if finished.contains_key(&doc.id) {
            continue;
        }
        let record = match &detector {
            Runner::Greedy(greedy) => {
                let (words, path) = greedy.trajectory(doc)?;
                Done {
                    id: doc.id.clone(),
                    spans: words.spans_of(&path.masked(words.len()), &doc.text),
                    trace: Some(trace_of(&doc.id, &words, &path)),
                }
            }
            Runner::Plain(detector) => Done {
                id: doc.id.clone(),
                spans: detector.detect(doc)?,
                trace: None,
            },
        };
        partial.append(&record)?;
        finished.insert(doc.id.clone(), record);
        progress.advance(1);
    }
    let seconds = started.elapsed().as_secs_f64();

    let mut records = Vec::with_capacity(docs.len());
    let mut traces = Vec::new();
    let (mut words, mut masked_words) = (0, 0);
    for doc in &docs {
        let done = &finished[&doc.id];
        let doc_words = Words::of(&doc.text);
        words += doc_words.len();
        masked_words += doc_words
            .spans
            .iter()
            .filter(|w| {
                done.spans
                    .iter()
                    .any(|s| s.start <= w.start && w.end <= s.end)
            })
            .count();
        records.push(SpansRecord {
            id: doc.id.clone(),
            spans: done
                .spans
                .iter()
                .map(|s| SpanRecord {
                    label: Some("MASK".into()),
                    ..SpanRecord::new(s.start, s.end)
                })
                .collect(),
        });
        traces.extend(done.trace.clone());
    }
    kanon_core::io::atomic_write(&job.out, |w| write_spans(w, &records))?;
    if let Some(path) = &job.trace {
        write_traces(path, &traces)?;
    }
    partial.remove()?;
    Ok(MethodSummary {
        method: job.method.name().into(),
        documents: docs.len(),
        resumed,
        spans: records.iter().map(|r| r.spans.len()).sum(),
        words,
        masked_words,
        seconds,
        out: job.out.clone(),
    })
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
