//! A trained tagger: its checkpoint directory, and character spans for texts.

use std::path::Path;

use burn::module::Module;
use burn::store::{ModuleSnapshot, SafetensorsStore};
use burn::tensor::activation::softmax;
use burn::tensor::{Device, Tensor};
use kanon_core::{EntityType, Span};
use serde::{Deserialize, Serialize};

use crate::data::{TaggerTokenizer, decode_spans, merge_windows, tidy_spans};
use crate::dataset::{Example, Windowing, to_batch};
use crate::error::{Error, Result};
use crate::labels::LabelScheme;
use crate::model::{BertConfig, BertTagger};

pub const MODEL_CONFIG_FILE: &str = "config.json";
pub const LABELS_FILE: &str = "labels.json";
pub const WEIGHTS_FILE: &str = "model.safetensors";
pub const TOKENIZER_FILE: &str = "tokenizer.json";

/// `labels.json`: the label scheme, its names, and the windowing the model was trained with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LabelsFile {
    pub scheme: LabelScheme,
    pub names: Vec<String>,
    pub max_len: usize,
    pub overlap: usize,
}

/// Writes a value as pretty JSON, atomically; a value that cannot be serialised is an error, never
/// an empty file.
pub fn write_json<T: Serialize + ?Sized>(path: &Path, value: &T) -> Result<()> {
    kanon_core::io::atomic_write(path, |w| {
        serde_json::to_writer_pretty(&mut *w, value)?;
        std::io::Write::write_all(w, b"\n")
    })?;
    Ok(())
}

/// Writes a checkpoint directory's files (the caller makes the directory atomic).
pub fn save_checkpoint(
    dir: &Path,
    config: &BertConfig,
    model: &BertTagger,
    scheme: LabelScheme,
    windowing: Windowing,
    tokenizer_json: &Path,
) -> Result<()> {
    let io = |path: &Path| {
        let path = path.to_owned();
        move |e: std::io::Error| Error::Core(kanon_core::Error::io(path, e))
    };
    write_json(&dir.join(MODEL_CONFIG_FILE), config)?;
    let labels = LabelsFile {
        scheme,
        names: scheme.names(),
        max_len: windowing.max_len,
        overlap: windowing.overlap,
    };
    write_json(&dir.join(LABELS_FILE), &labels)?;
    let tokenizer_path = dir.join(TOKENIZER_FILE);
    std::fs::copy(tokenizer_json, &tokenizer_path).map_err(io(&tokenizer_path))?;
    let weights = dir.join(WEIGHTS_FILE);
    let mut store = SafetensorsStore::from_file(&weights).overwrite(true);
    model.save_into(&mut store).map_err(|e| Error::Weights {
        path: weights.clone(),
        message: e.to_string(),
    })?;
    Ok(())
}

/// A predicted span: character offsets, its type (`None` in the mask scheme), and the mean
/// probability of its pieces' labels.
pub type PredictedSpan = (Span, Option<EntityType>, f32);

/// How a word piece's label is read off its label distribution.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(tag = "rule", rename_all = "snake_case")]
pub enum Decision {
    /// The most probable label.
    #[default]
    Argmax,
    /// A piece is masked when `1 − P(O)` reaches `threshold`, with the most probable non-`O`
    /// label: trades precision for recall when the threshold is below 0.5, the usual choice for
    /// anonymisation, where a missed identifier costs more than an extra mask.
    MaskProbability { threshold: f32 },
}

impl Decision {
    /// The label index and its probability, from one piece's label distribution (`O` is index 0).
    pub fn decide(self, probabilities: &[f32]) -> (usize, f32) {
        let best_of =
            |from: usize| {
                probabilities.iter().enumerate().skip(from).fold(
                    (from, f32::MIN),
                    |acc, (i, &p)| if p > acc.1 { (i, p) } else { acc },
                )
            };
        match self {
            Decision::Argmax => best_of(0),
            Decision::MaskProbability { threshold } => {
                if probabilities.len() > 1 && 1.0 - probabilities[0] >= threshold {
                    best_of(1)
                } else {
                    (0, probabilities[0])
                }
            }
        }
    }
}

