//! Fine-tuning a pretrained BERT on a labeled corpus: AdamW with linear warm-up and decay, batches by
//! token budget, dev evaluation each epoch with early stopping on dev F1; the best model is saved
//! with its config, labels and tokenizer.

use std::path::{Path, PathBuf};
use std::time::Instant;

use burn::module::Module;
use burn::optim::AdamWConfig;
use burn::tensor::{Device, Tensor, TensorData};
use kanon_core::Progress;
use serde::{Deserialize, Serialize};

use crate::data::TaggerTokenizer;
use crate::dataset::{
    CorpusDocument, Example, Windowing, batches_by_budget, examples, read_corpus, to_batch,
};
use crate::error::{Error, Result};
use crate::inference::{predict_with, save_checkpoint, write_json};
use crate::labels::LabelScheme;
use crate::training::train_step;
use crate::weights::load_pretrained;

/// The knobs of a training run (saved beside the weights as `train_config.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    /// Epochs without a better dev F1 before stopping.
    pub patience: usize,
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
        }
    }
}

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
    pub tokens_per_second: f64,
    pub seconds: f64,
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

pub fn train(
    pretrained: &Path,
    corpus: &Path,
    out: &Path,
    config: &TrainConfig,
    progress: &dyn Progress,
) -> Result<TrainReport> {
    let tokenizer_json: PathBuf = pretrained.join("tokenizer.json");
    let tokenizer = TaggerTokenizer::from_file(&tokenizer_json)?;
    let windowing = Windowing {
        max_len: config.max_len,
        overlap: config.overlap,
    };
    let train_docs = read_corpus(&corpus.join("train.jsonl"))?;
    let dev_docs = read_corpus(&corpus.join("dev.jsonl"))?;
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
        return Err(Error::Encode(format!(
            "{}: no training examples",
            corpus.join("train.jsonl").display()
        )));
    }

    let device = Device::default().autodiff();
    device.seed(config.seed);
    let (bert_config, mut model) =
        load_pretrained(pretrained, config.scheme.num_labels(), &device)?;
    let mut optimizer = AdamWConfig::new()
        .with_weight_decay(config.weight_decay)
        .init();
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
    let mut tokens = 0usize;
    let mut step = 0usize;
    let (mut first_loss, mut last_loss) = (f32::NAN, f32::NAN);
    let mut dev_f1_by_epoch = Vec::new();
    let mut best = f64::NEG_INFINITY;
    let mut epochs_run = 0;
    let mut stale = 0;
    progress.stage("train", total_steps as u64);
    'epochs: for epoch in 0..config.epochs {
        epochs_run += 1;
        for batch_indices in batches_by_budget(
            &train_examples,
            config.token_budget,
            config.seed + epoch as u64,
        ) {
            if step >= total_steps {
                break;
            }
            let refs: Vec<&Example> = batch_indices.iter().map(|&i| &train_examples[i]).collect();
            let batch = to_batch(&refs, tokenizer.pad(), &device);
            tokens += batch.tokens;
            let (next, loss) = train_step(
                model,
                &mut optimizer,
                schedule(step),
                batch.input_ids,
                batch.padding,
                batch.targets,
                batch.labeled,
                class_weights.clone(),
            );
            model = next;
            if step == 0 {
                first_loss = loss;
            }
            last_loss = loss;
            step += 1;
            progress.advance(1);
            progress.message(&format!(
                "loss {loss:.3}, {:.0} tokens/s",
                tokens as f64 / started.elapsed().as_secs_f64().max(1e-9)
            ));
        }
        let inference_model = model.valid();
        let inference_device = Device::default();
        let mut predicted = Vec::with_capacity(dev_docs.len());
        for doc in &dev_docs {
            let spans = predict_with(
                &inference_model,
                &tokenizer,
                config.scheme,
                windowing,
                &doc.text,
                &inference_device,
            )?;
            predicted.push(
                spans
                    .into_iter()
                    .map(|(s, _, _)| (s.start, s.end))
                    .collect::<Vec<_>>(),
            );
        }
        let f1 = dev_f1(&predicted, &dev_docs);
        dev_f1_by_epoch.push(f1);
        if f1 > best {
            best = f1;
            stale = 0;
            kanon_core::io::atomic_dir::<Error, _>(out, |dir| {
                save_checkpoint(
                    dir,
                    &bert_config,
                    &inference_model,
                    config.scheme,
                    windowing,
                    &tokenizer_json,
                )?;
                write_json(&dir.join("train_config.json"), config)
            })?;
        } else {
            stale += 1;
            if stale > config.patience {
                break 'epochs;
            }
        }
        if step >= total_steps {
            break;
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    Ok(TrainReport {
        steps: step,
        epochs_run,
        train_examples: train_examples.len(),
        first_loss,
        last_loss,
        dev_f1_by_epoch,
        best_dev_f1: best.max(0.0),
        tokens_per_second: tokens as f64 / seconds.max(1e-9),
        seconds,
    })
}
