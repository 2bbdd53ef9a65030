//! The tagger on tiny random configurations: shapes, padding, the loss, a training run that lowers
//! it, and clear errors for checkpoints with missing or mis-shaped tensors.
#![allow(clippy::unwrap_used, clippy::print_stderr)]

use std::path::Path;

use burn::optim::AdamWConfig;
use burn::tensor::{Bool, Device, Int, Tensor, TensorData};
use kanon_tagger::dataset::Batch;
use kanon_tagger::model::BertConfig;
use kanon_tagger::train::{masked_cross_entropy, train_step};
use kanon_tagger::weights::load_pretrained;

fn tiny() -> BertConfig {
    BertConfig::new(40, 16, 2, 2, 32)
        .with_max_position_embeddings(32)
        .with_num_labels(3)
}

fn ints(values: Vec<i64>, shape: [usize; 2], device: &Device) -> Tensor<2, Int> {
    Tensor::from_data(TensorData::new(values, shape), device)
}

fn bools(values: Vec<bool>, shape: [usize; 2], device: &Device) -> Tensor<2, Bool> {
    Tensor::from_data(TensorData::new(values, shape), device)
}

#[test]
fn padding_does_not_change_the_other_positions() {
    let device = Device::flex();
    device.seed(7);
    let model = tiny()
        .with_hidden_dropout_prob(0.0)
        .with_attention_probs_dropout_prob(0.0)
        .init(&device);
    let short = model.forward(
        ints(vec![2, 7, 9, 3], [1, 4], &device),
        bools(vec![false; 4], [1, 4], &device),
    );
    let padded = model.forward(
        ints(vec![2, 7, 9, 3, 0, 0], [1, 6], &device),
        bools(
            vec![false, false, false, false, true, true],
            [1, 6],
            &device,
        ),
    );
    assert_eq!(padded.dims(), [1, 6, 3]);
    let a: Vec<f32> = short.into_data().try_to_vec::<f32>().unwrap();
    let b: Vec<f32> = padded.into_data().try_to_vec::<f32>().unwrap();
    for (x, y) in a.iter().zip(&b[..a.len()]) {
        assert!((x - y).abs() < 1e-5, "{x} vs {y}");
    }
}

#[test]
fn the_loss_ignores_unlabeled_pieces_and_weighs_classes() {
    let device = Device::flex();
    // One sequence of two pieces, three labels; the second piece is unlabeled.
    let logits = Tensor::<3>::from_data(
        TensorData::new(vec![2.0f32, 0.0, 0.0, 0.0, 5.0, 0.0], [1, 2, 3]),
        &device,
    );
    let targets = ints(vec![0, 2], [1, 2], &device);
    let labeled = bools(vec![true, false], [1, 2], &device);
    let ones = Tensor::<1>::ones([3], &device);
    let loss = masked_cross_entropy(logits.clone(), targets.clone(), labeled.clone(), ones)
        .into_scalar::<f32>();
    let expected = -(2f32.exp() / (2f32.exp() + 2.0)).ln();
    assert!((loss - expected).abs() < 1e-5, "{loss} vs {expected}");
    // Weights are normalised: scaling every class weight leaves the loss unchanged.
    let threes = Tensor::<1>::ones([3], &device).mul_scalar(3.0);
    let scaled = masked_cross_entropy(logits, targets, labeled, threes).into_scalar::<f32>();
    assert!((loss - scaled).abs() < 1e-5);
}

#[test]
fn a_few_adamw_steps_lower_the_loss() {
    let device = Device::flex().autodiff();
    device.seed(7);
    let mut model = tiny().init(&device);
    let mut optimizer = AdamWConfig::new().init();
    let ids = ints(
        (0..24).map(|i| 4 + (i * 7) % 30).collect(),
        [2, 12],
        &device,
    );
    let padding = bools(vec![false; 24], [2, 12], &device);
    let targets = ints(
        (0..24)
            .map(|i| i64::from(i % 5 == 0) + i64::from(i % 7 == 0))
            .collect(),
        [2, 12],
        &device,
    );
    let labeled = bools(vec![true; 24], [2, 12], &device);
    let weights = Tensor::<1>::from_data(TensorData::new(vec![1.0f32, 2.0, 2.0], [3]), &device);
    let batch = Batch {
        input_ids: ids,
        padding,
        targets,
        labeled,
        tokens: 24,
    };
    let mut losses = Vec::new();
    for _ in 0..30 {
        let (next, loss) = train_step(model, &mut optimizer, 3e-3, &batch, &weights);
        model = next;
        losses.push(loss);
    }
    eprintln!("loss {:.3} -> {:.3}", losses[0], losses[losses.len() - 1]);
    assert!(losses.iter().all(|l| l.is_finite()));
    assert!(losses[losses.len() - 1] < 0.5 * losses[0], "{losses:?}");
}

