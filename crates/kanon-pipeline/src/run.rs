//! Running the stages: plan (what each stage will do, from the records an earlier run left),
//! then run each stage that has work, recording it as running before and as done after, so that
//! an interrupted run resumes and a finished one is skipped. What a stage needs, hashes and does
//! is its own ([`crate::stages`]); this is the loop over them.

use std::path::PathBuf;
use std::time::Instant;

use kanon_core::{PathContext, Progress};

use crate::config::RunConfig;
use crate::error::{Error, Result};
use crate::memory;
pub use crate::options::{Event, PlannedStage, RunOptions};
use crate::paths::RunPaths;
use crate::record::{StageHasher, StageRecord, State};
use crate::report::{RunReport, StageRow};
use crate::stage::{Action, Stage};
use crate::stages::{Layout, StageRun, StageSummary, Upstream, Wiring};

/// A config, checked for what each stage reads, with the paths its stages use.
#[derive(Debug)]
pub struct Pipeline {
    config: RunConfig,
    layout: Layout,
    paths: RunPaths,
}

impl Pipeline {
    /// Checks that every configured stage has its inputs: the stage before it, or a file the
    /// config names.
    pub fn new(config: RunConfig, dir: impl Into<PathBuf>) -> Result<Pipeline> {
        let layout = config.layout();
        for section in config.sections().into_iter().flatten() {
            section.check_inputs(&layout)?;
        }
        Ok(Pipeline {
            config,
            layout,
            paths: RunPaths::new(dir),
        })
    }

    /// The run's config.
    pub fn config(&self) -> &RunConfig {
        &self.config
    }

    /// Where the run's outputs go.
    pub fn paths(&self) -> &RunPaths {
        &self.paths
    }

    fn wiring(&self) -> Wiring<'_> {
        Wiring {
            layout: &self.layout,
            paths: &self.paths,
        }
    }

    /// Each configured stage's hash: kanon's version, its parameters, its input files and the
    /// hashes of the stages it reads.
    pub fn hashes(&self) -> Result<Vec<(Stage, Option<String>)>> {
        let mut hashes: Vec<(Stage, Option<String>)> = Vec::new();
        for stage in Stage::ALL {
            let hash = match self.config.section(stage) {
                None => None,
                Some(section) => {
                    let mut hasher = StageHasher::new(stage);
                    hasher.params(&env!("CARGO_PKG_VERSION"))?;
                    section.hash(&self.wiring(), &Upstream(&hashes), &mut hasher)?;
                    Some(hasher.finish())
                }
            };
            hashes.push((stage, hash));
        }
        Ok(hashes)
    }

    /// What the run will do with each stage.
    pub fn plan(&self, options: &RunOptions<'_>) -> Result<Vec<PlannedStage>> {
        self.check_shards(options)?;
        let mut planned = Vec::new();
        for (stage, hash) in self.hashes()? {
            let action = match &hash {
                None => Action::NotConfigured,
                Some(hash) => self.action(stage, hash, options)?,
            };
            planned.push(PlannedStage {
                stage,
                action,
                hash,
            });
        }
        Ok(planned)
    }

    /// What the run does with a configured stage, from the record an earlier run left.
    fn action(&self, stage: Stage, hash: &str, options: &RunOptions<'_>) -> Result<Action> {
        let record = StageRecord::read(&self.paths.stage_dir(stage))?;
        let current = record.as_ref().filter(|r| r.hash == hash);
        if !options.in_range(stage) {
            let before_from = options.from.is_some_and(|from| stage < from);
            if before_from && current.is_none_or(|r| r.state != State::Done) {
                return Err(Error::Setting(format!(
                    "--from {}: stage {stage} has not finished with this config; \
                     run without --from first",
                    options.from.unwrap_or(stage)
                )));
            }
            return Ok(Action::OutOfRange);
        }
        Ok(match (record.as_ref(), current) {
            (None, _) => Action::Run,
            _ if options.force || options.from.is_some() => Action::Rerun,
            (Some(_), None) => Action::Rerun,
            (_, Some(r)) if r.state == State::Done => Action::Skip,
            (_, Some(_)) => Action::Resume,
        })
    }

    /// A sharded stage makes one part of its output, which no later stage may take for the whole:
    /// the run must stop there.
    fn check_shards(&self, options: &RunOptions<'_>) -> Result<()> {
        let runs = |stage: Stage| self.config.has(stage) && options.in_range(stage);
        for section in self.config.sections().into_iter().flatten() {
            let stage = section.stage();
            let Some(shard) = section.shard() else {
                continue;
            };
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
        // The directory an earlier run left is locked before its records are read; a new one
        // once made.
        let mut lock = if self.paths.dir().exists() {
            Some(self.lock()?)
        } else {
            None
        };
        let plan = self.plan(options)?;
        on_event(&Event::Plan(&plan));
        std::fs::create_dir_all(self.paths.dir()).with_path(self.paths.dir())?;
        if lock.is_none() {
            lock = Some(self.lock()?);
        }
        let _lock = lock;
        kanon_core::config::save(&self.paths.dir().join("config.toml"), &self.config)?;
        let mut rows = Vec::new();
        for planned in &plan {
            let stage = planned.stage;
            let dir = self.paths.stage_dir(stage);
            let record = match (planned.action, &planned.hash) {
                (action, Some(hash)) if action.runs() => {
                    let run = StageRun {
                        wiring: self.wiring(),
                        action,
                        options,
                        progress,
                        on_event: &mut *on_event,
                    };
                    Some(self.run_stage(stage, hash, run)?)
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

    /// Takes the run directory for this process: an exclusive lock on its `run.lock`, which the
    /// OS releases when the file is closed or the process ends. Fails at once when another run
    /// holds it.
    fn lock(&self) -> Result<std::fs::File> {
        let path = self.paths.lock();
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .with_path(&path)?;
        match file.try_lock() {
            Ok(()) => Ok(file),
            Err(std::fs::TryLockError::WouldBlock) => Err(Error::Busy {
                dir: self.paths.dir().to_path_buf(),
                lock: path,
            }),
            Err(std::fs::TryLockError::Error(source)) => {
                Err(kanon_core::Error::io(&path, source).into())
            }
        }
    }

    /// Runs one stage between its two records (running, then done with its time, peak memory
    /// and summary).
    fn run_stage(&self, stage: Stage, hash: &str, mut run: StageRun<'_>) -> Result<StageRecord> {
        let dir = self.paths.stage_dir(stage);
        let section = self
            .config
            .section(stage)
            .ok_or_else(|| Error::Setting(format!("stage {stage} has no section in the config")))?;
        if run.action != Action::Resume && dir.exists() {
            std::fs::remove_dir_all(&dir).with_path(&dir)?;
        }
        let mut record = StageRecord {
            format_version: crate::record::STAGE_FORMAT_VERSION,
            stage,
            hash: hash.to_owned(),
            state: State::Running,
            seconds: 0.0,
            peak_rss_bytes: None,
            summary: String::new(),
            figures: serde_json::Value::Null,
        };
        record.write(&dir)?;
        (run.on_event)(&Event::Started {
            stage,
            action: run.action,
        });
        let measured = memory::reset_peak();
        let started = Instant::now();
        let StageSummary { headline, figures } = section.run(&mut run)?;
        record.seconds = started.elapsed().as_secs_f64();
        record.peak_rss_bytes = measured.then(memory::peak_rss_bytes).flatten();
        record.summary = headline;
        record.figures = figures;
        record.state = State::Done;
        record.write(&dir)?;
        (run.on_event)(&Event::Finished {
            stage,
            record: &record,
        });
        Ok(record)
    }
}
