//! A tagger in memory — a model, its tokenizer, label scheme and windowing — and the character
//! spans it predicts for texts, one at a time or many at once (windows batched by padded length).

use std::path::Path;

use burn::module::Module;
use burn::store::{ModuleSnapshot, SafetensorsStore};
use burn::tensor::activation::softmax;
use burn::tensor::{Device, Tensor};
use kanon_core::{EntityType, PathContext, Span};
use serde::{Deserialize, Serialize};

use crate::batching::by_padded_length;
use crate::checkpoint::{
    LABELS_FILE, LabelsFile, MODEL_CONFIG_FILE, PRECISION_FILE, Precision, PrecisionFile,
    TOKENIZER_FILE, WEIGHTS_FILE,
};
use crate::data::{
    TaggerTokenizer, decode_spans, merge_windows, tidy_spans, widen_names_leftwards,
};
use crate::dataset::{Example, Windowing, to_padded_batch};
use crate::error::{Error, Result};
use crate::model::{BertConfig, BertTagger, Int8Encoder};
use crate::weights::load_checkpoint;

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
    /// A piece is masked when `1 − P(O)` reaches `threshold`: trades precision for recall when the
    /// threshold is below 0.5, the usual choice for anonymisation, where a missed identifier costs
    /// more than an extra mask. Its type is the one with the most probability over its `B-` and
    /// `I-` labels together (at a low threshold the single most probable label would mostly be the
    /// prior's favourite, `B-PERSON`), then the more probable of that type's `B-` and `I-`.
    MaskProbability {
        /// The least `1 − P(O)` of a masked piece.
        threshold: f32,
    },
}

impl Decision {
    /// The label index and its probability, from one piece's label distribution (`O` is index 0,
    /// then `B-`/`I-` pairs as [`crate::labels::LabelScheme::names`] orders them). With
    /// [`Decision::MaskProbability`], a masked piece's probability is its type's (`B-` + `I-`).
    pub fn decide(self, probabilities: &[f32]) -> (usize, f32) {
        match self {
            Decision::Argmax => {
                probabilities
                    .iter()
                    .enumerate()
                    .fold(
                        (0, f32::MIN),
                        |best, (i, &p)| if p > best.1 { (i, p) } else { best },
                    )
            }
            Decision::MaskProbability { threshold } => {
                if probabilities.len() > 1 && 1.0 - probabilities[0] >= threshold {
                    let pairs = probabilities[1..].chunks(2).enumerate();
                    let (pair, mass) = pairs.fold((0, f32::MIN), |best, (i, pair)| {
                        let mass: f32 = pair.iter().sum();
                        if mass > best.1 { (i, mass) } else { best }
                    });
                    let begin = 1 + 2 * pair;
                    let inside = probabilities
                        .get(begin + 1)
                        .is_some_and(|&p| p > probabilities[begin]);
                    (begin + usize::from(inside), mass)
                } else {
                    (0, probabilities[0])
                }
            }
        }
    }
}

/// Which words of a span decide whether it is written in lower case, for
/// `DetectConfig::lowercase_min_score` (detection's settings).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LowercaseWords {
    /// Every word: "politician", "science fiction"; not "Italian football goalkeeper".
    #[default]
    All,
    /// The last word, the head of an English noun phrase: "Italian football goalkeeper" is a common
    /// noun phrase like "goalkeeper", "University of Oslo" and "23 February 1955" are not.
    Last,
}

kanon_core::named_choices!(
    LowercaseWords,
    "lower-case words",
    [All = "all", Last = "last"]
);

impl LowercaseWords {
    /// Whether `span_text` counts as written in lower case: its words chosen by `self` have a
    /// lower-case letter and no capital (so "1955" and "黄义达", without case, do not).
    pub fn is_lowercase(self, span_text: &str) -> bool {
        let words = match self {
            LowercaseWords::All => span_text,
            LowercaseWords::Last => span_text
                .split_whitespace()
                .rfind(|word| word.chars().any(char::is_alphabetic))
                .unwrap_or(""),
        };
        words.chars().any(char::is_lowercase) && !words.chars().any(char::is_uppercase)
    }
}

/// Whether a tidied span scored `score` stays: it reaches `min_score`, and `lowercase_min_score`
/// too when it is written in lower case by `lowercase_words` ("politician"; not "Oslo", nor
/// "黄义达", whose script has no case).
pub fn sure_enough(
    text: &str,
    span: Span,
    score: f32,
    min_score: f32,
    lowercase_min_score: f32,
    lowercase_words: LowercaseWords,
) -> bool {
    let lowercase = span
        .slice(text)
        .is_some_and(|slice| lowercase_words.is_lowercase(slice));
    score >= min_score && (!lowercase || score >= lowercase_min_score)
}

