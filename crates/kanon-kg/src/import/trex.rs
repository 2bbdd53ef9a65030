//! T-REx as packaged by LAMA (`P19.jsonl`, `P106.jsonl`…): one Wikidata fact per line, `sub_uri` /
//! `sub_label` (the person), `predicate_id`, `obj_uri` / `obj_label` (the value, named), and
//! `evidences[]`: sentences of Wikipedia abstracts with the object written `[MASK]`, `obj_surface`
//! (how the sentence writes the object) and `sub_surface` (how it writes the person).
//!
//! People are keyed by their Wikidata id (`sub_uri`), so they merge with a Wikidata dump's people,
//! and with Google-RE's through its `same_as` ids. Facts take `obj_label` as their value and the
//! sentences' other `obj_surface`s as alternates; a `sub_surface` of two words or more that is not
//! the label becomes an alias. Evidence sentences, `[MASK]` filled back with `obj_surface` and
//! deduplicated per person, become documents about the person (`trex:{Q-id}:{n}`), as Google-RE's
//! snippets do.

use std::path::PathBuf;

use serde::Deserialize;

use super::source::{
    ImportOptions, InvalidLines, SourceData, SubjectsWithTexts, for_each_json_line,
    useful_alternates,
};
use crate::error::{Error, Result};
use crate::model::{Fact, Property, is_wikidata_id};

/// The relations about people that kanon imports, and the fact kind of each.
pub const RELATIONS: [&str; 14] = [
    "P19", "P20", "P27", "P39", "P101", "P103", "P106", "P108", "P140", "P1303", "P1412", "P413",
    "P463", "P937",
];

/// The fact kind of a T-REx relation: kanon's property for its Wikidata id where it has one,
/// `instrument` (P1303) and `sports_position` (P413) otherwise.
pub fn property_of(predicate: &str) -> Option<Property> {
    if !RELATIONS.contains(&predicate) {
        return None;
    }
    Property::from_wikidata(predicate).or_else(|| match predicate {
        "P1303" => Some(Property::Other("instrument".into())),
        "P413" => Some(Property::Other("sports_position".into())),
        _ => None,
    })
}

#[derive(Deserialize)]
struct Line {
    sub_uri: String,
    sub_label: String,
    predicate_id: String,
    obj_label: String,
    #[serde(default)]
    evidences: Vec<Evidence>,
}

#[derive(Deserialize)]
struct Evidence {
    #[serde(default)]
    sub_surface: String,
    #[serde(default)]
    obj_surface: String,
    masked_sentence: String,
}

const MASK: &str = "[MASK]";

/// Checks a record's fields; the error names the first bad one.
fn check(record: &Line) -> std::result::Result<Property, (String, String)> {
    let property = property_of(record.predicate_id.trim()).ok_or_else(|| {
        (
            "predicate_id".to_owned(),
            format!(
                "unsupported relation {:?}: kanon imports the person relations {}",
                record.predicate_id,
                RELATIONS.join(", ")
            ),
        )
    })?;
    if !is_wikidata_id(record.sub_uri.trim()) {
        return Err((
            "sub_uri".into(),
            format!("not a Wikidata id: {:?}", record.sub_uri),
        ));
    }
    if record.sub_label.trim().is_empty() {
        return Err(("sub_label".into(), "empty".into()));
    }
    if record.obj_label.trim().is_empty() {
        return Err(("obj_label".into(), "empty".into()));
    }
    for (i, evidence) in record.evidences.iter().enumerate() {
        if evidence.masked_sentence.contains(MASK) && evidence.obj_surface.trim().is_empty() {
            return Err((
                format!("evidences[{i}].obj_surface"),
                "empty, so [MASK] cannot be filled".into(),
            ));
        }
    }
    Ok(property)
}

/// Imports T-REx files: people keyed by Wikidata id with their facts and aliases, and the evidence
/// sentences as documents about them.
pub fn import(inputs: &[PathBuf], options: &ImportOptions) -> Result<SourceData> {
    let mut invalid = InvalidLines::new(options);
    let mut subjects = SubjectsWithTexts::default();
    for_each_json_line(
        inputs,
        &mut invalid,
        |invalid, path, line_no, record: Line| {
            let property = match check(&record) {
                Ok(p) => p,
                Err((field, message)) => {
                    return invalid.handle(Error::invalid(path, line_no, field, message));
                }
            };
            let id = record.sub_uri.trim();
            let person_index = subjects.person(id, record.sub_label.trim());
            let person = &mut subjects.people[person_index];
            let value = record.obj_label.trim();
            let surfaces: Vec<String> = record
                .evidences
                .iter()
                .map(|e| e.obj_surface.trim().to_owned())
                .collect();
            let fact = Fact::new(property.clone(), value)
                .with_alternates(useful_alternates(value, &surfaces));
            match person
                .facts
                .iter_mut()
                .find(|f| f.property == property && f.value == value)
            {
                Some(existing) => {
                    for alt in fact.alternates {
                        if !existing.alternates.contains(&alt) {
                            existing.alternates.push(alt);
                        }
                    }
                }
                None => person.facts.push(fact),
            }
            let names: Vec<String> = record
                .evidences
                .iter()
                .map(|e| e.sub_surface.trim().to_owned())
                .filter(|s| s.split_whitespace().count() >= 2)
                .collect();
            for alias in useful_alternates(&person.label, &names) {
                if !person.aliases.contains(&alias) {
                    person.aliases.push(alias);
                }
            }
            let prefix = format!("trex:{id}");
            for evidence in &record.evidences {
                let sentence = evidence
                    .masked_sentence
                    .replace(MASK, evidence.obj_surface.trim());
                subjects.add_text(person_index, &prefix, &sentence);
            }
            Ok(())
        },
    )?;
    Ok(subjects.into_source(&invalid))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_relation_has_a_fact_kind() {
        for relation in RELATIONS {
            assert!(property_of(relation).is_some(), "{relation}");
        }
        assert_eq!(property_of("P19"), Some(Property::BirthPlace));
        assert_eq!(property_of("P103"), Some(Property::Language));
        assert_eq!(property_of("P1412"), Some(Property::Language));
        assert_eq!(property_of("P937"), Some(Property::WorkLocation));
        assert_eq!(
            property_of("P413"),
            Some(Property::Other("sports_position".into()))
        );
        // A LAMA relation that is not about people.
        assert_eq!(property_of("P36"), None);
        // Kanon knows P569, but T-REx's packaging has no birth dates.
        assert_eq!(property_of("P569"), None);
    }
}
