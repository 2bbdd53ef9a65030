//! Fine-tuning a pretrained BERT on a labeled corpus: AdamW with linear warm-up and decay, batches by
//! token budget, dev evaluation each epoch with early stopping on dev F1; the best model is saved
//! with its config, labels and tokenizer. A run saves its state as it goes and resumes from it.
//!
//! [`run`] does a [`TrainJob`]; [`masked_cross_entropy`] and [`train_step`] are its pieces.

use std::path::{Path, PathBuf};
use std::time::Instant;

use burn::module::Module;
use burn::optim::{GradientsParams, ModuleOptimizer, OptimizerRecord};
use burn::store::{BurnpackStore, ModuleSnapshot};
use burn::tensor::activation::log_softmax;
use burn::tensor::{Bool, Device, Int, Tensor, TensorData};
use kanon_core::config::ConfigFile;
use kanon_core::corpus::CorpusDocument;
use kanon_core::{PathContext, Progress};
use serde::{Deserialize, Serialize};

use crate::checkpoint::{LabelsFile, TRAIN_CONFIG_FILE};
use crate::data::TaggerTokenizer;
use crate::dataset::{Batch, Example, Windowing, batches_by_budget, examples, to_batch};
use crate::error::{Error, Result};
use crate::inference::{Decision, Tagger};
use crate::labels::LabelScheme;
use crate::model::BertTagger;
use crate::optim::FusedAdamW;
use crate::weights::load_pretrained;

/// Cross-entropy over the word pieces that carry a label, each weighted by its label's class weight:
/// `Σ w[y] · −log p(y) / Σ w[y]` over pieces where `labeled` is true.
///
/// - `logits`: `[batch, seq, labels]`; `targets`: `[batch, seq]`; `labeled`: `[batch, seq]`
///   (false on `[CLS]`, `[SEP]` and padding); `class_weights`: `[labels]`.
/// - returns `[1]`.
pub fn masked_cross_entropy(
    logits: Tensor<3>,
    targets: Tensor<2, Int>,
    labeled: Tensor<2, Bool>,
    class_weights: Tensor<1>,
) -> Tensor<1> {
    let [batch, seq, labels] = logits.dims();
    let log_probs = log_softmax(logits, 2);
    let picked = log_probs
        .gather(2, targets.clone().reshape([batch, seq, 1]))
        .reshape([batch, seq]);
    let weights = class_weights
        .reshape([1, labels])
        .repeat_dim(0, batch * seq)
        .gather(1, targets.reshape([batch * seq, 1]))
        .reshape([batch, seq])
        .mask_fill(labeled.bool_not(), 0.0);
    let total = weights.clone().sum();
    (picked * weights).sum().neg() / total.clamp_min(1e-12)
}

/// One AdamW (or any optimiser) step on a batch, its loss weighted by `class_weights`
/// (`[labels]`); returns the updated model and the batch loss.
pub fn train_step(
    model: BertTagger,
    optimizer: &mut ModuleOptimizer,
    learning_rate: f64,
    batch: &Batch,
    class_weights: &Tensor<1>,
) -> (BertTagger, f32) {
    crate::kernels::on_pool(|| {
        let logits = model.forward(batch.input_ids.clone(), batch.padding.clone());
        let loss = masked_cross_entropy(
            logits,
            batch.targets.clone(),
            batch.labeled.clone(),
            class_weights.clone(),
        );
        let value = loss.clone().into_scalar::<f32>();
        let grads = GradientsParams::from_grads(loss.backward(), &model);
        (optimizer.step(learning_rate, model, grads), value)
    })
}

