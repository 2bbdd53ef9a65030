//! Sentence embeddings from the BERT encoder, as sentence-transformers computes them for
//! all-MiniLM-L6-v2: the last hidden states averaged over the text's pieces (`[CLS]` and `[SEP]`
//! included, padding not), then scaled to unit length, so a dot product is a cosine.
//!
//! ```
//! use burn::tensor::Device;
//! use kanon_tagger::encoder::SentenceEncoder;
//! use kanon_tagger::model::BertConfig;
//! # let dir = tempfile::tempdir()?;
//! # let tokenizer = dir.path().join("tokenizer.json");
//! # kanon_tagger::encoder::write_test_tokenizer(&tokenizer, &["lilian", "vienna", "lives", "in"])?;
//!
//! let device = Device::flex();
//! let config = BertConfig::new(16, 8, 1, 2, 16); // a tiny random BERT
//! let encoder = SentenceEncoder::new(config.init(&device), &tokenizer, &device)?;
//! let embeddings = encoder.embed(&["lilian lives in vienna", "", "vienna"])?;
//! assert_eq!(embeddings.len(), 3);
//! assert!((embeddings[0].iter().map(|x| x * x).sum::<f32>() - 1.0).abs() < 1e-4);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::path::Path;

use burn::module::Module;
use burn::tensor::{Device, Tensor};

use crate::batching::by_length;
use crate::data::TaggerTokenizer;
use crate::dataset::{Example, to_batch};
use crate::error::{Error, Result};
use crate::model::BertTagger;
use crate::weights::load_pretrained;

/// all-MiniLM-L6-v2 was trained on texts of at most 256 pieces; longer ones are cut there, as
/// sentence-transformers cuts them.
pub const DEFAULT_MAX_PIECES: usize = 256;

/// Padded pieces per forward pass.
const TOKEN_BUDGET: usize = 8192;

/// A BERT encoder with mean pooling.
#[derive(Debug)]
pub struct SentenceEncoder {
    model: BertTagger,
    tokenizer: TaggerTokenizer,
    device: Device,
    max_pieces: usize,
}

impl SentenceEncoder {
    /// The tokenizer it reads texts with.
    pub fn tokenizer(&self) -> &TaggerTokenizer {
        &self.tokenizer
    }

    /// A pretrained checkpoint directory (`config.json`, `model.safetensors`, `tokenizer.json`),
    /// e.g. the cached all-MiniLM-L6-v2.
    pub fn load(dir: &Path, device: &Device) -> Result<Self> {
        let (_, model) = load_pretrained(dir, 1, device)?;
        Self::new(model, &dir.join("tokenizer.json"), device)
    }

    /// An encoder from a model in memory and a tokenizer file.
    pub fn new(model: BertTagger, tokenizer_json: &Path, device: &Device) -> Result<Self> {
        Ok(SentenceEncoder {
            model: model.valid(),
            tokenizer: TaggerTokenizer::from_file(tokenizer_json)?,
            device: device.clone(),
            max_pieces: DEFAULT_MAX_PIECES,
        })
    }

    /// Pieces a text may have, `[CLS]` and `[SEP]` included; the rest is not read.
    pub fn with_max_pieces(mut self, max_pieces: usize) -> Self {
        self.max_pieces = max_pieces.max(2);
        self
    }

    /// One unit-length embedding per text (an empty text is `[CLS] [SEP]`'s).
    pub fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let mut examples = Vec::with_capacity(texts.len());
        for text in texts {
            let pieces = self.tokenizer.tokenize(text)?;
            let mut ids = Vec::with_capacity(pieces.len().min(self.max_pieces) + 2);
            ids.push(self.tokenizer.cls());
            ids.extend(pieces.ids.iter().take(self.max_pieces - 2));
            ids.push(self.tokenizer.sep());
            let n = ids.len();
            examples.push(Example {
                ids,
                labels: vec![0; n],
                labeled: vec![true; n],
            });
        }
        let pooled = mean_pooled(
            &self.model,
            &examples,
            self.tokenizer.pad(),
            &self.device,
            TOKEN_BUDGET,
        )?;
        Ok(pooled
            .into_iter()
            .map(|mean| {
                let norm = mean.iter().map(|x| x * x).sum::<f32>().sqrt();
                // A zero vector stays zero: its cosine with anything is 0.
                let scale = if norm > 0.0 { 1.0 / norm } else { 0.0 };
                mean.into_iter().map(|x| x * scale).collect()
            })
            .collect())
    }
}

/// The encoder's last hidden states averaged over each example's pieces (`[CLS]` and `[SEP]`
/// included, padding not), one `[hidden]` vector per example in input order. Examples are
/// sorted by length and batched up to `token_budget` padded pieces.
pub(crate) fn mean_pooled(
    model: &BertTagger,
    examples: &[Example],
    pad: u32,
    device: &Device,
    token_budget: usize,
) -> Result<Vec<Vec<f32>>> {
    let mut pooled = vec![Vec::new(); examples.len()];
    let lengths: Vec<usize> = examples.iter().map(|e| e.ids.len()).collect();
    for batch_indices in by_length(&lengths, token_budget) {
        let refs: Vec<&Example> = batch_indices.iter().map(|&i| &examples[i]).collect();
        let batch = to_batch(&refs, pad, device);
        let hidden: Tensor<3> = model.encode(batch.input_ids, batch.padding);
        let [_, seq, width] = hidden.dims();
        let values: Vec<f32> = hidden
            .into_data()
            .try_to_vec::<f32>()
            .map_err(|e| Error::TensorData(Box::new(e)))?;
        for (row, &i) in batch_indices.iter().enumerate() {
            let n = examples[i].ids.len() as f32;
            let mut mean = vec![0.0f32; width];
            for position in 0..examples[i].ids.len() {
                let base = (row * seq + position) * width;
                for (m, v) in mean.iter_mut().zip(&values[base..base + width]) {
                    *m += v / n;
                }
            }
            pooled[i] = mean;
        }
    }
    Ok(pooled)
}

/// The cosine of two unit-length embeddings (their dot product).
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Writes a word-level WordPiece tokenizer knowing `words` (and the special tokens), for doc tests
/// and tests that build a tiny random BERT.
#[doc(hidden)]
pub fn write_test_tokenizer(path: &Path, words: &[&str]) -> std::io::Result<()> {
    let mut vocab = serde_json::Map::new();
    for (i, token) in ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
        .iter()
        .chain(words)
        .enumerate()
    {
        vocab.insert((*token).to_owned(), i.into());
    }
    let tokenizer = serde_json::json!({
        "version": "1.0",
        "truncation": null,
        "padding": null,
        "added_tokens": [],
        "normalizer": {"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true,
                        "strip_accents": null, "lowercase": true},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": null,
        "decoder": null,
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                   "max_input_chars_per_word": 100, "vocab": vocab}
    });
    std::fs::write(path, tokenizer.to_string())
}
