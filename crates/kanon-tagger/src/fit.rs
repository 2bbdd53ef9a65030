//! The training loop the token tagger (`train`) and the document classifier (`classifier`)
//! share: AdamW (fused on the CPU) with linear warm-up and decay, epochs of
//! batches, progress, stop requests, and the run's state saved as it goes so that an interrupted
//! run resumes where it stopped and ends where an uninterrupted one ends. What differs between
//! the two — their batches, their loss, what an epoch's end and the run's end do — is a [`Task`].

use std::path::{Path, PathBuf};
use std::time::Instant;

use burn::optim::{ModuleOptimizer, OptimizerRecord};
use burn::store::{BurnpackStore, ModuleSnapshot};
use burn::tensor::Device;
use kanon_core::{PathContext, Progress};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::model::BertTagger;
use crate::optim::FusedAdamW;

/// The file of a run's state that says where it is; beside it the weights and the optimiser's
/// moments.
pub(crate) const STATE_FILE: &str = "state.json";
const STATE_MODEL_FILE: &str = "model.bpk";
const STATE_OPTIMIZER_FILE: &str = "optimizer.bpk";

/// How a run starts, where it runs and when it stops early.
pub struct TrainOptions<'a> {
    /// Where the model trains (see [`crate::device`]); the CPU by default. The resume files are
    /// the same on every device, so a run interrupted on one resumes on another.
    ///
    /// burn reads a resumed run's optimiser state onto its *default* device before moving it to
    /// the parameters' device; in a GPU build that default is the GPU, so a program that resumes
    /// on the CPU of a machine without one sets `BURN_DEVICE=flex` (the `kanon` binary does).
    pub device: Device,
    /// Continue from the state an interrupted run left in [`resume_dir`] (starts afresh, saying
    /// so through the progress, when there is none).
    pub resume: bool,
    /// Asked after every step with the number of steps done; `true` saves the state and returns
    /// (an interrupted run). Lets a Ctrl-C handler stop a run without losing work.
    pub should_stop: Option<&'a (dyn Fn(usize) -> bool + Sync)>,
}

impl Default for TrainOptions<'_> {
    fn default() -> Self {
        TrainOptions {
            device: Device::flex(),
            resume: false,
            should_stop: None,
        }
    }
}

impl std::fmt::Debug for TrainOptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TrainOptions")
            .field("device", &self.device)
            .field("resume", &self.resume)
            .field("should_stop", &self.should_stop.is_some())
            .finish()
    }
}

/// Where a run keeps its resumable state: beside the checkpoint directory (`OUT.resume`), because
/// the checkpoint directory itself is replaced whenever the dev F1 improves. Removed when the run
/// completes.
pub fn resume_dir(out: &Path) -> PathBuf {
    let mut name = out
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_else(|| "checkpoint".into());
    name.push(".resume");
    out.with_file_name(name)
}

/// The seed of a step's random draws (dropout masks, the classifier's word-piece masks): a
/// function of the run's seed and the step alone, so a resumed run draws what an uninterrupted
/// one does.
pub(crate) fn step_seed(seed: u64, step: usize) -> u64 {
    seed.wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(step as u64)
}

pub(crate) fn resume_error(dir: &Path, message: impl Into<String>) -> Error {
    Error::Resume {
        path: dir.to_owned(),
        message: message.into(),
    }
}

/// Where a run is, saved as `state.json`: the config it must resume with, its position in the
/// epochs, its running figures, and what its task keeps besides (`extra`, whose fields sit
/// beside the others in the file).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct RunState<C, X> {
    pub format_version: u32,
    pub config: C,
    /// Steps done.
    pub step: usize,
    /// The epoch in progress and how many of its batches are done.
    pub epoch: usize,
    pub batches_done: usize,
    pub tokens: usize,
    /// Wall time of the earlier invocations of a resumed run, at its last save.
    pub seconds: f64,
    pub first_loss: Option<f32>,
    pub last_loss: Option<f32>,
    #[serde(flatten)]
    pub extra: X,
}