/// The knobs of a training run (saved beside the weights as `train_config.json`). As a file, a
/// key left out takes its default.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TrainConfig {
    pub learning_rate: f64,
    pub epochs: usize,
    pub max_steps: Option<usize>,
    /// Padded tokens per batch (8 × 128 by default).
    pub token_budget: usize,
    pub warmup_ratio: f64,
    pub weight_decay: f32,
    pub seed: u64,
    pub max_len: usize,
    pub overlap: usize,
    pub scheme: LabelScheme,
    /// Weight of every label but `O` in the loss (`O` weighs 1): masks are the rarer class.
    pub entity_weight: f32,
    /// Stop after this many epochs in a row without a better dev F1; 0 never stops early.
    pub patience: usize,
    /// The decision the dev F1 that picks the epoch is measured with: `None` argmax, else the mask
    /// probability threshold the model will be deployed with (`kanon detect --threshold`). The dev
    /// spans are tidied as in deployment either way.
    pub select_threshold: Option<f32>,
    /// Save the run's state (weights, optimiser, position) every this many steps, so `--resume`
    /// continues an interrupted run; 0 saves only at epoch ends.
    pub checkpoint_every: usize,
}

impl ConfigFile for TrainConfig {}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            learning_rate: 2e-5,
            epochs: 2,
            max_steps: None,
            token_budget: 1024,
            warmup_ratio: 0.1,
            weight_decay: 0.01,
            seed: 0,
            max_len: 128,
            overlap: 32,
            scheme: LabelScheme::Typed,
            entity_weight: 1.0,
            patience: 1,
            select_threshold: None,
            checkpoint_every: 200,
        }
    }
}

/// A training run: a pretrained BERT fine-tuned on a corpus, the best model written to `out`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrainJob {
    /// A model of the cache (`all-minilm-l6-v2`) or a BERT checkpoint directory.
    pub pretrained: String,
    /// A corpus directory written by `kanon label` (`train.jsonl`, `dev.jsonl`, `manifest.json`).
    pub corpus: PathBuf,
    /// The checkpoint directory to write.
    pub out: PathBuf,
    #[serde(default)]
    pub config: TrainConfig,
}

impl ConfigFile for TrainJob {}

/// What a run did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrainReport {
    pub steps: usize,
    pub epochs_run: usize,
    pub train_examples: usize,
    pub first_loss: f32,
    pub last_loss: f32,
    pub dev_f1_by_epoch: Vec<f64>,
    pub best_dev_f1: f64,
    /// Tokens per second of this invocation (a resumed run counts only its own steps).
    pub tokens_per_second: f64,
    /// Wall time of the whole run, earlier invocations of a resumed run included.
    pub seconds: f64,
    /// The step a resumed run continued from.
    pub resumed_at_step: Option<usize>,
    /// Stopped by [`TrainOptions::should_stop`]; the state is saved for `--resume`.
    pub interrupted: bool,
}

impl TrainReport {
    /// What the run did, as a person reads it; `out` is the checkpoint directory.
    pub fn render(&self, out: &Path) -> String {
        if self.interrupted {
            return format!(
                "interrupted after step {}: state saved in {}; continue with the same command and --resume\n",
                self.steps,
                resume_dir(out).display()
            );
        }
        format!(
            "trained {} steps ({} epochs, {} windows) in {:.0}s, {:.0} tokens/s; loss {:.3} -> {:.3}; dev F1 by epoch {:?}; best {:.3} -> {}\n",
            self.steps,
            self.epochs_run,
            self.train_examples,
            self.seconds,
            self.tokens_per_second,
            self.first_loss,
            self.last_loss,
            self.dev_f1_by_epoch
                .iter()
                .map(|f| (f * 1000.0).round() / 1000.0)
                .collect::<Vec<_>>(),
            self.best_dev_f1,
            out.display()
        )
    }
}

/// Exact-span F1 of predictions against the corpus's spans (types ignored).
fn dev_f1(predicted: &[Vec<(usize, usize)>], gold: &[CorpusDocument]) -> f64 {
    let (mut right, mut n_pred, mut n_gold) = (0usize, 0usize, 0usize);
    for (p, doc) in predicted.iter().zip(gold) {
        let g: Vec<(usize, usize)> = doc.spans.iter().map(|s| (s.start, s.end)).collect();
        right += p.iter().filter(|s| g.contains(s)).count();
        n_pred += p.len();
        n_gold += g.len();
    }
    let precision = if n_pred == 0 {
        0.0
    } else {
        right as f64 / n_pred as f64
    };
    let recall = if n_gold == 0 {
        0.0
    } else {
        right as f64 / n_gold as f64
    };
    if precision + recall == 0.0 {
        0.0
    } else {
        2.0 * precision * recall / (precision + recall)
    }
}

