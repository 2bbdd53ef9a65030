//! Pretrained weights from a Hugging Face BERT checkpoint directory (`config.json`,
//! `model.safetensors`, `tokenizer.json`), with an explicit map from its tensor names to kanon's.

use std::path::Path;

use burn::module::Module;
use burn::store::{ModuleSnapshot, PyTorchToBurnAdapter, SafetensorsStore, SafetensorsStoreError};
use burn::tensor::Device;

use crate::error::{Error, Result};
use crate::model::{BertConfig, BertTagger};

/// Hugging Face name (regex) → kanon name. `PyTorchToBurnAdapter` then transposes linear weights
/// and renames normalisation `weight`/`bias` to `gamma`/`beta`.
pub const KEY_MAP: &[(&str, &str)] = &[
    (r"^bert\.", ""),
    (r"^embeddings\.LayerNorm\.", "embeddings.layer_norm."),
    (
        r"^encoder\.layer\.([0-9]+)\.attention\.self\.query\.",
        "layers.$1.attention.query.",
    ),
    (
        r"^encoder\.layer\.([0-9]+)\.attention\.self\.key\.",
        "layers.$1.attention.key.",
    ),
    (
        r"^encoder\.layer\.([0-9]+)\.attention\.self\.value\.",
        "layers.$1.attention.value.",
    ),
    (
        r"^encoder\.layer\.([0-9]+)\.attention\.output\.dense\.",
        "layers.$1.attention.output.",
    ),
    (
        r"^encoder\.layer\.([0-9]+)\.attention\.output\.LayerNorm\.",
        "layers.$1.attention_norm.",
    ),
    (
        r"^encoder\.layer\.([0-9]+)\.intermediate\.dense\.",
        "layers.$1.intermediate.",
    ),
    (
        r"^encoder\.layer\.([0-9]+)\.output\.dense\.",
        "layers.$1.output.",
    ),
    (
        r"^encoder\.layer\.([0-9]+)\.output\.LayerNorm\.",
        "layers.$1.output_norm.",
    ),
];

/// Loads a checkpoint directory's encoder into a new tagger with `num_labels` labels. The
/// classifier stays freshly initialised unless the checkpoint has one (`classifier.*`). Missing
/// encoder tensors or tensors of the wrong shape are an error naming them.
pub fn load_pretrained(
    dir: &Path,
    num_labels: usize,
    device: &Device,
) -> Result<(BertConfig, BertTagger)> {
    let config = BertConfig::from_hf_file(&dir.join("config.json"), num_labels)?;
    // The fresh classifier is drawn on the CPU, whatever the device: each backend has its own
    // random stream, and a seed must give the same initial model on every device.
    let on_cpu = crate::device::is_cpu(device);
    let init_device = if device.is_autodiff() {
        Device::flex().autodiff()
    } else {
        Device::flex()
    };
    let mut model = config.init(&init_device);
    let path = dir.join("model.safetensors");
    if !path.is_file() {
        return Err(Error::Weights {
            path,
            problem: "missing (a BERT checkpoint directory holds config.json, model.safetensors and tokenizer.json)".into(),
        });
    }
    let mut store = SafetensorsStore::from_file(&path)
        .with_from_adapter(PyTorchToBurnAdapter)
        .allow_partial(true);
    for (from, to) in KEY_MAP {
        store = store.with_key_remapping(*from, *to);
    }
    let result = model.load_from(&mut store).map_err(weights_error(&path))?;
    let missing: Vec<&str> = result
        .missing
        .iter()
        .map(|(name, _)| name.as_str())
        .filter(|name| !name.starts_with("classifier."))
        .collect();
    if !missing.is_empty() || !result.errors.is_empty() {
        let errors: Vec<String> = result.errors.iter().map(|e| format!("{e:?}")).collect();
        return Err(Error::Weights {
            path,
            problem: format!(
                "missing tensors: [{}]; errors: [{}]",
                missing.join(", "),
                errors.join("; ")
            ),
        });
    }
    let model = if on_cpu {
        model
    } else {
        // Parameters are drawn lazily, on first use: draw the head here, on the CPU.
        let _ = model.classifier.weight.val();
        if let Some(bias) = &model.classifier.bias {
            let _ = bias.val();
        }
        // `fork`, not `to_device`: the parameters stay leaves of the autodiff graph.
        model.fork(device)
    };
    Ok((config, model))
}

/// Loads a checkpoint directory that kanon wrote (`config.json` beside `model.safetensors`, under
/// burn's names): every tensor must be there and fit.
pub fn load_checkpoint(dir: &Path, device: &Device) -> Result<(BertConfig, BertTagger)> {
    use kanon_core::PathContext;
    let config_path = dir.join(crate::checkpoint::MODEL_CONFIG_FILE);
    let text = std::fs::read_to_string(&config_path).with_path(&config_path)?;
    let config: BertConfig = serde_json::from_str(&text).map_err(|e| Error::Config {
        path: config_path,
        message: format!("model config: {e}"),
    })?;
    let mut model = config.init(device);
    let weights = dir.join(crate::checkpoint::WEIGHTS_FILE);
    let mut store = SafetensorsStore::from_file(&weights);
    let result = model
        .load_from(&mut store)
        .map_err(weights_error(&weights))?;
    if !result.missing.is_empty() || !result.errors.is_empty() {
        return Err(Error::Weights {
            path: weights,
            problem: format!(
                "{} missing tensors, {} errors",
                result.missing.len(),
                result.errors.len()
            ),
        });
    }
    Ok((config, model))
}

/// A safetensors file whose tensors do not fit the model (a missing tensor, a wrong shape) is a
/// [`Error::Weights`] problem saying which; one that cannot be read at all keeps the store's
/// error as its source.
pub fn weights_error(path: &Path) -> impl FnOnce(SafetensorsStoreError) -> Error + '_ {
    move |error| match error {
        SafetensorsStoreError::ValidationFailed(problem)
        | SafetensorsStoreError::TensorNotFound(problem) => Error::Weights {
            path: path.to_owned(),
            problem,
        },
        other => Error::store(path, "read the weights")(other),
    }
}