/// PERSON spans scored below `confidence` become MISC: masked all the same, but not numbered as
/// people by the sanitizer.
pub fn retype_unsure_people(spans: Vec<PredictedSpan>, confidence: f32) -> Vec<PredictedSpan> {
    spans
        .into_iter()
        .map(|(span, ty, score)| match ty {
            Some(EntityType::Person) if score < confidence => (span, Some(EntityType::Misc), score),
            _ => (span, ty, score),
        })
        .collect()
}

/// A tagger: a model without autodiff, with what reads its inputs and outputs.
#[derive(Debug)]
pub struct Tagger {
    /// The model, inference-only.
    pub model: BertTagger,
    /// Its shape, saved with it.
    pub config: BertConfig,
    /// What cuts texts into pieces with their character offsets.
    pub tokenizer: TaggerTokenizer,
    /// The label scheme and the windowing the model was trained with.
    pub labels: LabelsFile,
    /// How each piece's label is read off its distribution.
    pub decision: Decision,
    /// Widen spans to whole words and join neighbours ([`tidy_spans`]); off gives the raw decoded
    /// pieces.
    pub tidy: bool,
    /// PERSON spans scored below this are typed MISC (see
    /// `DetectConfig::person_confidence`); 0 keeps every type.
    pub person_confidence: f32,
    /// Spans scored below this are dropped after tidying (see
    /// `DetectConfig::min_score`); 0 keeps every span.
    pub min_score: f32,
    /// Spans without a capital letter scored below this are dropped after tidying (see
    /// `DetectConfig::lowercase_min_score`); 0 keeps them.
    pub lowercase_min_score: f32,
    /// Which words make a span lower case for `lowercase_min_score`.
    pub lowercase_words: LowercaseWords,
    /// The encoder's linear maps in int8, at that precision.
    int8: Option<Int8Encoder>,
    device: Device,
}

impl Tagger {
    /// A tagger of a model on `device`; argmax decisions, spans tidied.
    pub fn new(
        model: BertTagger,
        config: BertConfig,
        tokenizer: TaggerTokenizer,
        labels: LabelsFile,
        device: &Device,
    ) -> Self {
        Tagger {
            model,
            config,
            tokenizer,
            labels,
            decision: Decision::Argmax,
            tidy: true,
            person_confidence: 0.0,
            min_score: 0.0,
            lowercase_min_score: 0.0,
            lowercase_words: LowercaseWords::All,
            int8: None,
            device: device.clone(),
        }
    }

    /// The tagger deciding by `decision` ([`Tagger::decision`]).
    pub fn with_decision(mut self, decision: Decision) -> Self {
        self.decision = decision;
        self
    }

    /// The tagger with its spans tidied or not ([`Tagger::tidy`]).
    pub fn with_tidy(mut self, tidy: bool) -> Self {
        self.tidy = tidy;
        self
    }

    /// The tagger retyping PERSON spans scored below `person_confidence` as MISC
    /// ([`Tagger::person_confidence`]).
    pub fn with_person_confidence(mut self, person_confidence: f32) -> Self {
        self.person_confidence = person_confidence;
        self
    }

    /// The tagger dropping spans scored below `min_score` ([`Tagger::min_score`]).
    pub fn with_min_score(mut self, min_score: f32) -> Self {
        self.min_score = min_score;
        self
    }

    /// The tagger dropping lower-case spans scored below `lowercase_min_score`
    /// ([`Tagger::lowercase_min_score`]).
    pub fn with_lowercase_min_score(mut self, lowercase_min_score: f32) -> Self {
        self.lowercase_min_score = lowercase_min_score;
        self
    }

    /// The tagger reading a span's case from `lowercase_words` ([`Tagger::lowercase_words`]).
    pub fn with_lowercase_words(mut self, lowercase_words: LowercaseWords) -> Self {
        self.lowercase_words = lowercase_words;
        self
    }

    /// The tagger computing its encoder's linear maps at `precision` ([`Int8Encoder::switch`]:
    /// to int8 the model's f32 weights become the values the int8 ones stand for; back to f32
    /// they stay so).
    pub fn with_precision(mut self, precision: Precision) -> Self {
        (self.model, self.int8) = Int8Encoder::switch(self.model, self.int8, precision);
        self
    }

    /// The precision of its encoder's linear maps.
    pub fn precision(&self) -> Precision {
        if self.int8.is_some() {
            Precision::Int8
        } else {
            Precision::F32
        }
    }

    /// Its depth and the precision of its weights, as summaries show them (`6 layers, f32`).
    pub fn describe(&self) -> String {
        format!(
            "{} layers, {}",
            self.config.num_hidden_layers,
            self.precision()
        )
    }

