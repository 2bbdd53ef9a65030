//! A document classifier: the BERT encoder with a linear head over classes, its per-piece logits
//! averaged over each window of a text (the same as the head applied to the mean-pooled hidden
//! states), and a text's class scores the sum of its windows' log-probabilities. Fine-tuned on
//! windows of labeled texts with random word-piece masking, so that it still recognises a class in
//! a text whose words were partly removed — the re-identification attacker of `kanon eval
//! privacy` is one, its classes the people of a population.
//!
//! The checkpoint directory holds the model's shape (`config.json`) beside its weights
//! (`model.safetensors`), the class names (`classes.json`, versioned), the tokenizer and the
//! training knobs (`train_config.json`). Training saves its state as it goes and resumes from it,
//! ending where an uninterrupted run ends.

use std::path::{Path, PathBuf};

use burn::module::Module;
use burn::optim::{GradientsParams, ModuleOptimizer};
use burn::store::{ModuleSnapshot, SafetensorsStore};
use burn::tensor::activation::log_softmax;
use burn::tensor::{Bool, Device, Int, Tensor, TensorData};
use kanon_core::config::ConfigFile;
use kanon_core::{PathContext, Progress};
use rand::{Rng, SeedableRng, seq::SliceRandom};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::batching::by_length;
use crate::checkpoint::Precision;
use crate::checkpoint::{MODEL_CONFIG_FILE, TOKENIZER_FILE, TRAIN_CONFIG_FILE, WEIGHTS_FILE};
use crate::data::{TaggerTokenizer, windows};
use crate::dataset::{Example, to_batch};
use crate::encoder::mean_pooled;
use crate::error::{Error, Result};
use crate::fit::{RunState, Settings, Task, TrainOptions, fit, resume_error, step_seed};
use crate::model::{BertConfig, BertTagger, Int8Encoder};
use crate::weights::{load_checkpoint, load_pretrained, weights_error};

/// The checkpoint's class names and window length ([`ClassesFile`]).
pub const CLASSES_FILE: &str = "classes.json";
/// The format of `classes.json` this kanon writes and reads.
pub const CLASSES_FORMAT_VERSION: u32 = 1;
/// The format of a classifier run's saved state.
const CLASSIFIER_STATE_VERSION: u32 = 1;
/// Padded pieces per forward pass when scoring.
const SCORE_TOKEN_BUDGET: usize = 4096;

/// `classes.json`: the class names, in the order of the head's outputs, and the window length.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClassesFile {
    /// [`CLASSES_FORMAT_VERSION`] when written by this kanon.
    pub format_version: u32,
    /// The class of each of the head's outputs, in order.
    pub names: Vec<String>,
    /// Pieces per window, `[CLS]` and `[SEP]` included.
    pub max_len: usize,
}

impl ClassesFile {
    /// Reads `classes.json`, checking its version, that it has classes and that its windows hold
    /// a piece.
    pub fn read(path: &Path) -> Result<Self> {
        let classes: ClassesFile = kanon_core::config::load(path)?;
        if classes.format_version != CLASSES_FORMAT_VERSION {
            return Err(kanon_core::Error::Version {
                path: path.to_owned(),
                what: "classifier classes",
                found: classes.format_version,
                expected: CLASSES_FORMAT_VERSION,
                remedy: "train the classifier again",
            }
            .into());
        }
        if classes.names.is_empty() || classes.max_len < 3 {
            return Err(Error::Config {
                path: path.to_owned(),
                message: "no classes, or windows too short to hold a piece".into(),
            });
        }
        Ok(classes)
    }
}

