//! BERT as a token tagger, in burn: embeddings, encoder layers with padding masks, and a
//! token-classification head. The layout follows Hugging Face's `BertForTokenClassification`, so a
//! standard checkpoint's weights map onto it (see the `weights` module).

use std::path::Path;

use burn::config::Config;
use burn::module::Module;
use burn::nn::attention::{MultiHeadAttention, MultiHeadAttentionConfig};
use burn::nn::{
    Dropout, DropoutConfig, Embedding, EmbeddingConfig, LayerNorm, LayerNormConfig, Linear,
    LinearConfig,
};
use burn::tensor::activation::softmax;
use burn::tensor::ops::AttentionModuleOptions;
use burn::tensor::{Bool, Device, Int, Tensor, module};
use kanon_core::PathContext;
use serde::Deserialize;

use crate::checkpoint::Precision;
use crate::error::Error;
use crate::int8::{Int8Linear, QuantizedRows};
use crate::kernels::{dropout, gelu, host_values};

/// The shape of a BERT encoder and its tagging head.
#[derive(Config, Debug, PartialEq)]
pub struct BertConfig {
    /// Word pieces the tokenizer knows: rows of the word embeddings.
    pub vocab_size: usize,
    /// Width of every hidden state.
    pub hidden_size: usize,
    /// Encoder layers.
    pub num_hidden_layers: usize,
    /// Attention heads per layer; they split `hidden_size` between them.
    pub num_attention_heads: usize,
    /// Width of each layer's feed-forward block.
    pub intermediate_size: usize,
    /// The longest input, in pieces (`[CLS]` and `[SEP]` included).
    #[config(default = 512)]
    pub max_position_embeddings: usize,
    /// Segment types (BERT's sentence A/B); kanon feeds type 0 only.
    #[config(default = 2)]
    pub type_vocab_size: usize,
    /// BERT's own epsilon; burn's default (1e-5) would shift every hidden state.
    #[config(default = 1e-12)]
    pub layer_norm_eps: f64,
    /// Dropout on the embeddings and each layer's outputs in training.
    #[config(default = 0.1)]
    pub hidden_dropout_prob: f64,
    /// Dropout on the attention probabilities in training, as BERT was pretrained with.
    #[config(default = 0.1)]
    pub attention_probs_dropout_prob: f64,
    /// Outputs of the head: the label scheme's labels, or the classifier's classes.
    #[config(default = 3)]
    pub num_labels: usize,
}

/// The fields of a Hugging Face `config.json` that kanon reads.
#[derive(Deserialize)]
struct HfConfig {
    vocab_size: usize,
    hidden_size: usize,
    num_hidden_layers: usize,
    num_attention_heads: usize,
    intermediate_size: usize,
    #[serde(default = "default_positions")]
    max_position_embeddings: usize,
    #[serde(default = "default_types")]
    type_vocab_size: usize,
    #[serde(default = "default_eps")]
    layer_norm_eps: f64,
    #[serde(default = "default_dropout")]
    hidden_dropout_prob: f64,
    #[serde(default = "default_dropout")]
    attention_probs_dropout_prob: f64,
    #[serde(default)]
    hidden_act: Option<String>,
}

fn default_positions() -> usize {
    512
}
fn default_types() -> usize {
    2
}
fn default_eps() -> f64 {
    1e-12
}
fn default_dropout() -> f64 {
    0.1
}

impl BertConfig {
    /// Reads a Hugging Face BERT `config.json`, with `num_labels` tagging labels.
    pub fn from_hf_file(path: &Path, num_labels: usize) -> crate::error::Result<Self> {
        let text = std::fs::read_to_string(path).with_path(path)?;
        let hf: HfConfig = serde_json::from_str(&text).map_err(|e| Error::Config {
            path: path.to_owned(),
            message: format!("model config: {e}"),
        })?;
        if let Some(act) = hf.hidden_act.as_deref().filter(|a| *a != "gelu") {
            return Err(Error::Config {
                path: path.to_owned(),
                message: format!(
                    "model config: hidden_act {act:?} is not supported (kanon's BERT uses the exact gelu)"
                ),
            });
        }
        if !hf.hidden_size.is_multiple_of(hf.num_attention_heads) {
            return Err(Error::Config {
                path: path.to_owned(),
                message: "model config: hidden_size is not a multiple of num_attention_heads"
                    .into(),
            });
        }
        Ok(BertConfig {
            vocab_size: hf.vocab_size,
            hidden_size: hf.hidden_size,
            num_hidden_layers: hf.num_hidden_layers,
            num_attention_heads: hf.num_attention_heads,
            intermediate_size: hf.intermediate_size,
            max_position_embeddings: hf.max_position_embeddings,
            type_vocab_size: hf.type_vocab_size,
            layer_norm_eps: hf.layer_norm_eps,
            hidden_dropout_prob: hf.hidden_dropout_prob,
            attention_probs_dropout_prob: hf.attention_probs_dropout_prob,
            num_labels,
        })
    }

