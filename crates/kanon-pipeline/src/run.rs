//! Running the stages: plan (what each stage will do, from the records an earlier run left),
//! then run each stage that has work, recording it as running before and as done after, so that
//! an interrupted run resumes and a finished one is skipped.

use std::path::{Path, PathBuf};
use std::time::Instant;

use kanon_core::{Document, PathContext, Progress};
use kanon_eval::job::Truth;
use kanon_eval::report::{ReportJob, ReportRun};
use kanon_kg::{ImportJob, SynthJob};
use kanon_label::LabelJob;
use kanon_llm::LlmConfig;
use kanon_sanitize::{SanitizeJob, SpanSource, Strategy};
use kanon_tagger::train::{TrainJob, TrainOptions};
use kanon_tagger::{DetectJob, SpansFormat};
use serde::Serialize;
use serde_json::json;

use crate::config::{KgStage, RunConfig, SanitizeStage};

/// The detector's span scores against the gold annotations, in the eval stage's directory.
pub(crate) const SPAN_SCORES_MARKDOWN: &str = "spans.md";
use crate::error::{Error, Result};
use crate::memory;
use crate::report::{RunReport, StageRow};
use crate::stage::{Action, Stage, StageHasher, StageRecord, State};

/// How a run goes.
#[derive(Default)]
pub struct RunOptions<'a> {
    /// Rerun this stage and every stage after it; the stages before it must be done.
    pub from: Option<Stage>,
    /// Stop after this stage.
    pub until: Option<Stage>,
    /// Rerun every stage in range, done or not.
    pub force: bool,
    /// Asked between training steps and between sanitized documents: `true` stops the run, the
    /// training state saved and the finished documents kept (the other stages are short and
    /// atomic). A rerun resumes.
    pub should_stop: Option<&'a (dyn Fn() -> bool + Sync)>,
    /// Where the tagger trains and detects (`auto`: a GPU when the build and the machine have
    /// one). Not part of a stage's hash: a model trained on a GPU is the same stage's output.
    pub device: kanon_tagger::device::DeviceChoice,
}

impl std::fmt::Debug for RunOptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunOptions")
            .field("from", &self.from)
            .field("until", &self.until)
            .field("force", &self.force)
            .field("should_stop", &self.should_stop.is_some())
            .field("device", &self.device)
            .finish()
    }
}

/// A stage and what the run will do with it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlannedStage {
    pub stage: Stage,
    pub action: Action,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hash: Option<String>,
}

/// What a run tells whoever shows it, besides the progress of each stage.
#[derive(Debug)]
pub enum Event<'a> {
    /// Before anything runs: every stage and what will happen to it.
    Plan(&'a [PlannedStage]),
    /// A model is not cached yet and is being fetched.
    Fetching {
        model: &'a str,
    },
    Started {
        stage: Stage,
        action: Action,
    },
    Finished {
        stage: Stage,
        record: &'a StageRecord,
    },
    /// The run's report is written.
    Reported {
        markdown: &'a Path,
    },
}

/// Where each stage's outputs live in the run directory.
#[derive(Debug, Clone)]
pub struct RunPaths {
    dir: PathBuf,
}

impl RunPaths {
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        RunPaths { dir: dir.into() }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// A stage's directory: its outputs and its record.
    pub fn stage_dir(&self, stage: Stage) -> PathBuf {
        self.dir.join(stage.name())
    }

    fn made_kg(&self) -> PathBuf {
        self.stage_dir(Stage::Kg).join("kg")
    }

    fn index(&self) -> PathBuf {
        self.stage_dir(Stage::Index).join("index")
    }

    fn made_corpus(&self) -> PathBuf {
        self.stage_dir(Stage::Label).join("corpus")
    }

    fn trained_model(&self) -> PathBuf {
        self.stage_dir(Stage::Train).join("model")
    }

    fn detect_docs(&self) -> PathBuf {
        self.stage_dir(Stage::Detect).join("docs.jsonl")
    }

    fn spans(&self) -> PathBuf {
        self.stage_dir(Stage::Detect).join("spans.jsonl")
    }