/// The knobs of a classifier's training (saved beside its weights as `train_config.json`). As a
/// file, a key left out takes its default.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ClassifierConfig {
    /// The peak learning rate, after the warm-up.
    pub learning_rate: f64,
    /// Passes over the training windows.
    pub epochs: usize,
    /// Windows per step.
    pub batch_size: usize,
    /// The share of the steps over which the learning rate rises linearly to its peak; it then
    /// decays linearly to 0 at the last step.
    pub warmup_ratio: f64,
    /// AdamW's decoupled weight decay.
    pub weight_decay: f32,
    /// Seeds the fresh head (when not imprinted), the shuffles, the masks and dropout.
    pub seed: u64,
    /// Pieces per window, `[CLS]` and `[SEP]` included.
    pub max_len: usize,
    /// Windows taken from one text at most, spread evenly over it (long texts would otherwise
    /// outweigh short ones and the epoch's time).
    pub max_windows: usize,
    /// Chance that a piece is replaced by `[MASK]` in a training window.
    pub mask_probability: f64,
    /// Mask whole words instead: in each training window, a number of its words drawn uniformly
    /// from none to all is masked (every piece of each), as Morris et al. (2022) train their
    /// re-identification model, so that it stays accurate on heavily masked text.
    /// `mask_probability` is then unused.
    pub word_masks: bool,
    /// Save the run's state every this many steps (0: at epoch ends only).
    pub checkpoint_every: usize,
    /// Start the head from the classes' mean embeddings (weight imprinting) rather than at
    /// random: the pretrained encoder then already tells classes apart by similarity, and
    /// fine-tuning starts from there instead of spending its first epochs on a head of hundreds
    /// of classes.
    pub imprint_head: bool,
}

impl ConfigFile for ClassifierConfig {}

impl Default for ClassifierConfig {
    fn default() -> Self {
        ClassifierConfig {
            learning_rate: 1e-4,
            epochs: 3,
            batch_size: 16,
            warmup_ratio: 0.06,
            weight_decay: 0.01,
            seed: 0,
            max_len: 128,
            max_windows: 16,
            mask_probability: 0.25,
            word_masks: false,
            checkpoint_every: 100,
            imprint_head: true,
        }
    }
}

impl ClassifierConfig {
    fn validate(&self) -> Result<()> {
        let bad = |message: &str| Err(Error::Setting(message.to_owned()));
        if self.max_len < 3 {
            return bad("max_len must be at least 3 (`[CLS]`, a piece, `[SEP]`)");
        }
        if self.batch_size == 0 || self.max_windows == 0 || self.epochs == 0 {
            return bad("batch_size, max_windows and epochs must be at least 1");
        }
        if !(0.0..1.0).contains(&self.mask_probability) {
            return bad("mask_probability must be in [0, 1)");
        }
        if !(self.learning_rate.is_finite() && self.learning_rate > 0.0) {
            return bad("learning_rate must be a positive number");
        }
        Ok(())
    }
}

/// A text of a known class, to learn from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LabeledText {
    /// The index of its class in the run's class names.
    pub class: usize,
    /// The text itself.
    pub text: String,
}

/// A classifier training run: a pretrained BERT fine-tuned on labeled texts, written to `out`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClassifierTrainJob {
    /// A model of the cache (`all-minilm-l6-v2`) or a BERT checkpoint directory.
    pub pretrained: String,
    /// The checkpoint directory to write.
    pub out: PathBuf,
    /// How to train.
    #[serde(default)]
    pub config: ClassifierConfig,
}

impl ConfigFile for ClassifierTrainJob {}

/// What a classifier training run did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClassifierReport {
    /// Steps done, a resumed run's earlier ones included.
    pub steps: usize,
    /// The training windows of the texts.
    pub windows: usize,
    /// The loss of the run's first step (NaN without a step).
    pub first_loss: f32,
    /// The loss of its last step so far (NaN without a step).
    pub last_loss: f32,
    /// Tokens per second of this invocation (a resumed run counts only its own steps).
    pub tokens_per_second: f64,
    /// Wall time of the whole run, earlier invocations of a resumed run included.
    pub seconds: f64,
    /// The step a resumed run continued from.
    pub resumed_at_step: Option<usize>,
    /// Stopped by [`TrainOptions::should_stop`]; the state is saved for a resumed run.
    pub interrupted: bool,
}

/// Mean of per-piece logits over each window's real pieces.
///
/// - `logits`: `[batch, seq, classes]`; `padding`: `[batch, seq]`, true on padding;
/// - returns `[batch, classes]`.
pub fn pooled_logits(logits: Tensor<3>, padding: Tensor<2, Bool>) -> Tensor<2> {
    let [batch, seq, classes] = logits.dims();
    let keep = padding.bool_not().float().reshape([batch, seq, 1]);
    let sums = (logits * keep.clone().repeat_dim(2, classes))
        .sum_dim(1)
        .reshape([batch, classes]);
    let counts = keep
        .sum_dim(1)
        .reshape([batch, 1])
        .clamp_min(1.0)
        .repeat_dim(1, classes);
    sums / counts
}

