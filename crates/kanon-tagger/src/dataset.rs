//! Training examples from a labeled corpus: each document tokenised, its spans aligned to word-piece
//! labels, cut into windows of at most `max_len` pieces (with `[CLS]` and `[SEP]`), and windows
//! grouped into batches by a token budget (similar lengths together, so little padding).

use burn::tensor::{Bool, Device, Int, Tensor, TensorData};
use kanon_core::{EntityType, Span};
use rand::SeedableRng;
use rand::seq::SliceRandom;

use crate::batching::by_length;
use crate::data::{TaggerTokenizer, Tokenized, align_labels, windows};
use crate::labels::LabelScheme;

/// One window of one document: ids with `[CLS]`/`[SEP]`, a label per id, which ids carry a label.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Example {
    /// Vocabulary ids: `[CLS]`, the window's pieces, `[SEP]`.
    pub ids: Vec<u32>,
    /// The target label id of each position (0, `O`, where there is none; the classifier puts its
    /// class at position 0).
    pub labels: Vec<u32>,
    /// Whether each position's label counts in the loss (false on `[CLS]` and `[SEP]`).
    pub labeled: Vec<bool>,
}

/// How documents become windows.
#[derive(Debug, Clone, Copy)]
pub struct Windowing {
    /// Pieces per window, `[CLS]` and `[SEP]` included.
    pub max_len: usize,
    /// Pieces shared by consecutive windows.
    pub overlap: usize,
}

impl Default for Windowing {
    fn default() -> Self {
        Windowing {
            max_len: 128,
            overlap: 32,
        }
    }
}

impl Windowing {
    /// The windows of a text of `n_pieces` pieces, as ranges of its pieces (at most
    /// `max_len − 2` each, leaving room for `[CLS]` and `[SEP]`); see [`crate::data::windows`].
    pub fn windows(&self, n_pieces: usize) -> Vec<std::ops::Range<usize>> {
        windows(
            n_pieces,
            self.max_len.saturating_sub(2).max(1),
            self.overlap,
        )
    }
}

/// The examples of one document (its labels from its spans).
pub fn examples(
    tokenizer: &TaggerTokenizer,
    tokenized: &Tokenized,
    spans: &[(Span, Option<EntityType>)],
    scheme: LabelScheme,
    windowing: Windowing,
) -> Vec<Example> {
    let labels = align_labels(&tokenized.offsets, spans, scheme);
    windowing
        .windows(tokenized.len())
        .into_iter()
        .map(|w| {
            let mut ids = vec![tokenizer.cls()];
            ids.extend_from_slice(&tokenized.ids[w.clone()]);
            ids.push(tokenizer.sep());
            let mut window_labels = vec![0];
            window_labels.extend_from_slice(&labels[w.clone()]);
            window_labels.push(0);
            let mut labeled = vec![false];
            labeled.extend(std::iter::repeat_n(true, w.len()));
            labeled.push(false);
            Example {
                ids,
                labels: window_labels,
                labeled,
            }
        })
        .collect()
}

/// A padded batch on a device: `[batch, seq]` tensors of piece ids, padding (true on padding),
/// target labels, and which pieces carry a label (false on `[CLS]`, `[SEP]` and padding).
#[derive(Debug, Clone)]
pub struct Batch {
    /// `[batch, seq]` piece ids, `[PAD]` after a window's end.
    pub input_ids: Tensor<2, Int>,
    /// `[batch, seq]`, true on padding.
    pub padding: Tensor<2, Bool>,
    /// `[batch, seq]` target label ids, 0 on padding.
    pub targets: Tensor<2, Int>,
    /// `[batch, seq]`, true where the label counts in the loss.
    pub labeled: Tensor<2, Bool>,
    /// The real (unpadded) pieces of the batch, for throughput figures.
    pub tokens: usize,
}

/// The examples as one padded [`Batch`] on `device`, as long as the longest of them, shorter
/// ones filled with `pad`.
pub fn to_batch(examples: &[&Example], pad: u32, device: &Device) -> Batch {
    let seq = examples.iter().map(|e| e.ids.len()).max().unwrap_or(1);
    to_padded_batch(examples, pad, seq, device)
}

/// The examples as one [`Batch`] padded to `seq` pieces (at least the longest example's length),
/// as inference pads a window to its own padded length
/// ([`crate::batching::padded_length`]) rather than to its batch's longest.
pub fn to_padded_batch(examples: &[&Example], pad: u32, seq: usize, device: &Device) -> Batch {
    let seq = examples
        .iter()
        .map(|e| e.ids.len())
        .fold(seq.max(1), usize::max);
    let batch = examples.len();
    let mut ids = Vec::with_capacity(batch * seq);
    let mut padding = Vec::with_capacity(batch * seq);
    let mut targets = Vec::with_capacity(batch * seq);
    let mut labeled = Vec::with_capacity(batch * seq);
    for e in examples {
        for i in 0..seq {
            let real = i < e.ids.len();
            ids.push(i64::from(if real { e.ids[i] } else { pad }));
            padding.push(!real);
            targets.push(i64::from(if real { e.labels[i] } else { 0 }));
            labeled.push(real && e.labeled[i]);
        }
    }
    Batch {
        input_ids: Tensor::from_data(TensorData::new(ids, [batch, seq]), device),
        padding: Tensor::from_data(TensorData::new(padding, [batch, seq]), device),
        targets: Tensor::from_data(TensorData::new(targets, [batch, seq]), device),
        labeled: Tensor::from_data(TensorData::new(labeled, [batch, seq]), device),
        tokens: examples.iter().map(|e| e.ids.len()).sum(),
    }
}

/// Groups examples into batches of at most `token_budget` padded tokens, similar lengths together;
/// the batch order is shuffled with `seed` (one order per epoch: pass a different seed).
pub fn batches_by_budget(examples: &[Example], token_budget: usize, seed: u64) -> Vec<Vec<usize>> {
    let lengths: Vec<usize> = examples.iter().map(|e| e.ids.len()).collect();
    let mut batches = by_length(&lengths, token_budget);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    batches.shuffle(&mut rng);
    batches
}