/// What a model's training brings to the shared loop: its batches and their loss, and what
/// happens when an epoch or the run ends.
pub(crate) trait Task {
    /// The training config a resumed run must have been started with.
    type Config: Clone + Serialize + DeserializeOwned;
    /// What the task keeps in the run's state besides the loop's position.
    type Extra: Serialize + DeserializeOwned;
    /// A batch on the training device.
    type Batch;

    /// The batches of `epoch`, as indices of training examples, in training order; the same
    /// number every epoch.
    fn batches(&self, epoch: usize) -> Vec<Vec<usize>>;

    /// The batch of examples `indices` for step `step`, and its tokens (for the throughput).
    fn batch(&self, indices: &[usize], step: usize, device: &Device) -> (Self::Batch, usize);

    /// One optimiser step on a batch: the updated model and the batch's loss.
    fn step(
        &self,
        model: BertTagger,
        optimizer: &mut ModuleOptimizer,
        learning_rate: f64,
        batch: Self::Batch,
    ) -> (BertTagger, f32);

    /// The model a fresh run starts from (a run that did not resume), and the extra state it
    /// starts with; `resume_asked` says whether a resume was asked for and found nothing.
    fn start_afresh(
        &self,
        model: BertTagger,
        resume_asked: bool,
        progress: &dyn Progress,
    ) -> Result<(BertTagger, Self::Extra)>;

    /// Refuses the state of an interrupted run, read from `dir`, that this run cannot continue.
    fn check_resumed(&self, dir: &Path, state: &RunState<Self::Config, Self::Extra>) -> Result<()>;

    /// After each epoch: `true` stops the run early.
    fn end_epoch(&self, model: &BertTagger, extra: &mut Self::Extra) -> Result<bool>;

    /// After the last epoch of a run that was not interrupted.
    fn finish(self, model: BertTagger) -> Result<()>;
}

/// The settings of the shared loop, from a task's training config.
#[derive(Debug, Clone)]
pub(crate) struct Settings<C> {
    /// Saved with the run's state; a resumed run checks it ([`Task::check_resumed`]).
    pub config: C,
    /// The `format_version` of the run's state.
    pub state_version: u32,
    pub learning_rate: f64,
    pub warmup_ratio: f64,
    pub weight_decay: f32,
    pub epochs: usize,
    pub max_steps: Option<usize>,
    pub seed: u64,
    /// Save the state every this many steps (0: at epoch ends only).
    pub checkpoint_every: usize,
    /// The progress stage of the steps.
    pub stage: &'static str,
    /// How to continue an interrupted run, said when a run would overwrite its state.
    pub resume_hint: &'static str,
    /// The checkpoint directory; the state is kept beside it ([`resume_dir`]).
    pub out: PathBuf,
}

/// What a run did.
#[derive(Debug)]
pub(crate) struct Finished<C, X> {
    pub state: RunState<C, X>,
    pub interrupted: bool,
    /// The step a resumed run continued from (0 for a fresh run).
    pub resumed_at: usize,
    /// Tokens per second of this invocation.
    pub tokens_per_second: f64,
    /// Wall time of the whole run, earlier invocations included.
    pub seconds: f64,
}

/// A linear warm-up over the first `warmup` steps, then a linear decay to 0 at `total_steps`.
#[derive(Debug, Clone, Copy)]
struct Schedule {
    learning_rate: f64,
    warmup: usize,
    total_steps: usize,
}

impl Schedule {
    fn new(learning_rate: f64, warmup_ratio: f64, total_steps: usize) -> Self {
        Schedule {
            learning_rate,
            warmup: ((total_steps as f64) * warmup_ratio).ceil() as usize,
            total_steps,
        }
    }

    fn at(&self, step: usize) -> f64 {
        let (warmup, total_steps) = (self.warmup, self.total_steps);
        if step < warmup {
            self.learning_rate * (step as f64 + 1.0) / warmup as f64
        } else {
            self.learning_rate
                * ((total_steps - step) as f64 / (total_steps - warmup).max(1) as f64).max(0.0)
        }
    }
}

