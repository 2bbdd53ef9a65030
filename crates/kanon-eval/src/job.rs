//! `kanon eval spans|tab` as a job: gold and predictions in, a report out.

use std::path::PathBuf;

use kanon_core::config::ConfigFile;
use serde::{Deserialize, Serialize};

use std::collections::HashMap;

use crate::error::{Error, Result};
use crate::io::{read_gold, read_predictions};
use crate::privacy::{
    AttackedDocument, Attacker, Background, LexicalAttacker, NeuralAttacker, NeuralAttackerJob,
    PrivacyReport, evaluate_privacy,
};
use crate::spans::{SpanReport, evaluate_spans};
use crate::tab::{TabReport, evaluate_tab, evaluate_tab_weighted};
use crate::tps::TpsEvaluator;
use crate::utility::{UtilityReport, evaluate_utility};
use kanon_core::Progress;

/// Which files to score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvalJob {
    /// TAB-schema JSON (its DIRECT and QUASI mentions are the spans to mask); for span scores
    /// also TAB's system format `{doc_id: [[start, end], …]}`.
    pub gold: PathBuf,
    /// Spans JSONL (`kanon detect`, a kanon corpus split) or TAB's system format.
    pub pred: PathBuf,
    /// The documents (any documents file): the texts of gold in the system format, which has
    /// none, for the character scores and to check that every span lies inside its text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub docs: Option<PathBuf>,
    /// TAB metrics: also the information-weighted precision, with this language model's weights
    /// (embedded, or an http server that scores given texts: `/v1/completions` with `echo`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weighting: Option<kanon_llm::LlmConfig>,
}

impl ConfigFile for EvalJob {}

/// Span scores: exact, overlap, SemEval-2013 partial and character-level, recall by identifier type.
pub fn spans(job: &EvalJob) -> Result<SpanReport> {
    let gold = read_gold(&job.gold, job.docs.as_deref())?;
    let lengths: HashMap<&str, usize> = gold
        .iter()
        .filter_map(|doc| Some((doc.id.as_str(), doc.text.as_ref()?.chars().count())))
        .collect();
    let predicted = read_predictions(&job.pred, &|id| lengths.get(id).copied())?;
    let mut report = evaluate_spans(&gold, &predicted);
    // Types only come with spans JSONL (the TAB system format has none).
    if let Ok(records) = kanon_core::spans::read_spans(&job.pred) {
        let typed = records.values().flatten().any(|r| r.entity_type.is_some());
        let records = records.into_iter().collect();
        let types = crate::types::type_confusion(&gold, &records);
        report.types = (typed && !types.is_empty()).then_some(types);
    }
    Ok(report)
}

/// TAB's own metrics (entity-level recall on direct and quasi identifiers, token and mention
/// recall, uniform precision); the gold must be TAB-schema JSON.
pub fn tab(job: &EvalJob) -> Result<TabReport> {
    let gold = kanon_core::tab::read_tab(&job.gold)?;
    let lengths: HashMap<&str, usize> = gold
        .iter()
        .map(|doc| (doc.doc_id.as_str(), doc.text.chars().count()))
        .collect();
    let predicted = read_predictions(&job.pred, &|id| lengths.get(id).copied())?;
    match &job.weighting {
        Some(llm) => {
            let scorer = kanon_llm::open_scorer(llm).map_err(Error::OpenLlm)?;
            evaluate_tab_weighted(&gold, &predicted, Some(scorer.as_ref()))
        }
        None => evaluate_tab(&gold, &predicted),
    }
}

/// Who each attacked document is about: the background name of its person.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "by", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Truth {
    /// The document's id is its person's name in the background (wiki553's `doc_id`).
    #[default]
    Id,
    /// A field of each JSONL record names the person.
    Field {
        /// The field's name.
        field: String,
    },
    /// A JSON object maps document ids to background names.
    Map {
        /// The JSON file.
        path: PathBuf,
    },
}

/// Documents to attack, and what the attacker knows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PrivacyJob {
    /// `[{"name", "public_knowledge"}]`: the public texts about the population.
    pub background: PathBuf,
    /// The documents: `kanon sanitize`'s output, or any JSONL `{"id","text"}` or TAB-schema JSON
    /// (the original texts, for the risk before sanitization).
    pub sanitized: PathBuf,
    /// Who each document is about.
    #[serde(default)]
    pub truth: Truth,
    /// Also attack with a fine-tuned BERT classifier (trained on the background when its
    /// checkpoint does not exist yet).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub neural: Option<NeuralAttackerJob>,
}

impl ConfigFile for PrivacyJob {}

/// The attackers a job names: BM25 always, the neural one when asked for.
pub fn attackers(
    background: &Background,
    neural: Option<&NeuralAttackerJob>,
    progress: &dyn Progress,
) -> Result<Vec<Box<dyn Attacker>>> {
    let mut attackers: Vec<Box<dyn Attacker>> = vec![Box::new(LexicalAttacker::new(background)?)];
    if let Some(job) = neural {
        attackers.push(Box::new(NeuralAttacker::load_or_train(
            background, job, progress,
        )?));
    }
    Ok(attackers)
}