    /// A sanitization's output, by its name (the strategy's).
    pub fn sanitized(&self, name: &str) -> PathBuf {
        self.stage_dir(Stage::Sanitize)
            .join(format!("{name}.jsonl"))
    }

    pub fn report_markdown(&self) -> PathBuf {
        self.dir.join("report.md")
    }

    pub fn report_json(&self) -> PathBuf {
        self.dir.join("report.json")
    }
}

/// A config, checked for what each stage reads, with the paths its stages use.
#[derive(Debug)]
pub struct Pipeline {
    config: RunConfig,
    paths: RunPaths,
}

impl Pipeline {
    /// Checks that every configured stage has its inputs: the stage before it, or a file the
    /// config names.
    pub fn new(config: RunConfig, dir: impl Into<PathBuf>) -> Result<Pipeline> {
        let missing = |stage: Stage, what: &str| {
            Err(Error::Setting(format!(
                "stage {stage} needs {what} (the config has no section for the stage before it)"
            )))
        };
        if config.index.is_some() && config.kg.is_none() {
            return missing(Stage::Index, "a [kg] section");
        }
        if let Some(label) = &config.label {
            if config.index.is_none() {
                return missing(Stage::Label, "an [index] section");
            }
            let from_dir = match &config.kg {
                Some(KgStage::Dir { path }) => Some(path.join(kanon_kg::store::DOCS_FILE)),
                _ => None,
            };
            if label.docs.is_none() && from_dir.is_some_and(|docs| !docs.exists()) {
                return missing(
                    Stage::Label,
                    "`label.docs` (the KG directory has no docs.jsonl of its own)",
                );
            }
        }
        if let Some(train) = &config.train
            && config.label.is_none()
            && train.corpus.is_none()
        {
            return missing(Stage::Train, "a [label] section or `train.corpus`");
        }
        if let Some(detect) = &config.detect {
            if detect.method.is_none() && config.train.is_none() && detect.model.is_none() {
                return missing(Stage::Detect, "a [train] section or `detect.model`");
            }
            if detect.corpus_split.is_some() && config.label.is_none() {
                return missing(Stage::Detect, "a [label] section for `corpus_split`");
            }
        }
        if let Some(sanitize) = &config.sanitize {
            let sources = [
                config.detect.is_some(),
                sanitize.spans.is_some(),
                sanitize.gold_spans,
            ];
            if sources.iter().filter(|s| **s).count() != 1 {
                return Err(Error::Setting(
                    "stage sanitize: its spans come from exactly one of a [detect] section, \
                     `sanitize.spans` and `sanitize.gold_spans = true`"
                        .into(),
                ));
            }
            if config.detect.is_none() && sanitize.docs.is_none() {
                return missing(Stage::Sanitize, "`sanitize.docs`");
            }
            let main = sanitize.config.strategy.to_string();
            if sanitize.baselines.contains(&main) {
                return Err(Error::Setting(format!(
                    "sanitize.baselines names the strategy itself ({main})"
                )));
            }
        }
        if let Some(eval) = &config.eval {
            if config.sanitize.is_none() {
                return missing(Stage::Eval, "a [sanitize] section");
            }
            if eval.background_from_kg && config.kg.is_none() {
                return missing(Stage::Eval, "a [kg] section for `background_from_kg`");
            }
            if eval.background_from_kg && eval.background.is_some() {
                return Err(Error::Setting(
                    "eval: give `background` or `background_from_kg`, not both".into(),
                ));
            }
        }
        Ok(Pipeline {
            config,
            paths: RunPaths::new(dir),
        })
    }

    pub fn config(&self) -> &RunConfig {
        &self.config
    }

    pub fn paths(&self) -> &RunPaths {
        &self.paths
    }

    fn kg_dir(&self) -> PathBuf {
        match &self.config.kg {
            Some(KgStage::Dir { path }) => path.clone(),
            _ => self.paths.made_kg(),
        }
    }

    /// The label stage's documents: its own, else the KG's (a synthetic KG's biographies, an
    /// import's Google-RE snippets).
    fn label_docs(&self) -> PathBuf {
        self.config
            .label
            .as_ref()
            .and_then(|l| l.docs.clone())
            .unwrap_or_else(|| self.kg_dir().join(kanon_kg::store::DOCS_FILE))
    }