    /// A model of this shape with freshly drawn parameters (from `device`'s random stream).
    pub fn init(&self, device: &Device) -> BertTagger {
        let norm = || {
            LayerNormConfig::new(self.hidden_size)
                .with_epsilon(self.layer_norm_eps)
                .init(device)
        };
        let new_dropout = || DropoutConfig::new(self.hidden_dropout_prob).init();
        BertTagger {
            embeddings: BertEmbeddings {
                word_embeddings: EmbeddingConfig::new(self.vocab_size, self.hidden_size)
                    .init(device),
                position_embeddings: EmbeddingConfig::new(
                    self.max_position_embeddings,
                    self.hidden_size,
                )
                .init(device),
                token_type_embeddings: EmbeddingConfig::new(self.type_vocab_size, self.hidden_size)
                    .init(device),
                layer_norm: norm(),
                dropout: new_dropout(),
            },
            layers: (0..self.num_hidden_layers)
                .map(|_| BertLayer {
                    attention: MultiHeadAttentionConfig::new(
                        self.hidden_size,
                        self.num_attention_heads,
                    )
                    .with_dropout(self.attention_probs_dropout_prob)
                    .with_min_float(-1.0e9)
                    .init(device),
                    attention_norm: norm(),
                    intermediate: LinearConfig::new(self.hidden_size, self.intermediate_size)
                        .init(device),
                    output: LinearConfig::new(self.intermediate_size, self.hidden_size)
                        .init(device),
                    output_norm: norm(),
                    dropout: new_dropout(),
                })
                .collect(),
            classifier: LinearConfig::new(self.hidden_size, self.num_labels).init(device),
            dropout: new_dropout(),
        }
    }
}

/// BERT's input layer: the sum of a piece's word, position and segment-type embeddings,
/// normalised, with dropout in training.
#[derive(Module, Debug)]
pub struct BertEmbeddings {
    /// `[vocab_size, hidden]`.
    pub word_embeddings: Embedding,
    /// `[max_position_embeddings, hidden]`.
    pub position_embeddings: Embedding,
    /// `[type_vocab_size, hidden]`.
    pub token_type_embeddings: Embedding,
    /// Normalises the sum.
    pub layer_norm: LayerNorm,
    /// Applied after the normalisation, in training.
    pub dropout: Dropout,
}

/// One encoder layer (post-norm, as BERT): self-attention, then a feed-forward block, each
/// followed by dropout, a residual sum and a layer norm.
#[derive(Module, Debug)]
pub struct BertLayer {
    /// Self-attention over the sequence; its projections are run by [`linear_rows`].
    pub attention: MultiHeadAttention,
    /// Normalises the attention output plus its input.
    pub attention_norm: LayerNorm,
    /// `hidden → intermediate`, then the exact gelu.
    pub intermediate: Linear,
    /// `intermediate → hidden`.
    pub output: Linear,
    /// Normalises the feed-forward output plus its input.
    pub output_norm: LayerNorm,
    /// On the attention and feed-forward outputs, in training.
    pub dropout: Dropout,
}

impl BertLayer {
    /// `[batch, seq, hidden]` → `[batch, seq, hidden]`, padding masked out of attention.
    pub fn forward(&self, hidden: Tensor<3>, padding: &PaddingMask) -> Tensor<3> {
        self.forward_with(hidden, padding, None)
    }

