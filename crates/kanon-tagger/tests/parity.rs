//! The encoder's hidden states on real MiniLM weights against Hugging Face's `BertModel` in float64
//! (`scripts/bert_reference_hf.py`, committed as a fixture; the independent NumPy forward of
//! `scripts/bert_reference.py` agrees with it to 5e-7). Runs when the weights are cached
//! (`kanon models fetch all-minilm-l6-v2`).
#![allow(clippy::unwrap_used, clippy::print_stderr)]

use burn::tensor::{Bool, Device, Int, Tensor, TensorData};
use kanon_tagger::weights::load_pretrained;

/// Largest absolute difference allowed on any hidden-state component (float32 against float64).
const TOLERANCE: f32 = 1e-4;

#[test]
fn hidden_states_match_the_reference() {
    let Some(dir) = kanon_models::cached_or_skip("all-minilm-l6-v2") else {
        return;
    };
    let fixture: serde_json::Value =
        serde_json::from_str(include_str!("fixtures/minilm_reference.json")).unwrap();
    let ids: Vec<Vec<i64>> = serde_json::from_value(fixture["input_ids"].clone()).unwrap();
    let lengths: Vec<usize> = serde_json::from_value(fixture["lengths"].clone()).unwrap();
    let expected: Vec<Vec<Vec<f32>>> = serde_json::from_value(fixture["hidden"].clone()).unwrap();

    let device = Device::flex();
    let (config, model) = load_pretrained(&dir, 3, &device).unwrap();
    assert_eq!((config.hidden_size, config.num_hidden_layers), (384, 6));
    let (batch, seq) = (ids.len(), ids[0].len());
    let flat: Vec<i64> = ids.iter().flatten().copied().collect();
    let input = Tensor::<2, Int>::from_data(TensorData::new(flat, [batch, seq]), &device);
    let pad: Vec<bool> = lengths
        .iter()
        .flat_map(|&n| (0..seq).map(move |i| i >= n))
        .collect();
    let padding = Tensor::<2, Bool>::from_data(TensorData::new(pad, [batch, seq]), &device);
    let hidden = model.encode(input, padding);
    let values: Vec<f32> = hidden.into_data().try_to_vec::<f32>().unwrap();
    let mut worst = 0f32;
    for (b, sequence) in expected.iter().enumerate() {
        for (s, token) in sequence.iter().enumerate() {
            for (h, &want) in token.iter().enumerate() {
                let got = values[(b * seq + s) * 384 + h];
                worst = worst.max((got - want).abs());
            }
        }
    }
    eprintln!("largest difference from the reference: {worst:e}");
    assert!(worst < TOLERANCE, "hidden states differ by up to {worst:e}");
}