/// A tagger loaded from a checkpoint directory written by `kanon train`.
#[derive(Debug)]
pub struct Tagger {
    pub model: BertTagger,
    pub config: BertConfig,
    pub tokenizer: TaggerTokenizer,
    pub labels: LabelsFile,
    pub decision: Decision,
    /// Widen spans to whole words and join neighbours ([`tidy_spans`]); off gives the raw decoded
    /// pieces.
    pub tidy: bool,
    device: Device,
}

impl Tagger {
    pub fn load(dir: &Path, device: &Device) -> Result<Tagger> {
        let read = |name: &str| -> Result<String> {
            let path = dir.join(name);
            std::fs::read_to_string(&path).map_err(|e| Error::Core(kanon_core::Error::io(path, e)))
        };
        let config_path = dir.join(MODEL_CONFIG_FILE);
        let config: BertConfig =
            serde_json::from_str(&read(MODEL_CONFIG_FILE)?).map_err(|e| Error::Config {
                path: config_path,
                message: e.to_string(),
            })?;
        let labels_path = dir.join(LABELS_FILE);
        let labels: LabelsFile =
            serde_json::from_str(&read(LABELS_FILE)?).map_err(|e| Error::Config {
                path: labels_path.clone(),
                message: e.to_string(),
            })?;
        if labels.names.len() != config.num_labels || labels.names != labels.scheme.names() {
            return Err(Error::Config {
                path: labels_path,
                message: "labels do not match the model's label count or scheme".into(),
            });
        }
        let tokenizer = TaggerTokenizer::from_file(&dir.join(TOKENIZER_FILE))?;
        let mut model = config.init(device);
        let weights = dir.join(WEIGHTS_FILE);
        let mut store = SafetensorsStore::from_file(&weights);
        let result = model.load_from(&mut store).map_err(|e| Error::Weights {
            path: weights.clone(),
            message: e.to_string(),
        })?;
        if !result.missing.is_empty() || !result.errors.is_empty() {
            return Err(Error::Weights {
                path: weights,
                message: format!(
                    "{} missing tensors, {} errors",
                    result.missing.len(),
                    result.errors.len()
                ),
            });
        }
        Ok(Tagger {
            model: model.valid(),
            config,
            tokenizer,
            labels,
            decision: Decision::Argmax,
            tidy: true,
            device: device.clone(),
        })
    }

    /// Character spans with their type (None in the mask scheme) and mean piece probability.
    pub fn predict(&self, text: &str) -> Result<Vec<(Span, Option<EntityType>, f32)>> {
        let spans = predict_with(
            &self.model,
            &self.tokenizer,
            self.labels.scheme,
            self.windowing(),
            self.decision,
            text,
            &self.device,
        )?;
        Ok(if self.tidy {
            tidy_spans(text, spans)
        } else {
            spans
        })
    }

    /// [`Tagger::predict`] for many texts, their windows batched together by length up to
    /// `token_budget` padded pieces.
    pub fn predict_many(
        &self,
        texts: &[&str],
        token_budget: usize,
    ) -> Result<Vec<Vec<PredictedSpan>>> {
        let all = predict_many(
            &self.model,
            &self.tokenizer,
            self.labels.scheme,
            self.windowing(),
            self.decision,
            texts,
            token_budget,
            &self.device,
        )?;
        Ok(all
            .into_iter()
            .zip(texts)
            .map(|(spans, text)| {
                if self.tidy {
                    tidy_spans(text, spans)
                } else {
                    spans
                }
            })
            .collect())
    }

    pub fn windowing(&self) -> Windowing {
        Windowing {
            max_len: self.labels.max_len,
            overlap: self.labels.overlap,
        }
    }
}

/// Predicts with any model (used by training's dev evaluation too).
pub fn predict_with(
    model: &BertTagger,
    tokenizer: &TaggerTokenizer,
    scheme: LabelScheme,
    windowing: Windowing,
    decision: Decision,
    text: &str,
    device: &Device,
) -> Result<Vec<(Span, Option<EntityType>, f32)>> {
    let mut out = predict_many(
        model,
        tokenizer,
        scheme,
        windowing,
        decision,
        &[text],
        16 * (windowing.max_len + 2),
        device,
    )?;
    Ok(out.pop().unwrap_or_default())
}