    /// [`BertLayer::forward`], its six linear maps in int8 where `int8` is given (CPU
    /// inference).
    pub fn forward_with(
        &self,
        hidden: Tensor<3>,
        padding: &PaddingMask,
        int8: Option<&Int8Layer>,
    ) -> Tensor<3> {
        let attended = self_attention(&self.attention, hidden.clone(), padding, int8);
        let hidden = self
            .attention_norm
            .forward(dropout(&self.dropout, attended) + hidden);
        let output = match int8 {
            Some(int8) => {
                // The GELU's output goes from the kernel's cache to the next product's bytes.
                let intermediate = int8
                    .intermediate
                    .forward_quantized(&quantize(&hidden), true);
                int8_rows(&int8.output, &intermediate, &hidden, false)
            }
            None => {
                let intermediate = gelu(linear_rows(&self.intermediate, hidden.clone()));
                dropout(&self.dropout, linear_rows(&self.output, intermediate))
            }
        };
        self.output_norm.forward(output + hidden)
    }
}

/// One encoder layer's linear maps in int8 ([`crate::int8`]).
#[derive(Debug, Clone)]
pub struct Int8Layer {
    query: Int8Linear,
    key: Int8Linear,
    value: Int8Linear,
    attention_output: Int8Linear,
    intermediate: Int8Linear,
    output: Int8Linear,
}

/// The encoder's linear maps in int8, layer by layer: what CPU inference at `int8` precision
/// computes them with (embeddings, layer norms, attention scores and the head stay in f32).
#[derive(Debug, Clone)]
pub struct Int8Encoder {
    layers: Vec<Int8Layer>,
}

impl Int8Encoder {
    /// Quantizes every encoder layer's weights per output column.
    pub fn quantize(model: &BertTagger) -> Self {
        let layers = model
            .layers
            .iter()
            .map(|layer| Int8Layer {
                query: quantize_linear(&layer.attention.query),
                key: quantize_linear(&layer.attention.key),
                value: quantize_linear(&layer.attention.value),
                attention_output: quantize_linear(&layer.attention.output),
                intermediate: quantize_linear(&layer.intermediate),
                output: quantize_linear(&layer.output),
            })
            .collect();
        Int8Encoder { layers }
    }

    /// `model` and its int8 encoder (`int8`, if any) switched to `precision`: to int8, the
    /// weights are quantized per output column and the model's f32 weights become the values
    /// they stand for (so a device without the int8 path computes the same model); back to f32,
    /// the int8 encoder goes and the model keeps those values. What `Tagger` and
    /// `TextClassifier` do on `with_precision`.
    pub fn switch(
        model: BertTagger,
        int8: Option<Int8Encoder>,
        precision: Precision,
    ) -> (BertTagger, Option<Int8Encoder>) {
        match (precision, int8) {
            (Precision::F32, _) => (model, None),
            (Precision::Int8, Some(int8)) => (model, Some(int8)),
            (Precision::Int8, None) => {
                let int8 = Int8Encoder::quantize(&model);
                (int8.dequantize_into(model), Some(int8))
            }
        }
    }

    /// The model with its encoder's linear weights replaced by what the int8 ones stand for
    /// (`q · s`): what a device without the int8 path computes, and what a checkpoint of this
    /// precision stores (quantizing those weights again gives the same integers).
    pub fn dequantize_into(&self, mut model: BertTagger) -> BertTagger {
        fn put(linear: Linear, int8: &Int8Linear) -> Linear {
            let device = linear.weight.device();
            let weight = Tensor::<2>::from_data(
                burn::tensor::TensorData::new(
                    int8.dequantized(),
                    [int8.in_features(), int8.out_features()],
                ),
                &device,
            );
            Linear {
                weight: burn::module::Param::from_tensor(weight),
                ..linear
            }
        }
        for (layer, int8) in model.layers.iter_mut().zip(&self.layers) {
            let attention = &mut layer.attention;
            attention.query = put(attention.query.clone(), &int8.query);
            attention.key = put(attention.key.clone(), &int8.key);
            attention.value = put(attention.value.clone(), &int8.value);
            attention.output = put(attention.output.clone(), &int8.attention_output);
            layer.intermediate = put(layer.intermediate.clone(), &int8.intermediate);
            layer.output = put(layer.output.clone(), &int8.output);
        }
        model
    }
}