/// Mean cross-entropy of windows against their classes: `logits` `[batch, seq, classes]`,
/// `padding` `[batch, seq]`, `targets` `[batch]`; returns `[1]`.
pub fn window_cross_entropy(
    logits: Tensor<3>,
    padding: Tensor<2, Bool>,
    targets: Tensor<1, Int>,
) -> Tensor<1> {
    let [batch, _, _] = logits.dims();
    let log_probs = log_softmax(pooled_logits(logits, padding), 1);
    log_probs
        .gather(1, targets.reshape([batch, 1]))
        .mean()
        .neg()
}

/// A classifier in memory (no autodiff).
#[derive(Debug)]
pub struct TextClassifier {
    model: BertTagger,
    /// The encoder's linear maps in int8, at that precision.
    int8: Option<Int8Encoder>,
    config: BertConfig,
    tokenizer: TaggerTokenizer,
    classes: ClassesFile,
    device: Device,
}

impl TextClassifier {
    /// A classifier of a model (made inference-only here) on `device`, reading texts with
    /// `tokenizer` in windows of `classes.max_len`.
    pub fn new(
        model: BertTagger,
        config: BertConfig,
        tokenizer: TaggerTokenizer,
        classes: ClassesFile,
        device: &Device,
    ) -> Self {
        TextClassifier {
            model: model.valid(),
            int8: None,
            config,
            tokenizer,
            classes,
            device: device.clone(),
        }
    }

    /// The classifier computing its encoder's linear maps at `precision` (as
    /// [`crate::Tagger::with_precision`]; the head stays f32).
    pub fn with_precision(mut self, precision: Precision) -> Self {
        (self.model, self.int8) = Int8Encoder::switch(self.model, self.int8, precision);
        self
    }

    /// The class names, in score order.
    pub fn classes(&self) -> &[String] {
        &self.classes.names
    }

    /// Loads a checkpoint directory written by [`train`].
    pub fn load(dir: &Path, device: &Device) -> Result<Self> {
        let (config, model) = load_checkpoint(dir, device)?;
        let classes_path = dir.join(CLASSES_FILE);
        let classes = ClassesFile::read(&classes_path)?;
        if classes.names.len() != config.num_labels {
            return Err(Error::Config {
                path: classes_path,
                message: format!(
                    "{} classes, but the model has {} outputs",
                    classes.names.len(),
                    config.num_labels
                ),
            });
        }
        let tokenizer = TaggerTokenizer::from_file(&dir.join(TOKENIZER_FILE))?;
        Ok(Self::new(model, config, tokenizer, classes, device))
    }

    /// Writes the checkpoint files into `dir` (the caller makes the directory atomic).
    pub fn save(&self, dir: &Path, tokenizer_json: &Path) -> Result<()> {
        kanon_core::config::save(&dir.join(MODEL_CONFIG_FILE), &self.config)?;
        kanon_core::config::save(&dir.join(CLASSES_FILE), &self.classes)?;
        let weights = dir.join(WEIGHTS_FILE);
        let mut store = SafetensorsStore::from_file(&weights).overwrite(true);
        self.model
            .save_into(&mut store)
            .map_err(weights_error(&weights))?;
        let tokenizer = dir.join(TOKENIZER_FILE);
        std::fs::copy(tokenizer_json, &tokenizer).with_path(&tokenizer)?;
        Ok(())
    }

    /// The tokenizer the classifier reads text with.
    pub fn tokenizer(&self) -> &TaggerTokenizer {
        &self.tokenizer
    }

    /// Pieces per window, without `[CLS]` and `[SEP]`.
    pub fn window_pieces(&self) -> usize {
        self.classes.max_len - 2
    }

