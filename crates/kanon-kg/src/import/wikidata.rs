//! The Wikidata JSON dump: one entity per line inside `[` … `]`, plain, `.gz` or `.bz2`, streamed.
//!
//! Two passes: the first keeps humans (P31 = Q5) with their names and claims and collects the items
//! their claims point to; the second reads the labels (and aliases) of those items, so that
//! `P27: Q40` becomes `citizenship: Austria`. An item the dump does not name is looked up in the
//! `--labels` tables, then (in English) in kanon's bundled Q-id table ([`super::labels`]); what is
//! still unnamed is dropped and counted per property in the report. Times become dates at their
//! stated precision.
//!
//! Both vintages of the format are read: today's (`{"entity-type":"item","numeric-id":40,
//! "id":"Q40"}`) and 2014's (item values with only `numeric-id`; years written with 11 digits,
//! `+00000001952-03-11T00:00:00Z`), as are dates with a zero month or day (read at the precision
//! they do have), entities with extra API keys (`pageid`, `lastrevid`) and empty maps written as
//! `[]`. A human with no name in the chosen language is named in another (counted).

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::io::BufRead;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};

use kanon_core::PathContext;
use rustc_hash::{FxHashMap, FxHashSet};
use serde::de::{IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};

use super::labels::LabelTable;
use super::source::{ImportOptions, InvalidLines, Resolution, SourceData, useful_alternates};
use crate::date::Date;
use crate::error::{Error, Result};
use crate::model::{Fact, Person, Property};

#[derive(Deserialize)]
struct Entity {
    id: String,
    #[serde(default, rename = "type")]
    kind: String,
    #[serde(default, deserialize_with = "lenient_map")]
    labels: HashMap<String, LangValue>,
    #[serde(default, deserialize_with = "lenient_map")]
    aliases: HashMap<String, Vec<LangValue>>,
    #[serde(default, deserialize_with = "lenient_map")]
    claims: HashMap<String, Vec<Statement>>,
}

/// The second pass needs names only: claims are skipped unparsed.
#[derive(Deserialize)]
struct NamedEntity {
    id: String,
    #[serde(default, deserialize_with = "lenient_map")]
    labels: HashMap<String, LangValue>,
    #[serde(default, deserialize_with = "lenient_map")]
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
    WikibaseEntityid(EntityIdValue),
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
    Other(IgnoredAny),
}

/// An item (or property…) value: `id` today, only `numeric-id` and `entity-type` in 2014.
#[derive(Deserialize)]
struct EntityIdValue {
    #[serde(default)]
    id: Option<String>,
    #[serde(default, rename = "numeric-id")]
    numeric_id: Option<u64>,
    #[serde(default, rename = "entity-type")]
    entity_type: Option<String>,
}

impl EntityIdValue {
    fn id(&self) -> Option<String> {
        if let Some(id) = &self.id {
            return Some(id.clone());
        }
        let prefix = match self.entity_type.as_deref().unwrap_or("item") {
            "item" => 'Q',
            "property" => 'P',
            "lexeme" => 'L',
            _ => return None,
        };
        self.numeric_id.map(|n| format!("{prefix}{n}"))
    }
}

/// A map, also when written as an empty list (`"aliases":[]`, as PHP writes an empty map) or null.
fn lenient_map<'de, D, V>(deserializer: D) -> std::result::Result<HashMap<String, V>, D::Error>
where
    D: Deserializer<'de>,
    V: Deserialize<'de>,
{
    struct Lenient<V>(PhantomData<V>);

    impl<'de, V: Deserialize<'de>> Visitor<'de> for Lenient<V> {
        type Value = HashMap<String, V>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a map (or an empty list)")
        }

        fn visit_map<A: MapAccess<'de>>(
            self,
            mut map: A,
        ) -> std::result::Result<Self::Value, A::Error> {
            let mut out = HashMap::with_capacity(map.size_hint().unwrap_or(0));
            while let Some((key, value)) = map.next_entry()? {
                out.insert(key, value);
            }
            Ok(out)
        }

        fn visit_seq<A: SeqAccess<'de>>(
            self,
            mut seq: A,
        ) -> std::result::Result<Self::Value, A::Error> {
            if seq.next_element::<IgnoredAny>()?.is_some() {
                return Err(serde::de::Error::invalid_length(1, &self));
            }
            Ok(HashMap::new())
        }

        fn visit_unit<E: serde::de::Error>(self) -> std::result::Result<Self::Value, E> {
            Ok(HashMap::new())
        }
    }

    deserializer.deserialize_any(Lenient(PhantomData))
}

