//! Re-identification risk: an attacker who knows public background texts about a population
//! names the person behind each sanitized document; the text re-identification risk (TRIR) is
//! the share of documents whose person it names (first guess; also within its first five).
//!
//! Two attackers ([`Attacker`]): [`LexicalAttacker`], BM25 over the background texts (tantivy's
//! scorer) with the sanitized document as the query — no training, the baseline any sanitization
//! must beat; and [`NeuralAttacker`], a BERT classifier over the population fine-tuned on windows
//! of the background texts with random masking, which sees through more (paraphrase, words it
//! has only seen near others). With both, the ensemble re-identifies a document when either
//! does.
//!
//! ```
//! use kanon_eval::privacy::{Background, LexicalAttacker};
//!
//! let background = Background::new(vec![
//!     ("lilian-albano".into(), Some("Lilian Albano is an Austrian chemist born in Vienna.".into())),
//!     ("tomas-varga".into(), Some("Tomas Varga is a Hungarian footballer from Debrecen.".into())),
//!     ("nobody".into(), None),
//! ]);
//! let attacker = LexicalAttacker::new(&background)?;
//! let guesses = attacker.rank("The chemist was born in Vienna.", 2)?;
//! assert_eq!(background.name(guesses[0]), "lilian-albano");
//! assert!(attacker.rank("*** *** ***", 2)?.is_empty());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::{FAST, Field, IndexRecordOption, Schema, TEXT};
use tantivy::{Index, IndexReader, Term, doc};

use kanon_core::Progress;
use kanon_core::config::ConfigFile;
use kanon_tagger::classifier::{
    self, CLASSES_FILE, ClassifierConfig, ClassifierTrainJob, LabeledText, TextClassifier,
};
use kanon_tagger::train::TrainOptions;

use crate::error::{Error, Result};

/// The report's name for "re-identified by any attacker".
pub const ENSEMBLE: &str = "ensemble";

/// The people an attacker knows, with the public text about each (none for some).
#[derive(Debug, Clone, Default)]
pub struct Background {
    names: Vec<String>,
    texts: Vec<Option<String>>,
    by_name: HashMap<String, usize>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BackgroundEntry {
    name: String,
    /// Required, though it may be null: `deserialize_with` keeps serde from reading a missing
    /// key as null.
    #[serde(deserialize_with = "Option::deserialize")]
    public_knowledge: Option<String>,
}

impl Background {
    /// People by name (a key documents are matched against), each with its text if there is one.
    pub fn new(people: Vec<(String, Option<String>)>) -> Self {
        let mut background = Background::default();
        for (name, text) in people {
            background
                .by_name
                .insert(name.clone(), background.names.len());
            background.names.push(name);
            background.texts.push(text);
        }
        background
    }

    /// Reads `[{"name", "public_knowledge"}]` (the wiki553 background); an entry whose
    /// `public_knowledge` is null is a person the attacker knows nothing about.
    pub fn read(path: &Path) -> Result<Self> {
        let entries: Vec<BackgroundEntry> = kanon_core::config::load(path)?;
        if entries.is_empty() {
            return Err(kanon_core::Error::format(path, "no people in the background").into());
        }
        let mut seen = HashSet::new();
        for entry in &entries {
            if !seen.insert(entry.name.as_str()) {
                return Err(kanon_core::Error::format(
                    path,
                    format!("person {:?} appears twice", entry.name),
                )
                .into());
            }
        }
        Ok(Background::new(
            entries
                .into_iter()
                .map(|e| (e.name, e.public_knowledge))
                .collect(),
        ))
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    pub fn name(&self, person: usize) -> &str {
        &self.names[person]
    }

    /// The person of a name.
    pub fn person(&self, name: &str) -> Option<usize> {
        self.by_name.get(name).copied()
    }

    /// People the attacker knows nothing about.
    pub fn without_text(&self) -> usize {
        self.texts.iter().filter(|t| t.is_none()).count()
    }
}

/// Someone who names the person behind a text.
pub trait Attacker {
    /// How reports name it (`bm25`, `bert`).
    fn name(&self) -> &str;