    fn corpus(&self) -> PathBuf {
        match (&self.config.label, &self.config.train) {
            (None, Some(train)) => train.corpus.clone().unwrap_or_default(),
            _ => self.paths.made_corpus(),
        }
    }

    fn model(&self) -> PathBuf {
        match (&self.config.train, &self.config.detect) {
            (None, Some(detect)) => detect.model.clone().unwrap_or_default(),
            _ => self.paths.trained_model(),
        }
    }

    fn sanitize_docs(&self) -> PathBuf {
        self.config
            .sanitize
            .as_ref()
            .and_then(|s| s.docs.clone())
            .unwrap_or_else(|| self.paths.detect_docs())
    }

    /// The sanitizations the sanitize stage writes: its strategy's, then the baselines'.
    fn sanitization_names(&self) -> Vec<String> {
        let Some(sanitize) = &self.config.sanitize else {
            return Vec::new();
        };
        std::iter::once(sanitize.config.strategy.to_string())
            .chain(sanitize.baselines.iter().cloned())
            .collect()
    }

    /// Each configured stage's hash: its parameters, its input files and the hashes of the
    /// stages it reads.
    pub fn hashes(&self) -> Result<Vec<(Stage, Option<String>)>> {
        let c = &self.config;
        let mut hashes: Vec<(Stage, Option<String>)> = Vec::new();
        let upstream = |hashes: &[(Stage, Option<String>)], stage: Stage| {
            hashes
                .iter()
                .find(|(s, _)| *s == stage)
                .and_then(|(_, h)| h.clone())
        };
        for stage in Stage::ALL {
            if !c.has(stage) {
                hashes.push((stage, None));
                continue;
            }
            let mut h = StageHasher::new(stage);
            h.params(&env!("CARGO_PKG_VERSION"))?;
            match stage {
                Stage::Kg => {
                    let kg = c.kg.as_ref().ok_or_else(|| unconfigured(stage))?;
                    h.params(kg)?;
                    match kg {
                        KgStage::Dir { path } => {
                            h.path(path)?;
                        }
                        KgStage::Import { sources, .. } => {
                            for input in sources.iter().flat_map(|s| &s.inputs) {
                                h.path(input)?;
                            }
                        }
                        KgStage::Synth { .. } => {}
                    }
                }
                Stage::Index => {
                    let index = c.index.as_ref().ok_or_else(|| unconfigured(stage))?;
                    h.params(index)?;
                    if let Some(whitelist) = &index.whitelist {
                        h.path(whitelist)?;
                    }
                    h.upstream(&upstream(&hashes, Stage::Kg).unwrap_or_default());
                }
                Stage::Label => {
                    let label = c.label.as_ref().ok_or_else(|| unconfigured(stage))?;
                    h.params(label)?;
                    if let Some(docs) = &label.docs {
                        h.path(docs)?;
                    }
                    h.upstream(&upstream(&hashes, Stage::Kg).unwrap_or_default());
                    h.upstream(&upstream(&hashes, Stage::Index).unwrap_or_default());
                }
                Stage::Train => {
                    let train = c.train.as_ref().ok_or_else(|| unconfigured(stage))?;
                    h.params(train)?;
                    match upstream(&hashes, Stage::Label) {
                        Some(label) => h.upstream(&label),
                        None => h.path(&self.corpus())?,
                    };
                }
                Stage::Detect => {
                    let detect = c.detect.as_ref().ok_or_else(|| unconfigured(stage))?;
                    h.params(detect)?;
                    if detect.method.is_some() {
                        if let Some(background) = &detect.background {
                            h.path(background)?;
                        }
                    } else {
                        match upstream(&hashes, Stage::Train) {
                            Some(train) => h.upstream(&train),
                            None => h.path(&self.model())?,
                        };
                    }
                    match &detect.docs {
                        Some(docs) => h.path(docs)?,
                        None => h.upstream(&upstream(&hashes, Stage::Label).unwrap_or_default()),
                    };
                }
                Stage::Sanitize => {
                    let sanitize = c.sanitize.as_ref().ok_or_else(|| unconfigured(stage))?;
                    // How many documents go at once changes nothing in the output.
                    h.params(&SanitizeStage {
                        workers: None,
                        ..sanitize.clone()
                    })?;
                    match (upstream(&hashes, Stage::Detect), &sanitize.spans) {
                        (Some(detect), _) => {
                            h.upstream(&detect);
                        }
                        (None, Some(spans)) => {
                            h.path(spans)?;
                        }
                        (None, None) => {}
                    }
                    if let Some(docs) = &sanitize.docs {
                        h.path(docs)?;
                    }
                }
                Stage::Eval => {
                    let eval = c.eval.as_ref().ok_or_else(|| unconfigured(stage))?;
                    h.params(eval)?;
                    for path in [&eval.gold, &eval.background].into_iter().flatten() {
                        h.path(path)?;
                    }
                    if let Some(neural) = &eval.neural
                        && neural.checkpoint.exists()
                    {
                        h.path(&neural.checkpoint)?;
                    }
                    h.upstream(&upstream(&hashes, Stage::Kg).unwrap_or_default());
                    h.upstream(&upstream(&hashes, Stage::Detect).unwrap_or_default());
                    h.upstream(&upstream(&hashes, Stage::Sanitize).unwrap_or_default());
                }
            }
            let hash = Some(h.finish());
            hashes.push((stage, hash));
        }
        Ok(hashes)
    }

