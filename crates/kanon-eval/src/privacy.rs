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

use std::collections::{BTreeMap, HashSet};

use serde::{Deserialize, Serialize};
use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::{FAST, Field, IndexRecordOption, Schema, TEXT};
use tantivy::{Index, IndexReader, Term, doc};

use kanon_core::Progress;
use kanon_detect::reid::{ReidModel, ReidModelJob};

use crate::error::{Error, Result};

pub use kanon_core::background::Background;

/// The report's name for "re-identified by any attacker".
pub const ENSEMBLE: &str = "ensemble";

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
        for (id, body) in (0..background.len()).map(|p| (p, background.text(p))) {
            if let Some(body) = body {
                writer
                    .add_document(doc!(text => body, person => id as u64))
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

/// The evaluation's re-identification model as an attacker: a fine-tuned BERT classifier over
/// the background's people (those with a text), trained on windows of their background texts with
/// random word-piece masking; it scores a document by summing its windows' log-probabilities.
#[derive(Debug)]
pub struct NeuralAttacker {
    model: ReidModel,
}

/// The neural attacker's checkpoint and how to train it when there is none.
pub type NeuralAttackerJob = ReidModelJob;

impl NeuralAttacker {
    /// Loads the job's checkpoint when it exists, else trains it (resuming an interrupted run).
    pub fn load_or_train(
        background: &Background,
        job: &NeuralAttackerJob,
        progress: &dyn Progress,
    ) -> Result<Self> {
        Ok(NeuralAttacker {
            model: ReidModel::load_or_train(background, job, progress)?,
        })
    }
}

impl Attacker for NeuralAttacker {
    fn name(&self) -> &str {
        "bert"
    }

    fn rank_many(&self, texts: &[&str], k: usize) -> Result<Vec<Vec<usize>>> {
        Ok(self.model.rank_many(texts, k)?)
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
    /// People in the background.
    pub background_people: usize,
    /// Of those, people without a text: the attacker knows nothing of them.
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
    /// The document's id: its person's background name, or a key to it (see `Truth`).
    pub id: String,
    /// The text the attacker reads.
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
