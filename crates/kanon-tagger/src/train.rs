//! Fine-tuning a pretrained BERT on a labeled corpus: AdamW with linear warm-up and decay, batches by
//! token budget, dev evaluation each epoch with early stopping on dev F1; the best model is saved
//! with its config, labels and tokenizer. A run saves its state as it goes and resumes from it.
//!
//! [`run`] does a [`TrainJob`]; [`masked_cross_entropy`] and [`train_step`] are its pieces.

use std::path::{Path, PathBuf};

use burn::module::Module;
use burn::optim::{GradientsParams, ModuleOptimizer};
use burn::tensor::activation::log_softmax;
use burn::tensor::{Bool, Device, Int, Tensor, TensorData};
use kanon_core::Progress;
use kanon_core::config::ConfigFile;
use kanon_core::corpus::CorpusDocument;
use serde::{Deserialize, Serialize};

use crate::checkpoint::{LabelsFile, TRAIN_CONFIG_FILE};
use crate::data::TaggerTokenizer;
use crate::dataset::{Batch, Example, Windowing, batches_by_budget, examples, to_batch};
use crate::error::{Error, Result};
use crate::fit::{RunState, STATE_FILE, Settings, Task, fit, resume_error};
pub use crate::fit::{TrainOptions, resume_dir};
use crate::inference::{Decision, Tagger};
use crate::labels::LabelScheme;
use crate::model::{BertConfig, BertTagger};
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

/// Knowledge distillation's soft loss (Hinton et al., 2015): the Kullback–Leibler divergence of
/// the student's from the teacher's label distribution, both softened by `temperature` and the
/// divergence scaled by its square (so that its gradients keep their size as the temperature
/// changes), averaged over the word pieces that carry a label.
///
/// - `student`, `teacher`: logits `[batch, seq, labels]` (the teacher's a constant);
///   `labeled`: `[batch, seq]`.
/// - returns `[1]`.
pub fn distillation_loss(
    student: Tensor<3>,
    teacher: Tensor<3>,
    labeled: Tensor<2, Bool>,
    temperature: f32,
) -> Tensor<1> {
    let [batch, seq, _] = student.dims();
    let t = f64::from(temperature);
    let student_log = log_softmax(student / t, 2);
    let teacher_log = log_softmax(teacher / t, 2);
    let divergence = (teacher_log.clone().exp() * (teacher_log - student_log))
        .sum_dim(2)
        .reshape([batch, seq])
        .mask_fill(labeled.clone().bool_not(), 0.0);
    let pieces = labeled.float().sum();
    divergence.sum() * (t * t) / pieces.clamp_min(1.0)
}

/// Which of a teacher's `layers` a student of `keep` layers starts from: evenly spaced, the last
/// always among them (6 → 3: 1, 3, 5; 6 → 2: 2, 5; 6 → 4: 0, 2, 3, 5).
pub fn student_layers(layers: usize, keep: usize) -> Vec<usize> {
    (1..=keep).map(|i| i * layers / keep - 1).collect()
}

/// A student of `keep` layers cut from `teacher`: its embeddings, the layers
/// [`student_layers`] picks and its classifier. The config says `keep` layers.
pub fn student_of(
    teacher: &BertTagger,
    config: &BertConfig,
    keep: usize,
) -> (BertConfig, BertTagger) {
    let picked = student_layers(teacher.layers.len(), keep);
    let mut student = teacher.clone();
    student.layers = picked.iter().map(|&l| teacher.layers[l].clone()).collect();
    let mut student_config = config.clone();
    student_config.num_hidden_layers = keep;
    (student_config, student)
}

/// A teacher's part in a step: its logits on the batch (no gradient), and how they weigh.
struct Teacher {
    /// The teacher on the device without autodiff.
    model: BertTagger,
    temperature: f32,
    weight: f32,
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
    step_with(model, optimizer, learning_rate, batch, class_weights, None)
}

