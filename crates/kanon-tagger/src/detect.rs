//! Detection's settings: how a trained tagger decides, tidies and batches ([`DetectConfig`]), and
//! the form of the spans file ([`SpansFormat`]). Running a tagger over a documents file is
//! `kanon_detect::job::run`'s, with every other detector: `kanon_detect::tagger` wraps a
//! [`Tagger`] loaded by [`DetectConfig::load_tagger`].

use std::path::Path;

use burn::tensor::Device;
use kanon_core::config::ConfigFile;
use serde::{Deserialize, Serialize};

use crate::checkpoint::Precision;
use crate::error::{Error, Result};
use crate::inference::{Decision, LowercaseWords, Tagger};

/// How detection decides and tidies. A detect config file (`--config`, `configs/detect.toml`), and
/// the tagger's keys of a run config's `[detect.method]`, which flattens it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DetectConfig {
    /// Mask a word piece when its probability of not being `O` reaches this value; absent: the
    /// most probable label. Below 0.5 trades precision for recall.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub threshold: Option<f32>,
    /// Widen spans to whole words and join neighbours separated only by spaces; off keeps the
    /// decoded word-piece spans.
    pub tidy: bool,
    /// Padded word pieces per forward pass: windows of several documents are batched by length.
    pub token_budget: usize,
    /// A span typed PERSON whose score (its pieces' mean PERSON probability) is below this is
    /// typed MISC instead: still masked, but generalized by the sanitizer rather than numbered as
    /// a person. A tagger trained on distant labels, where most masks are names, types by the prior
    /// what it masks at a low threshold ("senator", "electrification"); 0 keeps every type.
    pub person_confidence: f32,
    /// Spans scored below this (their pieces' mean probability of the span's type) are dropped
    /// after tidying. A low threshold finds the whole extent of what it masks; this keeps only the
    /// spans the model is sure enough of, trading recall for precision span by span rather than
    /// piece by piece (docs/results/detector.md, "Distant labels without holes"); 0 keeps every span.
    #[serde(skip_serializing_if = "is_zero")]
    pub min_score: f32,
    /// Spans written without a capital letter ("politician", "science fiction") are dropped when
    /// scored below this. Annotators mark names far more often than common nouns: on the wiki553
    /// dev set a third of the tagger's lower-case spans hit a gold mention (docs/results/detector.md, "Distant labels
    /// without holes"); above 1 drops them all. 0 keeps them (the default): a masked occupation
    /// still protects.
    #[serde(skip_serializing_if = "is_zero")]
    pub lowercase_min_score: f32,
    /// Which words make a span lower case for `lowercase_min_score`: `all` (the default) or the
    /// `last`, the phrase's head, so that "Italian football goalkeeper" counts as a common noun
    /// phrase too (docs/results/detector.md, "Distant labels without holes").
    #[serde(skip_serializing_if = "is_default")]
    pub lowercase_words: LowercaseWords,
    /// The arithmetic of the encoder's linear maps: `f32`, or `int8` (weights per output
    /// column, activations per row, on the CPU: docs/benchmarks.md, "Low precision"); absent:
    /// the checkpoint's own (`precision.json`, f32 without one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub precision: Option<Precision>,
}

fn is_default<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}

fn is_zero(value: &f32) -> bool {
    *value == 0.0
}

impl Default for DetectConfig {
    fn default() -> Self {
        DetectConfig {
            threshold: None,
            tidy: true,
            token_budget: 4096,
            person_confidence: DEFAULT_PERSON_CONFIDENCE,
            min_score: 0.0,
            lowercase_min_score: 0.0,
            lowercase_words: LowercaseWords::All,
            precision: None,
        }
    }
}

/// On the wiki553 dev set (a MiniLM tagger of the real-data recipe of docs/results/detector.md, threshold 0.05), the
/// PERSON spans scored below 0.3 were 10 % people and 90 % organisations, roles, events and
/// unannotated words; above it, 79 % people.
pub const DEFAULT_PERSON_CONFIDENCE: f32 = 0.3;

impl ConfigFile for DetectConfig {
    fn check(&self) -> std::result::Result<(), String> {
        self.validate()
    }
}

