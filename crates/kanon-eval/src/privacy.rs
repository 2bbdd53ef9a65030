//! Re-identification risk: an attacker who knows public background texts about a population
//! names the person behind each sanitized document; the text re-identification risk (TRIR) is
//! the share of documents whose person it names (first guess; also within its first five).
//!
//! The attacker here is lexical: BM25 over the background texts (tantivy's scorer), the sanitized
//! document as the query. It needs no training and is the baseline that any sanitization must
//! beat; a learned attacker sees through more (paraphrase, partial words) and is the next one.
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
use std::path::Path;

use serde::{Deserialize, Serialize};
use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::{FAST, Field, IndexRecordOption, Schema, TEXT};
use tantivy::{Index, IndexReader, Term, doc};

use crate::error::{Error, Result};

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
    /// By attacker name (`bm25`).
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

/// Attacks every document whose person (`person_of`: its id → a background name) the
/// background knows.
pub fn evaluate_privacy(
    background: &Background,
    docs: &[AttackedDocument],
    person_of: &dyn Fn(&str) -> Option<String>,
) -> Result<PrivacyReport> {
    let attacker = LexicalAttacker::new(background)?;
    let mut report = PrivacyReport {
        background_people: background.len(),
        background_without_text: background.without_text(),
        ..PrivacyReport::default()
    };
    let (mut top1, mut top5) = (0usize, 0usize);
    for doc in docs {
        let Some(person) = person_of(&doc.id).and_then(|name| background.person(&name)) else {
            report.unknown_people.push(doc.id.clone());
            continue;
        };
        report.documents += 1;
        let guesses = attacker.rank(&doc.text, 5)?;
        top1 += usize::from(guesses.first() == Some(&person));
        top5 += usize::from(guesses.contains(&person));
    }
    let share = |n: usize| {
        if report.documents == 0 {
            0.0
        } else {
            n as f64 / report.documents as f64
        }
    };
    let bm25 = Reidentification {
        top1: share(top1),
        top5: share(top5),
    };
    report.attackers.insert("bm25".into(), bm25);
    Ok(report)
}