/// The on-disk format of a run's resumable state (`state.json` in the resume directory).
pub const RESUME_FORMAT_VERSION: u32 = 1;
const STATE_FILE: &str = "state.json";
const STATE_MODEL_FILE: &str = "model.bpk";
const STATE_OPTIMIZER_FILE: &str = "optimizer.bpk";

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

/// Where a run is: everything but the weights and the optimiser's moments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct RunState {
    format_version: u32,
    config: TrainConfig,
    /// Steps done.
    step: usize,
    /// The epoch in progress and how many of its batches are done.
    epoch: usize,
    batches_done: usize,
    tokens: usize,
    seconds: f64,
    first_loss: Option<f32>,
    last_loss: Option<f32>,
    dev_f1_by_epoch: Vec<f64>,
    best: Option<f64>,
    stale: usize,
}

impl RunState {
    fn fresh(config: &TrainConfig) -> Self {
        RunState {
            format_version: RESUME_FORMAT_VERSION,
            config: config.clone(),
            step: 0,
            epoch: 0,
            batches_done: 0,
            tokens: 0,
            seconds: 0.0,
            first_loss: None,
            last_loss: None,
            dev_f1_by_epoch: Vec::new(),
            best: None,
            stale: 0,
        }
    }
}

pub(crate) fn resume_error(dir: &Path, message: impl Into<String>) -> Error {
    Error::Resume {
        path: dir.to_owned(),
        message: message.into(),
    }
}

