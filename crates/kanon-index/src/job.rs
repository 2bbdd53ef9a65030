//! `kanon index build` as a job ([`BuildJob`]: a KG directory in, an index directory out), and
//! the reports the index commands print ([`IndexStats::render`], [`QueryReport`],
//! [`MatchRow`]), so that every command that shows them shows the same.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;

use kanon_core::Progress;
use kanon_core::config::ConfigFile;
use kanon_kg::Whitelist;
use serde::{Deserialize, Serialize};

use crate::builder::IndexBuilder;
use crate::error::Result;
use crate::index::{Index, IndexStats};
use crate::meta::IndexMeta;

/// A KG directory to index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BuildJob {
    /// The KG directory (`kanon kg import` / `kanon kg synth`).
    pub kg: PathBuf,
    /// The index directory to write.
    pub out: PathBuf,
    /// Extra generic terms never to index (one a line), added to the default whitelist.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub whitelist: Option<PathBuf>,
    /// Use only `whitelist`, not the default one.
    #[serde(default)]
    pub replace_whitelist: bool,
}

impl BuildJob {
    /// A build of the KG directory `kg` into `out`, with the default whitelist only.
    pub fn new(kg: impl Into<PathBuf>, out: impl Into<PathBuf>) -> Self {
        BuildJob {
            kg: kg.into(),
            out: out.into(),
            whitelist: None,
            replace_whitelist: false,
        }
    }
}

impl ConfigFile for BuildJob {}

/// What a build made, and how long reading the KG took.
#[derive(Debug, Clone, PartialEq)]
pub struct BuildSummary {
    /// The `meta.json` written.
    pub meta: IndexMeta,
    /// Seconds spent reading the KG directory, apart from the build itself.
    pub read_seconds: f64,
    /// The index directory written.
    pub out: PathBuf,
}

impl BuildSummary {
    /// What a person reads: the headline, on a line of its own.
    pub fn render(&self) -> String {
        format!("{}\n", self.headline())
    }

    /// One line: the counts, the times and the index directory.
    pub fn headline(&self) -> String {
        format!(
            "indexed {} people: {} terms, {} postings in {:.1}s (KG read {:.1}s) -> {}",
            self.meta.people,
            self.meta.terms,
            self.meta.postings,
            self.meta.build_seconds + self.read_seconds,
            self.read_seconds,
            self.out.display()
        )
    }
}

/// Reads the KG and builds its index (atomically).
pub fn build(job: &BuildJob, progress: &dyn Progress) -> Result<BuildSummary> {
    let started = Instant::now();
    let (kg, _) = kanon_kg::store::read_kg_dir(&job.kg)?;
    let read_seconds = started.elapsed().as_secs_f64();
    let mut whitelist = if job.replace_whitelist {
        Whitelist::default()
    } else {
        Whitelist::english()
    };
    if let Some(path) = &job.whitelist {
        whitelist.extend(Whitelist::from_file(path)?);
    }
    let meta = IndexBuilder::new()
        .whitelist(whitelist)
        .source(job.kg.display().to_string())
        .build(&kg, &job.out, progress)?;
    Ok(BuildSummary {
        meta,
        read_seconds,
        out: job.out.clone(),
    })
}

impl IndexStats {
    /// The counts as a person reads them.
    pub fn render(&self) -> String {
        let mut out = format!(
            "people: {}\nterms: {}\npostings: {}\nterms held by one person only: {}\n",
            self.people, self.terms, self.postings, self.unique_terms
        );
        for (entity_type, n) in &self.terms_by_type {
            let _ = writeln!(out, "  {entity_type} terms: {n}");
        }
        if self.terms_by_property.is_empty() {
            out += "terms by property: not recorded (an index built before they were: rebuild it for kinds from the KG's facts)\n";
        } else {
            out += "terms by the property they are the value of:\n";
            for (property, n) in &self.terms_by_property {
                let _ = writeln!(out, "  {property}: {n}");
            }
        }
        out
    }
}

/// How many people have each of some terms, and all of them together.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryReport {
    /// Each term as given, with its number of people (`None`: not indexed).
    pub terms: Vec<(String, Option<u64>)>,
    /// People who have every term (0 when one is not indexed).
    pub intersection: u64,
}

impl QueryReport {
    /// Looks the terms up (as written in text: "Lilian Albano", "5 August 1992") and intersects them.
    pub fn new(index: &Index, terms: &[String]) -> Self {
        let mut ids = Vec::new();
        let mut missing = false;
        let terms = terms
            .iter()
            .map(|term| match index.term_id(term) {
                Some(id) => {
                    ids.push(id);
                    (term.clone(), Some(index.posting_count(id)))
                }
                None => {
                    missing = true;
                    (term.clone(), None)
                }
            })
            .collect();
        let intersection = if missing {
            0
        } else {
            index.intersection_count(&ids, u64::MAX)
        };
        QueryReport {
            terms,
            intersection,
        }
    }

    /// One line per term (`TERM: N`), then `intersection: N`.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for (term, people) in &self.terms {
            let _ = match people {
                Some(n) => writeln!(out, "{term}: {n}"),
                None => writeln!(out, "{term}: 0 (not indexed)"),
            };
        }
        let _ = writeln!(out, "intersection: {}", self.intersection);
        out
    }
}

/// An indexed term found in a text (`kanon index match`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MatchRow {
    /// Character offsets in the text.
    pub start: usize,
    /// One past the last character of the match.
    pub end: usize,
    /// The text as written at the match.
    pub text: String,
    /// The normalised term.
    pub term: String,
    /// The term's TAB category (`PERSON`, `LOC`…).
    #[serde(rename = "type")]
    pub entity_type: String,
    /// How many people have the term.
    pub postings: u64,
}

impl MatchRow {
    /// The terms of `text` (leftmost-longest, or every match with `all`).
    pub fn find(index: &Index, text: &str, all: bool) -> Vec<MatchRow> {
        let matches = if all {
            index.gazetteer().find_all(text)
        } else {
            index.find_terms(text)
        };
        let char_starts: Vec<usize> = text
            .char_indices()
            .map(|(i, _)| i)
            .chain([text.len()])
            .collect();
        matches
            .into_iter()
            .map(|m| MatchRow {
                start: m.start,
                end: m.end,
                text: text[char_starts[m.start]..char_starts[m.end]].to_owned(),
                term: index.term_text(m.term).unwrap_or_default(),
                entity_type: index
                    .term_type(m.term)
                    .map(|t| t.to_string())
                    .unwrap_or_default(),
                postings: index.posting_count(m.term),
            })
            .collect()
    }

    /// `start..end type people "text"`.
    pub fn render(&self) -> String {
        let people = if self.postings == 1 {
            "person"
        } else {
            "people"
        };
        format!(
            "{:>5}..{:<5} {:<9} {:>8} {people:<6}  {:?}\n",
            self.start, self.end, self.entity_type, self.postings, self.text
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_build_job_round_trips_through_its_file_forms() {
        let dir = tempfile::tempdir().unwrap();
        let job = BuildJob {
            whitelist: Some("extra.txt".into()),
            replace_whitelist: true,
            ..BuildJob::new("kg", "index")
        };
        for name in ["index.toml", "index.json"] {
            let path = dir.path().join(name);
            job.save(&path).unwrap();
            assert_eq!(BuildJob::load(&path).unwrap(), job);
        }
        let path = dir.path().join("index.toml");
        std::fs::write(&path, "kg = \"kg\"\n").unwrap();
        let err = BuildJob::load(&path).unwrap_err().to_string();
        assert!(err.contains("missing field `out`"), "{err}");
    }
}
