//! Helpers for tests (here and in the crates above): a tiny random BERT written as a Hugging Face
//! checkpoint directory, so that loading, training and inference run as they do on real weights.

use std::io::{Error, ErrorKind, Result};
use std::path::Path;

use burn::store::{ModuleSnapshot, SafetensorsStore};
use burn::tensor::Device;

use crate::encoder::write_test_tokenizer;
use crate::model::BertConfig;

fn invalid(message: impl std::fmt::Display) -> Error {
    Error::new(ErrorKind::InvalidData, message.to_string())
}

/// The texts of the first `count` biographies of the bundled sample corpus
/// (`corpora/sample/docs.jsonl`): real prose of many lengths for tests of real weights.
pub fn sample_texts(count: usize) -> Result<Vec<String>> {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpora/sample/docs.jsonl");
    std::fs::read_to_string(&corpus)?
        .lines()
        .take(count)
        .map(|line| {
            let doc: serde_json::Value = serde_json::from_str(line).map_err(invalid)?;
            doc["text"]
                .as_str()
                .map(str::to_owned)
                .ok_or_else(|| invalid(format!("{}: a line without text", corpus.display())))
        })
        .collect()
}

/// Writes `config.json`, `tokenizer.json` (a word-level vocabulary of `words`) and
/// `model.safetensors` (random weights drawn from `seed`, under Hugging Face's names and layout)
/// of a BERT with hidden size 16, one layer and two heads.
pub fn write_tiny_pretrained(dir: &Path, words: &[&str], seed: u64) -> Result<()> {
    write_tiny_pretrained_layers(dir, words, seed, 1)
}

/// [`write_tiny_pretrained`] with `layers` encoder layers (a teacher to distil from).
pub fn write_tiny_pretrained_layers(
    dir: &Path,
    words: &[&str],
    seed: u64,
    layers: usize,
) -> Result<()> {
    std::fs::create_dir_all(dir)?;
    write_test_tokenizer(&dir.join("tokenizer.json"), words)?;
    let n = 5 + words.len();
    std::fs::write(
        dir.join("config.json"),
        serde_json::json!({"vocab_size": n, "hidden_size": 16, "num_hidden_layers": layers, "num_attention_heads": 2,
                           "intermediate_size": 32, "max_position_embeddings": 64, "hidden_act": "gelu"})
        .to_string(),
    )?;
    let device = Device::flex();
    device.seed(seed);
    let model = BertConfig::new(n, 16, layers, 2, 32)
        .with_max_position_embeddings(64)
        .init(&device);
    let burn_file = dir.join("burn.safetensors");
    let mut store = SafetensorsStore::from_file(&burn_file).overwrite(true);
    model
        .save_into(&mut store)
        .map_err(|e| invalid(format!("{e:?}")))?;
    rename_to_hf(&burn_file, &dir.join("model.safetensors"))?;
    std::fs::remove_file(burn_file)
}

/// Rewrites a burn-named safetensors file with Hugging Face names (transposing linear weights).
fn rename_to_hf(from: &Path, to: &Path) -> Result<()> {
    let bytes = std::fs::read(from)?;
    let header_len = bytes
        .get(..8)
        .and_then(|b| b.try_into().ok())
        .map(u64::from_le_bytes)
        .ok_or_else(|| invalid("no safetensors header"))? as usize;
    let header: serde_json::Map<String, serde_json::Value> =
        serde_json::from_slice(&bytes[8..8 + header_len]).map_err(invalid)?;
    let data = &bytes[8 + header_len..];
    let mut out_header = serde_json::Map::new();
    let mut out_data: Vec<u8> = Vec::new();
    for (name, info) in header {
        if name == "__metadata__" {
            continue;
        }
        let Some(hf) = hf_name(&name) else { continue };
        let shape: Vec<usize> = serde_json::from_value(info["shape"].clone()).map_err(invalid)?;
        let [s, e]: [usize; 2] =
            serde_json::from_value(info["data_offsets"].clone()).map_err(invalid)?;
        let mut values: Vec<f32> = data[s..e]
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let mut shape_out = shape.clone();
        if shape.len() == 2 && !name.contains("embeddings") {
            // burn stores linear weights [in, out]; PyTorch [out, in].
            let (rows, cols) = (shape[0], shape[1]);
            let mut t = vec![0f32; values.len()];
            for r in 0..rows {
                for c in 0..cols {
                    t[c * rows + r] = values[r * cols + c];
                }
            }
            values = t;
            shape_out = vec![cols, rows];
        }
        let start = out_data.len();
        for v in values {
            out_data.extend_from_slice(&v.to_le_bytes());
        }
        out_header.insert(hf, serde_json::json!({"dtype": "F32", "shape": shape_out, "data_offsets": [start, out_data.len()]}));
    }
    let header = serde_json::Value::Object(out_header).to_string();
    let mut out = (header.len() as u64).to_le_bytes().to_vec();
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(&out_data);
    std::fs::write(to, out)
}

fn hf_name(burn: &str) -> Option<String> {
    let norm = |s: &str| s.replace(".gamma", ".weight").replace(".beta", ".bias");
    if burn.starts_with("classifier.") {
        return None;
    }
    if let Some(rest) = burn.strip_prefix("embeddings.layer_norm.") {
        return Some(norm(&format!("embeddings.LayerNorm.{rest}")));
    }
    if burn.starts_with("embeddings.") {
        return Some(burn.to_owned());
    }
    let rest = burn.strip_prefix("layers.")?;
    let (layer, tail) = rest.split_once('.')?;
    let mapped = match tail.split_once('.')? {
        ("attention", t) => match t.split_once('.')? {
            ("query" | "key" | "value", _) => format!("attention.self.{t}"),
            ("output", p) => format!("attention.output.dense.{p}"),
            _ => return None,
        },
        ("attention_norm", p) => format!("attention.output.LayerNorm.{p}"),
        ("intermediate", p) => format!("intermediate.dense.{p}"),
        ("output", p) => format!("output.dense.{p}"),
        ("output_norm", p) => format!("output.LayerNorm.{p}"),
        _ => return None,
    };
    Some(norm(&format!("encoder.layer.{layer}.{mapped}")))
}

/// A tagger checkpoint in `out`: the encoder of the pretrained BERT in `pretrained` (a Hugging
/// Face checkpoint directory) with a fresh `scheme` head drawn from `seed`, reading windows of
/// `windowing` — a trained tagger's computation, without training it.
pub fn write_fresh_head_checkpoint(
    pretrained: &Path,
    out: &Path,
    scheme: crate::LabelScheme,
    windowing: crate::dataset::Windowing,
    seed: u64,
) -> crate::error::Result<()> {
    use kanon_core::PathContext;
    let device = Device::flex();
    device.seed(seed);
    let (config, model) =
        crate::weights::load_pretrained(pretrained, scheme.names().len(), &device)?;
    let tokenizer_json = pretrained.join("tokenizer.json");
    let tokenizer = crate::data::TaggerTokenizer::from_file(&tokenizer_json)?;
    let labels = crate::checkpoint::LabelsFile::new(scheme, windowing);
    std::fs::create_dir_all(out).with_path(out)?;
    crate::inference::Tagger::new(model, config, tokenizer, labels, &device)
        .save(out, &tokenizer_json)
}
