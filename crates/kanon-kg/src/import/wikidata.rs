//! The Wikidata JSON dump: one entity per line inside `[` … `]`, plain, `.gz` or `.bz2`, streamed.
//!
//! Two passes: the first keeps humans (P31 = Q5) with their names and claims and collects the items
//! their claims point to; the second reads the labels (and aliases) of those items, so that
//! `P27: Q40` becomes `citizenship: Austria`. Times become dates at their stated precision.

use std::collections::HashMap;
use std::io::BufRead;
use std::path::{Path, PathBuf};

use kanon_core::PathContext;
use rustc_hash::{FxHashMap, FxHashSet};
use serde::Deserialize;

use super::{ImportOptions, InvalidLines, SourceData, useful_alternates};
use crate::date::Date;
use crate::error::{Error, Result};
use crate::model::{Fact, Person, Property};

#[derive(Deserialize)]
struct Entity {
    id: String,
    #[serde(default, rename = "type")]
    kind: String,
    #[serde(default)]
    labels: HashMap<String, LangValue>,
    #[serde(default)]
    aliases: HashMap<String, Vec<LangValue>>,
    #[serde(default)]
    claims: HashMap<String, Vec<Statement>>,
}

/// The second pass needs names only: claims are skipped unparsed.
#[derive(Deserialize)]
struct NamedEntity {
    id: String,
    #[serde(default)]
    labels: HashMap<String, LangValue>,
    #[serde(default)]
    aliases: HashMap<String, Vec<LangValue>>,
}

#[derive(Deserialize)]
struct LangValue {
    value: String,
}

#[derive(Deserialize)]
struct Statement {
    mainsnak: Snak,
    #[serde(default)]
    rank: String,
}

#[derive(Deserialize)]
struct Snak {
    #[serde(default)]
    datavalue: Option<DataValue>,
}

#[derive(Deserialize)]
#[serde(tag = "type", content = "value", rename_all = "kebab-case")]
enum DataValue {
    WikibaseEntityid {
        id: String,
    },
    Time {
        time: String,
        precision: u8,
    },
    String(String),
    Quantity {
        amount: String,
    },
    /// Any other value (`monolingualtext`, `globecoordinate`, a type added later…), whatever its
    /// content: kanon imports none of them, and they must not make the whole entity unreadable.
    #[serde(untagged)]
    Other(serde::de::IgnoredAny),
}

enum RawValue {
    Item(String),
    Text(String),
}

struct Human {
    person: Person,
    claims: Vec<(Property, RawValue)>,
}

fn pick<'a>(map: &'a HashMap<String, LangValue>, lang: &str) -> Option<&'a str> {
    map.get(lang)
        .or_else(|| map.get("mul"))
        .map(|v| v.value.as_str())
}

fn pick_aliases(map: &HashMap<String, Vec<LangValue>>, lang: &str) -> Vec<String> {
    map.get(lang)
        .into_iter()
        .chain(map.get("mul"))
        .flatten()
        .map(|v| v.value.clone())
        .collect()
}

/// Wikidata time (`+1992-08-05T00:00:00Z`, precision 9 = year, 10 = month, 11 = day) to a KG date.
fn time_to_value(time: &str, precision: u8) -> Option<String> {
    let negative = time.starts_with('-');
    let body = time.trim_start_matches(['+', '-']);
    let date_part = body.split('T').next()?;
    let mut parts = date_part.split('-');
    let year: i32 = parts.next()?.parse().ok()?;
    let month: u8 = parts.next()?.parse().ok()?;
    let day: u8 = parts.next()?.parse().ok()?;
    let year = if negative { -year } else { year };
    let date = match precision {
        11.. => Date {
            year,
            month: Some(month),
            day: Some(day),
        },
        10 => Date {
            year,
            month: Some(month),
            day: None,
        },
        9 => Date {
            year,
            month: None,
            day: None,
        },
        8 if year > 0 => return Some(format!("{}s", year - year % 10)),
        _ => return None,
    };
    // Validate through the parser (rejects month 0, day 0 placeholders).
    Date::parse(&date.to_string()).map(|d| d.to_string())
}

/// Lines of a dump: `[`, `]` and blank lines skipped, the trailing comma of each entity removed.
fn for_each_entity_line(
    path: &Path,
    mut on_line: impl FnMut(u64, &str) -> Result<()>,
) -> Result<()> {
    let mut reader = super::open_maybe_compressed(path)?;
    let mut buf = String::new();
    let mut line_no = 0u64;
    loop {
        buf.clear();
        line_no += 1;
        let n = reader.read_line(&mut buf).with_path(path)?;
        if n == 0 {
            return Ok(());
        }
        let line = buf.trim().trim_end_matches(',');
        if line.is_empty() || line == "[" || line == "]" {
            continue;
        }
        on_line(line_no, line)?;
    }
}

