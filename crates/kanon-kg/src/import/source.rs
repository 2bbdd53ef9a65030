//! What every importer shares: the options it is given, what it returns, and how it reads its
//! inputs (compressed or not, line by line, malformed lines failing or counted).

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use kanon_core::Document;
use kanon_core::PathContext;
use rustc_hash::{FxHashMap, FxHashSet};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::model::Person;

/// Knobs shared by the importers.
#[derive(Debug, Clone)]
pub struct ImportOptions {
    /// Language of labels and aliases (Wikidata), e.g. `en`.
    pub lang: String,
    /// Skip malformed lines (and count them) instead of failing on the first one.
    pub skip_invalid: bool,
    /// Q-id label tables (Wikidata): they name the item values the dump itself does not, before
    /// kanon's bundled table does. See [`labels`] for the format.
    pub labels: Vec<PathBuf>,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions {
            lang: "en".into(),
            skip_invalid: false,
            labels: Vec::new(),
        }
    }
}

/// What one source contributed.
#[derive(Debug, Clone, Default)]
pub struct SourceData {
    /// The people read, in input order (not yet merged with other sources).
    pub people: Vec<Person>,
    /// Documents about the people (Google-RE snippets, T-REx sentences, biographies).
    pub docs: Vec<Document>,
    /// What the import counted.
    pub report: SourceReport,
}

/// Counts of one import, recorded in the KG's `kg.json`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceReport {
    /// The source's format (`wikidata`, `synth(seed=7)`).
    pub format: String,
    /// The files read, as given.
    pub inputs: Vec<PathBuf>,
    /// People imported.
    pub people: usize,
    /// Facts of the people imported.
    pub facts: usize,
    /// Documents imported.
    pub docs: usize,
    /// Malformed lines skipped under `--skip-invalid`.
    pub skipped_invalid: usize,
    /// Facts dropped because their value could not be resolved (e.g. an item without a label).
    pub unresolved_values: usize,
    /// People dropped because they have no name in any language (Wikidata).
    #[serde(default)]
    pub people_without_label: usize,
    /// People with no name in the chosen language, named by their label in another (Wikidata).
    #[serde(default)]
    pub people_named_in_other_language: usize,
    /// How the item values of each Wikidata property (`P106`…) were named, or not (Wikidata).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub resolution: BTreeMap<String, Resolution>,
    /// Facts read from the texts, by property (biographies: [`crate::derive`]).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub derived: BTreeMap<String, usize>,
}

/// How the item values of one property were named: by an entity of the input itself, by a
/// `--labels` table, by kanon's bundled Q-id table, or not at all (then the fact is dropped).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Resolution {
    /// Item values (statements that are not deprecated).
    pub values: usize,
    /// Values named by an entity of the input itself.
    #[serde(default)]
    pub from_input: usize,
    /// Values named by a `--labels` table.
    #[serde(default)]
    pub from_labels: usize,
    /// Values named by kanon's bundled Q-id table.
    #[serde(default)]
    pub from_vocab: usize,
    /// Values named nowhere: their facts are dropped.
    #[serde(default)]
    pub unresolved: usize,
}

impl Resolution {
    /// The share of values named, in [0, 1] (1 when there are none).
    pub fn rate(&self) -> f64 {
        if self.values == 0 {
            1.0
        } else {
            (self.values - self.unresolved) as f64 / self.values as f64
        }
    }
}

/// Opens a possibly compressed input (`.gz`, `.bz2`, else plain) for buffered reading.
pub fn open_maybe_compressed(path: &Path) -> Result<Box<dyn BufRead + Send>> {
    let file = std::fs::File::open(path).with_path(path)?;
    let name = path.to_string_lossy();
    let reader: Box<dyn Read + Send> = if name.ends_with(".gz") {
        Box::new(flate2::read::MultiGzDecoder::new(BufReader::new(file)))
    } else if name.ends_with(".bz2") {
        Box::new(bzip2::read::MultiBzDecoder::new(BufReader::new(file)))
    } else {
        Box::new(file)
    };
    Ok(Box::new(BufReader::with_capacity(1 << 20, reader)))
}