    /// Each text's score for each class: the sum over its windows of the window's
    /// log-probabilities. A text without a piece is read as one empty window.
    pub fn scores(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let inner = self.window_pieces();
        let mut pieces_of = Vec::with_capacity(texts.len());
        for text in texts {
            pieces_of.push(self.tokenizer.tokenize(text)?.ids);
        }
        let mut windows_of: Vec<&[u32]> = Vec::new();
        let mut owners = Vec::new();
        for (t, pieces) in pieces_of.iter().enumerate() {
            for range in windows(pieces.len(), inner, 0) {
                windows_of.push(&pieces[range]);
                owners.push(t);
            }
        }
        let mut scores = vec![vec![0.0f32; self.classes.names.len()]; texts.len()];
        for (window, owner) in self.window_log_probs(&windows_of)?.into_iter().zip(owners) {
            for (score, value) in scores[owner].iter_mut().zip(window) {
                *score += value;
            }
        }
        Ok(scores)
    }

    /// Each window's log-probability of each class. A window is at most
    /// [`window_pieces`](Self::window_pieces) piece ids (no `[CLS]`/`[SEP]`); windows of similar
    /// length share forward passes of at most 4,096 padded pieces.
    pub fn window_log_probs(&self, windows: &[&[u32]]) -> Result<Vec<Vec<f32>>> {
        let inner = self.window_pieces();
        if let Some(long) = windows.iter().find(|w| w.len() > inner) {
            return Err(Error::Setting(format!(
                "a window of {} pieces, but the classifier reads at most {inner}",
                long.len()
            )));
        }
        let examples: Vec<Example> = windows
            .iter()
            .map(|pieces| window_example(&self.tokenizer, pieces, 0))
            .collect();
        let classes = self.classes.names.len();
        let mut out = vec![Vec::new(); examples.len()];
        let lengths: Vec<usize> = examples.iter().map(|e| e.ids.len()).collect();
        for batch_indices in by_length(&lengths, SCORE_TOKEN_BUDGET) {
            let refs: Vec<&Example> = batch_indices.iter().map(|&i| &examples[i]).collect();
            let batch = to_batch(&refs, self.tokenizer.pad(), &self.device);
            let logits =
                self.model
                    .forward_with(batch.input_ids, batch.padding.clone(), self.int8.as_ref());
            let log_probs = log_softmax(pooled_logits(logits, batch.padding), 1);
            let values: Vec<f32> = log_probs
                .into_data()
                .try_to_vec::<f32>()
                .map_err(|e| Error::TensorData(Box::new(e)))?;
            for (row, &i) in batch_indices.iter().enumerate() {
                out[i] = values[row * classes..(row + 1) * classes].to_vec();
            }
        }
        Ok(out)
    }
}

/// `[CLS] pieces [SEP]` labeled with its class (the label of its first position).
fn window_example(tokenizer: &TaggerTokenizer, pieces: &[u32], class: u32) -> Example {
    let mut ids = Vec::with_capacity(pieces.len() + 2);
    ids.push(tokenizer.cls());
    ids.extend_from_slice(pieces);
    ids.push(tokenizer.sep());
    let n = ids.len();
    let mut labels = vec![0; n];
    labels[0] = class;
    Example {
        ids,
        labels,
        labeled: vec![false; n],
    }
}

/// The words of consecutive pieces (their character offsets), as ranges of piece positions
/// shifted by `first`: a piece that starts where the one before it ends continues its word.
pub fn piece_words(offsets: &[kanon_core::Span], first: usize) -> Vec<std::ops::Range<usize>> {
    let mut words: Vec<std::ops::Range<usize>> = Vec::new();
    for (i, offset) in offsets.iter().enumerate() {
        match words.last_mut() {
            Some(word) if i > 0 && offset.start <= offsets[i - 1].end => word.end = first + i + 1,
            _ => words.push(first + i..first + i + 1),
        }
    }
    words
}

/// At most `max` of `all`, spread evenly from the first.
fn spread<T: Clone>(all: &[T], max: usize) -> Vec<T> {
    if all.len() <= max {
        return all.to_vec();
    }
    (0..max).map(|i| all[i * all.len() / max].clone()).collect()
}

/// The words of a window, as ranges of its positions.
type Words = Vec<std::ops::Range<usize>>;

/// What the classifier keeps in its run's state besides the loop's position: the classes it
/// learns, which a resumed run must have too.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Classes {
    classes: Vec<String>,
}

