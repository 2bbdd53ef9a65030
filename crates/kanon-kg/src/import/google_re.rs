//! Google-RE as packaged by LAMA: one fact per line (`sub_label`, `sub_aliases`, `pred`, `obj_label`,
//! `obj_aliases`, `evidences[].snippet`). Ids are `freebase:{sub}`, with `sub_w` (a Wikidata id) as
//! `same_as`. Snippets — paragraphs of the person's Wikipedia article — become documents about them.

use std::path::PathBuf;

use serde::Deserialize;

use super::source::{
    ImportOptions, InvalidLines, SourceData, SubjectsWithTexts, for_each_json_line,
    useful_alternates,
};
use crate::error::{Error, Result};
use crate::model::{Fact, Property};

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

/// Imports Google-RE files: people with their facts, and each evidence snippet as a document about
/// its person.
pub fn import(inputs: &[PathBuf], options: &ImportOptions) -> Result<SourceData> {
    let mut invalid = InvalidLines::new(options);
    let mut subjects = SubjectsWithTexts::default();
    for_each_json_line(
        inputs,
        &mut invalid,
        |invalid, path, line_no, record: Line| {
            let Some(property) = property_of(&record.pred) else {
                return invalid.handle(Error::invalid(
                    path,
                    line_no,
                    "pred",
                    format!("unsupported predicate {:?}", record.pred),
                ));
            };
            if record.sub.trim().is_empty() || record.sub_label.trim().is_empty() {
                return invalid.handle(Error::invalid(path, line_no, "sub_label", "empty subject"));
            }
            let person_index =
                subjects.person(&format!("freebase:{}", record.sub), record.sub_label.trim());
            let person = &mut subjects.people[person_index];
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
            let prefix = format!("gre:{}", record.sub.trim_start_matches("/m/"));
            for evidence in &record.evidences {
                subjects.add_text(person_index, &prefix, &evidence.snippet);
            }
            Ok(())
        },
    )?;
    Ok(subjects.into_source(&invalid))
}
