//! kanon's detector: a BERT token tagger, in burn, fine-tuned on a distantly labeled corpus to find
//! the spans a text must mask.
//!
//! - [`model`]: BERT as a token tagger (`BertConfig::init(&device) -> BertTagger`; `forward`
//!   documents its tensor shapes); [`weights`]: a Hugging Face checkpoint's tensors mapped onto it.
//! - [`labels`]: the label schemes (typed BIO over TAB's eight entity types, or `MASK`);
//!   [`data`]: tokenisation with character offsets, span ↔ word-piece label alignment, windows and
//!   their merge, tidying of decoded spans; [`dataset`]: training windows and batches;
//!   [`batching`]: the length-bucketing batcher of training, inference and embedding, and the
//!   batch-invariant one of tagging (each window padded by its own length).
//! - [`train`]: a [`train::TrainJob`] (AdamW, fused on the CPU by [`optim`], warm-up and decay,
//!   dev F1 each epoch, early stopping, resumable state); [`checkpoint`]: the directory it writes
//!   (config beside weights, versioned labels file). Its training loop is the classifier's too
//!   (the private `fit` module: each supplies its batches, loss and epoch end).
//! - [`inference`]: a [`inference::Tagger`] in memory and the spans it predicts;
//!   [`detect`]: detection's settings ([`detect::DetectConfig`], which loads a tagger that
//!   decides as they say); `kanon_detect::job::run` runs it over documents.
//! - [`device`]: the CPU, a CUDA GPU or a Vulkan device by name (`--device`); the same code runs on
//!   each.
//! - [`classifier`]: the encoder with a head over classes, fine-tuned on windows of labeled texts
//!   (the re-identification attacker of `kanon eval privacy`).
//! - [`encoder`]: the encoder alone as a sentence embedder (mean pooling, unit length), for
//!   similarity measures.
//!
//! ```
//! use kanon_core::{EntityType, Span};
//! use kanon_tagger::data::{align_labels, decode_spans};
//! use kanon_tagger::LabelScheme;
//!
//! // Word pieces of "Zoë Ølund lives" (character offsets), and the name as a PERSON span.
//! let pieces = [Span::new(0, 3), Span::new(4, 6), Span::new(6, 9), Span::new(10, 15)];
//! let labels = align_labels(&pieces, &[(Span::new(0, 9), Some(EntityType::Person))], LabelScheme::Typed);
//! assert_eq!(LabelScheme::Typed.names()[labels[1] as usize], "I-PERSON");
//! // Predicted labels back to a character span, with its type and mean probability.
//! let spans = decode_spans(&pieces, &labels, &[], LabelScheme::Typed);
//! assert_eq!(spans, vec![(Span::new(0, 9), Some(EntityType::Person), 1.0)]);
//! ```

#![warn(missing_docs)]

pub mod batching;
pub mod checkpoint;
pub mod classifier;
pub mod data;
pub mod dataset;
pub mod detect;
pub mod device;
pub mod encoder;
pub mod error;
mod fit;
pub mod inference;
pub mod int8;
pub mod kernels;
pub mod labels;
pub mod model;
pub mod optim;
#[doc(hidden)]
pub mod testing;
pub mod train;
pub mod weights;

pub use detect::{DetectConfig, SpansFormat};
pub use error::{Error, Result};
pub use inference::{Decision, LowercaseWords, Tagger};
pub use labels::{Label, LabelScheme};
pub use train::{TrainConfig, TrainJob};