/// Predicts for many texts at once: their windows are sorted by length and batched up to
/// `token_budget` padded pieces (sequence bucketing), so short documents share a forward pass
/// and padding stays small; predictions are then merged back per text. Same output as
/// [`predict_with`] on each text.
#[allow(clippy::too_many_arguments)]
pub fn predict_many(
    model: &BertTagger,
    tokenizer: &TaggerTokenizer,
    scheme: LabelScheme,
    windowing: Windowing,
    decision: Decision,
    texts: &[&str],
    token_budget: usize,
    device: &Device,
) -> Result<Vec<Vec<PredictedSpan>>> {
    struct Pending {
        offsets: Vec<Span>,
        ranges: Vec<std::ops::Range<usize>>,
        predictions: Vec<Vec<(u32, f32)>>,
    }
    let mut pending = Vec::with_capacity(texts.len());
    // (text, window) of every window, and its example.
    let mut owners: Vec<(usize, usize)> = Vec::new();
    let mut examples: Vec<Example> = Vec::new();
    for (t, text) in texts.iter().enumerate() {
        let tokenized = tokenizer.tokenize(text)?;
        let ranges = if tokenized.is_empty() {
            Vec::new()
        } else {
            windowing.windows(tokenized.len())
        };
        for (w, range) in ranges.iter().enumerate() {
            let mut ids = Vec::with_capacity(range.len() + 2);
            ids.push(tokenizer.cls());
            ids.extend_from_slice(&tokenized.ids[range.clone()]);
            ids.push(tokenizer.sep());
            let n = ids.len();
            owners.push((t, w));
            examples.push(Example {
                ids,
                labels: vec![0; n],
                labeled: vec![true; n],
            });
        }
        pending.push(Pending {
            predictions: vec![Vec::new(); ranges.len()],
            offsets: tokenized.offsets,
            ranges,
        });
    }
    let mut order: Vec<usize> = (0..examples.len()).collect();
    order.sort_by_key(|&i| (examples[i].ids.len(), i));
    let mut start = 0;
    while start < order.len() {
        // Sorted by length, so the batch's last example is its longest.
        let mut end = start + 1;
        while end < order.len()
            && examples[order[end]].ids.len() * (end + 1 - start) <= token_budget
        {
            end += 1;
        }
        let refs: Vec<&Example> = order[start..end].iter().map(|&i| &examples[i]).collect();
        let batch = to_batch(&refs, tokenizer.pad(), device);
        let probabilities: Tensor<3> = softmax(model.forward(batch.input_ids, batch.padding), 2);
        let [_, seq, labels] = probabilities.dims();
        let values: Vec<f32> = probabilities
            .into_data()
            .try_to_vec::<f32>()
            .map_err(|e| Error::Encode(format!("{e:?}")))?;
        for (row, &i) in order[start..end].iter().enumerate() {
            // Skip [CLS] (position 0) and [SEP] (the last real position).
            let pieces = examples[i].ids.len() - 2;
            let window = (1..=pieces)
                .map(|position| {
                    let base = (row * seq + position) * labels;
                    let (label, score) = decision.decide(&values[base..base + labels]);
                    (label as u32, score)
                })
                .collect();
            let (t, w) = owners[i];
            pending[t].predictions[w] = window;
        }
        start = end;
    }
    Ok(pending
        .into_iter()
        .map(|p| {
            if p.ranges.is_empty() {
                return Vec::new();
            }
            let merged = merge_windows(p.offsets.len(), &p.ranges, &p.predictions);
            let labels: Vec<u32> = merged.iter().map(|(l, _)| *l).collect();
            let scores: Vec<f32> = merged.iter().map(|(_, s)| *s).collect();
            decode_spans(&p.offsets, &labels, &scores, scheme)
        })
        .collect())
}