    /// For each text, the `k` people (background indices) it most likely is about, best first
    /// (fewer when the attacker has fewer candidates).
    fn rank_many(&self, texts: &[&str], k: usize) -> Result<Vec<Vec<usize>>>;
}

/// BM25 over the background texts.
pub struct LexicalAttacker {
    index: Index,
    reader: IndexReader,
    text: Field,
}

impl std::fmt::Debug for LexicalAttacker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LexicalAttacker").finish_non_exhaustive()
    }
}

/// A search-engine failure, kept as the source.
fn search_error(error: tantivy::TantivyError) -> Error {
    Error::Search(Box::new(error))
}

impl LexicalAttacker {
    /// Indexes every person with a text, in memory.
    pub fn new(background: &Background) -> Result<Self> {
        let mut schema = Schema::builder();
        let text = schema.add_text_field("text", TEXT);
        let person = schema.add_u64_field("person", FAST);
        let index = Index::create_in_ram(schema.build());
        let mut writer: tantivy::IndexWriter = index.writer(50_000_000).map_err(search_error)?;
        for (id, body) in background.texts.iter().enumerate() {
            if let Some(body) = body {
                writer
                    .add_document(doc!(text => body.as_str(), person => id as u64))
                    .map_err(search_error)?;
            }
        }
        writer.commit().map_err(search_error)?;
        let reader = index.reader().map_err(search_error)?;
        Ok(LexicalAttacker {
            index,
            reader,
            text,
        })
    }

    /// The `k` people whose background best matches `text`, best first (fewer when fewer match
    /// any of its words).
    pub fn rank(&self, text: &str, k: usize) -> Result<Vec<usize>> {
        let mut analyzer = self
            .index
            .tokenizer_for_field(self.text)
            .map_err(search_error)?;
        let mut words = HashSet::new();
        let mut stream = analyzer.token_stream(text);
        while stream.advance() {
            words.insert(stream.token().text.clone());
        }
        let mut words: Vec<String> = words.into_iter().collect();
        words.sort();
        let clauses: Vec<(Occur, Box<dyn Query>)> = words
            .into_iter()
            .map(|word| {
                let term = Term::from_field_text(self.text, &word);
                let query: Box<dyn Query> =
                    Box::new(TermQuery::new(term, IndexRecordOption::WithFreqs));
                (Occur::Should, query)
            })
            .collect();
        if clauses.is_empty() {
            return Ok(Vec::new());
        }
        let searcher = self.reader.searcher();
        let top = searcher
            .search(
                &BooleanQuery::new(clauses),
                &TopDocs::with_limit(k.max(1)).order_by_score(),
            )
            .map_err(search_error)?;
        top.into_iter()
            .map(|(_, address)| {
                let column = searcher
                    .segment_reader(address.segment_ord)
                    .fast_fields()
                    .u64("person")
                    .map_err(search_error)?;
                column
                    .first(address.doc_id)
                    .map(|id| id as usize)
                    .ok_or_else(|| Error::Search("a document without its person".into()))
            })
            .collect()
    }
}

impl Attacker for LexicalAttacker {
    fn name(&self) -> &str {
        "bm25"
    }

    fn rank_many(&self, texts: &[&str], k: usize) -> Result<Vec<Vec<usize>>> {
        texts.iter().map(|text| self.rank(text, k)).collect()
    }
}

/// A fine-tuned BERT classifier over the background's people (those with a text): trained on
/// windows of their background texts with random word-piece masking, it scores a document by
/// summing its windows' log-probabilities.
#[derive(Debug)]
pub struct NeuralAttacker {
    classifier: TextClassifier,
    /// The background index of each class.
    person_of_class: Vec<usize>,
}