fn quantize_linear(linear: &Linear) -> Int8Linear {
    let [input, output] = linear.weight.dims();
    let weights = host_values(linear.weight.val());
    let bias = linear.bias.as_ref().map(|b| host_values(b.val()));
    Int8Linear::quantize(&weights, bias.as_deref(), input, output)
}

/// `[batch, seq, features]` quantized row by row.
fn quantize(input: &Tensor<3>) -> QuantizedRows {
    let [_, _, features] = input.dims();
    QuantizedRows::quantize(&host_values(input.clone()), features)
}

/// An int8 linear map of quantized rows, shaped as `like`'s `[batch, seq, ·]` on its device.
fn int8_rows(layer: &Int8Linear, input: &QuantizedRows, like: &Tensor<3>, gelu: bool) -> Tensor<3> {
    let [batch, seq, _] = like.dims();
    let mut out = vec![0f32; input.rows() * layer.out_features()];
    layer.forward(input, &mut out, gelu);
    Tensor::from_data(
        burn::tensor::TensorData::new(out, [batch, seq, layer.out_features()]),
        &like.device(),
    )
}

/// The padding of a batch in the shape each attention path wants, built once per forward pass
/// and shared by every layer.
#[derive(Debug, Clone)]
pub struct PaddingMask {
    /// `[batch, 1, 1, seq]`, true on padding: broadcast over heads and query rows.
    keys: Tensor<4, Bool>,
    /// `[batch, 1, seq, seq]`, true on padding keys: what burn's fused attention op reads
    /// (broadcast over heads only). Built at inference on the CPU, where that op runs.
    fused: Option<Tensor<4, Bool>>,
}

impl PaddingMask {
    /// `padding` is `[batch, seq]`, true on padding positions. `fused` asks for the layout of
    /// burn's fused attention op (inference only: it has no dropout and no backward pass).
    pub fn new(padding: Tensor<2, Bool>, fused: bool) -> Self {
        let [batch, seq] = padding.dims();
        let keys = padding.reshape([batch, 1, 1, seq]);
        let fused = fused.then(|| keys.clone().expand([batch, 1, seq, seq]));
        Self { keys, fused }
    }
}

/// Burn's multi-head self-attention with a padding mask, its projections run as [`linear_rows`].
/// Same weights and operations (scores scaled by 1/√d_k, padding masked, softmax, attention
/// dropout) as `MultiHeadAttention::forward`; at inference on the CPU, the scores, mask,
/// softmax and weighted sum are burn's fused `attention` op (one pass per head over all cores,
/// no `[batch, heads, seq, seq]` tensors between steps), as Hugging Face's BERT uses SDPA.
///
/// `[batch, seq, hidden]` → `[batch, seq, hidden]`.
fn self_attention(
    mha: &MultiHeadAttention,
    hidden: Tensor<3>,
    padding: &PaddingMask,
    int8: Option<&Int8Layer>,
) -> Tensor<3> {
    let [batch, seq, d_model] = hidden.dims();
    let split = |projected: Tensor<3>| {
        projected
            .reshape([batch, seq, mha.n_heads, mha.d_k])
            .swap_dims(1, 2)
    };
    let (query, key, value) = match int8 {
        Some(int8) => {
            // One quantization of the input serves the three projections.
            let rows = quantize(&hidden);
            (
                split(int8_rows(&int8.query, &rows, &hidden, false)),
                split(int8_rows(&int8.key, &rows, &hidden, false)),
                split(int8_rows(&int8.value, &rows, &hidden, false)),
            )
        }
        None => (
            split(linear_rows(&mha.query, hidden.clone())),
            split(linear_rows(&mha.key, hidden.clone())),
            split(linear_rows(&mha.value, hidden.clone())),
        ),
    };
    let context = match &padding.fused {
        Some(mask) => module::attention(
            query,
            key,
            value,
            Some(mask.clone()),
            None,
            AttentionModuleOptions::default(),
        ),
        None => {
            let scores = query
                .matmul(key.transpose())
                .div_scalar((mha.d_k as f32).sqrt())
                .mask_fill(padding.keys.clone(), mha.min_float);
            dropout(&mha.dropout, softmax(scores, 3)).matmul(value)
        }
    };
    let context = context.swap_dims(1, 2).reshape([batch, seq, d_model]);
    match int8 {
        Some(int8) => int8_rows(&int8.attention_output, &quantize(&context), &context, false),
        None => linear_rows(&mha.output, context),
    }
}

