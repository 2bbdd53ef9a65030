//! The KG stages as jobs: [`ImportJob`] (`kanon kg import`: sources merged into one KG directory)
//! and [`SynthJob`] (`kanon kg synth`: a synthetic population with biographies). Each is a serde
//! struct that round-trips through a TOML or JSON file, and `run` returns what was made.

use std::path::PathBuf;

use kanon_core::Progress;
use kanon_core::config::ConfigFile;
use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::import::{self, Format, ImportOptions, SourceReport};
use crate::model::{KnowledgeGraph, MergeStats};
use crate::store::{KgMeta, write_kg_dir};
use crate::synth::{SynthConfig, synthesize};

/// One source of an import: a format and its input files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Source {
    /// The format of every input of this source.
    pub format: Format,
    /// The files to read, in order (compressed `.gz` or `.bz2` or not).
    pub inputs: Vec<PathBuf>,
    /// Q-id label tables naming the item values the inputs do not (`wikidata` only; see
    /// [`crate::import::labels`] for the format).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub labels: Vec<PathBuf>,
}

/// Sources to import and merge into one KG directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImportJob {
    /// The sources, merged in this order: a person keeps the id of their first record.
    pub sources: Vec<Source>,
    /// The KG directory to write.
    pub out: PathBuf,
    /// Language of labels and aliases (Wikidata).
    #[serde(default = "default_lang")]
    pub lang: String,
    /// Skip malformed lines and count them, instead of stopping at the first.
    #[serde(default)]
    pub skip_invalid: bool,
}

impl ConfigFile for ImportJob {}

fn default_lang() -> String {
    ImportOptions::default().lang
}

/// What an import made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportSummary {
    /// Each source's counts, in the job's order.
    pub sources: Vec<SourceReport>,
    /// The language labels and aliases were read in.
    pub lang: String,
    /// How many records the merge folded into earlier people.
    pub merge: MergeStats,
    /// The `kg.json` written.
    pub meta: KgMeta,
    /// The KG directory written.
    pub out: PathBuf,
}

impl ImportSummary {
    /// A line per source, then the merged KG: counts only.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for report in &self.sources {
            let mut notes = String::new();
            if report.skipped_invalid > 0 {
                notes += &format!(", {} invalid lines skipped", report.skipped_invalid);
            }
            if report.unresolved_values > 0 {
                let by_property: Vec<String> = report
                    .resolution
                    .iter()
                    .filter(|(_, r)| r.unresolved > 0)
                    .map(|(pid, r)| format!("{pid} {}/{}", r.unresolved, r.values))
                    .collect();
                let detail = if by_property.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", by_property.join(", "))
                };
                notes += &format!(
                    ", {} values without a label dropped{detail}",
                    report.unresolved_values
                );
            }
            if report.people_named_in_other_language > 0 {
                notes += &format!(
                    ", {} people without a {:?} name named in another language",
                    report.people_named_in_other_language, self.lang
                );
            }
            if report.people_without_label > 0 {
                notes += &format!(
                    ", {} people without any name skipped",
                    report.people_without_label
                );
            }
            out += &format!(
                "{}: {} people, {} facts, {} docs from {} file(s){notes}\n",
                report.format,
                report.people,
                report.facts,
                report.docs,
                report.inputs.len(),
            );
            if !report.derived.is_empty() {
                let per_person: Vec<String> = report
                    .derived
                    .iter()
                    .map(|(property, n)| {
                        format!("{property} {:.2}", *n as f64 / report.people.max(1) as f64)
                    })
                    .collect();
                out += &format!("  derived per person: {}\n", per_person.join(", "));
            }
        }
        out += &self.headline();
        out.push('\n');
        out
    }

    /// The merged KG in one line: its people (how they were merged), facts and documents.
    pub fn headline(&self) -> String {
        let kept_apart = if self.merge.kept_apart > 0 {
            format!(
                "; {} of the same name and birth year kept apart",
                self.merge.kept_apart
            )
        } else {
            String::new()
        };
        format!(
            "merged: {} people ({} by identifier, {} by name and birth year{kept_apart}), {} facts, {} docs -> {}",
            self.meta.people,
            self.merge.by_identifier,
            self.merge.by_name_and_birth_year,
            self.meta.facts,
            self.meta.docs,
            self.out.display()
        )
    }
}

/// Imports every source, merges the people (by identifier, then by name and birth year) and
/// writes the KG directory atomically; documents follow their person into the merged record.
pub fn import(job: &ImportJob, progress: &dyn Progress) -> Result<ImportSummary> {
    for source in &job.sources {
        if !source.labels.is_empty() && source.format != Format::Wikidata {
            return Err(crate::Error::Usage(format!(
                "label tables name the item values of wikidata sources only, not {}",
                source.format
            )));
        }
    }
    let mut people_by_source = Vec::new();
    let mut docs = Vec::new();
    let mut reports = Vec::new();
    progress.stage("import", job.sources.len() as u64);
    for source in &job.sources {
        let options = ImportOptions {
            lang: job.lang.clone(),
            skip_invalid: job.skip_invalid,
            labels: source.labels.clone(),
        };
        let data = import::import(source.format, &source.inputs, &options)?;
        people_by_source.push(data.people);
        docs.extend(data.docs);
        reports.push(data.report);
        progress.advance(1);
    }
    let (kg, merge) = KnowledgeGraph::merge(people_by_source);
    let ids = kg.id_map();
    for doc in &mut docs {
        if let Some(person) = doc.person.as_deref().and_then(|p| ids.get(p)) {
            doc.person = Some((*person).to_owned());
        }
    }
    let meta = write_kg_dir(&job.out, &kg, &docs, reports.clone(), merge)?;
    Ok(ImportSummary {
        sources: reports,
        lang: job.lang.clone(),
        merge,
        meta,
        out: job.out.clone(),
    })
}