    /// Loads a checkpoint directory written by `kanon train`.
    pub fn load(dir: &Path, device: &Device) -> Result<Tagger> {
        let (config, model) = load_checkpoint(dir, device)?;
        let labels_path = dir.join(LABELS_FILE);
        let labels = LabelsFile::read(&labels_path)?;
        if labels.names.len() != config.num_labels {
            return Err(Error::Config {
                path: labels_path,
                message: "labels do not match the model's label count or scheme".into(),
            });
        }
        let tokenizer = TaggerTokenizer::from_file(&dir.join(TOKENIZER_FILE))?;
        let precision = PrecisionFile::read_dir(dir)?;
        Ok(Tagger::new(model.valid(), config, tokenizer, labels, device).with_precision(precision))
    }

    /// Writes the checkpoint files into `dir` (the caller makes the directory atomic):
    /// `tokenizer_json` is copied as it is.
    pub fn save(&self, dir: &Path, tokenizer_json: &Path) -> Result<()> {
        kanon_core::config::save(&dir.join(MODEL_CONFIG_FILE), &self.config)?;
        kanon_core::config::save(&dir.join(LABELS_FILE), &self.labels)?;
        let tokenizer_path = dir.join(TOKENIZER_FILE);
        std::fs::copy(tokenizer_json, &tokenizer_path).with_path(&tokenizer_path)?;
        if self.precision() != Precision::F32 {
            kanon_core::config::save(
                &dir.join(PRECISION_FILE),
                &PrecisionFile::new(self.precision()),
            )?;
        }
        let weights = dir.join(WEIGHTS_FILE);
        let mut store = SafetensorsStore::from_file(&weights).overwrite(true);
        self.model
            .save_into(&mut store)
            .map_err(Error::store(&weights, "write the weights"))?;
        Ok(())
    }

    /// Writes checkpoint `from` again at `precision` into `to` (atomically): the same config,
    /// labels and tokenizer, the weights as that precision has them, `precision.json` unless
    /// f32. Returns the tagger as written.
    pub fn convert_checkpoint(from: &Path, to: &Path, precision: Precision) -> Result<Tagger> {
        let device = crate::device::cpu();
        let tagger = Tagger::load(from, &device)?.with_precision(precision);
        kanon_core::io::atomic_dir(to, |dir| -> Result<()> {
            tagger.save(dir, &from.join(TOKENIZER_FILE))
        })?;
        Ok(tagger)
    }

    /// How texts are cut into windows: as the model was trained.
    pub fn windowing(&self) -> Windowing {
        self.labels.windowing()
    }

    /// Character spans of a text with their type (`None` in the mask scheme) and the mean
    /// probability of their pieces' labels.
    pub fn predict(&self, text: &str) -> Result<Vec<PredictedSpan>> {
        let budget = 16 * (self.labels.max_len + 2);
        let mut spans = self.predict_many(&[text], budget)?;
        Ok(spans.pop().unwrap_or_default())
    }

    /// [`Tagger::predict`] for many texts: their windows are padded to a multiple of 16 pieces
    /// and batched with windows of the same padded length, up to `token_budget` padded pieces
    /// (sequence bucketing), so short documents share a forward pass and padding stays small;
    /// predictions are then merged back per text. On the CPU, the same spans and scores, to the
    /// bit, as each text alone, at any budget and thread count.
    pub fn predict_many(
        &self,
        texts: &[&str],
        token_budget: usize,
    ) -> Result<Vec<Vec<PredictedSpan>>> {
        let raw = self.predict_pieces(texts, token_budget)?;
        Ok(raw
            .into_iter()
            .zip(texts)
            .map(|(spans, text)| {
                let mut spans = if self.tidy {
                    tidy_spans(text, spans)
                } else {
                    spans
                };
                spans.retain(|(span, _, score)| {
                    sure_enough(
                        text,
                        *span,
                        *score,
                        self.min_score,
                        self.lowercase_min_score,
                        self.lowercase_words,
                    )
                });
                if self.tidy {
                    spans = widen_names_leftwards(text, spans);
                }
                retype_unsure_people(spans, self.person_confidence)
            })
            .collect())
    }

    /// The label probabilities of each text's windows, as the forward passes give them: per
    /// text, per window (in text order), the window's pieces (without `[CLS]` and `[SEP]`) times
    /// the labels, row by row. What [`Tagger::predict_many`] decides from; on the CPU, the same
    /// bits whatever the batching (`token_budget`, the other texts, the thread count).
    pub fn probabilities(&self, texts: &[&str], token_budget: usize) -> Result<Vec<Vec<Vec<f32>>>> {
        crate::kernels::on_pool(|| {
            let windows = self.windows_of(texts)?;
            let mut per_window = self.window_probabilities(&windows.examples, token_budget)?;
            let mut per_text: Vec<Vec<Vec<f32>>> = windows
                .texts
                .iter()
                .map(|t| vec![Vec::new(); t.ranges.len()])
                .collect();
            for (i, &(t, w)) in windows.owners.iter().enumerate() {
                per_text[t][w] = std::mem::take(&mut per_window[i]);
            }
            Ok(per_text)
        })
    }