/// The re-identification risk of the documents (TRIR) against the lexical attacker, and the
/// neural one when the job names it.
pub fn privacy(job: &PrivacyJob, progress: &dyn Progress) -> Result<PrivacyReport> {
    let background = Background::read(&job.background)?;
    let attackers = attackers(&background, job.neural.as_ref(), progress)?;
    let (docs, names) = documents_and_people(&job.sanitized, &job.truth)?;
    let person_of = |id: &str| match job.truth {
        Truth::Id => Some(id.to_owned()),
        _ => names.get(id).cloned(),
    };
    let attackers: Vec<&dyn Attacker> = attackers.iter().map(|a| a.as_ref()).collect();
    evaluate_privacy(&background, &docs, &person_of, &attackers)
}

/// The documents of a file, and (unless their ids are the names) who each is about.
pub fn documents_and_people(
    path: &std::path::Path,
    truth: &Truth,
) -> Result<(Vec<AttackedDocument>, HashMap<String, String>)> {
    let (docs, names): (Vec<AttackedDocument>, HashMap<String, String>) = match truth {
        Truth::Field { field } => {
            let mut docs = Vec::new();
            let mut names = HashMap::new();
            for record in kanon_core::io::read_jsonl::<serde_json::Value>(path)? {
                let (line, value) = record?;
                let text = |key: &str| value.get(key).and_then(|v| v.as_str()).map(str::to_owned);
                let (Some(id), Some(body)) = (text("id"), text("text")) else {
                    return Err(kanon_core::Error::parse(
                        path,
                        line,
                        "a document needs an `id` and a `text`",
                    )
                    .into());
                };
                if let Some(name) = text(field) {
                    names.insert(id.clone(), name);
                }
                docs.push(AttackedDocument { id, text: body });
            }
            (docs, names)
        }
        Truth::Id | Truth::Map { .. } => {
            let docs = kanon_core::io::read_documents(path)?
                .docs
                .into_iter()
                .map(|doc| AttackedDocument {
                    id: doc.id,
                    text: doc.text,
                })
                .collect();
            let names = match truth {
                Truth::Map { path } => kanon_core::config::load(path)?,
                _ => HashMap::new(),
            };
            (docs, names)
        }
    };
    if docs.is_empty() {
        return Err(kanon_core::Error::format(path, "no documents").into());
    }
    Ok((docs, names))
}

/// Original documents and their sanitized versions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UtilityJob {
    /// The originals: JSONL `{"id","text"}` or TAB-schema JSON.
    pub docs: PathBuf,
    /// `kanon sanitize`'s output, with its edit log.
    pub sanitized: PathBuf,
    /// Also measure TPS, with these models.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tps: Option<TpsModels>,
}

impl ConfigFile for UtilityJob {}

/// The models TPS needs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TpsModels {
    /// The language model whose log-probabilities give each term's information content
    /// (embedded, or an http server that scores given texts: `/v1/completions` with `echo`).
    #[serde(default)]
    pub llm: kanon_llm::LlmConfig,
    /// The sentence encoder for similarities: a model of kanon's cache or a checkpoint directory.
    #[serde(default = "default_encoder")]
    pub encoder: String,
    /// How a term's information content is drawn from its tokens: `sum` of their surprisals
    /// (kanon's default) or `min-probability`, −log of the least probable one (the paper's
    /// definition; `configs/wiki553.toml`, which reproduces the paper's evaluation, sets it).
    /// Left out of the serialized settings when it is the default, so that a run's eval stage
    /// keeps its hash.
    #[serde(default, skip_serializing_if = "is_default")]
    pub information: kanon_llm::score::SpanInformation,
}

fn is_default<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}

fn default_encoder() -> String {
    kanon_models::DEFAULT_ENCODER.into()
}

impl Default for TpsModels {
    fn default() -> Self {
        TpsModels {
            llm: kanon_llm::LlmConfig::default(),
            encoder: default_encoder(),
            information: kanon_llm::score::SpanInformation::default(),
        }
    }
}

impl TpsModels {
    /// Opens both models.
    pub fn open(
        &self,
    ) -> Result<(
        Box<dyn kanon_llm::TextScorer>,
        kanon_tagger::encoder::SentenceEncoder,
    )> {
        let scorer = kanon_llm::open_scorer(&self.llm).map_err(Error::OpenLlm)?;
        let dir = kanon_models::resolve_pretrained(&self.encoder).map_err(Error::Models)?;
        let encoder =
            kanon_tagger::encoder::SentenceEncoder::load(&dir, &burn::tensor::Device::flex())
                .map_err(Error::Model)?;
        Ok((scorer, encoder))
    }
}

