//! Google-RE as packaged by LAMA: one fact per line (`sub_label`, `sub_aliases`, `pred`, `obj_label`,
//! `obj_aliases`, `evidences[].snippet`). Ids are `freebase:{sub}`, with `sub_w` (a Wikidata id) as
//! `same_as`. Snippets — paragraphs of the person's Wikipedia article — become documents about them.

use std::io::BufRead;
use std::path::PathBuf;

use kanon_core::Document;
use kanon_core::PathContext;
use rustc_hash::{FxHashMap, FxHashSet};
use serde::Deserialize;

use super::{ImportOptions, InvalidLines, SourceData, useful_alternates};
use crate::error::{Error, Result};
use crate::model::{Fact, Person, Property};

#[derive(Deserialize)]
struct Line {
    pred: String,
    sub: String,
    #[serde(default)]
    sub_w: Option<String>,
    sub_label: String,
    #[serde(default)]
    sub_aliases: Vec<String>,
    obj_label: String,
    #[serde(default)]
    obj_aliases: Vec<String>,
    #[serde(default)]
    evidences: Vec<Evidence>,
}

#[derive(Deserialize)]
struct Evidence {
    #[serde(default)]
    snippet: String,
}

fn property_of(pred: &str) -> Option<Property> {
    match pred.rsplit('/').next()? {
        "date_of_birth" => Some(Property::BirthDate),
        "place_of_birth" => Some(Property::BirthPlace),
        "place_of_death" => Some(Property::DeathPlace),
        "date_of_death" => Some(Property::DeathDate),
        _ => None,
    }
}

pub fn import(inputs: &[PathBuf], options: &ImportOptions) -> Result<SourceData> {
    let mut invalid = InvalidLines::new(options);
    let mut people: Vec<Person> = Vec::new();
    let mut index: FxHashMap<String, usize> = FxHashMap::default();
    let mut docs: Vec<Document> = Vec::new();
    let mut seen_snippets: FxHashSet<(usize, String)> = FxHashSet::default();
    let mut docs_per_person: FxHashMap<usize, usize> = FxHashMap::default();
    for path in inputs {
        let reader = super::open_maybe_compressed(path)?;
        for (i, line) in reader.lines().enumerate() {
            let line_no = i as u64 + 1;
            let text = line.with_path(path)?;
            if text.trim().is_empty() {
                continue;
            }
            let record: Line = match serde_json::from_str(&text) {
                Ok(r) => r,
                Err(e) => {
                    invalid.handle(Error::invalid(path, line_no, "record", e.to_string()))?;
                    continue;
                }
            };
            let Some(property) = property_of(&record.pred) else {
                invalid.handle(Error::invalid(
                    path,
                    line_no,
                    "pred",
                    format!("unsupported predicate {:?}", record.pred),
                ))?;
                continue;
            };
            if record.sub.trim().is_empty() || record.sub_label.trim().is_empty() {
                invalid.handle(Error::invalid(path, line_no, "sub_label", "empty subject"))?;
                continue;
            }
            let id = format!("freebase:{}", record.sub);
            let person_index = *index.entry(id.clone()).or_insert_with(|| {
                people.push(Person::new(id.clone(), record.sub_label.trim()));
                people.len() - 1
            });
            let person = &mut people[person_index];
            for alias in &record.sub_aliases {
                if *alias != person.label && !person.aliases.contains(alias) {
                    person.aliases.push(alias.clone());
                }
            }
            if let Some(qid) = record.sub_w.filter(|q| !q.is_empty())
                && !person.same_as.contains(&qid)
            {
                person.same_as.push(qid);
            }
            let value = record.obj_label.trim();
            if !value.is_empty() {
                let fact = Fact::new(property, value)
                    .with_alternates(useful_alternates(value, &record.obj_aliases));
                if !person.facts.contains(&fact) {
                    person.facts.push(fact);
                }
            }
            for evidence in record.evidences {
                let snippet = evidence.snippet.trim();
                if snippet.is_empty() || !seen_snippets.insert((person_index, snippet.to_owned())) {
                    continue;
                }
                let n = docs_per_person.entry(person_index).or_default();
                *n += 1;
                docs.push(Document {
                    id: format!("gre:{}:{n}", record.sub.trim_start_matches("/m/")),
                    person: Some(id.clone()),
                    text: snippet.to_owned(),
                    split: None,
                });
            }
        }
    }
    let mut data = SourceData {
        people,
        docs,
        ..SourceData::default()
    };
    data.report.skipped_invalid = invalid.count;
    Ok(data)
}