pub fn import(inputs: &[PathBuf], options: &ImportOptions) -> Result<SourceData> {
    let lang = options.lang.as_str();
    let mut invalid = InvalidLines::new(options);
    let mut humans: Vec<Human> = Vec::new();
    let mut people_without_label = 0;
    let mut wanted: FxHashSet<String> = FxHashSet::default();
    for path in inputs {
        for_each_entity_line(path, |line_no, line| {
            let entity: Entity = match serde_json::from_str(line) {
                Ok(e) => e,
                Err(e) => {
                    return invalid.handle(Error::invalid(path, line_no, "entity", e.to_string()));
                }
            };
            if entity.kind != "item" || !is_human(&entity) {
                return Ok(());
            }
            // Many real humans have no label in a given language: not a malformed line, just a
            // person this KG cannot name (and so cannot match in text). Counted, not fatal.
            let Some(label) = pick(&entity.labels, lang) else {
                people_without_label += 1;
                return Ok(());
            };
            let mut person = Person::new(entity.id.clone(), label);
            person.aliases = pick_aliases(&entity.aliases, lang);
            let mut claims = Vec::new();
            for (pid, property) in Property::wikidata_ids() {
                for statement in entity.claims.get(pid).into_iter().flatten() {
                    if statement.rank == "deprecated" {
                        continue;
                    }
                    let value = match &statement.mainsnak.datavalue {
                        Some(DataValue::WikibaseEntityid { id }) => {
                            wanted.insert(id.clone());
                            RawValue::Item(id.clone())
                        }
                        Some(DataValue::Time { time, precision }) => {
                            match time_to_value(time, *precision) {
                                Some(v) => RawValue::Text(v),
                                None => continue,
                            }
                        }
                        Some(DataValue::String(s)) => RawValue::Text(s.clone()),
                        Some(DataValue::Quantity { amount }) => {
                            RawValue::Text(amount.trim_start_matches('+').to_owned())
                        }
                        _ => continue,
                    };
                    claims.push((property.clone(), value));
                }
            }
            humans.push(Human { person, claims });
            Ok(())
        })?;
    }
    // Second pass: names of the items the humans' claims point to (humans themselves included).
    let mut names: FxHashMap<String, (String, Vec<String>)> = FxHashMap::default();
    for path in inputs {
        for_each_entity_line(path, |_, line| {
            // Cheap pre-filter: the id is near the start of every entity line.
            let Some(id) = quick_id(line) else {
                return Ok(());
            };
            if !wanted.contains(id) {
                return Ok(());
            }
            // A line that does not parse here did not parse in the first pass either (that pass reads
            // the same fields and more): it has already failed the import or been counted.
            let Ok(entity) = serde_json::from_str::<NamedEntity>(line) else {
                return Ok(());
            };
            if let Some(label) = pick(&entity.labels, lang) {
                names.insert(
                    entity.id,
                    (label.to_owned(), pick_aliases(&entity.aliases, lang)),
                );
            }
            Ok(())
        })?;
    }
    let mut unresolved = 0;
    let people = humans
        .into_iter()
        .map(|Human { mut person, claims }| {
            for (property, value) in claims {
                let fact = match value {
                    RawValue::Text(text) => Fact::new(property, text),
                    RawValue::Item(id) => match names.get(&id) {
                        Some((label, aliases)) => Fact::new(property, label.clone())
                            .with_alternates(useful_alternates(label, aliases)),
                        None => {
                            unresolved += 1;
                            continue;
                        }
                    },
                };
                if !person.facts.contains(&fact) {
                    person.facts.push(fact);
                }
            }
            person
        })
        .collect();
    let mut data = SourceData {
        people,
        ..SourceData::default()
    };
    data.report.skipped_invalid = invalid.count;
    data.report.unresolved_values = unresolved;
    data.report.people_without_label = people_without_label;
    Ok(data)
}

fn is_human(entity: &Entity) -> bool {
    entity.claims.get("P31").into_iter().flatten().any(
        |s| matches!(&s.mainsnak.datavalue, Some(DataValue::WikibaseEntityid { id }) if id == "Q5"),
    )
}

/// The value of the first `"id":"…"` in a line, without parsing the JSON.
fn quick_id(line: &str) -> Option<&str> {
    let start = line.find("\"id\":\"")? + 6;
    let len = line[start..].find('"')?;
    Some(&line[start..start + len])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_of_other_types_are_ignored_not_fatal() {
        let parse = |json: &str| serde_json::from_str::<DataValue>(json).unwrap();
        let coordinate = r#"{"value":{"latitude":61.2,"longitude":7.4,"altitude":null,"precision":0.0001,"globe":"http://www.wikidata.org/entity/Q2"},"type":"globecoordinate"}"#;
        assert!(matches!(parse(coordinate), DataValue::Other(_)));
        let text = r#"{"value":{"text":"Aurelia Vantz","language":"de"},"type":"monolingualtext"}"#;
        assert!(matches!(parse(text), DataValue::Other(_)));
        let time = r#"{"value":{"time":"+1992-08-05T00:00:00Z","timezone":0,"before":0,"after":0,"precision":11,"calendarmodel":"http://www.wikidata.org/entity/Q1985727"},"type":"time"}"#;
        assert!(matches!(parse(time), DataValue::Time { precision: 11, .. }));
        let item = r#"{"type":"wikibase-entityid","value":{"entity-type":"item","numeric-id":5,"id":"Q5"}}"#;
        assert!(matches!(parse(item), DataValue::WikibaseEntityid { id } if id == "Q5"));
        assert!(
            matches!(parse(r#"{"value":"990000011234","type":"string"}"#), DataValue::String(s) if s == "990000011234")
        );
    }

    #[test]
    fn times_keep_their_precision() {
        assert_eq!(
            time_to_value("+1992-08-05T00:00:00Z", 11).as_deref(),
            Some("1992-08-05")
        );
        assert_eq!(
            time_to_value("+1992-08-00T00:00:00Z", 10).as_deref(),
            Some("1992-08")
        );
        assert_eq!(
            time_to_value("+1992-00-00T00:00:00Z", 9).as_deref(),
            Some("1992")
        );
        assert_eq!(
            time_to_value("-0384-00-00T00:00:00Z", 9).as_deref(),
            Some("-384")
        );
        assert_eq!(
            time_to_value("+1995-00-00T00:00:00Z", 8).as_deref(),
            Some("1990s")
        );
        assert_eq!(time_to_value("+1900-00-00T00:00:00Z", 7), None);
    }
}