/// Trains `model` (on `device`, an autodiff device) for `task`: from the state an interrupted
/// run left when `options.resume` says so, else afresh; then [`Task::finish`] unless stopped.
pub(crate) fn fit<T: Task>(
    task: T,
    model: BertTagger,
    device: &Device,
    settings: &Settings<T::Config>,
    options: &TrainOptions<'_>,
    progress: &dyn Progress,
) -> Result<Finished<T::Config, T::Extra>> {
    let state_dir = resume_dir(&settings.out);
    let optimizer = FusedAdamW::new(settings.weight_decay).init();
    let (mut state, mut model, mut optimizer) = start(
        &task, &state_dir, settings, model, optimizer, options, progress,
    )?;
    let batches_per_epoch = task.batches(0).len();
    let total_steps = settings
        .max_steps
        .unwrap_or(usize::MAX)
        .min(batches_per_epoch * settings.epochs)
        .max(1);
    let schedule = Schedule::new(settings.learning_rate, settings.warmup_ratio, total_steps);
    let clock = Clock {
        started: Instant::now(),
        seconds_before: state.seconds,
        tokens_before: state.tokens,
    };
    let resumed_at = state.step;
    progress.stage(settings.stage, total_steps as u64);
    progress.advance(state.step as u64);
    let mut interrupted = false;
    // An epoch with batches done but not ended (a run stopped on its last step) still owes its
    // end: the dev evaluation, early stopping.
    'epochs: while state.epoch < settings.epochs
        && (state.step < total_steps || state.batches_done > 0)
    {
        let batches = task.batches(state.epoch);
        for indices in batches.iter().skip(state.batches_done) {
            if state.step >= total_steps {
                break;
            }
            let (batch, tokens) = task.batch(indices, state.step, device);
            state.tokens += tokens;
            device.seed(step_seed(settings.seed, state.step));
            let (next, loss) = task.step(model, &mut optimizer, schedule.at(state.step), batch);
            model = next;
            state.first_loss.get_or_insert(loss);
            state.last_loss = Some(loss);
            state.step += 1;
            state.batches_done += 1;
            progress.advance(1);
            progress.message(&format!(
                "loss {loss:.3}, {:.0} tokens/s",
                clock.tokens_per_second(state.tokens)
            ));
            let stop = options.should_stop.is_some_and(|stop| stop(state.step));
            let due = settings.checkpoint_every > 0 && state.step % settings.checkpoint_every == 0;
            if stop || due {
                state.seconds = clock.seconds();
                save_state(&state_dir, &state, &model, &optimizer)?;
            }
            if stop {
                interrupted = true;
                break 'epochs;
            }
        }
        let early_stopped = task.end_epoch(&model, &mut state.extra)?;
        state.epoch += 1;
        state.batches_done = 0;
        if early_stopped {
            break;
        }
        if state.step < total_steps && state.epoch < settings.epochs {
            state.seconds = clock.seconds();
            save_state(&state_dir, &state, &model, &optimizer)?;
        }
    }
    if !interrupted {
        task.finish(model)?;
        if state_dir.exists() {
            std::fs::remove_dir_all(&state_dir).with_path(&state_dir)?;
        }
    }
    Ok(Finished {
        seconds: clock.seconds(),
        tokens_per_second: clock.tokens_per_second(state.tokens),
        state,
        interrupted,
        resumed_at,
    })
}

/// This invocation's start, and what the invocations before it of a resumed run did.
struct Clock {
    started: Instant,
    seconds_before: f64,
    tokens_before: usize,
}

impl Clock {
    /// Wall time of the whole run so far.
    fn seconds(&self) -> f64 {
        self.seconds_before + self.started.elapsed().as_secs_f64()
    }

    /// This invocation's throughput, with `tokens` the run's tokens so far.
    fn tokens_per_second(&self, tokens: usize) -> f64 {
        (tokens - self.tokens_before) as f64 / self.started.elapsed().as_secs_f64().max(1e-9)
    }
}

/// A run's state, model and optimiser as it starts.
type Start<C, X> = (RunState<C, X>, BertTagger, ModuleOptimizer);

