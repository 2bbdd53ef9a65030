//! `kanon certify` as a job: documents, their spans and the sanitizer's settings in; the
//! certified outputs (`{"id","text","edits"}` JSONL, as `kanon sanitize` writes them), one
//! certificate per document and a summary out. Each batch of finished documents is appended to
//! `OUT.partial`, so an interrupted run resumes after the last finished batch; the outputs are
//! then written in input order, atomically. A document's outcome depends on it alone, so a
//! resumed run writes what an uninterrupted one does.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::time::Instant;

use kanon_core::Progress;
use kanon_core::background::Background;
use kanon_core::io::{JsonlLog, with_suffix};
use kanon_eval::job::Truth;
use kanon_eval::privacy::NeuralAttackerJob;
use kanon_sanitize::{Mention, SanitizeSettings, SanitizedDocument, SpanSource, Strategy};
use serde::{Deserialize, Serialize};

use crate::certificate::{Certificate, Status};
use crate::config::{AttackerKind, GateConfig};
use crate::error::{Error, Result};
use crate::gate::{Gate, GateInput, Gated};
use crate::kg::KgAttacker;
use crate::reid::{Bm25Attacker, NeuralScorer, ReidAttacker};
use crate::summary::GateSummary;
use kanon_sanitize::job::SanitizerModels;

/// What the re-identification attackers know.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "from", rename_all = "kebab-case", deny_unknown_fields)]
pub enum BackgroundSource {
    /// Public texts `[{"name","public_knowledge"}]`.
    Texts {
        /// The JSON file.
        path: PathBuf,
    },
    /// The KG's facts, one text per person (named by KG id, which documents' `person` holds).
    Kg {
        /// The KG directory.
        dir: PathBuf,
    },
}

/// Documents in, certified documents and certificates out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GateJob {
    /// Documents: JSONL `{"id","text"}`, TAB-schema JSON, text files (as `kanon sanitize`).
    pub docs: PathBuf,
    /// The spans the sanitizer replaces.
    pub spans: SpanSource,
    /// The certified outputs, JSONL `{"id","text","edits"}`.
    pub out: PathBuf,
    /// One certificate per document, JSONL (shareable).
    pub certificates: PathBuf,
    /// Also the summary, JSON.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<PathBuf>,
    /// The KG's index, for the KG attacker.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<PathBuf>,
    /// What the re-identification attackers know.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background: Option<BackgroundSource>,
    /// Who each document is about (`id`: its id is the background name; `field` = "person";
    /// `map`).
    #[serde(default)]
    pub truth: Truth,
    /// The neural attacker's checkpoint (trained there when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub neural: Option<NeuralAttackerJob>,
    /// The gate's knobs.
    #[serde(default)]
    pub gate: GateConfig,
    /// The sanitizer's settings, as `kanon sanitize` takes them (`limit`, `config`, `llm`, …).
    #[serde(flatten)]
    pub sanitize: SanitizeSettings,
}

impl kanon_core::config::ConfigFile for GateJob {
    fn check(&self) -> std::result::Result<(), String> {
        self.gate
            .validate()
            .map_err(|problem| format!("gate.{problem}"))?;
        self.sanitize
            .sanitizer
            .validate()
            .map_err(|problem| format!("config: {problem}"))
    }
}

/// A finished document in `OUT.partial`: no original, so the partial file is as shareable as
/// the output.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Record {
    document: SanitizedDocument,
    certificate: Certificate,
}

/// The background's name of each document's person.
fn person_names(job: &GateJob, docs: &[kanon_core::Document]) -> Result<Vec<Option<String>>> {
    match &job.truth {
        Truth::Id => Ok(docs.iter().map(|d| Some(d.id.clone())).collect()),
        Truth::Field { field } if field == "person" => {
            Ok(docs.iter().map(|d| d.person.clone()).collect())
        }
        Truth::Field { field } => Err(Error::Config(format!(
            "truth: the gate reads a document's person from its `person` field, not {field:?}"
        ))),
        Truth::Map { path } => {
            let names: HashMap<String, String> = kanon_core::config::load(path)?;
            Ok(docs.iter().map(|d| names.get(&d.id).cloned()).collect())
        }
    }
}