/// A linear layer over every position at once: `[batch, seq, in]` → `[batch, seq, out]` as one
/// `[batch·seq, in] × [in, out]` product. Burn's `Linear` on a 3-d input broadcasts the weight
/// to a batched product, which the CPU backend runs as one single-threaded GEMM per batch row,
/// packing the weight each time.
pub fn linear_rows(linear: &Linear, input: Tensor<3>) -> Tensor<3> {
    let [batch, seq, features] = input.dims();
    let output = linear.forward(input.reshape([batch * seq, features]));
    let [_, out] = output.dims();
    output.reshape([batch, seq, out])
}

/// BERT with a token-classification head.
#[derive(Module, Debug)]
pub struct BertTagger {
    /// The input layer.
    pub embeddings: BertEmbeddings,
    /// The encoder layers, in order.
    pub layers: Vec<BertLayer>,
    /// The head: `[hidden, num_labels]` (burn's linear weights are `[input, output]`).
    pub classifier: Linear,
    /// On the last hidden states before the head, in training.
    pub dropout: Dropout,
}

impl BertTagger {
    /// The encoder's last hidden states.
    ///
    /// - `input_ids`: `[batch, seq]` word-piece ids (`[CLS] … [SEP]`, then padding);
    /// - `padding`: `[batch, seq]`, true on padding positions (masked out of attention);
    /// - returns `[batch, seq, hidden]`.
    pub fn encode(&self, input_ids: Tensor<2, Int>, padding: Tensor<2, Bool>) -> Tensor<3> {
        self.encode_with(input_ids, padding, None)
    }

    /// [`BertTagger::encode`], the encoder's linear maps in int8 where `int8` is given and the
    /// model is on the CPU (the int8 kernels are the CPU's; elsewhere the f32 weights hold the
    /// same values: see [`Int8Encoder`]).
    pub fn encode_with(
        &self,
        input_ids: Tensor<2, Int>,
        padding: Tensor<2, Bool>,
        int8: Option<&Int8Encoder>,
    ) -> Tensor<3> {
        let [batch, seq] = input_ids.dims();
        let device = input_ids.device();
        let positions = Tensor::<1, Int>::arange(0..seq as i64, &device)
            .reshape([1, seq])
            .repeat_dim(0, batch);
        let token_types = Tensor::<2, Int>::zeros([batch, seq], &device);
        let e = &self.embeddings;
        let embedded = e.word_embeddings.forward(input_ids)
            + e.position_embeddings.forward(positions)
            + e.token_type_embeddings.forward(token_types);
        let mut hidden = dropout(&e.dropout, e.layer_norm.forward(embedded));
        // burn's fused attention has no dropout and no backward pass: inference only.
        let on_cpu = crate::device::is_cpu(&device);
        let fused = !hidden.is_autodiff() && on_cpu;
        let padding = PaddingMask::new(padding, fused);
        let int8 = int8.filter(|_| on_cpu);
        for (index, layer) in self.layers.iter().enumerate() {
            let int8 = int8.and_then(|int8| int8.layers.get(index));
            hidden = layer.forward_with(hidden, &padding, int8);
        }
        hidden
    }

    /// Label logits: `[batch, seq]` ids and padding → `[batch, seq, num_labels]`.
    pub fn forward(&self, input_ids: Tensor<2, Int>, padding: Tensor<2, Bool>) -> Tensor<3> {
        self.forward_with(input_ids, padding, None)
    }

    /// [`BertTagger::forward`] with [`BertTagger::encode_with`]'s int8 encoder.
    pub fn forward_with(
        &self,
        input_ids: Tensor<2, Int>,
        padding: Tensor<2, Bool>,
        int8: Option<&Int8Encoder>,
    ) -> Tensor<3> {
        let hidden = self.encode_with(input_ids, padding, int8);
        linear_rows(&self.classifier, dropout(&self.dropout, hidden))
    }
}
