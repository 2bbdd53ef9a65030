//! Training pieces: the token-classification loss and one optimisation step.

use burn::module::Module;
use burn::optim::{GradientsParams, ModuleOptimizer};
use burn::tensor::activation::log_softmax;
use burn::tensor::{Bool, Int, Tensor};

use crate::model::BertTagger;

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

/// One AdamW (or any optimiser) step on a batch; returns the updated model and the batch loss.
#[allow(clippy::too_many_arguments)]
pub fn train_step(
    model: BertTagger,
    optimizer: &mut ModuleOptimizer,
    learning_rate: f64,
    input_ids: Tensor<2, Int>,
    padding: Tensor<2, Bool>,
    targets: Tensor<2, Int>,
    labeled: Tensor<2, Bool>,
    class_weights: Tensor<1>,
) -> (BertTagger, f32) {
    let logits = model.forward(input_ids, padding);
    let loss = masked_cross_entropy(logits, targets, labeled, class_weights);
    let value = loss.clone().into_scalar::<f32>();
    let grads = GradientsParams::from_grads(loss.backward(), &model);
    (optimizer.step(learning_rate, model, grads), value)
}

/// The model without autodiff, for evaluation and inference.
pub fn for_inference(model: &BertTagger) -> BertTagger {
    model.valid()
}
