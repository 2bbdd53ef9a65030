//! A checkpoint directory, written by training and read by `inference::Tagger::load`:
//! the model's shape (`config.json`) beside its weights (`model.safetensors`), the label scheme
//! and windowing (`labels.json`, versioned), the tokenizer (`tokenizer.json`) and the training
//! knobs (`train_config.json`).

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::dataset::Windowing;
use crate::error::{Error, Result};
use crate::labels::LabelScheme;

/// The model's shape ([`crate::model::BertConfig`]).
pub const MODEL_CONFIG_FILE: &str = "config.json";
/// The label scheme, its names and the windowing ([`LabelsFile`]).
pub const LABELS_FILE: &str = "labels.json";
/// The weights, under burn's tensor names (not Hugging Face's: see `weights::load_checkpoint`).
pub const WEIGHTS_FILE: &str = "model.safetensors";
/// The Hugging Face tokenizer, copied from the pretrained model.
pub const TOKENIZER_FILE: &str = "tokenizer.json";
/// The knobs the model was trained with, for the record (nothing reads them back to predict).
pub const TRAIN_CONFIG_FILE: &str = "train_config.json";

/// The precision of the encoder's linear maps ([`PrecisionFile`]); absent: `f32`.
pub const PRECISION_FILE: &str = "precision.json";

/// The format of `precision.json` this kanon writes and reads.
pub const PRECISION_FORMAT_VERSION: u32 = 1;

/// The arithmetic of the encoder's linear maps at inference.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    /// 32-bit floats throughout.
    #[default]
    F32,
    /// 8-bit integer weights per output column and activations per row ([`crate::int8`]),
    /// on the CPU; the rest (embeddings, norms, attention scores, the head) in f32.
    Int8,
}

kanon_core::named_choices!(Precision, "precision", [F32 = "f32", Int8 = "int8"]);

/// `precision.json`: a checkpoint whose weights are the values of a lower precision. Its
/// `model.safetensors` holds those values in f32 (`q · s`), so every device reads it, and
/// quantizing them again on loading gives the same integers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PrecisionFile {
    /// [`PRECISION_FORMAT_VERSION`].
    pub format_version: u32,
    /// The encoder's precision.
    pub precision: Precision,
}

impl PrecisionFile {
    /// The file of a checkpoint at `precision`.
    pub fn new(precision: Precision) -> Self {
        PrecisionFile {
            format_version: PRECISION_FORMAT_VERSION,
            precision,
        }
    }

    /// The precision of checkpoint directory `dir`: its file's, checked, or f32 without one.
    pub fn read_dir(dir: &Path) -> Result<Precision> {
        let path = dir.join(PRECISION_FILE);
        if !path.exists() {
            return Ok(Precision::F32);
        }
        let file: PrecisionFile = kanon_core::config::load(&path)?;
        if file.format_version != PRECISION_FORMAT_VERSION {
            return Err(kanon_core::Error::Version {
                path,
                what: "checkpoint precision",
                found: file.format_version,
                expected: PRECISION_FORMAT_VERSION,
                remedy: "write the checkpoint again with this kanon",
            }
            .into());
        }
        Ok(file.precision)
    }
}

/// The format of `labels.json` this kanon writes and reads.
pub const LABELS_FORMAT_VERSION: u32 = 1;

fn first_labels_version() -> u32 {
    1
}

/// `labels.json`: the label scheme, its names, and the windowing the model was trained with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LabelsFile {
    /// Files written before the format was versioned have no version: they are version 1.
    #[serde(default = "first_labels_version")]
    pub format_version: u32,
    /// The scheme the model's outputs follow.
    pub scheme: LabelScheme,
    /// The label of each output, in order: the scheme's names, checked on reading.
    pub names: Vec<String>,
    /// Pieces per window, `[CLS]` and `[SEP]` included.
    pub max_len: usize,
    /// Pieces shared by consecutive windows.
    pub overlap: usize,
}

impl LabelsFile {
    /// The labels file of a model trained with `scheme` on windows cut by `windowing`.
    pub fn new(scheme: LabelScheme, windowing: Windowing) -> Self {
        LabelsFile {
            format_version: LABELS_FORMAT_VERSION,
            scheme,
            names: scheme.names(),
            max_len: windowing.max_len,
            overlap: windowing.overlap,
        }
    }

    /// The windowing the model was trained with, which inference cuts texts by too.
    pub fn windowing(&self) -> Windowing {
        Windowing {
            max_len: self.max_len,
            overlap: self.overlap,
        }
    }

    /// Reads `labels.json`, checking its version and that its names are its scheme's, in order.
    pub fn read(path: &Path) -> Result<Self> {
        let labels: LabelsFile = kanon_core::config::load(path)?;
        if labels.format_version != LABELS_FORMAT_VERSION {
            return Err(kanon_core::Error::Version {
                path: path.to_owned(),
                what: "checkpoint labels",
                found: labels.format_version,
                expected: LABELS_FORMAT_VERSION,
                remedy: "train the model again with `kanon train`",
            }
            .into());
        }
        if labels.names != labels.scheme.names() {
            return Err(Error::Config {
                path: path.to_owned(),
                message: "the label names are not those of the scheme".into(),
            });
        }
        Ok(labels)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_files_are_versioned() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(LABELS_FILE);
        let labels = LabelsFile::new(LabelScheme::Mask, Windowing::default());
        kanon_core::config::save(&path, &labels).unwrap();
        assert_eq!(LabelsFile::read(&path).unwrap(), labels);

        // Written before versioning: version 1.
        std::fs::write(
            &path,
            r#"{"scheme": "mask", "names": ["O", "B-MASK", "I-MASK"], "max_len": 128, "overlap": 32}"#,
        )
        .unwrap();
        assert_eq!(LabelsFile::read(&path).unwrap(), labels);

        std::fs::write(
            &path,
            r#"{"format_version": 2, "scheme": "mask", "names": [], "max_len": 128, "overlap": 32}"#,
        )
        .unwrap();
        let err = LabelsFile::read(&path).unwrap_err().to_string();
        assert!(err.contains("checkpoint labels format version 2"), "{err}");
    }
}