/// The state, model and optimiser a run starts from: an interrupted run's when there is one and
/// `options.resume` says so (an error when it does not), else fresh ones.
fn start<T: Task>(
    task: &T,
    state_dir: &Path,
    settings: &Settings<T::Config>,
    model: BertTagger,
    optimizer: ModuleOptimizer,
    options: &TrainOptions<'_>,
    progress: &dyn Progress,
) -> Result<Start<T::Config, T::Extra>> {
    if state_dir.join(STATE_FILE).exists() {
        if !options.resume {
            return Err(resume_error(
                state_dir,
                format!(
                    "an interrupted run left its state here: {}, or delete the directory to \
                     start afresh",
                    settings.resume_hint
                ),
            ));
        }
        let (state, model, optimizer) =
            load_saved_state(state_dir, settings.state_version, model, optimizer)?;
        task.check_resumed(state_dir, &state)?;
        progress.message(&format!("resuming at step {}", state.step));
        return Ok((state, model, optimizer));
    }
    let (model, extra) = task.start_afresh(model, options.resume, progress)?;
    let state = RunState {
        format_version: settings.state_version,
        config: settings.config.clone(),
        step: 0,
        epoch: 0,
        batches_done: 0,
        tokens: 0,
        seconds: 0.0,
        first_loss: None,
        last_loss: None,
        extra,
    };
    Ok((state, model, optimizer))
}

/// Writes a run's state (weights with their parameter ids, optimiser moments, `state` as JSON)
/// into `dir` atomically.
fn save_state<S: Serialize>(
    dir: &Path,
    state: &S,
    model: &BertTagger,
    optimizer: &ModuleOptimizer,
) -> Result<()> {
    kanon_core::io::atomic_dir::<Error, _>(dir, |tmp| {
        let weights = tmp.join(STATE_MODEL_FILE);
        // Burnpack keeps each parameter's id, which the optimiser's state is keyed by.
        let mut store = BurnpackStore::from_file(&weights)
            .auto_extension(false)
            .overwrite(true);
        model
            .save_into(&mut store)
            .map_err(Error::store(&weights, "write the weights"))?;
        let moments = tmp.join(STATE_OPTIMIZER_FILE);
        optimizer
            .to_record()
            .save(&moments)
            .map_err(Error::store(&moments, "write the optimiser state"))?;
        Ok(kanon_core::config::save(&tmp.join(STATE_FILE), state)?)
    })
}

/// Reads what [`save_state`] wrote, checking the state's `format_version` is `expected_version`.
fn load_saved_state<S: DeserializeOwned>(
    dir: &Path,
    expected_version: u32,
    model: BertTagger,
    optimizer: ModuleOptimizer,
) -> Result<(S, BertTagger, ModuleOptimizer)> {
    let state_path = dir.join(STATE_FILE);
    let text = std::fs::read_to_string(&state_path).with_path(&state_path)?;
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| resume_error(&state_path, e.to_string()))?;
    let version = value.get("format_version").and_then(|v| v.as_u64());
    if version != Some(u64::from(expected_version)) {
        return Err(resume_error(
            &state_path,
            format!(
                "format_version {version:?}, this kanon reads {expected_version}: start afresh (delete {})",
                dir.display()
            ),
        ));
    }
    let state: S =
        serde_json::from_value(value).map_err(|e| resume_error(&state_path, e.to_string()))?;
    let mut model = model;
    let weights = dir.join(STATE_MODEL_FILE);
    let mut store = BurnpackStore::from_file(&weights).auto_extension(false);
    let applied = model
        .load_from(&mut store)
        .map_err(Error::store(&weights, "read the weights"))?;
    if !applied.missing.is_empty() || !applied.errors.is_empty() {
        return Err(resume_error(
            &weights,
            format!(
                "{} missing tensors, {} errors",
                applied.missing.len(),
                applied.errors.len()
            ),
        ));
    }
    let moments = dir.join(STATE_OPTIMIZER_FILE);
    let record = OptimizerRecord::load(&moments)
        .map_err(Error::store(&moments, "read the optimiser state"))?;
    Ok((state, model, optimizer.load_record(record)))
}
