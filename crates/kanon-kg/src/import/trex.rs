//! T-REx as packaged by LAMA (`P19.jsonl`, `P106.jsonl`…): one Wikidata fact per line, `sub_uri` /
//! `sub_label` (the person), `predicate_id`, `obj_uri` / `obj_label` (the value, named), and
//! `evidences[]`: sentences of Wikipedia abstracts with the object written `[MASK]`, `obj_surface`
//! (how the sentence writes the object) and `sub_surface` (how it writes the person).
//!
//! People are keyed by their Wikidata id (`sub_uri`), so they merge with a Wikidata dump's people,
//! and with Google-RE's through its `same_as` ids. Facts take `obj_label` as their value and the
//! sentences' other `obj_surface`s as alternates; a `sub_surface` of two words or more that is not
//! the label and shares a word with it becomes an alias (T-REx's alignment sometimes names another
//! entity of the sentence: "British School" is no name of the painter). Evidence sentences, `[MASK]` filled back with `obj_surface` and
//! deduplicated per person, become documents about the person (`trex:{Q-id}:{n}`), as Google-RE's
//! snippets do.
//!
//! LAMA's relations also have subjects that are not people: countries and organisations that are
//! members of something (P463), bands with instruments (P1303), churches with a religion (P140).
//! Their names would become person names ("United States" gives the surname "States"), so a subject
//! is dropped when it is the value of another imported fact (no relation kanon imports has a
//! person as its value: a subject that is a birth place or an employer is a place or an
//! organisation), when its label is a country, city or organisation of kanon's vocabulary, holds a
//! word that heads organisation names ("British School at Athens", "Colombian Football Federation")
//! or is written like a common noun phrase ("Mexico national football team", "dervish");
//! `SourceReport::not_people` counts them.

use std::path::PathBuf;

use serde::Deserialize;

use super::{
    ImportOptions, InvalidLines, SourceData, SubjectsWithTexts, for_each_json_line,
    useful_alternates,
};
use crate::error::{Error, Result};
use crate::model::{Fact, Property, is_wikidata_id};
use rustc_hash::FxHashSet;

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
    #[serde(default)]
    obj_uri: String,
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

pub fn import(inputs: &[PathBuf], options: &ImportOptions) -> Result<SourceData> {
    let mut invalid = InvalidLines::new(options);
    let mut subjects = SubjectsWithTexts::default();
    let mut values: FxHashSet<String> = FxHashSet::default();
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
            if is_wikidata_id(record.obj_uri.trim()) {
                values.insert(record.obj_uri.trim().to_owned());
            }
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
                .filter(|s| s.split_whitespace().count() >= 2 && shares_a_word(s, &person.label))
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
    let not_people = subjects
        .drop_people(|person| values.contains(&person.id) || not_a_person_name(&person.label));
    let mut source = subjects.into_source(&invalid);
    source.report.not_people = not_people;
    Ok(source)
}

/// Lower-case words that belong to people's names ("Jacques de Morgan", "Alexandre Dumas, fils").
const NAME_PARTICLES: &[&str] = &[
    "de", "del", "della", "der", "den", "di", "da", "das", "do", "dos", "du", "la", "le", "van",
    "von", "zu", "ter", "ten", "y", "e", "bin", "ibn", "al", "el", "of", "the", "and", "fils",
    "los", "las", "lo",
];

/// Capitalised words that head the names of organisations and places, never of people.
const ORGANISATION_WORDS: &[&str] = &[
    "school",
    "college",
    "institute",
    "university",
    "academy",
    "society",
    "federation",
    "association",
    "company",
    "corporation",
    "museum",
    "festival",
    "empire",
    "kingdom",
    "republic",
    "party",
    "club",
    "team",
    "orchestra",
    "records",
    "trust",
    "foundation",
    "council",
    "committee",
    "league",
    "ministry",
    "department",
    "centre",
    "center",
    "library",
    "hospital",
    "monastery",
    "abbey",
    "cathedral",
    "theatre",
    "theater",
    "cemetery",
    "government",
    "army",
    "navy",
    "organization",
    "organisation",
    "agency",
    "commission",
    "band",
    "choir",
    "fc",
];

/// Whether a subject's label is not a person's name: a country or organisation kanon's vocabulary
/// knows (not a city: mononyms such as "David" or "Bono" are city names too), a name with a word that heads organisations, or a common noun phrase (no
/// capital at all, as "dervish", or two or more lower-case words that are no name particles, as
/// "Mexico national football team").
fn not_a_person_name(label: &str) -> bool {
    // "Brandon Jenkins (football player)": Wikipedia's disambiguation is no part of the name.
    let label = label.split('(').next().unwrap_or(label).trim();
    let vocabulary = crate::vocab::Vocabulary::embedded();
    if !label.chars().any(char::is_uppercase)
        || vocabulary.country(label).is_some()
        || vocabulary.organization_kind(label).is_some()
    {
        return true;
    }
    let organisation_word = label.split_whitespace().any(|word| {
        word.chars().next().is_some_and(char::is_uppercase)
            && ORGANISATION_WORDS.contains(
                &word
                    .trim_matches(|c: char| !c.is_alphanumeric())
                    .to_lowercase()
                    .as_str(),
            )
    });
    if organisation_word {
        return true;
    }
    let common = label
        .split_whitespace()
        .filter(|word| {
            let first = word.chars().next();
            let folded = word
                .trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase();
            // "d'Halloy", "l'Ouverture", "al-Rashid": particles joined to the name.
            let joined_particle = folded.contains(['\'', '\u{2019}', '-']);
            first.is_some_and(char::is_lowercase)
                && !joined_particle
                && !NAME_PARTICLES.contains(&folded.as_str())
        })
        .count();
    common >= 2
}

/// Whether two names share a word (case and accents folded): "Aurelia M. Vantz" and "Aurelia
/// Vantz" do, "British School" and "John Smith" do not.
fn shares_a_word(a: &str, b: &str) -> bool {
    let words = |s: &str| -> Vec<String> {
        s.split_whitespace()
            .filter_map(kanon_core::text::normalize_term)
            .filter(|w| w.chars().count() >= 2)
            .collect()
    };
    let b_words = words(b);
    words(a).iter().any(|w| b_words.contains(w))
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

    #[test]
    fn subjects_named_like_places_organisations_or_common_nouns_are_not_people() {
        for label in [
            "United States of America",
            "British School at Athens",
            "Colombian Football Federation",
            "Mexico national football team",
            "dervish",
            "stock trader",
            "Gupta Empire",
        ] {
            assert!(not_a_person_name(label), "{label}");
        }
        for label in [
            "Alan Turing",
            "Jean Baptiste Julien d'Omalius d'Halloy",
            "Juan Prim, 1st Marquis of los Castillejos",
            "Brandon Jenkins (football player)",
            "Alexandre Dumas, fils",
            "Ludwig van Beethoven",
            "David",
            "Bono",
            "Ho Chi Minh",
            "Charlotte Church",
        ] {
            assert!(!not_a_person_name(label), "{label}");
        }
        assert!(shares_a_word("Aurelia M. Vantz", "Aurelia Vantz"));
        assert!(!shares_a_word("British School", "John Smith"));
    }
}