/// The classifier's part of the training loop: windows of labeled texts in shuffled batches of a
/// fixed size, word pieces (or whole words) masked at random, the cross-entropy of the windows'
/// pooled logits, and the classifier written when the run ends.
struct ClassifierTraining<'a> {
    config: &'a ClassifierConfig,
    classes: &'a [String],
    examples: Vec<Example>,
    /// The words of each example, as ranges of its positions (`[CLS]` is position 0).
    words_of: Vec<Words>,
    /// The id of `[MASK]`.
    mask: u32,
    tokenizer: TaggerTokenizer,
    /// The pretrained model's tokenizer file, copied into the checkpoint.
    tokenizer_json: PathBuf,
    bert_config: BertConfig,
    /// Where the imprinting and the saved classifier run: the training device without autodiff.
    device: Device,
    out: &'a Path,
}

impl ClassifierTraining<'_> {
    /// Example `i` with pieces replaced by `[MASK]`, drawn from `rng`.
    fn masked(&self, i: usize, rng: &mut ChaCha8Rng) -> Example {
        let mut example = self.examples[i].clone();
        let n = example.ids.len();
        if self.config.word_masks {
            let words = &self.words_of[i];
            let masked = rng.random_range(0..=words.len());
            for w in rand::seq::index::sample(rng, words.len(), masked) {
                example.ids[words[w].clone()].fill(self.mask);
            }
        } else {
            for id in &mut example.ids[1..n - 1] {
                if rng.random_bool(self.config.mask_probability) {
                    *id = self.mask;
                }
            }
        }
        example
    }
}

/// A batch of masked windows: piece ids, padding, and each window's class.
struct WindowBatch {
    input_ids: Tensor<2, Int>,
    padding: Tensor<2, Bool>,
    targets: Tensor<1, Int>,
}

impl Task for ClassifierTraining<'_> {
    type Config = ClassifierConfig;
    type Extra = Classes;
    type Batch = WindowBatch;

    fn batches(&self, epoch: usize) -> Vec<Vec<usize>> {
        let mut order: Vec<usize> = (0..self.examples.len()).collect();
        order.shuffle(&mut ChaCha8Rng::seed_from_u64(
            self.config.seed.wrapping_add(epoch as u64),
        ));
        order
            .chunks(self.config.batch_size)
            .map(<[usize]>::to_vec)
            .collect()
    }

    fn batch(&self, indices: &[usize], step: usize, device: &Device) -> (WindowBatch, usize) {
        // Masks drawn from the step alone, so a resumed run masks as an uninterrupted one.
        let mut rng = ChaCha8Rng::seed_from_u64(step_seed(self.config.seed, step));
        let masked: Vec<Example> = indices.iter().map(|&i| self.masked(i, &mut rng)).collect();
        let refs: Vec<&Example> = masked.iter().collect();
        let batch = to_batch(&refs, self.tokenizer.pad(), device);
        let targets: Vec<i64> = masked.iter().map(|e| i64::from(e.labels[0])).collect();
        let targets = Tensor::<1, Int>::from_data(TensorData::new(targets, [masked.len()]), device);
        let windows = WindowBatch {
            input_ids: batch.input_ids,
            padding: batch.padding,
            targets,
        };
        (windows, batch.tokens)
    }

    fn step(
        &self,
        model: BertTagger,
        optimizer: &mut ModuleOptimizer,
        learning_rate: f64,
        batch: WindowBatch,
    ) -> (BertTagger, f32) {
        classifier_step(
            model,
            optimizer,
            learning_rate,
            batch.input_ids,
            batch.padding,
            batch.targets,
        )
    }

    fn start_afresh(
        &self,
        model: BertTagger,
        _resume_asked: bool,
        progress: &dyn Progress,
    ) -> Result<(BertTagger, Classes)> {
        let model = if self.config.imprint_head {
            progress.stage("imprint head", self.examples.len() as u64);
            imprint_head(
                model,
                &self.examples,
                self.classes.len(),
                self.tokenizer.pad(),
                &self.device,
                progress,
            )?
        } else {
            model
        };
        let classes = Classes {
            classes: self.classes.to_vec(),
        };
        Ok((model, classes))
    }

    fn check_resumed(&self, dir: &Path, state: &RunState<ClassifierConfig, Classes>) -> Result<()> {
        if &state.config != self.config || state.extra.classes != self.classes {
            return Err(resume_error(
                dir,
                "the interrupted run had another config or other classes; delete the directory \
                 to start afresh",
            ));
        }
        Ok(())
    }

    fn end_epoch(&self, _model: &BertTagger, _classes: &mut Classes) -> Result<bool> {
        Ok(false)
    }

    fn finish(self, model: BertTagger) -> Result<()> {
        let classifier = TextClassifier::new(
            model.valid(),
            self.bert_config,
            self.tokenizer,
            ClassesFile {
                format_version: CLASSES_FORMAT_VERSION,
                names: self.classes.to_vec(),
                max_len: self.config.max_len,
            },
            &self.device,
        );
        kanon_core::io::atomic_dir::<Error, _>(self.out, |dir| {
            classifier.save(dir, &self.tokenizer_json)?;
            Ok(self.config.save(&dir.join(TRAIN_CONFIG_FILE))?)
        })
    }
}