/// Reads `kanon sanitize`'s output and checks it against the `originals`: each document is an
/// original's, once, and each of its edits a span of that original. An empty file is an error;
/// every other names the file, the line and the values as written.
pub fn read_sanitized(
    path: &std::path::Path,
    originals: &[kanon_core::Document],
) -> Result<Vec<kanon_sanitize::SanitizedDocument>> {
    let lengths: HashMap<&str, usize> = originals
        .iter()
        .map(|doc| (doc.id.as_str(), doc.text.chars().count()))
        .collect();
    let mut seen = HashMap::new();
    let mut sanitized = Vec::new();
    for record in kanon_core::io::read_jsonl::<kanon_sanitize::SanitizedDocument>(path)? {
        let (line, doc) = record?;
        let wrong = |message: String| kanon_core::Error::parse(path, line, message);
        let Some(&length) = lengths.get(doc.id.as_str()) else {
            return Err(wrong(format!("sanitized document {:?} has no original", doc.id)).into());
        };
        if let Some(first) = seen.insert(doc.id.clone(), line) {
            return Err(wrong(format!(
                "sanitized document {:?} appears twice (first on line {first})",
                doc.id
            ))
            .into());
        }
        for (index, edit) in doc.edits.iter().enumerate() {
            if edit.start > edit.end || edit.end > length {
                return Err(wrong(format!(
                    "sanitized document {:?}, edit {index}: `start` = {}, `end` = {} is not a span of its {length}-character original: the original is not the sanitized text's",
                    doc.id, edit.start, edit.end
                ))
                .into());
            }
        }
        sanitized.push(doc);
    }
    if sanitized.is_empty() {
        return Err(kanon_core::Error::format(path, "no documents").into());
    }
    Ok(sanitized)
}

/// How much of the originals the sanitization changed, and with TPS models how much of their
/// information it kept.
pub fn utility(job: &UtilityJob) -> Result<UtilityReport> {
    let originals = kanon_core::io::read_documents(&job.docs)?.docs;
    let sanitized = read_sanitized(&job.sanitized, &originals)?;
    let mut report = evaluate_utility(&originals, &sanitized)?;
    if let Some(models) = &job.tps {
        let (scorer, encoder) = models.open()?;
        let evaluator =
            TpsEvaluator::new(scorer.as_ref(), &encoder).information(models.information);
        report.tps = Some(evaluator.evaluate(&originals, &sanitized)?);
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_job_round_trips_through_its_file_forms() {
        let dir = tempfile::tempdir().unwrap();
        let job = EvalJob {
            gold: "gold.json".into(),
            pred: "spans.jsonl".into(),
            docs: Some("docs.jsonl".into()),
            weighting: Some(kanon_llm::LlmConfig::default()),
        };
        for name in ["eval.toml", "eval.json"] {
            let path = dir.path().join(name);
            job.save(&path).unwrap();
            assert_eq!(EvalJob::load(&path).unwrap(), job);
        }
        std::fs::write(
            dir.path().join("bad.toml"),
            "gold = \"g\"\npred = \"p\"\nprd = 1\n",
        )
        .unwrap();
        let err = EvalJob::load(&dir.path().join("bad.toml"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("bad.toml:3: unknown field `prd`"), "{err}");
    }

    #[test]
    fn the_privacy_and_utility_jobs_round_trip_through_their_file_forms() {
        let dir = tempfile::tempdir().unwrap();
        let utility = UtilityJob {
            docs: "docs.jsonl".into(),
            sanitized: "out.jsonl".into(),
            tps: Some(TpsModels::default()),
        };
        for truth in [
            Truth::Id,
            Truth::Field {
                field: "person".into(),
            },
            Truth::Map {
                path: "people.json".into(),
            },
        ] {
            let privacy = PrivacyJob {
                background: "background.json".into(),
                sanitized: "out.jsonl".into(),
                truth,
                neural: Some(NeuralAttackerJob {
                    checkpoint: "checkpoints/attacker".into(),
                    pretrained: "all-minilm-l6-v2".into(),
                    config: Default::default(),
                    precision: Default::default(),
                }),
            };
            for name in ["job.toml", "job.json"] {
                let path = dir.path().join(name);
                privacy.save(&path).unwrap();
                assert_eq!(PrivacyJob::load(&path).unwrap(), privacy);
                utility.save(&path).unwrap();
                assert_eq!(UtilityJob::load(&path).unwrap(), utility);
            }
        }
        let path = dir.path().join("privacy.toml");
        std::fs::write(
            &path,
            "background = \"b\"\nsanitized = \"s\"\n[truth]\nby = \"name\"\n",
        )
        .unwrap();
        let err = PrivacyJob::load(&path).unwrap_err().to_string();
        assert!(err.contains("privacy.toml:4: key `truth.by`"), "{err}");
    }
}