impl DetectConfig {
    /// The decision rule the threshold stands for.
    pub fn decision(&self) -> Decision {
        match self.threshold {
            None => Decision::Argmax,
            Some(threshold) => Decision::MaskProbability { threshold },
        }
    }

    /// Loads the tagger of checkpoint directory `model` on `device`, deciding and tidying as this
    /// config says (after checking it).
    pub fn load_tagger(&self, model: &Path, device: &Device) -> Result<Tagger> {
        self.validate().map_err(Error::Setting)?;
        let tagger = Tagger::load(model, device)?;
        let precision = self.precision.unwrap_or(tagger.precision());
        Ok(tagger
            .with_precision(precision)
            .with_decision(self.decision())
            .with_tidy(self.tidy)
            .with_person_confidence(self.person_confidence)
            .with_min_score(self.min_score)
            .with_lowercase_min_score(self.lowercase_min_score)
            .with_lowercase_words(self.lowercase_words))
    }

    /// Checks the values a file or the command line may get wrong.
    pub fn validate(&self) -> std::result::Result<(), String> {
        match self.threshold {
            Some(t) if !(0.0..=1.0).contains(&t) => {
                Err(format!("threshold {t} is not a probability (0 to 1)"))
            }
            _ if self.token_budget == 0 => Err("token_budget must be at least 1".into()),
            _ if !(0.0..=1.0).contains(&self.person_confidence) => Err(format!(
                "person_confidence {} is not a probability (0 to 1)",
                self.person_confidence
            )),
            _ if !(0.0..=1.0).contains(&self.min_score) => Err(format!(
                "min_score {} is not a probability (0 to 1)",
                self.min_score
            )),
            _ if self.lowercase_min_score.is_nan() || self.lowercase_min_score < 0.0 => {
                Err(format!(
                    "lowercase_min_score {} is negative (0 keeps lower-case spans, above 1 drops them)",
                    self.lowercase_min_score
                ))
            }
            _ => Ok(()),
        }
    }
}

/// The file form of detected spans.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SpansFormat {
    /// Spans JSONL: `{"id","spans":[{"start","end","label","type","score"}]}` a line.
    #[default]
    Jsonl,
    /// TAB's system format, `{doc_id: [[start, end], …]}`.
    Tab,
}

kanon_core::named_choices!(SpansFormat, "spans format", [Jsonl = "jsonl", Tab = "tab"]);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_config_round_trips_through_its_file_forms() {
        let dir = tempfile::tempdir().unwrap();
        let config = DetectConfig {
            threshold: Some(0.05),
            tidy: false,
            token_budget: 2048,
            person_confidence: 0.5,
            min_score: 0.1,
            lowercase_min_score: 1.5,
            lowercase_words: LowercaseWords::Last,
            precision: Some(Precision::Int8),
        };
        for name in ["detect.toml", "detect.json"] {
            let path = dir.path().join(name);
            config.save(&path).unwrap();
            assert_eq!(DetectConfig::load(&path).unwrap(), config);
        }
        let path = dir.path().join("detect.toml");
        std::fs::write(&path, "threshold = 1.5\n").unwrap();
        let err = DetectConfig::load(&path).unwrap_err().to_string();
        assert!(
            err.contains("detect.toml: threshold 1.5 is not a probability"),
            "{err}"
        );
        std::fs::write(&path, "threshold = 0.1\nmin_score = -0.2\n").unwrap();
        let err = DetectConfig::load(&path).unwrap_err().to_string();
        assert!(err.contains("min_score -0.2 is not a probability"), "{err}");
        std::fs::write(&path, "lowercase_min_score = -1\n").unwrap();
        let err = DetectConfig::load(&path).unwrap_err().to_string();
        assert!(err.contains("lowercase_min_score -1 is negative"), "{err}");
        std::fs::write(&path, "lowercase_words = \"first\"\n").unwrap();
        let err = DetectConfig::load(&path).unwrap_err().to_string();
        assert!(err.contains("lowercase_words"), "{err}");
        // Min scores of 0 keep every span and are left out of the file, as is the default
        // reading of lower case.
        DetectConfig::default().save(&path).unwrap();
        let saved = std::fs::read_to_string(&path).unwrap();
        assert!(!saved.contains("min_score") && !saved.contains("lowercase_words"));
        assert_eq!(DetectConfig::default().decision(), Decision::Argmax);
    }
}