    /// What the run will do with each stage.
    pub fn plan(&self, options: &RunOptions<'_>) -> Result<Vec<PlannedStage>> {
        self.check_shards(options)?;
        let mut planned = Vec::new();
        for (stage, hash) in self.hashes()? {
            let in_range = options.from.is_none_or(|from| stage >= from)
                && options.until.is_none_or(|until| stage <= until);
            let action = match &hash {
                None => Action::NotConfigured,
                Some(hash) => {
                    let record = StageRecord::read(&self.paths.stage_dir(stage))?;
                    let current = record.as_ref().filter(|r| &r.hash == hash);
                    if !in_range {
                        let before_from = options.from.is_some_and(|from| stage < from);
                        if before_from && current.is_none_or(|r| r.state != State::Done) {
                            return Err(Error::Setting(format!(
                                "--from {}: stage {stage} has not finished with this config; \
                                 run without --from first",
                                options.from.unwrap_or(stage)
                            )));
                        }
                        Action::OutOfRange
                    } else {
                        match (record.as_ref(), current) {
                            (None, _) => Action::Run,
                            _ if options.force || options.from.is_some() => Action::Rerun,
                            (Some(_), None) => Action::Rerun,
                            (_, Some(r)) if r.state == State::Done => Action::Skip,
                            (_, Some(_)) => Action::Resume,
                        }
                    }
                }
            };
            planned.push(PlannedStage {
                stage,
                action,
                hash,
            });
        }
        Ok(planned)
    }

    /// A sharded stage makes one part of its output, which no later stage may take for the whole:
    /// the run must stop there.
    fn check_shards(&self, options: &RunOptions<'_>) -> Result<()> {
        let c = &self.config;
        let sharded = [
            (Stage::Label, c.label.as_ref().and_then(|s| s.shard)),
            (Stage::Detect, c.detect.as_ref().and_then(|s| s.shard)),
            (Stage::Sanitize, c.sanitize.as_ref().and_then(|s| s.shard)),
        ];
        let runs = |stage: Stage| {
            self.config.has(stage)
                && options.from.is_none_or(|from| stage >= from)
                && options.until.is_none_or(|until| stage <= until)
        };
        for (stage, shard) in sharded {
            let Some(shard) = shard else { continue };
            let later = Stage::ALL.iter().copied().find(|&s| s > stage && runs(s));
            if let Some(later) = later.filter(|_| runs(stage)) {
                return Err(Error::Setting(format!(
                    "{stage}.shard = \"{shard}\" makes one part of the {stage} output, which \
                     stage {later} cannot take for the whole: run with --until {stage}, join \
                     the parts with `kanon merge`, then run the rest on the merged output"
                )));
            }
        }
        Ok(())
    }