/// [`train_step`], with a teacher's soft labels mixed in when one is given:
/// `(1 − w) · hard + w · soft` ([`distillation_loss`]).
fn step_with(
    model: BertTagger,
    optimizer: &mut ModuleOptimizer,
    learning_rate: f64,
    batch: &Batch,
    class_weights: &Tensor<1>,
    teacher: Option<&Teacher>,
) -> (BertTagger, f32) {
    crate::kernels::on_pool(|| {
        let logits = model.forward(batch.input_ids.clone(), batch.padding.clone());
        let hard = masked_cross_entropy(
            logits.clone(),
            batch.targets.clone(),
            batch.labeled.clone(),
            class_weights.clone(),
        );
        let loss = match teacher {
            None => hard,
            Some(teacher) => {
                let soft_targets = teacher
                    .model
                    .forward(
                        batch.input_ids.clone().inner(),
                        batch.padding.clone().inner(),
                    )
                    .autodiff();
                let soft = distillation_loss(
                    logits,
                    soft_targets,
                    batch.labeled.clone(),
                    teacher.temperature,
                );
                let w = f64::from(teacher.weight);
                hard * (1.0 - w) + soft * w
            }
        };
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
    /// The peak learning rate, after the warm-up.
    pub learning_rate: f64,
    /// Passes over the training windows (fewer when the dev F1 stops improving: `patience`).
    pub epochs: usize,
    /// Stop after this many steps, mid-epoch if need be (the learning rate then decays to 0
    /// there); `None` runs every epoch.
    pub max_steps: Option<usize>,
    /// Padded tokens per batch (8 × 128 by default).
    pub token_budget: usize,
    /// The share of the steps over which the learning rate rises linearly to its peak; it then
    /// decays linearly to 0 at the last step.
    pub warmup_ratio: f64,
    /// AdamW's decoupled weight decay.
    pub weight_decay: f32,
    /// Seeds the fresh head, the batch order of each epoch and dropout.
    pub seed: u64,
    /// Pieces per window, `[CLS]` and `[SEP]` included; the saved model reads texts in windows
    /// of this length too.
    pub max_len: usize,
    /// Pieces shared by consecutive windows of a document.
    pub overlap: usize,
    /// The labels the tagger learns.
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
    /// Distil a student of this many layers: `pretrained` must then be a trained tagger (the
    /// teacher, same scheme); the student starts from its embeddings, evenly spaced layers
    /// ([`student_layers`]) and classifier, and learns from the corpus's labels and the
    /// teacher's soft labels together. `None`: fine-tune every layer of `pretrained`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub student_layers: Option<usize>,
    /// The share of the teacher's soft labels in a student's loss (the rest: the corpus's).
    #[serde(skip_serializing_if = "is_default_distill_weight")]
    pub distill_weight: f32,
    /// The temperature both distributions are softened by in the soft loss.
    #[serde(skip_serializing_if = "is_default_distill_temperature")]
    pub distill_temperature: f32,
}

const DEFAULT_DISTILL_WEIGHT: f32 = 0.5;
const DEFAULT_DISTILL_TEMPERATURE: f32 = 2.0;

// Left out of a saved config at their defaults, so that configs (and the stage hashes of `kanon
// run`) written before distillation existed read and hash as they did.
fn is_default_distill_weight(value: &f32) -> bool {
    *value == DEFAULT_DISTILL_WEIGHT
}

fn is_default_distill_temperature(value: &f32) -> bool {
    *value == DEFAULT_DISTILL_TEMPERATURE
}

impl ConfigFile for TrainConfig {
    fn check(&self) -> std::result::Result<(), String> {
        if self.student_layers == Some(0) {
            return Err("student_layers = 0 (at least 1)".into());
        }
        if !(0.0..=1.0).contains(&self.distill_weight) {
            return Err(format!(
                "distill_weight = {} (between 0 and 1)",
                self.distill_weight
            ));
        }
        // NaN is refused too.
        if self.distill_temperature.is_nan() || self.distill_temperature <= 0.0 {
            return Err(format!(
                "distill_temperature = {} (above 0)",
                self.distill_temperature
            ));
        }
        Ok(())
    }
}

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
            student_layers: None,
            distill_weight: DEFAULT_DISTILL_WEIGHT,
            distill_temperature: DEFAULT_DISTILL_TEMPERATURE,
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
    /// How to train.
    #[serde(default)]
    pub config: TrainConfig,
}

impl ConfigFile for TrainJob {}

/// What a run did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrainReport {
    /// Steps done, a resumed run's earlier ones included.
    pub steps: usize,
    /// Epochs evaluated on dev.
    pub epochs_run: usize,
    /// The training windows of the corpus.
    pub train_examples: usize,
    /// The loss of the run's first step (NaN without a step).
    pub first_loss: f32,
    /// The loss of its last step so far (NaN without a step).
    pub last_loss: f32,
    /// The exact-span dev F1 after each epoch.
    pub dev_f1_by_epoch: Vec<f64>,
    /// The best of them: the saved model's (0 before any epoch ended).
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
        format!("{}\n", self.headline(out))
    }

    /// [`TrainReport::render`] in one line, without its line end.
    pub fn headline(&self, out: &Path) -> String {
        if self.interrupted {
            return format!(
                "interrupted after step {}: state saved in {}; continue with the same command and --resume",
                self.steps,
                resume_dir(out).display()
            );
        }
        format!(
            "trained {} steps ({} epochs, {} windows) in {:.0}s, {:.0} tokens/s; loss {:.3} -> {:.3}; dev F1 by epoch {:?}; best {:.3} -> {}",
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

/// What the tagger keeps in its run's state besides the loop's position: the dev F1 of each epoch
/// done, the best of them, and the epochs since it last improved.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
struct DevScores {
    dev_f1_by_epoch: Vec<f64>,
    best: Option<f64>,
    stale: usize,
}

/// The tagger's part of the training loop: windows of the corpus's documents batched by token
/// budget, the class-weighted loss, and a dev evaluation after each epoch that keeps the best
/// model in the checkpoint directory.
struct TaggerTraining<'a> {
    config: &'a TrainConfig,
    examples: Vec<Example>,
    tokenizer: TaggerTokenizer,
    /// The pretrained model's tokenizer file, copied into the checkpoint.
    tokenizer_json: PathBuf,
    class_weights: Tensor<1>,
    dev_docs: Vec<CorpusDocument>,
    bert_config: BertConfig,
    /// Where the dev evaluation runs: the training device without autodiff.
    device: Device,
    out: &'a Path,
    /// The teacher of a distilled student.
    teacher: Option<Teacher>,
}

impl Task for TaggerTraining<'_> {
    type Config = TrainConfig;
    type Extra = DevScores;
    type Batch = Batch;

    fn batches(&self, epoch: usize) -> Vec<Vec<usize>> {
        let config = self.config;
        batches_by_budget(
            &self.examples,
            config.token_budget,
            config.seed + epoch as u64,
        )
    }

    fn batch(&self, indices: &[usize], _step: usize, device: &Device) -> (Batch, usize) {
        let refs: Vec<&Example> = indices.iter().map(|&i| &self.examples[i]).collect();
        let batch = to_batch(&refs, self.tokenizer.pad(), device);
        let tokens = batch.tokens;
        (batch, tokens)
    }

    fn step(
        &self,
        model: BertTagger,
        optimizer: &mut ModuleOptimizer,
        learning_rate: f64,
        batch: Batch,
    ) -> (BertTagger, f32) {
        step_with(
            model,
            optimizer,
            learning_rate,
            &batch,
            &self.class_weights,
            self.teacher.as_ref(),
        )
    }

    fn start_afresh(
        &self,
        model: BertTagger,
        resume_asked: bool,
        progress: &dyn Progress,
    ) -> Result<(BertTagger, DevScores)> {
        if resume_asked {
            progress.message("nothing to resume: starting afresh");
        }
        Ok((model, DevScores::default()))
    }

    fn check_resumed(&self, dir: &Path, state: &RunState<TrainConfig, DevScores>) -> Result<()> {
        if &state.config != self.config {
            return Err(resume_error(
                &dir.join(STATE_FILE),
                "the interrupted run used another training config; resume with the same one (see \
                 its `config` field) or delete the directory to start afresh",
            ));
        }
        Ok(())
    }

    fn end_epoch(&self, model: &BertTagger, scores: &mut DevScores) -> Result<bool> {
        let config = self.config;
        // The dev F1 is of the spans as deployed: tidied, with the deployment's decision.
        let decision = config
            .select_threshold
            .map_or(Decision::Argmax, |threshold| Decision::MaskProbability {
                threshold,
            });
        let tagger = Tagger::new(
            model.valid(),
            self.bert_config.clone(),
            self.tokenizer.clone(),
            LabelsFile::new(config.scheme, windowing(config)),
            &self.device,
        )
        .with_decision(decision);
        let mut predicted = Vec::with_capacity(self.dev_docs.len());
        for doc in &self.dev_docs {
            let spans = tagger.predict(&doc.text)?;
            predicted.push(
                spans
                    .into_iter()
                    .map(|(s, _, _)| (s.start, s.end))
                    .collect::<Vec<_>>(),
            );
        }
        let f1 = dev_f1(&predicted, &self.dev_docs);
        scores.dev_f1_by_epoch.push(f1);
        if scores.best.is_none_or(|best| f1 > best) {
            scores.best = Some(f1);
            scores.stale = 0;
            kanon_core::io::atomic_dir::<Error, _>(self.out, |dir| {
                tagger.save(dir, &self.tokenizer_json)?;
                Ok(config.save(&dir.join(TRAIN_CONFIG_FILE))?)
            })?;
            Ok(false)
        } else {
            scores.stale += 1;
            Ok(config.patience > 0 && scores.stale >= config.patience)
        }
    }

    fn finish(self, _model: BertTagger) -> Result<()> {
        // The best model was saved when its epoch ended.
        Ok(())
    }
}