/// A synthetic population written as a KG directory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SynthJob {
    /// How many people, from which seed, with what share of biographies.
    #[serde(default)]
    pub config: SynthConfig,
    /// The KG directory to write.
    pub out: PathBuf,
    /// Where to write the biographies (JSONL `{"id","person","text"}`); beside the KG when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub docs: Option<PathBuf>,
}

impl ConfigFile for SynthJob {}

/// What a synthesis made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SynthSummary {
    /// People written.
    pub people: usize,
    /// Facts of the people written.
    pub facts: usize,
    /// Biographies written.
    pub biographies: usize,
    /// The seed of the population.
    pub seed: u64,
    /// The KG directory written.
    pub out: PathBuf,
}

impl SynthSummary {
    /// What a person reads: the headline, on a line of its own.
    pub fn render(&self) -> String {
        format!("{}\n", self.headline())
    }

    /// One line: the counts, the seed and the KG directory.
    pub fn headline(&self) -> String {
        format!(
            "synthesized {} people, {} facts, {} biographies (seed {}) -> {}",
            self.people,
            self.facts,
            self.biographies,
            self.seed,
            self.out.display()
        )
    }
}

/// Synthesizes the population and writes it (and its biographies).
pub fn synth(job: &SynthJob) -> Result<SynthSummary> {
    let (kg, docs) = synthesize(&job.config);
    let report = SourceReport {
        format: format!("synth(seed={})", job.config.seed),
        people: kg.len(),
        facts: kg.num_facts(),
        docs: docs.len(),
        ..Default::default()
    };
    // The docs go to `docs` when given (the corpus), else beside the KG.
    let kg_docs = if job.docs.is_some() {
        &[][..]
    } else {
        &docs[..]
    };
    write_kg_dir(&job.out, &kg, kg_docs, vec![report], MergeStats::default())?;
    if let Some(path) = &job.docs {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|e| kanon_core::Error::io(parent, e))?;
        }
        kanon_core::io::atomic_write(path, |w| kanon_core::io::write_jsonl(w, docs.iter()))?;
    }
    Ok(SynthSummary {
        people: kg.len(),
        facts: kg.num_facts(),
        biographies: docs.len(),
        seed: job.config.seed,
        out: job.out.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobs_round_trip_through_their_file_forms() {
        let dir = tempfile::tempdir().unwrap();
        let import = ImportJob {
            sources: vec![
                Source {
                    format: Format::Pantheon,
                    inputs: vec!["pantheon.tsv".into()],
                    labels: vec![],
                },
                Source {
                    format: Format::GoogleRe,
                    inputs: vec!["a.jsonl".into(), "b.jsonl".into()],
                    labels: vec![],
                },
                Source {
                    format: Format::Wikidata,
                    inputs: vec!["dump.json.gz".into()],
                    labels: vec!["labels.tsv".into()],
                },
                Source {
                    format: Format::Trex,
                    inputs: vec!["P19.jsonl".into()],
                    labels: vec![],
                },
            ],
            out: "kg".into(),
            lang: "de".into(),
            skip_invalid: true,
        };
        let synth = SynthJob {
            config: SynthConfig {
                people: 10,
                seed: 3,
                doc_rate: 0.5,
            },
            out: "kg".into(),
            docs: Some("docs.jsonl".into()),
        };
        for name in ["job.toml", "job.json"] {
            let path = dir.path().join(name);
            import.save(&path).unwrap();
            assert_eq!(ImportJob::load(&path).unwrap(), import);
            synth.save(&path).unwrap();
            assert_eq!(SynthJob::load(&path).unwrap(), synth);
        }
        let path = dir.path().join("import.toml");
        std::fs::write(
            &path,
            "out = \"kg\"\n[[sources]]\nformat = \"csv\"\ninputs = []\n",
        )
        .unwrap();
        let err = ImportJob::load(&path).unwrap_err().to_string();
        assert!(
            err.contains("import.toml:3: key `sources[0].format`"),
            "{err}"
        );
    }

    #[test]
    fn synth_writes_the_kg_and_its_biographies() {
        let dir = tempfile::tempdir().unwrap();
        let job = SynthJob {
            config: SynthConfig {
                people: 20,
                ..SynthConfig::default()
            },
            out: dir.path().join("kg"),
            docs: Some(dir.path().join("docs/bios.jsonl")),
        };
        let summary = synth(&job).unwrap();
        assert_eq!((summary.people, summary.biographies), (20, 20));
        assert!(summary.render().starts_with("synthesized 20 people, "));
        let bios = std::fs::read_to_string(dir.path().join("docs/bios.jsonl")).unwrap();
        assert_eq!(bios.lines().count(), 20);
        assert!(!job.out.join(crate::store::DOCS_FILE).exists());
    }
}