/// The neural attacker's checkpoint and how to train it when there is none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NeuralAttackerJob {
    /// The trained attacker: reused when it exists (it must have been trained on the same
    /// background with the same config), else trained here (resuming an interrupted training).
    pub checkpoint: PathBuf,
    /// The encoder to fine-tune: a model of kanon's cache or a BERT checkpoint directory.
    #[serde(default = "default_pretrained")]
    pub pretrained: String,
    #[serde(default)]
    pub config: ClassifierConfig,
}

fn default_pretrained() -> String {
    "all-minilm-l6-v2".into()
}

impl NeuralAttacker {
    /// The classes (people with a background text, in background order) and their texts.
    fn training_set(background: &Background) -> (Vec<String>, Vec<usize>, Vec<LabeledText>) {
        let mut classes = Vec::new();
        let mut people = Vec::new();
        let mut texts = Vec::new();
        for (person, text) in background.texts.iter().enumerate() {
            if let Some(text) = text {
                texts.push(LabeledText {
                    class: classes.len(),
                    text: text.clone(),
                });
                classes.push(background.names[person].clone());
                people.push(person);
            }
        }
        (classes, people, texts)
    }

    /// Loads the job's checkpoint when it exists, else trains it (resuming an interrupted run).
    pub fn load_or_train(
        background: &Background,
        job: &NeuralAttackerJob,
        progress: &dyn Progress,
    ) -> Result<Self> {
        let (classes, people, texts) = Self::training_set(background);
        if !job.checkpoint.join(CLASSES_FILE).exists() {
            let train_job = ClassifierTrainJob {
                pretrained: job.pretrained.clone(),
                out: job.checkpoint.clone(),
                config: job.config.clone(),
            };
            let options = TrainOptions {
                resume: true,
                ..TrainOptions::default()
            };
            classifier::train(&train_job, &classes, &texts, &options, progress)
                .map_err(Error::Model)?;
        }
        let classifier = TextClassifier::load(&job.checkpoint, &burn::tensor::Device::default())
            .map_err(Error::Model)?;
        if classifier.classes() != classes.as_slice() {
            return Err(kanon_core::Error::format(
                job.checkpoint.join(CLASSES_FILE),
                "the attacker was trained on another background (its people differ): delete the \
                 checkpoint or name another one",
            )
            .into());
        }
        let saved = job
            .checkpoint
            .join(kanon_tagger::checkpoint::TRAIN_CONFIG_FILE);
        let trained_with = ClassifierConfig::load(&saved)?;
        if trained_with != job.config {
            return Err(kanon_core::Error::format(
                saved,
                "the attacker was trained with other settings: delete the checkpoint or name another one",
            )
            .into());
        }
        Ok(NeuralAttacker {
            classifier,
            person_of_class: people,
        })
    }
}

impl Attacker for NeuralAttacker {
    fn name(&self) -> &str {
        "bert"
    }

    fn rank_many(&self, texts: &[&str], k: usize) -> Result<Vec<Vec<usize>>> {
        let scores = self.classifier.scores(texts).map_err(Error::Model)?;
        Ok(scores
            .into_iter()
            .map(|row| {
                let mut order: Vec<usize> = (0..row.len()).collect();
                // Best first; ties by class order, so the ranking is deterministic.
                order.sort_by(|&a, &b| row[b].total_cmp(&row[a]).then(a.cmp(&b)));
                order
                    .into_iter()
                    .take(k)
                    .map(|class| self.person_of_class[class])
                    .collect()
            })
            .collect())
    }
}

/// How often an attacker named the person.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Reidentification {
    /// TRIR: share of documents whose person is the attacker's first guess.
    pub top1: f64,
    /// Share whose person is among its first five guesses.
    pub top5: f64,
}