enum RawValue {
    /// An item value, with the Wikidata id of the property that points to it.
    Item(&'static str, String),
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
        .filter(|v| !v.trim().is_empty())
}

fn pick_aliases(map: &HashMap<String, Vec<LangValue>>, lang: &str) -> Vec<String> {
    map.get(lang)
        .into_iter()
        .chain(map.get("mul"))
        .flatten()
        .map(|v| v.value.clone())
        .collect()
}

/// A human's name: the label in the language (or `mul`); else, flagged as another language's, its
/// first alias in the language, the English label, or the label most languages share (ties: the
/// smallest language code). `None` only when the entity has no label at all.
fn name_of(entity: &Entity, lang: &str) -> Option<(String, bool)> {
    if let Some(label) = pick(&entity.labels, lang) {
        return Some((label.to_owned(), false));
    }
    if let Some(alias) = pick_aliases(&entity.aliases, lang)
        .into_iter()
        .find(|a| !a.trim().is_empty())
    {
        return Some((alias, true));
    }
    if let Some(label) = pick(&entity.labels, "en") {
        return Some((label.to_owned(), true));
    }
    let mut shared: BTreeMap<&str, (usize, &str)> = BTreeMap::new();
    for (language, label) in &entity.labels {
        let value = label.value.trim();
        if value.is_empty() {
            continue;
        }
        let entry = shared.entry(value).or_insert((0, language.as_str()));
        entry.0 += 1;
        entry.1 = entry.1.min(language.as_str());
    }
    shared
        .into_iter()
        .max_by(|(_, (n, a)), (_, (m, b))| n.cmp(m).then_with(|| b.cmp(a)))
        .map(|(value, _)| (value.to_owned(), true))
}

/// Wikidata time (`+1992-08-05T00:00:00Z`, precision 9 = year, 10 = month, 11 = day; the 2014 dumps
/// write `+00000001992-08-05T00:00:00Z`) to a KG date. A zero month or day (`+1952-00-00` at day
/// precision) lowers the precision to what is known.
fn time_to_value(time: &str, precision: u8) -> Option<String> {
    let negative = time.starts_with('-');
    let body = time.trim_start_matches(['+', '-']);
    let date_part = body.split('T').next()?;
    let mut parts = date_part.split('-');
    let year: i32 = parts.next()?.parse().ok()?;
    let month: u8 = parts.next()?.parse().ok()?;
    let day: u8 = parts.next()?.parse().ok()?;
    let year = if negative { -year } else { year };
    let known = |v: u8| (v != 0).then_some(v);
    let date = match precision {
        11.. => Date {
            year,
            month: known(month),
            day: known(month).and(known(day)),
        },
        10 => Date {
            year,
            month: known(month),
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
    // Validate through the parser (rejects year 0, a day past the month's end…).
    Date::parse(&date.to_string()).map(|d| d.to_string())
}

/// Lines of a dump: `[`, `]` and blank lines skipped, the trailing comma of each entity removed.
fn for_each_entity_line(
    path: &Path,
    mut on_line: impl FnMut(u64, &str) -> Result<()>,
) -> Result<()> {
    let mut reader = super::source::open_maybe_compressed(path)?;
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

/// Where an item's name was found.
#[derive(Clone, Copy)]
enum Found {
    Input,
    Labels,
    Vocab,
}

/// Imports Wikidata dumps: the humans of the first pass, their item values named by the second.
pub fn import(inputs: &[PathBuf], options: &ImportOptions) -> Result<SourceData> {
    let lang = options.lang.as_str();
    let mut invalid = InvalidLines::new(options);
    let (user_labels, invalid_label_rows) = LabelTable::read(&options.labels, options)?;
    let humans = read_humans(inputs, lang, &mut invalid)?;
    let names = ItemNames {
        input: read_item_names(inputs, lang, &humans.wanted)?,
        user_labels,
        bundled: (lang == "en").then(LabelTable::bundled),
    };
    let mut resolved = Resolved::default();
    let people = humans
        .humans
        .into_iter()
        .map(|human| resolved.person(human, &names))
        .collect();
    let mut data = SourceData {
        people,
        ..SourceData::default()
    };
    data.report.skipped_invalid = invalid.count + invalid_label_rows;
    data.report.unresolved_values = resolved.unresolved;
    data.report.people_without_label = humans.without_label;
    data.report.people_named_in_other_language = humans.named_in_other_language;
    data.report.resolution = resolved.resolution;
    Ok(data)
}

/// What the first pass keeps: the humans, and the items their claims point to.
struct Humans {
    humans: Vec<Human>,
    /// The ids of every item a human's claim points to, to be named by the second pass.
    wanted: FxHashSet<String>,
    /// Humans dropped for having no name in any language.
    without_label: usize,
    /// Humans named in another language than the one asked for.
    named_in_other_language: usize,
}

/// First pass: every human (P31 = Q5) with a name, their aliases and their claims.
fn read_humans(inputs: &[PathBuf], lang: &str, invalid: &mut InvalidLines) -> Result<Humans> {
    let properties: Vec<(&'static str, Property)> = Property::wikidata_ids().collect();
    let mut found = Humans {
        humans: Vec::new(),
        wanted: FxHashSet::default(),
        without_label: 0,
        named_in_other_language: 0,
    };
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
            // Many real humans have no label in a given language; a name in another (people's names
            // mostly cross languages unchanged) still counts them in the population.
            let Some((label, other_language)) = name_of(&entity, lang) else {
                found.without_label += 1;
                return Ok(());
            };
            found.named_in_other_language += usize::from(other_language);
            let mut person = Person::new(entity.id.clone(), label);
            for alias in pick_aliases(&entity.aliases, lang) {
                if alias != person.label
                    && !alias.trim().is_empty()
                    && !person.aliases.contains(&alias)
                {
                    person.aliases.push(alias);
                }
            }
            let claims = claims_of(&entity, &properties, &mut found.wanted);
            found.humans.push(Human { person, claims });
            Ok(())
        })?;
    }
    Ok(found)
}

/// The entity's claims of the properties kanon imports, as raw values (deprecated statements and
/// values of no imported kind left out); the items they point to join `wanted`.
fn claims_of(
    entity: &Entity,
    properties: &[(&'static str, Property)],
    wanted: &mut FxHashSet<String>,
) -> Vec<(Property, RawValue)> {
    let mut claims = Vec::new();
    for (pid, property) in properties {
        for statement in entity.claims.get(*pid).into_iter().flatten() {
            if statement.rank == "deprecated" {
                continue;
            }
            let value = match &statement.mainsnak.datavalue {
                Some(DataValue::WikibaseEntityid(value)) => match value.id() {
                    Some(id) => {
                        wanted.insert(id.clone());
                        RawValue::Item(pid, id)
                    }
                    None => continue,
                },
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
    claims
}

/// Second pass: the label and aliases in `lang` of the items the humans' claims point to (humans
/// themselves included), by id.
fn read_item_names(
    inputs: &[PathBuf],
    lang: &str,
    wanted: &FxHashSet<String>,
) -> Result<FxHashMap<String, (String, Vec<String>)>> {
    let mut names: FxHashMap<String, (String, Vec<String>)> = FxHashMap::default();
    for path in inputs {
        for_each_entity_line(path, |_, line| {
            // Cheap pre-filter on the entity's own id, when it comes before any nested object.
            if let Some(id) = quick_id(line)
                && !wanted.contains(id)
            {
                return Ok(());
            }
            // A line that does not parse here did not parse in the first pass either (that pass reads
            // the same fields and more): it has already failed the import or been counted.
            let Ok(entity) = serde_json::from_str::<NamedEntity>(line) else {
                return Ok(());
            };
            if !wanted.contains(&entity.id) {
                return Ok(());
            }
            if let Some(label) = pick(&entity.labels, lang) {
                names.insert(
                    entity.id,
                    (label.to_owned(), pick_aliases(&entity.aliases, lang)),
                );
            }
            Ok(())
        })?;
    }
    Ok(names)
}

/// Where an item's name is looked up, in order: the dump itself, the `--labels` tables, kanon's
/// bundled table (English only).
struct ItemNames {
    input: FxHashMap<String, (String, Vec<String>)>,
    user_labels: LabelTable,
    bundled: Option<&'static LabelTable>,
}

impl ItemNames {
    /// The item's label and aliases, and where they were found; `None` when nowhere.
    fn lookup(&self, id: &str) -> Option<(Found, &str, &[String])> {
        if let Some((label, aliases)) = self.input.get(id) {
            return Some((Found::Input, label.as_str(), aliases.as_slice()));
        }
        if let Some((label, aliases)) = self.user_labels.get(id) {
            return Some((Found::Labels, label, aliases));
        }
        self.bundled
            .and_then(|table| table.get(id))
            .map(|(label, aliases)| (Found::Vocab, label, aliases))
    }
}

/// The counts of naming item values, kept across people.
#[derive(Default)]
struct Resolved {
    /// Facts dropped because their item has no name.
    unresolved: usize,
    /// Per Wikidata property, where its item values were named.
    resolution: BTreeMap<String, Resolution>,
}

impl Resolved {
    /// The human as a person with facts: item values named (or dropped and counted), duplicates
    /// left out.
    fn person(&mut self, Human { mut person, claims }: Human, names: &ItemNames) -> Person {
        for (property, value) in claims {
            let fact = match value {
                RawValue::Text(text) => Fact::new(property, text),
                RawValue::Item(pid, id) => {
                    let counts = self.resolution.entry(pid.to_owned()).or_default();
                    counts.values += 1;
                    match names.lookup(&id) {
                        Some((found, label, aliases)) => {
                            match found {
                                Found::Input => counts.from_input += 1,
                                Found::Labels => counts.from_labels += 1,
                                Found::Vocab => counts.from_vocab += 1,
                            }
                            Fact::new(property, label)
                                .with_alternates(useful_alternates(label, aliases))
                        }
                        None => {
                            counts.unresolved += 1;
                            self.unresolved += 1;
                            continue;
                        }
                    }
                }
            };
            if !person.facts.contains(&fact) {
                person.facts.push(fact);
            }
        }
        person
    }
}

fn is_human(entity: &Entity) -> bool {
    entity.claims.get("P31").into_iter().flatten().any(|s| {
        matches!(&s.mainsnak.datavalue, Some(DataValue::WikibaseEntityid(v)) if v.id().as_deref() == Some("Q5"))
    })
}

/// The value of the entity's own `"id":"…"`, without parsing the JSON: the first one in the line,
/// when no object opens before it (else it may be a statement's id, and the line is parsed).
fn quick_id(line: &str) -> Option<&str> {
    let at = line.find("\"id\":\"")?;
    if line[..at].matches('{').count() != 1 {
        return None;
    }
    let start = at + 6;
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
        assert!(
            matches!(parse(item), DataValue::WikibaseEntityid(v) if v.id().as_deref() == Some("Q5"))
        );
        // The 2014 format: no `id`, only the number and the entity type.
        let old = r#"{"value":{"entity-type":"item","numeric-id":183},"type":"wikibase-entityid"}"#;
        assert!(
            matches!(parse(old), DataValue::WikibaseEntityid(v) if v.id().as_deref() == Some("Q183"))
        );
        let property =
            r#"{"value":{"entity-type":"property","numeric-id":27},"type":"wikibase-entityid"}"#;
        assert!(
            matches!(parse(property), DataValue::WikibaseEntityid(v) if v.id().as_deref() == Some("P27"))
        );
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

    #[test]
    fn times_of_2014_and_zero_months_and_days() {
        // 11-digit years (2014 dumps).
        assert_eq!(
            time_to_value("+00000001952-03-11T00:00:00Z", 11).as_deref(),
            Some("1952-03-11")
        );
        assert_eq!(
            time_to_value("+00000001946-00-00T00:00:00Z", 9).as_deref(),
            Some("1946")
        );
        // A zero day or month at day precision: the precision that is known.
        assert_eq!(
            time_to_value("+1516-08-00T00:00:00Z", 11).as_deref(),
            Some("1516-08")
        );
        assert_eq!(
            time_to_value("+1952-00-11T00:00:00Z", 11).as_deref(),
            Some("1952")
        );
        assert_eq!(
            time_to_value("+2018-09-00T00:00:00Z", 10).as_deref(),
            Some("2018-09")
        );
        assert_eq!(time_to_value("+0000-00-00T00:00:00Z", 9), None);
        assert_eq!(time_to_value("+13798000000-00-00T00:00:00Z", 9), None);
    }

    #[test]
    fn empty_maps_may_be_written_as_lists() {
        let entity: Entity = serde_json::from_str(
            r#"{"id":"Q1","type":"item","labels":{"en":{"language":"en","value":"A"}},"aliases":[],"claims":[]}"#,
        )
        .unwrap();
        assert!(entity.aliases.is_empty() && entity.claims.is_empty());
        assert!(
            serde_json::from_str::<Entity>(r#"{"id":"Q1","aliases":["x"]}"#).is_err(),
            "a non-empty list is not a map"
        );
    }

    #[test]
    fn quick_id_reads_only_the_entitys_own_id() {
        assert_eq!(
            quick_id(r#"{"type":"item","id":"Q42","labels":{}}"#),
            Some("Q42")
        );
        assert_eq!(quick_id(r#"{"labels":{"en":{}},"id":"Q42"}"#), None);
    }
}