/// Tracks malformed lines: fails on the first unless skipping, in which case it counts them.
#[derive(Debug)]
pub(crate) struct InvalidLines {
    skip: bool,
    pub(crate) count: usize,
}

impl InvalidLines {
    pub(crate) fn new(options: &ImportOptions) -> Self {
        InvalidLines {
            skip: options.skip_invalid,
            count: 0,
        }
    }

    /// `Ok(())` when the error is skipped (and counted), else the error itself.
    pub(crate) fn handle(&mut self, error: Error) -> Result<()> {
        if self.skip {
            self.count += 1;
            Ok(())
        } else {
            Err(error)
        }
    }
}

/// Calls `each` with every non-blank line of the inputs parsed as `T`, its path and its line number
/// (1-based). A line that is not a `T` fails, or is skipped and counted under `--skip-invalid`.
pub(crate) fn for_each_json_line<T: serde::de::DeserializeOwned>(
    inputs: &[PathBuf],
    invalid: &mut InvalidLines,
    mut each: impl FnMut(&mut InvalidLines, &Path, u64, T) -> Result<()>,
) -> Result<()> {
    for path in inputs {
        let reader = open_maybe_compressed(path)?;
        for (i, line) in reader.lines().enumerate() {
            let line_no = i as u64 + 1;
            let text = line.with_path(path)?;
            if text.trim().is_empty() {
                continue;
            }
            match serde_json::from_str(&text) {
                Ok(record) => each(invalid, path, line_no, record)?,
                Err(e) => invalid.handle(Error::invalid(path, line_no, "record", e.to_string()))?,
            }
        }
    }
    Ok(())
}

/// People keyed by id as a fact-per-line source names them, and the texts about them as documents
/// (`{prefix}:{n}`, numbered per person, each text once per person).
#[derive(Debug, Default)]
pub(crate) struct SubjectsWithTexts {
    pub(crate) people: Vec<Person>,
    index: FxHashMap<String, usize>,
    docs: Vec<Document>,
    seen_texts: FxHashSet<(usize, String)>,
    docs_per_person: FxHashMap<usize, usize>,
}

impl SubjectsWithTexts {
    /// The position of the person with this id, added with `label` when new.
    pub(crate) fn person(&mut self, id: &str, label: &str) -> usize {
        *self.index.entry(id.to_owned()).or_insert_with(|| {
            self.people.push(Person::new(id.to_owned(), label));
            self.people.len() - 1
        })
    }

    /// Adds `text` (trimmed) as a document about the person at `person`, unless it is empty or
    /// already one of theirs.
    pub(crate) fn add_text(&mut self, person: usize, prefix: &str, text: &str) {
        let text = text.trim();
        if text.is_empty() || !self.seen_texts.insert((person, text.to_owned())) {
            return;
        }
        let n = self.docs_per_person.entry(person).or_default();
        *n += 1;
        self.docs.push(Document {
            id: format!("{prefix}:{n}"),
            person: Some(self.people[person].id.clone()),
            text: text.to_owned(),
            split: None,
        });
    }

    /// The people and documents, with the count of skipped lines.
    pub(crate) fn into_source(self, invalid: &InvalidLines) -> SourceData {
        let mut data = SourceData {
            people: self.people,
            docs: self.docs,
            ..SourceData::default()
        };
        data.report.skipped_invalid = invalid.count;
        data
    }
}

/// Alternate names worth indexing: no flags or codes (`🇱🇧`, `lb`, `SUI`), no duplicates of the label.
pub(crate) fn useful_alternates<'a>(
    label: &str,
    alternates: impl IntoIterator<Item = &'a String>,
) -> Vec<String> {
    let label_key = kanon_core::text::normalize_term(label);
    let mut out: Vec<String> = Vec::new();
    for alt in alternates {
        let alt = alt.trim();
        let letters = alt.chars().filter(|c| c.is_alphanumeric()).count();
        let is_code = letters <= 3 && alt.chars().all(|c| !c.is_lowercase());
        if letters < 3 || is_code {
            continue;
        }
        let key = kanon_core::text::normalize_term(alt);
        if key.is_some() && key != label_key && !out.iter().any(|o| o == alt) {
            out.push(alt.to_owned());
        }
    }
    out
}