/// The training windows of `texts` (at most `max_windows` of each, spread over it), each with
/// its words as ranges of its positions.
fn training_windows(
    tokenizer: &TaggerTokenizer,
    texts: &[LabeledText],
    config: &ClassifierConfig,
) -> Result<(Vec<Example>, Vec<Words>)> {
    let mut examples = Vec::new();
    let mut words_of: Vec<Words> = Vec::new();
    for text in texts {
        let pieces = tokenizer.tokenize(&text.text)?;
        if pieces.is_empty() {
            continue;
        }
        for range in spread(
            &windows(pieces.len(), config.max_len - 2, 0),
            config.max_windows,
        ) {
            words_of.push(piece_words(&pieces.offsets[range.clone()], 1));
            examples.push(window_example(
                tokenizer,
                &pieces.ids[range],
                text.class as u32,
            ));
        }
    }
    Ok((examples, words_of))
}

/// Checks the config, and that there are classes and every text's class is one of them.
fn check_inputs(
    config: &ClassifierConfig,
    classes: &[String],
    texts: &[LabeledText],
) -> Result<()> {
    config.validate()?;
    if classes.is_empty() {
        return Err(Error::Setting("no classes to learn".into()));
    }
    if let Some(text) = texts.iter().find(|t| t.class >= classes.len()) {
        return Err(Error::Setting(format!(
            "a text of class {} but only {} classes",
            text.class,
            classes.len()
        )));
    }
    Ok(())
}

/// Fine-tunes a pretrained BERT to tell `classes` apart from `texts` (each of a class by index)
/// and writes the classifier to `job.out`. Resumes from the state an interrupted run left when
/// `options.resume` says so.
pub fn train(
    job: &ClassifierTrainJob,
    classes: &[String],
    texts: &[LabeledText],
    options: &TrainOptions<'_>,
    progress: &dyn Progress,
) -> Result<ClassifierReport> {
    let config = &job.config;
    check_inputs(config, classes, texts)?;
    let pretrained = kanon_models::resolve_pretrained(&job.pretrained)?;
    let tokenizer_json = pretrained.join(TOKENIZER_FILE);
    let tokenizer = TaggerTokenizer::from_file(&tokenizer_json)?;
    let mask = tokenizer
        .token_id("[MASK]")
        .ok_or_else(|| Error::MissingSpecialToken("[MASK]".into()))?;
    let (examples, words_of) = training_windows(&tokenizer, texts, config)?;
    if examples.is_empty() {
        return Err(Error::Setting("no text to learn from".into()));
    }

    let device = options.device.clone().autodiff();
    crate::device::seed(&device, config.seed);
    let (bert_config, model) = load_pretrained(&pretrained, classes.len(), &device)?;
    let windows = examples.len();
    let training = ClassifierTraining {
        config,
        classes,
        examples,
        words_of,
        mask,
        tokenizer,
        tokenizer_json,
        bert_config,
        device: options.device.clone(),
        out: &job.out,
    };
    let settings = Settings {
        config: config.clone(),
        state_version: CLASSIFIER_STATE_VERSION,
        learning_rate: config.learning_rate,
        warmup_ratio: config.warmup_ratio,
        weight_decay: config.weight_decay,
        epochs: config.epochs,
        max_steps: None,
        seed: config.seed,
        checkpoint_every: config.checkpoint_every,
        stage: "train attacker",
        resume_hint: "resume it",
        out: job.out.clone(),
    };
    let finished = fit(training, model, &device, &settings, options, progress)?;
    let state = &finished.state;
    Ok(ClassifierReport {
        steps: state.step,
        windows,
        first_loss: state.first_loss.unwrap_or(f32::NAN),
        last_loss: state.last_loss.unwrap_or(f32::NAN),
        tokens_per_second: finished.tokens_per_second,
        seconds: finished.seconds,
        resumed_at_step: (finished.resumed_at > 0).then_some(finished.resumed_at),
        interrupted: finished.interrupted,
    })
}