/// The re-identification risk of sanitized documents.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PrivacyReport {
    /// Documents attacked (their person is in the background).
    pub documents: usize,
    /// Documents whose person is not in the background, not attacked, by id.
    pub unknown_people: Vec<String>,
    /// People in the background, and those without a text (the attacker knows nothing of them).
    pub background_people: usize,
    pub background_without_text: usize,
    /// By attacker name (`bm25`, `bert`, and `ensemble`: re-identified by any of them).
    pub attackers: BTreeMap<String, Reidentification>,
}

impl PrivacyReport {
    /// The figures as a person reads them (never a document's text).
    pub fn render(&self) -> String {
        let mut out = format!(
            "documents {} ({} whose person is not in the background, not attacked); background: {} people, {} without a text\n",
            self.documents,
            self.unknown_people.len(),
            self.background_people,
            self.background_without_text
        );
        for (attacker, r) in &self.attackers {
            out += &format!(
                "{attacker}: re-identified {:.1} % (TRIR, first guess), {:.1} % within five guesses\n",
                100.0 * r.top1,
                100.0 * r.top5
            );
        }
        out
    }
}

/// A sanitized (or original) document: its id and text. Other fields are ignored.
#[derive(Debug, Clone, Deserialize)]
pub struct AttackedDocument {
    pub id: String,
    pub text: String,
}

/// Documents ranked per call of a neural attacker (bounds the memory of its scores).
const RANK_CHUNK: usize = 64;

/// Lets every attacker attack every document whose person (`person_of`: its id → a background
/// name) the background knows; with several attackers, the ensemble re-identifies a document
/// when any of them does.
pub fn evaluate_privacy(
    background: &Background,
    docs: &[AttackedDocument],
    person_of: &dyn Fn(&str) -> Option<String>,
    attackers: &[&dyn Attacker],
) -> Result<PrivacyReport> {
    let mut report = PrivacyReport {
        background_people: background.len(),
        background_without_text: background.without_text(),
        ..PrivacyReport::default()
    };
    let mut attacked: Vec<(&AttackedDocument, usize)> = Vec::new();
    for doc in docs {
        match person_of(&doc.id).and_then(|name| background.person(&name)) {
            Some(person) => attacked.push((doc, person)),
            None => report.unknown_people.push(doc.id.clone()),
        }
    }
    report.documents = attacked.len();
    // hits[a][d]: (first guess right, right within five) for attacker a on document d.
    let mut hits: Vec<Vec<(bool, bool)>> = Vec::with_capacity(attackers.len());
    for attacker in attackers {
        let mut row = Vec::with_capacity(attacked.len());
        for chunk in attacked.chunks(RANK_CHUNK) {
            let texts: Vec<&str> = chunk.iter().map(|(doc, _)| doc.text.as_str()).collect();
            let guesses = attacker.rank_many(&texts, 5)?;
            for ((_, person), guesses) in chunk.iter().zip(guesses) {
                row.push((guesses.first() == Some(person), guesses.contains(person)));
            }
        }
        hits.push(row);
    }
    let share = |n: usize| {
        if report.documents == 0 {
            0.0
        } else {
            n as f64 / report.documents as f64
        }
    };
    let rates = |top1: &dyn Fn(usize) -> bool, top5: &dyn Fn(usize) -> bool| Reidentification {
        top1: share((0..attacked.len()).filter(|&d| top1(d)).count()),
        top5: share((0..attacked.len()).filter(|&d| top5(d)).count()),
    };
    for (attacker, row) in attackers.iter().zip(&hits) {
        report.attackers.insert(
            attacker.name().to_owned(),
            rates(&|d| row[d].0, &|d| row[d].1),
        );
    }
    if attackers.len() > 1 {
        report.attackers.insert(
            ENSEMBLE.into(),
            rates(&|d| hits.iter().any(|row| row[d].0), &|d| {
                hits.iter().any(|row| row[d].1)
            }),
        );
    }
    Ok(report)
}