/// Writes a run's state (weights with their parameter ids, optimiser moments, `state` as JSON)
/// into `dir` atomically.
pub(crate) fn save_state<S: Serialize>(
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

fn load_state(
    dir: &Path,
    config: &TrainConfig,
    model: BertTagger,
    optimizer: ModuleOptimizer,
) -> Result<(RunState, BertTagger, ModuleOptimizer)> {
    let (state, model, optimizer) =
        load_saved_state::<RunState>(dir, RESUME_FORMAT_VERSION, model, optimizer)?;
    if &state.config != config {
        return Err(resume_error(
            &dir.join(STATE_FILE),
            "the interrupted run used another training config; resume with the same one (see its \
             `config` field) or delete the directory to start afresh",
        ));
    }
    Ok((state, model, optimizer))
}

/// Whether an interrupted run left its state in `dir`.
pub(crate) fn has_state(dir: &Path) -> bool {
    dir.join(STATE_FILE).exists()
}

/// Reads what [`save_state`] wrote, checking the state's `format_version` is `version`.
pub(crate) fn load_saved_state<S: serde::de::DeserializeOwned>(
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

/// The seed of a step's dropout masks: a function of the run's seed and the step alone, so a
/// resumed run draws the same masks as an uninterrupted one.
pub(crate) fn step_seed(seed: u64, step: usize) -> u64 {
    seed.wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(step as u64)
}

/// Trains: reads the corpus (checking its format version), fine-tunes, evaluates on dev after
/// each epoch and keeps the best model in `job.out`. Resumes from the state an interrupted run
/// left when `options.resume` says so.
pub fn run(
    job: &TrainJob,
    options: &TrainOptions<'_>,
    progress: &dyn Progress,
) -> Result<TrainReport> {
    let pretrained = kanon_models::resolve_pretrained(&job.pretrained)?;
    let (corpus, out, config) = (job.corpus.as_path(), job.out.as_path(), &job.config);
    let tokenizer_json: PathBuf = pretrained.join("tokenizer.json");
    let tokenizer = TaggerTokenizer::from_file(&tokenizer_json)?;
    let windowing = Windowing {
        max_len: config.max_len,
        overlap: config.overlap,
    };
    let train_docs = kanon_core::corpus::read_split(corpus, "train")?;
    let dev_docs = kanon_core::corpus::read_split(corpus, "dev")?;
    let mut train_examples: Vec<Example> = Vec::new();
    for doc in &train_docs {
        let tokenized = tokenizer.tokenize(&doc.text)?;
        train_examples.extend(examples(
            &tokenizer,
            &tokenized,
            &doc.typed_spans(),
            config.scheme,
            windowing,
        ));
    }
    if train_examples.is_empty() {
        return Err(
            kanon_core::Error::format(corpus.join("train.jsonl"), "no training examples").into(),
        );
    }

    let device = options.device.clone().autodiff();
    crate::device::seed(&device, config.seed);
    let (bert_config, model) = load_pretrained(&pretrained, config.scheme.num_labels(), &device)?;
    let optimizer = FusedAdamW::new(config.weight_decay).init();
    let state_dir = resume_dir(out);
    let (mut state, mut model, mut optimizer) = if state_dir.join(STATE_FILE).exists() {
        if !options.resume {
            return Err(resume_error(
                &state_dir,
                "an interrupted run left its state here: pass --resume to continue it, or delete \
                 the directory to start afresh",
            ));
        }
        let (state, model, optimizer) = load_state(&state_dir, config, model, optimizer)?;
        progress.message(&format!("resuming at step {}", state.step));
        (state, model, optimizer)
    } else {
        if options.resume {
            progress.message("nothing to resume: starting afresh");
        }
        (RunState::fresh(config), model, optimizer)
    };

    let mut class_weights = vec![config.entity_weight; config.scheme.num_labels()];
    class_weights[0] = 1.0;
    let class_weights = Tensor::<1>::from_data(
        TensorData::new(class_weights, [config.scheme.num_labels()]),
        &device,
    );

    let batches_per_epoch =
        batches_by_budget(&train_examples, config.token_budget, config.seed).len();
    let total_steps = config
        .max_steps
        .unwrap_or(usize::MAX)
        .min(batches_per_epoch * config.epochs)
        .max(1);
    let warmup = ((total_steps as f64) * config.warmup_ratio).ceil() as usize;
    let schedule = |step: usize| {
        let s = step as f64;
        if step < warmup {
            config.learning_rate * (s + 1.0) / warmup as f64
        } else {
            config.learning_rate
                * ((total_steps - step) as f64 / (total_steps - warmup).max(1) as f64).max(0.0)
        }
    };

    let started = Instant::now();
    let seconds_before = state.seconds;
    let tokens_before = state.tokens;
    let resumed_at = state.step;
    let elapsed = |started: &Instant| seconds_before + started.elapsed().as_secs_f64();
    progress.stage("train", total_steps as u64);
    progress.advance(state.step as u64);
    let mut interrupted = false;
    let mut early_stopped = false;
    'epochs: while state.epoch < config.epochs && state.step < total_steps {
        let batches = batches_by_budget(
            &train_examples,
            config.token_budget,
            config.seed + state.epoch as u64,
        );
        for batch_indices in batches.iter().skip(state.batches_done) {
            if state.step >= total_steps {
                break;
            }
            let refs: Vec<&Example> = batch_indices.iter().map(|&i| &train_examples[i]).collect();
            let batch = to_batch(&refs, tokenizer.pad(), &device);
            state.tokens += batch.tokens;
            device.seed(step_seed(config.seed, state.step));
            let (next, loss) = train_step(
                model,
                &mut optimizer,
                schedule(state.step),
                &batch,
                &class_weights,
            );
            model = next;
            state.first_loss.get_or_insert(loss);
            state.last_loss = Some(loss);
            state.step += 1;
            state.batches_done += 1;
            progress.advance(1);
            progress.message(&format!(
                "loss {loss:.3}, {:.0} tokens/s",
                (state.tokens - tokens_before) as f64 / started.elapsed().as_secs_f64().max(1e-9)
            ));
            let stop = options.should_stop.is_some_and(|stop| stop(state.step));
            let due = config.checkpoint_every > 0 && state.step % config.checkpoint_every == 0;
            if stop || due {
                state.seconds = elapsed(&started);
                save_state(&state_dir, &state, &model, &optimizer)?;
            }
            if stop {
                interrupted = true;
                break 'epochs;
            }
        }
        // The dev F1 is of the spans as deployed: tidied, with the deployment's decision.
        let decision = config
            .select_threshold
            .map_or(Decision::Argmax, |threshold| Decision::MaskProbability {
                threshold,
            });
        let tagger = Tagger::new(
            model.valid(),
            bert_config.clone(),
            tokenizer.clone(),
            LabelsFile::new(config.scheme, windowing),
            &options.device,
        )
        .with_decision(decision);
        let mut predicted = Vec::with_capacity(dev_docs.len());
        for doc in &dev_docs {
            let spans = tagger.predict(&doc.text)?;
            predicted.push(
                spans
                    .into_iter()
                    .map(|(s, _, _)| (s.start, s.end))
                    .collect::<Vec<_>>(),
            );
        }
        let f1 = dev_f1(&predicted, &dev_docs);
        state.dev_f1_by_epoch.push(f1);
        if state.best.is_none_or(|best| f1 > best) {
            state.best = Some(f1);
            state.stale = 0;
            kanon_core::io::atomic_dir::<Error, _>(out, |dir| {
                tagger.save(dir, &tokenizer_json)?;
                Ok(config.save(&dir.join(TRAIN_CONFIG_FILE))?)
            })?;
        } else {
            state.stale += 1;
            early_stopped = config.patience > 0 && state.stale >= config.patience;
        }
        state.epoch += 1;
        state.batches_done = 0;
        if early_stopped {
            break;
        }
        if state.step < total_steps && state.epoch < config.epochs {
            state.seconds = elapsed(&started);
            save_state(&state_dir, &state, &model, &optimizer)?;
        }
    }
    if !interrupted && state_dir.exists() {
        std::fs::remove_dir_all(&state_dir).with_path(&state_dir)?;
    }
    let seconds = elapsed(&started);
    Ok(TrainReport {
        steps: state.step,
        epochs_run: state.dev_f1_by_epoch.len(),
        train_examples: train_examples.len(),
        first_loss: state.first_loss.unwrap_or(f32::NAN),
        last_loss: state.last_loss.unwrap_or(f32::NAN),
        dev_f1_by_epoch: state.dev_f1_by_epoch,
        best_dev_f1: state.best.unwrap_or(0.0).max(0.0),
        tokens_per_second: (state.tokens - tokens_before) as f64
            / started.elapsed().as_secs_f64().max(1e-9),
        seconds,
        resumed_at_step: (resumed_at > 0).then_some(resumed_at),
        interrupted,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_job_round_trips_through_its_file_forms() {
        let dir = tempfile::tempdir().unwrap();
        let job = TrainJob {
            pretrained: "all-minilm-l6-v2".into(),
            corpus: "corpus".into(),
            out: "checkpoints/minilm".into(),
            config: TrainConfig {
                max_steps: Some(500),
                scheme: LabelScheme::Mask,
                entity_weight: 2.0,
                ..TrainConfig::default()
            },
        };
        for name in ["train.toml", "train.json"] {
            let path = dir.path().join(name);
            job.save(&path).unwrap();
            assert_eq!(TrainJob::load(&path).unwrap(), job);
        }
        // A saved train_config.json is a config file too.
        let path = dir.path().join(TRAIN_CONFIG_FILE);
        job.config.save(&path).unwrap();
        assert_eq!(TrainConfig::load(&path).unwrap(), job.config);
        std::fs::write(&path, r#"{"epochs": 1, "learning_rat": 0.1}"#).unwrap();
        let err = TrainConfig::load(&path).unwrap_err().to_string();
        assert!(err.contains("unknown field `learning_rat`"), "{err}");
        assert_eq!("mask".parse::<LabelScheme>(), Ok(LabelScheme::Mask));
    }
}