    /// Runs the plan: each stage with work, its record written before (running) and after
    /// (done); then the run's report. Returns the report.
    pub fn run(
        &self,
        options: &RunOptions<'_>,
        progress: &dyn Progress,
        on_event: &mut dyn FnMut(&Event<'_>),
    ) -> Result<RunReport> {
        let plan = self.plan(options)?;
        on_event(&Event::Plan(&plan));
        std::fs::create_dir_all(self.paths.dir()).with_path(self.paths.dir())?;
        kanon_core::config::save(&self.paths.dir().join("config.toml"), &self.config)?;
        let mut rows = Vec::new();
        for planned in &plan {
            let stage = planned.stage;
            let dir = self.paths.stage_dir(stage);
            let record = match (planned.action, &planned.hash) {
                (action, Some(hash)) if action.runs() => {
                    if action != Action::Resume && dir.exists() {
                        std::fs::remove_dir_all(&dir).with_path(&dir)?;
                    }
                    let mut record = StageRecord {
                        format_version: crate::stage::STAGE_FORMAT_VERSION,
                        stage,
                        hash: hash.clone(),
                        state: State::Running,
                        seconds: 0.0,
                        peak_rss_bytes: None,
                        summary: String::new(),
                        figures: serde_json::Value::Null,
                    };
                    record.write(&dir)?;
                    on_event(&Event::Started { stage, action });
                    let measured = memory::reset_peak();
                    let started = Instant::now();
                    let (summary, figures) =
                        self.run_stage(stage, action, options, progress, on_event)?;
                    record.seconds = started.elapsed().as_secs_f64();
                    record.peak_rss_bytes = measured.then(memory::peak_rss_bytes).flatten();
                    record.summary = summary;
                    record.figures = figures;
                    record.state = State::Done;
                    record.write(&dir)?;
                    on_event(&Event::Finished {
                        stage,
                        record: &record,
                    });
                    Some(record)
                }
                (Action::Skip | Action::OutOfRange, Some(_)) => StageRecord::read(&dir)?,
                _ => None,
            };
            rows.push(StageRow {
                stage,
                action: planned.action,
                record,
            });
        }
        let report = RunReport::new(
            self.config.name.clone().unwrap_or_default(),
            rows,
            &self.paths,
        );
        report.write(&self.paths)?;
        on_event(&Event::Reported {
            markdown: &self.paths.report_markdown(),
        });
        Ok(report)
    }

    /// Runs one stage; returns its summary line and its figures.
    fn run_stage(
        &self,
        stage: Stage,
        action: Action,
        options: &RunOptions<'_>,
        progress: &dyn Progress,
        on_event: &mut dyn FnMut(&Event<'_>),
    ) -> Result<(String, serde_json::Value)> {
        let c = &self.config;
        let dir = self.paths.stage_dir(stage);
        match stage {
            Stage::Kg => match c.kg.as_ref().ok_or_else(|| unconfigured(stage))? {
                KgStage::Dir { path } => {
                    let meta = kanon_kg::store::read_meta(path).map_err(Error::Kg)?;
                    Ok((
                        format!(
                            "KG directory {}: {} people, {} facts",
                            path.display(),
                            meta.people,
                            meta.facts
                        ),
                        to_value(&meta),
                    ))
                }
                KgStage::Import {
                    sources,
                    lang,
                    skip_invalid,
                } => {
                    let job = ImportJob {
                        sources: sources.clone(),
                        out: self.paths.made_kg(),
                        lang: lang.clone(),
                        skip_invalid: *skip_invalid,
                    };
                    let summary = kanon_kg::job::import(&job, progress).map_err(Error::Kg)?;
                    // The last line is the merged KG's; those before are the sources'.
                    let rendered = summary.render();
                    let merged = rendered.lines().next_back().unwrap_or_default().to_owned();
                    Ok((merged, to_value(&summary.meta)))
                }
                KgStage::Synth { config } => {
                    let job = SynthJob {
                        config: config.clone(),
                        out: self.paths.made_kg(),
                        docs: None,
                    };
                    let summary = kanon_kg::job::synth(&job).map_err(Error::Kg)?;
                    Ok((
                        one_line(&summary.render()),
                        json!({"people": summary.people, "facts": summary.facts, "biographies": summary.biographies}),
                    ))
                }
            },
            Stage::Index => {
                let index = c.index.as_ref().ok_or_else(|| unconfigured(stage))?;
                let job = kanon_index::BuildJob {
                    whitelist: index.whitelist.clone(),
                    replace_whitelist: index.replace_whitelist,
                    ..kanon_index::BuildJob::new(self.kg_dir(), self.paths.index())
                };
                let summary = kanon_index::job::build(&job, progress).map_err(Error::Index)?;
                Ok((one_line(&summary.render()), to_value(&summary.meta)))
            }
            Stage::Label => {
                let label = c.label.as_ref().ok_or_else(|| unconfigured(stage))?;
                let mut job = LabelJob::new(
                    self.paths.index(),
                    self.label_docs(),
                    self.paths.made_corpus(),
                );
                job.config = label.config;
                job.format = label.format;
                if let Some(size) = label.shard_size {
                    job.shard_size = size;
                }
                job.shard = label.shard;
                let summary = kanon_label::corpus::run(&job, progress).map_err(Error::Label)?;
                Ok((
                    one_line(&summary.render()),
                    to_value(&summary.manifest.stats),
                ))
            }
            Stage::Train => {
                let train = c.train.as_ref().ok_or_else(|| unconfigured(stage))?;
                self.fetch(&train.pretrained, on_event)?;
                let job = TrainJob {
                    pretrained: train.pretrained.clone(),
                    corpus: self.corpus(),
                    out: self.paths.trained_model(),
                    config: train.config.clone(),
                };
                let should_stop = |_step: usize| options.should_stop.is_some_and(|stop| stop());
                let device = options
                    .device
                    .resolve()
                    .map_err(|source| Error::Tagger { stage, source })?;
                let train_options = TrainOptions {
                    device,
                    resume: action == Action::Resume,
                    should_stop: Some(&should_stop),
                };
                let report = kanon_tagger::train::run(&job, &train_options, progress)
                    .map_err(|source| Error::Tagger { stage, source })?;
                if report.interrupted {
                    return Err(Error::Interrupted { stage });
                }
                Ok((one_line(&report.render(&job.out)), to_value(&report)))
            }
            Stage::Detect => {
                let detect = c.detect.as_ref().ok_or_else(|| unconfigured(stage))?;
                let docs = self.detect_documents()?;
                std::fs::create_dir_all(&dir).with_path(&dir)?;
                kanon_core::io::atomic_write(&self.paths.detect_docs(), |w| {
                    kanon_core::io::write_jsonl(w, docs.iter())
                })?;
                if let Some(method) = &detect.method {
                    let job = kanon_detect::job::MethodJob {
                        docs: self.paths.detect_docs(),
                        out: self.paths.spans(),
                        background: detect.background.clone(),
                        method: method.clone(),
                        trace: None,
                    };
                    let summary = kanon_detect::job::run(&job, progress).map_err(Error::Detect)?;
                    return Ok((
                        one_line(&summary.render()),
                        json!({"documents": summary.documents, "spans": summary.spans, "seconds": summary.seconds, "masked_words": summary.masked_words, "words": summary.words}),
                    ));
                }
                let job = DetectJob {
                    model: self.model(),
                    docs: self.paths.detect_docs(),
                    out: self.paths.spans(),
                    format: SpansFormat::Jsonl,
                    config: detect.config,
                    shard: detect.shard,
                };
                let device = options
                    .device
                    .resolve()
                    .map_err(|source| Error::Tagger { stage, source })?;
                let summary = kanon_tagger::detect::run(&job, &device, progress)
                    .map_err(|source| Error::Tagger { stage, source })?;
                Ok((
                    one_line(&summary.render()),
                    json!({"documents": summary.documents, "spans": summary.spans, "seconds": summary.seconds}),
                ))
            }
            Stage::Sanitize => self.sanitize(options, progress, on_event),
            Stage::Eval => self.evaluate(progress, on_event),
        }
    }

    /// The detect stage's documents: a file, or a split of the corpus taken from the label
    /// stage's documents (which name each document's person); at most `limit`.
    fn detect_documents(&self) -> Result<Vec<Document>> {
        let detect = self
            .config
            .detect
            .as_ref()
            .ok_or_else(|| unconfigured(Stage::Detect))?;
        let mut docs = match (&detect.docs, &detect.corpus_split) {
            (Some(path), _) => kanon_core::io::read_documents(path)?.docs,
            (None, Some(split)) => {
                let ids: std::collections::HashSet<String> =
                    kanon_core::corpus::read_split(&self.corpus(), split)?
                        .into_iter()
                        .map(|d| d.id)
                        .collect();
                kanon_core::io::read_documents(&self.label_docs())?
                    .docs
                    .into_iter()
                    .filter(|d| ids.contains(&d.id))
                    .collect()
            }
            (None, None) => Vec::new(),
        };
        if let Some(limit) = detect.limit {
            docs.truncate(limit);
        }
        Ok(docs)
    }

    fn sanitize(
        &self,
        options: &RunOptions<'_>,
        progress: &dyn Progress,
        on_event: &mut dyn FnMut(&Event<'_>),
    ) -> Result<(String, serde_json::Value)> {
        let sanitize = self
            .config
            .sanitize
            .as_ref()
            .ok_or_else(|| unconfigured(Stage::Sanitize))?;
        let dir = self.paths.stage_dir(Stage::Sanitize);
        let spans = if sanitize.gold_spans {
            SpanSource::Gold
        } else {
            SpanSource::File {
                path: sanitize.spans.clone().unwrap_or_else(|| self.paths.spans()),
            }
        };
        let mut lines = Vec::new();
        let mut figures = serde_json::Map::new();
        for (i, name) in self.sanitization_names().iter().enumerate() {
            let strategy: Strategy = name.parse().map_err(Error::Setting)?;
            let mut config = sanitize.config.clone();
            config.strategy = strategy;
            let llm = if strategy.generalizes() {
                let llm = sanitize.llm.clone().unwrap_or_default();
                self.fetch_llm(&llm, on_event)?;
                Some(llm)
            } else {
                None
            };
            let attacker_llm = match (&sanitize.attacker_llm, strategy) {
                (Some(attacker), Strategy::Intact) => {
                    self.fetch_llm(attacker, on_event)?;
                    Some(attacker.clone())
                }
                _ => None,
            };
            let job = SanitizeJob {
                docs: self.sanitize_docs(),
                spans: spans.clone(),
                out: self.paths.sanitized(name),
                audit: (i == 0 && sanitize.audit).then(|| dir.join("audit.jsonl")),
                summary: Some(dir.join(format!("{name}.summary.json"))),
                texts: kanon_core::io::is_plain_text_input(&self.sanitize_docs())
                    .then(|| dir.join(name)),
                limit: sanitize.limit,
                sanitizer: config,
                llm,
                attacker_llm,
                cache: sanitize.cache.clone(),
                workers: sanitize.workers.unwrap_or(1),
                shard: sanitize.shard,
            };
            let should_stop = || options.should_stop.is_some_and(|stop| stop());
            let summary =
                kanon_sanitize::job::run_until(&job, progress, &should_stop).map_err(|err| {
                    match err {
                        kanon_sanitize::Error::Stopped { .. } => Error::Interrupted {
                            stage: Stage::Sanitize,
                        },
                        err => Error::Sanitize(err),
                    }
                })?;
            lines.push(format!(
                "{name}: {} documents, {} spans, {:.1} s",
                summary.documents, summary.stats.spans, summary.document_seconds
            ));
            figures.insert(name.clone(), to_value(&summary));
        }
        Ok((lines.join("; "), serde_json::Value::Object(figures)))
    }

    fn evaluate(
        &self,
        progress: &dyn Progress,
        on_event: &mut dyn FnMut(&Event<'_>),
    ) -> Result<(String, serde_json::Value)> {
        let eval = self
            .config
            .eval
            .as_ref()
            .ok_or_else(|| unconfigured(Stage::Eval))?;
        let dir = self.paths.stage_dir(Stage::Eval);
        std::fs::create_dir_all(&dir).with_path(&dir)?;
        let (background, truth) = if eval.background_from_kg {
            let path = dir.join("background.json");
            write_kg_background(&self.kg_dir(), &path)?;
            (
                Some(path),
                Truth::Field {
                    field: "person".into(),
                },
            )
        } else {
            (eval.background.clone(), eval.truth.clone())
        };
        if let Some(neural) = &eval.neural {
            self.fetch(&neural.pretrained, on_event)?;
        }
        if let Some(tps) = &eval.tps {
            self.fetch(&tps.encoder, on_event)?;
            self.fetch_llm(&tps.llm, on_event)?;
        }
        let job = ReportJob {
            docs: self.sanitize_docs(),
            runs: self
                .sanitization_names()
                .into_iter()
                .map(|name| ReportRun {
                    sanitized: self.paths.sanitized(&name),
                    name,
                })
                .collect(),
            background,
            truth,
            neural: eval.neural.clone(),
            tps: eval.tps.clone(),
            gold: eval.gold.clone(),
            out: dir.clone(),
        };
        let report = kanon_eval::report::run(&job, progress).map_err(Error::Eval)?;
        let mut figures = json!({ "report": to_value(&report) });
        if let (Some(gold), Some(_)) = (&eval.gold, &self.config.detect) {
            let spans = kanon_eval::job::spans(&kanon_eval::EvalJob {
                gold: gold.clone(),
                pred: self.paths.spans(),
                weighting: None,
            })
            .map_err(Error::Eval)?;
            kanon_core::io::write_json(&dir.join("spans.json"), &spans)?;
            let markdown = spans.markdown();
            kanon_core::io::atomic_write(&dir.join(SPAN_SCORES_MARKDOWN), |w| {
                std::io::Write::write_all(w, markdown.as_bytes())
            })?;
            figures["spans"] = to_value(&spans);
        }
        let ensemble = report.attackers.last().cloned();
        let rows: Vec<String> = report
            .rows
            .iter()
            .map(|row| {
                let trir = ensemble
                    .as_ref()
                    .and_then(|a| row.trir.get(a))
                    .map_or_else(String::new, |r| format!(", TRIR {:.0} %", 100.0 * r.top1));
                format!(
                    "{}: {:.0} % of words changed{trir}",
                    row.name,
                    100.0 * row.words_changed
                )
            })
            .collect();
        Ok((rows.join("; "), figures))
    }

    /// Fetches a model of the cache on first use (a directory or an unknown name is left to
    /// the stage to open or report).
    fn fetch(&self, name: &str, on_event: &mut dyn FnMut(&Event<'_>)) -> Result<()> {
        let Ok(spec) = kanon_models::spec(name) else {
            return Ok(());
        };
        let cache = kanon_models::Cache::from_env();
        if cache.find(spec).is_none() {
            on_event(&Event::Fetching { model: name });
            cache.fetch(spec).map_err(|source| Error::Model {
                name: name.to_owned(),
                source,
            })?;
        }
        Ok(())
    }

    fn fetch_llm(&self, llm: &LlmConfig, on_event: &mut dyn FnMut(&Event<'_>)) -> Result<()> {
        match llm {
            LlmConfig::Embedded { model, .. } => self.fetch(model, on_event),
            _ => Ok(()),
        }
    }
}

fn unconfigured(stage: Stage) -> Error {
    Error::Setting(format!("stage {stage} has no section in the config"))
}

fn to_value<T: Serialize>(value: &T) -> serde_json::Value {
    serde_json::to_value(value).unwrap_or(serde_json::Value::Null)
}

/// The first line of a rendered summary.
fn one_line(rendered: &str) -> String {
    rendered.lines().next().unwrap_or_default().to_owned()
}

/// What an attacker who holds the KG knows: one text per person (its name, aliases and facts),
/// named by the person's KG id, which the documents' `person` field holds.
fn write_kg_background(kg: &Path, out: &Path) -> Result<()> {
    let (graph, _) = kanon_kg::store::read_kg_dir(kg).map_err(Error::Kg)?;
    let entries: Vec<serde_json::Value> = graph
        .people
        .iter()
        .map(|person| {
            let mut text = person.label.clone();
            for alias in &person.aliases {
                text += &format!(". {alias}");
            }
            for fact in &person.facts {
                text += &format!(". {}: {}", fact.property, fact.value);
            }
            json!({"name": person.id, "public_knowledge": text})
        })
        .collect();
    Ok(kanon_core::io::write_json(out, &entries)?)
}