/// Writes a safetensors file by hand: `(name, shape)` tensors filled with zeros.
fn write_safetensors(path: &Path, tensors: &[(String, Vec<usize>)]) {
    let mut header = serde_json::Map::new();
    let mut offset = 0usize;
    for (name, shape) in tensors {
        let bytes = 4 * shape.iter().product::<usize>();
        header.insert(
            name.clone(),
            serde_json::json!({"dtype": "F32", "shape": shape, "data_offsets": [offset, offset + bytes]}),
        );
        offset += bytes;
    }
    let header = serde_json::Value::Object(header).to_string();
    let mut out = (header.len() as u64).to_le_bytes().to_vec();
    out.extend_from_slice(header.as_bytes());
    out.extend(std::iter::repeat_n(0u8, offset));
    std::fs::write(path, out).unwrap();
}

/// The tensors of a Hugging Face checkpoint of the tiny configuration.
fn hf_tensors() -> Vec<(String, Vec<usize>)> {
    let mut t = vec![
        ("embeddings.word_embeddings.weight".to_owned(), vec![40, 16]),
        (
            "embeddings.position_embeddings.weight".to_owned(),
            vec![32, 16],
        ),
        (
            "embeddings.token_type_embeddings.weight".to_owned(),
            vec![2, 16],
        ),
        ("embeddings.LayerNorm.weight".to_owned(), vec![16]),
        ("embeddings.LayerNorm.bias".to_owned(), vec![16]),
    ];
    for layer in 0..2 {
        let p = |s: &str| format!("encoder.layer.{layer}.{s}");
        for name in [
            "attention.self.query",
            "attention.self.key",
            "attention.self.value",
            "attention.output.dense",
        ] {
            t.push((p(&format!("{name}.weight")), vec![16, 16]));
            t.push((p(&format!("{name}.bias")), vec![16]));
        }
        t.push((p("intermediate.dense.weight"), vec![32, 16]));
        t.push((p("intermediate.dense.bias"), vec![32]));
        t.push((p("output.dense.weight"), vec![16, 32]));
        t.push((p("output.dense.bias"), vec![16]));
        for norm in ["attention.output.LayerNorm", "output.LayerNorm"] {
            t.push((p(&format!("{norm}.weight")), vec![16]));
            t.push((p(&format!("{norm}.bias")), vec![16]));
        }
    }
    t
}

fn checkpoint(dir: &Path, tensors: &[(String, Vec<usize>)]) {
    std::fs::write(
        dir.join("config.json"),
        r#"{"vocab_size": 40, "hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 2,
            "intermediate_size": 32, "max_position_embeddings": 32, "hidden_act": "gelu"}"#,
    )
    .unwrap();
    write_safetensors(&dir.join("model.safetensors"), tensors);
}

#[test]
fn complete_checkpoints_load_and_broken_ones_are_named() {
    let device = Device::flex();
    let dir = tempfile::tempdir().unwrap();
    checkpoint(dir.path(), &hf_tensors());
    let (config, _) = load_pretrained(dir.path(), 3, &device).unwrap();
    assert_eq!(config.num_hidden_layers, 2);

    let mut missing = hf_tensors();
    missing.retain(|(n, _)| n != "encoder.layer.1.intermediate.dense.weight");
    checkpoint(dir.path(), &missing);
    let err = load_pretrained(dir.path(), 3, &device)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("model.safetensors") && err.contains("layers.1.intermediate.weight"),
        "{err}"
    );

    let mut misshaped = hf_tensors();
    misshaped[0].1 = vec![41, 16];
    checkpoint(dir.path(), &misshaped);
    let err = load_pretrained(dir.path(), 3, &device)
        .unwrap_err()
        .to_string();
    assert!(err.contains("word_embeddings"), "{err}");

    std::fs::remove_file(dir.path().join("model.safetensors")).unwrap();
    let err = load_pretrained(dir.path(), 3, &device)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("model.safetensors") && err.contains("missing"),
        "{err}"
    );
}
