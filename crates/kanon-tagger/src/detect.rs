//! `kanon detect` as a job: a trained tagger finds the spans to mask in documents and writes them
//! as spans JSONL ([`kanon_core::spans::SpansRecord`]) or in TAB's system format.

use std::path::PathBuf;
use std::time::Instant;

use burn::tensor::Device;
use kanon_core::Progress;
use kanon_core::config::ConfigFile;
use kanon_core::shard::{OutputKind, Shard, ShardRecord};
use kanon_core::spans::{SpanRecord, SpansRecord, write_spans, write_system_format};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::inference::{Decision, LowercaseWords, Tagger};

/// How detection decides and tidies.
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

/// Documents in, spans out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DetectJob {
    /// A checkpoint directory written by `kanon train`.
    pub model: PathBuf,
    /// Documents: JSONL `{"id","text"}` or a TAB-schema JSON array.
    pub docs: PathBuf,
    /// The spans file to write (atomically).
    pub out: PathBuf,
    /// The spans file's form.
    #[serde(default)]
    pub format: SpansFormat,
    /// How to decide and tidy.
    #[serde(default)]
    pub config: DetectConfig,
    /// Only part `I/N` of the documents (a batch scheduler's array task); `kanon merge` joins
    /// the parts' spans into the spans of one run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
}

impl DetectJob {}

impl ConfigFile for DetectJob {}

/// What a detection run found.
#[derive(Debug, Clone, PartialEq)]
pub struct DetectSummary {
    /// Documents read (of this run's part, for a shard).
    pub documents: usize,
    /// Spans written, over all documents.
    pub spans: usize,
    /// Wall time from loading the documents to writing the spans.
    pub seconds: f64,
    /// The spans file written.
    pub out: PathBuf,
}

impl DetectSummary {
    /// What a person reads: the headline, on a line of its own.
    pub fn render(&self) -> String {
        format!("{}\n", self.headline())
    }

    /// One line: spans, documents, time and throughput, the file.
    pub fn headline(&self) -> String {
        format!(
            "detected {} spans in {} documents in {:.1}s ({:.1} docs/s) -> {}",
            self.spans,
            self.documents,
            self.seconds,
            self.documents as f64 / self.seconds.max(1e-9),
            self.out.display()
        )
    }
}

/// Documents per call of [`Tagger::predict_many`]: their windows share forward passes, and the
/// progress moves between calls.
const DOCUMENTS_PER_PASS: usize = 64;

/// Loads the tagger on `device`, detects the spans of every document and writes them atomically.
pub fn run(job: &DetectJob, device: &Device, progress: &dyn Progress) -> Result<DetectSummary> {
    let config = &job.config;
    config.validate().map_err(Error::Setting)?;
    let tagger = Tagger::load(&job.model, device)?
        .with_decision(config.decision())
        .with_tidy(config.tidy)
        .with_person_confidence(config.person_confidence)
        .with_min_score(config.min_score)
        .with_lowercase_min_score(config.lowercase_min_score)
        .with_lowercase_words(config.lowercase_words);
    let mut docs = kanon_core::io::read_documents(&job.docs)?.docs;
    let part = kanon_core::shard::keep_part(&mut docs, job.shard);
    progress.stage("detect", docs.len() as u64);
    let started = Instant::now();
    let mut detected = Vec::with_capacity(docs.len());
    for group in docs.chunks(DOCUMENTS_PER_PASS) {
        let texts: Vec<&str> = group.iter().map(|d| d.text.as_str()).collect();
        let spans_per_doc = tagger.predict_many(&texts, config.token_budget)?;
        for (doc, spans) in group.iter().zip(spans_per_doc) {
            detected.push(SpansRecord {
                id: doc.id.clone(),
                spans: spans
                    .into_iter()
                    .map(|(span, entity_type, score)| SpanRecord {
                        label: Some("MASK".into()),
                        entity_type,
                        score: Some(score),
                        ..SpanRecord::new(span.start, span.end)
                    })
                    .collect(),
            });
        }
        progress.advance(group.len() as u64);
    }
    kanon_core::io::atomic_write(&job.out, |w| match job.format {
        SpansFormat::Jsonl => write_spans(w, &detected),
        SpansFormat::Tab => write_system_format(w, &detected),
    })?;
    let kind = match job.format {
        SpansFormat::Jsonl => OutputKind::Spans,
        SpansFormat::Tab => OutputKind::SpansTab,
    };
    match &part {
        Some(part) => ShardRecord::new(
            kind,
            part,
            &job.docs,
            kanon_core::shard::settings_of(job, &["out", "shard", "docs"]),
        )
        .write(&job.out)?,
        None => ShardRecord::remove_stale(&job.out, kind)?,
    }
    Ok(DetectSummary {
        documents: docs.len(),
        spans: detected.iter().map(|d| d.spans.len()).sum(),
        seconds: started.elapsed().as_secs_f64(),
        out: job.out.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_config_and_the_job_round_trip_through_their_file_forms() {
        let dir = tempfile::tempdir().unwrap();
        let job = DetectJob {
            model: "checkpoints/minilm".into(),
            docs: "docs.jsonl".into(),
            out: "spans.jsonl".into(),
            format: SpansFormat::Tab,
            config: DetectConfig {
                threshold: Some(0.05),
                tidy: false,
                token_budget: 2048,
                person_confidence: 0.5,
                min_score: 0.1,
                lowercase_min_score: 1.5,
                lowercase_words: LowercaseWords::Last,
            },
            shard: Some("1/4".parse().unwrap()),
        };
        for name in ["detect.toml", "detect.json"] {
            let path = dir.path().join(name);
            job.save(&path).unwrap();
            assert_eq!(DetectJob::load(&path).unwrap(), job);
            job.config.save(&path).unwrap();
            assert_eq!(DetectConfig::load(&path).unwrap(), job.config);
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
