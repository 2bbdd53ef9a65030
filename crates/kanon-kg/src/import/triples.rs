//! The native format: CSV with header `subject,property,value`. See `kg/README.md`.
//!
//! - `label` / `alias` rows name a subject; `same_as` rows give its ids in other sources;
//! - `type` rows (`person` or `entity`) say what a subject is. Without one, a subject with facts or
//!   `same_as` rows is a person, and a subject with only names is an *entity* (a place, an
//!   organisation…) whose label and aliases resolve fact values that name its id;
//! - any other property is a fact (`birth_date`, `citizenship`, `P27`, or a snake_case name).

use std::path::{Path, PathBuf};

use rustc_hash::FxHashMap;

use super::source::{ImportOptions, InvalidLines, SourceData, useful_alternates};
use crate::error::{Error, Result};
use crate::model::{Fact, Person, Property};

#[derive(Default)]
struct Subject {
    label: Option<String>,
    aliases: Vec<String>,
    same_as: Vec<String>,
    kind: Option<bool>,
    facts: Vec<(Property, String)>,
}

/// Imports triples CSV files: subjects that are people become people, entity subjects name the
/// values of their facts.
pub fn import(inputs: &[PathBuf], options: &ImportOptions) -> Result<SourceData> {
    let mut subjects: Vec<(String, Subject)> = Vec::new();
    let mut index: FxHashMap<String, usize> = FxHashMap::default();
    let mut invalid = InvalidLines::new(options);
    for path in inputs {
        read_file(path, &mut subjects, &mut index, &mut invalid)?;
    }
    let is_person = |s: &Subject| {
        s.kind
            .unwrap_or(!s.facts.is_empty() || !s.same_as.is_empty())
    };
    // Entities are split off first so that people can be moved, not copied, out of the subjects.
    let (person_subjects, entity_subjects): (Vec<_>, Vec<_>) =
        subjects.into_iter().partition(|(_, s)| is_person(s));
    let entities: FxHashMap<String, Subject> = entity_subjects.into_iter().collect();
    let mut people = Vec::with_capacity(person_subjects.len());
    let mut unresolved = 0;
    for (id, subject) in person_subjects {
        let Subject {
            label,
            aliases,
            same_as,
            facts,
            ..
        } = subject;
        let Some(label) = label.or_else(|| aliases.first().cloned()) else {
            unresolved += facts.len();
            continue;
        };
        let mut person = Person::new(id, label);
        person.aliases = aliases.into_iter().filter(|a| *a != person.label).collect();
        person.same_as = same_as;
        person.facts.reserve_exact(facts.len());
        for (property, value) in facts {
            let fact = match entities.get(value.as_str()) {
                Some(entity) => match &entity.label {
                    Some(value_label) => Fact::new(property, value_label.clone())
                        .with_alternates(useful_alternates(value_label, &entity.aliases)),
                    None => {
                        unresolved += 1;
                        continue;
                    }
                },
                None => Fact::new(property, value),
            };
            if !person.facts.contains(&fact) {
                person.facts.push(fact);
            }
        }
        people.push(person);
    }
    let mut data = SourceData {
        people,
        ..SourceData::default()
    };
    data.report.skipped_invalid = invalid.count;
    data.report.unresolved_values = unresolved;
    Ok(data)
}

fn read_file(
    path: &Path,
    subjects: &mut Vec<(String, Subject)>,
    index: &mut FxHashMap<String, usize>,
    invalid: &mut InvalidLines,
) -> Result<()> {
    let reader = super::source::open_maybe_compressed(path)?;
    let mut csv = csv::ReaderBuilder::new().flexible(true).from_reader(reader);
    let headers = csv
        .headers()
        .map_err(|e| Error::invalid(path, 1, "header", e.to_string()))?
        .clone();
    let column = |name: &str| {
        headers
            .iter()
            .position(|h| h.trim() == name)
            .ok_or_else(|| {
                Error::invalid(
                    path,
                    1,
                    name,
                    "missing column: the header must be subject,property,value",
                )
            })
    };
    let (s_col, p_col, v_col) = (column("subject")?, column("property")?, column("value")?);
    let mut record = csv::StringRecord::new();
    loop {
        let line = csv.position().line() + 1;
        match csv.read_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => {
                let line = e.position().map_or(line, |p| p.line());
                invalid.handle(Error::invalid(path, line, "record", e.to_string()))?;
                continue;
            }
        }
        let line = record.position().map_or(line, |p| p.line());
        let field = |col: usize, name: &str| -> Result<&str> {
            match record.get(col).map(str::trim) {
                Some(v) if !v.is_empty() => Ok(v),
                _ => Err(Error::invalid(path, line, name, "empty or missing")),
            }
        };
        let parsed = (|| -> Result<(String, String, String)> {
            Ok((
                field(s_col, "subject")?.to_owned(),
                field(p_col, "property")?.to_owned(),
                field(v_col, "value")?.to_owned(),
            ))
        })();
        let (subject_id, property, value) = match parsed {
            Ok(row) => row,
            Err(e) => {
                invalid.handle(e)?;
                continue;
            }
        };
        let i = *index.entry(subject_id.clone()).or_insert_with(|| {
            subjects.push((subject_id, Subject::default()));
            subjects.len() - 1
        });
        let subject = &mut subjects[i].1;
        match property.as_str() {
            "label" => {
                if let Some(old) = subject.label.replace(value)
                    && !subject.aliases.contains(&old)
                {
                    subject.aliases.push(old);
                }
            }
            "alias" => {
                if !subject.aliases.contains(&value) {
                    subject.aliases.push(value);
                }
            }
            "same_as" => subject.same_as.push(value),
            "type" => match value.as_str() {
                "person" => subject.kind = Some(true),
                "entity" => subject.kind = Some(false),
                other => invalid.handle(Error::invalid(
                    path,
                    line,
                    "value",
                    format!("type must be person or entity, not {other:?}"),
                ))?,
            },
            _ => match property.parse::<Property>() {
                Ok(p) => subject.facts.push((p, value)),
                Err(message) => invalid.handle(Error::invalid(path, line, "property", message))?,
            },
        }
    }
    Ok(())
}