fn windowing(config: &TrainConfig) -> Windowing {
    Windowing {
        max_len: config.max_len,
        overlap: config.overlap,
    }
}

/// The training windows of the corpus's documents, labeled by their spans.
fn training_examples(
    tokenizer: &TaggerTokenizer,
    docs: &[CorpusDocument],
    config: &TrainConfig,
) -> Result<Vec<Example>> {
    let mut train_examples: Vec<Example> = Vec::new();
    for doc in docs {
        let tokenized = tokenizer.tokenize(&doc.text)?;
        train_examples.extend(examples(
            tokenizer,
            &tokenized,
            &doc.typed_spans(),
            config.scheme,
            windowing(config),
        ));
    }
    Ok(train_examples)
}

/// A student of `keep` layers and its teacher, from the trained tagger in `pretrained`, which
/// must have the config's scheme and more layers than `keep`.
fn student_and_teacher(
    pretrained: &Path,
    config: &TrainConfig,
    keep: usize,
    device: &Device,
) -> Result<(BertConfig, BertTagger, Teacher)> {
    let labels_path = pretrained.join(crate::checkpoint::LABELS_FILE);
    if !labels_path.is_file() {
        return Err(Error::Config {
            path: pretrained.to_owned(),
            message: format!(
                "student_layers = {keep} distils a trained tagger: `pretrained` must be one (a \
                 `kanon train` checkpoint with labels.json), not a bare encoder"
            ),
        });
    }
    let labels = LabelsFile::read(&labels_path)?;
    if labels.scheme != config.scheme {
        return Err(Error::Config {
            path: labels_path,
            message: format!(
                "the teacher was trained with the {} scheme and the student would learn {}: \
                 set `scheme` to the teacher's",
                labels.scheme, config.scheme
            ),
        });
    }
    let (teacher_config, teacher) = crate::weights::load_checkpoint(pretrained, device)?;
    if keep >= teacher_config.num_hidden_layers {
        return Err(Error::Config {
            path: pretrained.to_owned(),
            message: format!(
                "student_layers = {keep}, but the teacher has {} layers: a student has fewer",
                teacher_config.num_hidden_layers
            ),
        });
    }
    let (student_config, student) = student_of(&teacher, &teacher_config, keep);
    let teacher = Teacher {
        model: teacher.valid(),
        temperature: config.distill_temperature,
        weight: config.distill_weight,
    };
    Ok((student_config, student, teacher))
}