    /// The decoded word-piece spans of each text, before tidying.
    fn predict_pieces(
        &self,
        texts: &[&str],
        token_budget: usize,
    ) -> Result<Vec<Vec<PredictedSpan>>> {
        crate::kernels::on_pool(|| self.predict_pieces_here(texts, token_budget))
    }

    /// Every text tokenised and cut into windows, each window an example (`[CLS]`, its pieces,
    /// `[SEP]`).
    fn windows_of(&self, texts: &[&str]) -> Result<TextWindows> {
        let tokenizer = &self.tokenizer;
        let windowing = self.windowing();
        let mut windows = TextWindows {
            texts: Vec::with_capacity(texts.len()),
            owners: Vec::new(),
            examples: Vec::new(),
        };
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
                windows.owners.push((t, w));
                windows.examples.push(Example {
                    ids,
                    labels: vec![0; n],
                    labeled: vec![true; n],
                });
            }
            windows.texts.push(TextPieces {
                offsets: tokenized.offsets,
                ranges,
            });
        }
        Ok(windows)
    }

    /// Each example's label probabilities, its pieces (without `[CLS]` and `[SEP]`) times the
    /// labels, row by row.
    fn window_probabilities(
        &self,
        examples: &[Example],
        token_budget: usize,
    ) -> Result<Vec<Vec<f32>>> {
        let mut out = vec![Vec::new(); examples.len()];
        let lengths: Vec<usize> = examples.iter().map(|e| e.ids.len()).collect();
        // Each window padded by its own length and batched only with windows padded alike: its
        // probabilities are then the same bits whatever the other documents, their order, the
        // token budget or the thread count (`batching::padded_length` says why).
        let positions = self.config.max_position_embeddings;
        for (padded, batch_indices) in by_padded_length(&lengths, positions, token_budget) {
            let refs: Vec<&Example> = batch_indices.iter().map(|&i| &examples[i]).collect();
            let batch = to_padded_batch(&refs, self.tokenizer.pad(), padded, &self.device);
            let probabilities: Tensor<3> = softmax(
                self.model
                    .forward_with(batch.input_ids, batch.padding, self.int8.as_ref()),
                2,
            );
            let [_, seq, labels] = probabilities.dims();
            let values: Vec<f32> = probabilities
                .into_data()
                .try_to_vec::<f32>()
                .map_err(|e| Error::TensorData(Box::new(e)))?;
            for (row, &i) in batch_indices.iter().enumerate() {
                // Skip [CLS] (position 0) and [SEP] (the last real position).
                let pieces = examples[i].ids.len() - 2;
                let first = (row * seq + 1) * labels;
                out[i] = values[first..first + pieces * labels].to_vec();
            }
        }
        Ok(out)
    }

    fn predict_pieces_here(
        &self,
        texts: &[&str],
        token_budget: usize,
    ) -> Result<Vec<Vec<PredictedSpan>>> {
        let windows = self.windows_of(texts)?;
        let probabilities = self.window_probabilities(&windows.examples, token_budget)?;
        let labels = self.config.num_labels;
        let mut predictions: Vec<Vec<Vec<(u32, f32)>>> = windows
            .texts
            .iter()
            .map(|t| vec![Vec::new(); t.ranges.len()])
            .collect();
        for (window, &(t, w)) in probabilities.iter().zip(&windows.owners) {
            predictions[t][w] = window
                .chunks_exact(labels)
                .map(|piece| {
                    let (label, score) = self.decision.decide(piece);
                    (label as u32, score)
                })
                .collect();
        }
        let scheme = self.labels.scheme;
        Ok(windows
            .texts
            .into_iter()
            .zip(predictions)
            .map(|(text, predictions)| {
                if text.ranges.is_empty() {
                    return Vec::new();
                }
                let merged = merge_windows(text.offsets.len(), &text.ranges, &predictions);
                let labels: Vec<u32> = merged.iter().map(|(l, _)| *l).collect();
                let scores: Vec<f32> = merged.iter().map(|(_, s)| *s).collect();
                decode_spans(&text.offsets, &labels, &scores, scheme)
            })
            .collect())
    }
}

/// One text's pieces (character offsets) and its windows over them.
struct TextPieces {
    offsets: Vec<Span>,
    ranges: Vec<std::ops::Range<usize>>,
}

/// The windows of several texts: each text's pieces, and every window as an example with the
/// (text, window) it belongs to.
struct TextWindows {
    texts: Vec<TextPieces>,
    owners: Vec<(usize, usize)>,
    examples: Vec<Example>,
}