/// How peaked the imprinted head's softmax is: logits are this times a cosine-like similarity.
const IMPRINT_TEMPERATURE: f32 = 10.0;

/// Sets the head to the classes' centred mean embeddings: with `h` a window's mean hidden state,
/// `μ` the mean of the class centroids, `c` a class's centroid minus `μ` and `m` the mean norm
/// of `h − μ`, class `c` scores `T · ĉ · (h − μ) / m`.
fn imprint_head(
    model: BertTagger,
    examples: &[Example],
    classes: usize,
    pad: u32,
    device: &Device,
    progress: &dyn Progress,
) -> Result<BertTagger> {
    let encoder = model.valid();
    let hidden_size = encoder.classifier.weight.dims()[0];
    let pooled = mean_pooled(&encoder, examples, pad, device, SCORE_TOKEN_BUDGET)?;
    progress.advance(examples.len() as u64);
    let mut centroids = vec![vec![0.0f32; hidden_size]; classes];
    let mut counts = vec![0usize; classes];
    for (example, vector) in examples.iter().zip(&pooled) {
        let class = example.labels[0] as usize;
        counts[class] += 1;
        for (c, v) in centroids[class].iter_mut().zip(vector) {
            *c += v;
        }
    }
    for (centroid, &count) in centroids.iter_mut().zip(&counts) {
        centroid.iter_mut().for_each(|c| *c /= count.max(1) as f32);
    }
    let present = counts.iter().filter(|&&c| c > 0).count().max(1) as f32;
    let mut mu = vec![0.0f32; hidden_size];
    for (centroid, _) in centroids.iter().zip(&counts).filter(|(_, n)| **n > 0) {
        for (m, c) in mu.iter_mut().zip(centroid) {
            *m += c / present;
        }
    }
    let norm = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
    let spread = pooled
        .iter()
        .map(|h| norm(&h.iter().zip(&mu).map(|(a, b)| a - b).collect::<Vec<_>>()))
        .sum::<f32>()
        / pooled.len().max(1) as f32;
    let scale = IMPRINT_TEMPERATURE / spread.max(1e-6);
    // burn's linear weight is [input, output].
    let mut weight = vec![0.0f32; hidden_size * classes];
    let mut bias = vec![0.0f32; classes];
    for (class, (centroid, &count)) in centroids.iter().zip(&counts).enumerate() {
        if count == 0 {
            continue;
        }
        let centred: Vec<f32> = centroid.iter().zip(&mu).map(|(c, m)| c - m).collect();
        let length = norm(&centred).max(1e-6);
        let mut offset = 0.0;
        for (i, c) in centred.iter().enumerate() {
            let w = scale * c / length;
            weight[i * classes + class] = w;
            offset += w * mu[i];
        }
        bias[class] = -offset;
    }
    let mut model = model;
    let device = model.classifier.weight.device();
    model.classifier.weight = model.classifier.weight.map(|_| {
        Tensor::<2>::from_data(TensorData::new(weight, [hidden_size, classes]), &device)
            .require_grad()
    });
    model.classifier.bias = model.classifier.bias.map(|b| {
        b.map(|_| Tensor::<1>::from_data(TensorData::new(bias, [classes]), &device).require_grad())
    });
    Ok(model)
}

/// One optimiser step on a batch of windows; returns the updated model and the batch loss.
fn classifier_step(
    model: BertTagger,
    optimizer: &mut ModuleOptimizer,
    learning_rate: f64,
    input_ids: Tensor<2, Int>,
    padding: Tensor<2, Bool>,
    targets: Tensor<1, Int>,
) -> (BertTagger, f32) {
    let logits = model.forward(input_ids, padding.clone());
    let loss = window_cross_entropy(logits, padding, targets);
    let value = loss.clone().into_scalar::<f32>();
    let grads = GradientsParams::from_grads(loss.backward(), &model);
    (optimizer.step(learning_rate, model, grads), value)
}