/// The shared loop's settings for a tagger run writing to `out`.
fn loop_settings(config: &TrainConfig, out: &Path) -> Settings<TrainConfig> {
    Settings {
        config: config.clone(),
        state_version: RESUME_FORMAT_VERSION,
        learning_rate: config.learning_rate,
        warmup_ratio: config.warmup_ratio,
        weight_decay: config.weight_decay,
        epochs: config.epochs,
        max_steps: config.max_steps,
        seed: config.seed,
        checkpoint_every: config.checkpoint_every,
        stage: "train",
        resume_hint: "pass --resume to continue it",
        out: out.to_owned(),
    }
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
    let (corpus, config) = (job.corpus.as_path(), &job.config);
    let tokenizer_json: PathBuf = pretrained.join("tokenizer.json");
    let tokenizer = TaggerTokenizer::from_file(&tokenizer_json)?;
    let train_docs = kanon_core::corpus::read_split(corpus, "train")?;
    let dev_docs = kanon_core::corpus::read_split(corpus, "dev")?;
    let train_examples = training_examples(&tokenizer, &train_docs, config)?;
    if train_examples.is_empty() {
        return Err(
            kanon_core::Error::format(corpus.join("train.jsonl"), "no training examples").into(),
        );
    }

    let device = options.device.clone().autodiff();
    crate::device::seed(&device, config.seed);
    let (bert_config, model, teacher) = match config.student_layers {
        None => {
            let (bert_config, model) =
                load_pretrained(&pretrained, config.scheme.num_labels(), &device)?;
            (bert_config, model, None)
        }
        Some(keep) => {
            let (student_config, student, teacher) =
                student_and_teacher(&pretrained, config, keep, &device)?;
            (student_config, student, Some(teacher))
        }
    };
    let mut class_weights = vec![config.entity_weight; config.scheme.num_labels()];
    class_weights[0] = 1.0;
    let class_weights = Tensor::<1>::from_data(
        TensorData::new(class_weights, [config.scheme.num_labels()]),
        &device,
    );
    let windows = train_examples.len();
    let training = TaggerTraining {
        config,
        examples: train_examples,
        tokenizer,
        tokenizer_json,
        class_weights,
        dev_docs,
        bert_config,
        device: options.device.clone(),
        out: &job.out,
        teacher,
    };
    let settings = loop_settings(config, &job.out);
    let finished = fit(training, model, &device, &settings, options, progress)?;
    let (state, scores) = (&finished.state, &finished.state.extra);
    Ok(TrainReport {
        steps: state.step,
        epochs_run: scores.dev_f1_by_epoch.len(),
        train_examples: windows,
        first_loss: state.first_loss.unwrap_or(f32::NAN),
        last_loss: state.last_loss.unwrap_or(f32::NAN),
        dev_f1_by_epoch: scores.dev_f1_by_epoch.clone(),
        best_dev_f1: scores.best.unwrap_or(0.0).max(0.0),
        tokens_per_second: finished.tokens_per_second,
        seconds: finished.seconds,
        resumed_at_step: (finished.resumed_at > 0).then_some(finished.resumed_at),
        interrupted: finished.interrupted,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_student_starts_from_evenly_spaced_layers_ending_with_the_last() {
        assert_eq!(student_layers(6, 3), [1, 3, 5]);
        assert_eq!(student_layers(6, 2), [2, 5]);
        assert_eq!(student_layers(6, 4), [0, 2, 3, 5]);
        assert_eq!(student_layers(6, 1), [5]);
        assert_eq!(student_layers(12, 6), [1, 3, 5, 7, 9, 11]);
    }

    #[test]
    fn the_soft_loss_is_zero_for_the_teacher_itself_and_grows_with_disagreement() {
        let device = Device::flex();
        let logits =
            |v: [f32; 6]| Tensor::<3>::from_data(TensorData::new(v.to_vec(), [1, 2, 3]), &device);
        let labeled =
            Tensor::<2, Bool>::from_data(TensorData::new(vec![true, false], [1, 2]), &device);
        let teacher = [2.0, 0.5, -1.0, 9.0, 9.0, 9.0];
        let same = distillation_loss(logits(teacher), logits(teacher), labeled.clone(), 2.0)
            .into_scalar::<f32>();
        assert!(same.abs() < 1e-6, "{same}");
        // The unlabeled piece (the second) does not count, however far apart.
        let other_piece = distillation_loss(
            logits([2.0, 0.5, -1.0, -9.0, 0.0, 9.0]),
            logits(teacher),
            labeled.clone(),
            2.0,
        )
        .into_scalar::<f32>();
        assert!(other_piece.abs() < 1e-6, "{other_piece}");
        let near = distillation_loss(
            logits([1.5, 0.5, -1.0, 0.0, 0.0, 0.0]),
            logits(teacher),
            labeled.clone(),
            2.0,
        )
        .into_scalar::<f32>();
        let far = distillation_loss(
            logits([-1.0, 0.5, 2.0, 0.0, 0.0, 0.0]),
            logits(teacher),
            labeled,
            2.0,
        )
        .into_scalar::<f32>();
        assert!(0.0 < near && near < far, "{near} {far}");
    }

    #[test]
    fn configs_written_before_distillation_read_and_write_as_they_did() {
        let written = serde_json::to_value(TrainConfig::default()).unwrap();
        for key in ["student_layers", "distill_weight", "distill_temperature"] {
            assert!(written.get(key).is_none(), "{key} written at its default");
        }
        let bad = TrainConfig {
            distill_weight: 1.5,
            ..TrainConfig::default()
        };
        assert!(bad.check().unwrap_err().contains("distill_weight"));
    }

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