/// The sanitizer's models, opened as `kanon sanitize` opens them; `substitute` is refused (the
/// gate re-renders, and it draws at random).
fn open_models(settings: &SanitizeSettings) -> Result<SanitizerModels> {
    if settings.sanitizer.strategy == Strategy::Substitute {
        return Err(Error::Config(
            "the gate re-renders through the sanitizer, and `substitute` draws at random: \
             certify another strategy"
                .into(),
        ));
    }
    SanitizerModels::open(settings).map_err(|error| match error {
        kanon_sanitize::Error::Llm(error) => Error::Llm(error),
        error => Error::Sanitize(error),
    })
}

/// Certifies the documents, resuming from `OUT.partial` when an earlier run left one.
pub fn run(job: &GateJob, progress: &dyn Progress) -> Result<GateSummary> {
    run_until(job, progress, &|| false)
}

/// [`run`], asking `should_stop` before each batch: `true` ends the run with
/// [`Error::Stopped`], the finished documents kept in `OUT.partial` for a rerun.
pub fn run_until(
    job: &GateJob,
    progress: &dyn Progress,
    should_stop: &dyn Fn() -> bool,
) -> Result<GateSummary> {
    let started = Instant::now();
    let config = &job.gate;
    config.validate().map_err(Error::Config)?;
    // Read, checked and limited as `kanon sanitize` reads them (a gate run is not sharded).
    let kanon_sanitize::job::Inputs {
        docs, mut spans, ..
    } = kanon_sanitize::job::read_documents_and_spans(
        &job.docs,
        &job.spans,
        job.sanitize.limit,
        None,
    )
    .map_err(Error::Sanitize)?;

    // The attackers.
    if config.runs(AttackerKind::Kg) && job.index.is_none() {
        return Err(Error::Config(
            "the KG attacker needs the KG's index (`index`)".into(),
        ));
    }
    let reid_wanted = config.runs(AttackerKind::Bm25) || config.runs(AttackerKind::Neural);
    let background = match (&job.background, reid_wanted) {
        (Some(BackgroundSource::Texts { path }), true) => Some(Background::read(path)?),
        (Some(BackgroundSource::Kg { dir }), true) => {
            let file = tempfile_path(&job.out, "background.json");
            kanon_eval::kg_background::write_kg_background(dir, &file).map_err(Error::Eval)?;
            let background = Background::read(&file);
            let _ = std::fs::remove_file(&file);
            Some(background?)
        }
        (None, true) => {
            return Err(Error::Config(
                "the re-identification attackers need a background".into(),
            ));
        }
        _ => None,
    };
    let lexicon = background.as_ref().map(Bm25Attacker::new).transpose()?;
    let neural = match (&background, &job.neural, config.runs(AttackerKind::Neural)) {
        (Some(background), Some(neural), true) => Some(NeuralScorer::new(
            kanon_detect::reid::ReidModel::load_or_train(background, neural, progress)
                .map_err(Error::Neural)?,
            background,
        )),
        (_, None, true) => {
            return Err(Error::Config(
                "the neural attacker needs its checkpoint (`neural`)".into(),
            ));
        }
        _ => None,
    };
    let mut attackers: Vec<&dyn ReidAttacker> = Vec::new();
    for kind in &config.attackers {
        match kind {
            AttackerKind::Bm25 => {
                attackers.extend(lexicon.as_ref().map(|a| a as &dyn ReidAttacker))
            }
            AttackerKind::Neural => {
                attackers.extend(neural.as_ref().map(|a| a as &dyn ReidAttacker))
            }
            AttackerKind::Kg => {}
        }
    }
    let models = open_models(&job.sanitize)?;
    let sanitizer = models
        .sanitizer(&job.sanitize.sanitizer)
        .map_err(Error::Sanitize)?;
    // The sanitizer's KG attacker has the index open already when it reads the gate's.
    let shared_index = models
        .kg()
        .map(kanon_sanitize::kg_attack::KgAttacker::index)
        .filter(|index| job.index.as_deref() == Some(index.dir()));
    let opened = match (&job.index, shared_index, config.runs(AttackerKind::Kg)) {
        (Some(dir), None, true) => Some(kanon_index::Index::open(dir).map_err(Error::Index)?),
        _ => None,
    };
    let index = shared_index.or(opened.as_ref());
    let gate = Gate::new(
        config.clone(),
        &sanitizer,
        index
            .filter(|_| config.runs(AttackerKind::Kg))
            .map(|index| KgAttacker::new(index, config.labeler())),
        attackers,
        lexicon.as_ref(),
    )?;

    let names = person_names(job, &docs)?;
    let persons: Vec<Option<usize>> = names
        .iter()
        .map(|name| {
            let background = background.as_ref()?;
            background.person(name.as_deref()?)
        })
        .collect();

    // Resume.
    if let Some(parent) = job.out.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| kanon_core::Error::io(parent, e))?;
    }
    let partial_path = with_suffix(&job.out, ".partial");
    let (mut partial, done) = JsonlLog::<Record>::open(&partial_path)?;
    let mut finished: HashMap<String, Record> = done
        .into_iter()
        .map(|record| (record.document.id.clone(), record))
        .collect();
    let resumed = docs.iter().filter(|d| finished.contains_key(&d.id)).count();
    progress.stage("certify", docs.len() as u64);
    progress.advance(resumed as u64);

    let mentions: Vec<Vec<Mention>> = docs
        .iter()
        .map(|doc| spans.remove(&doc.id).unwrap_or_default())
        .collect();
    let pending: Vec<GateInput<'_>> = docs
        .iter()
        .enumerate()
        .filter(|(_, doc)| !finished.contains_key(&doc.id))
        .map(|(i, doc)| GateInput {
            id: &doc.id,
            text: &doc.text,
            mentions: &mentions[i],
            person: persons[i],
        })
        .collect();
    let gating = Instant::now();
    for batch in pending.chunks(config.batch) {
        if should_stop() {
            return Err(Error::Stopped {
                done: finished.len(),
                documents: docs.len(),
                partial: partial_path,
            });
        }
        for Gated {
            document,
            certificate,
        } in gate.certify(batch)?
        {
            let record = Record {
                document,
                certificate,
            };
            partial.append(&record)?;
            finished.insert(record.document.id.clone(), record);
        }
        progress.advance(batch.len() as u64);
    }
    let gate_seconds = gating.elapsed().as_secs_f64();

    // The outputs, in input order.
    let (documents, certificates): (Vec<SanitizedDocument>, Vec<Certificate>) = docs
        .iter()
        .filter_map(|doc| finished.remove(&doc.id))
        .map(|record| (record.document, record.certificate))
        .unzip();
    kanon_core::io::atomic_write(&job.certificates, |w| {
        kanon_core::io::write_jsonl(w, &certificates)
    })?;
    kanon_core::io::atomic_write(&job.out, |w| kanon_core::io::write_jsonl(w, &documents))?;
    let _ = partial.remove();

    let word_counts: BTreeMap<&str, usize> = docs
        .iter()
        .map(|doc| {
            let chars: Vec<char> = doc.text.chars().collect();
            (doc.id.as_str(), kanon_core::text::word_ranges(&chars).len())
        })
        .collect();
    let mut summary = GateSummary::of(&certificates, &word_counts);
    summary.resumed_documents = resumed;
    summary.seconds = started.elapsed().as_secs_f64();
    let gated_now = docs.len() - resumed;
    summary.documents_per_second = if gate_seconds > 0.0 {
        gated_now as f64 / gate_seconds
    } else {
        0.0
    };
    if let Some(path) = &job.summary {
        kanon_core::io::write_json(path, &summary)?;
    }
    Ok(summary)
}

/// A scratch file beside the output.
fn tempfile_path(out: &std::path::Path, name: &str) -> PathBuf {
    with_suffix(out, &format!(".{name}"))
}

/// The ids of capped documents, for `--fail-on-unsafe`.
pub fn unsafe_documents(summary: &GateSummary) -> Result<()> {
    if summary.capped_ids.is_empty() {
        return Ok(());
    }
    Err(Error::Unsafe {
        capped: summary.capped_ids.len(),
        documents: summary.documents,
        ids: summary.capped_ids.join(", "),
    })
}

/// Whether a certificate says the document may be released.
pub fn releasable(certificate: &Certificate) -> bool {
    certificate.status != Status::Capped
}
