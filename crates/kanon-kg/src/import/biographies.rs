//! Biographies without a KG (`--format biographies`): JSON lines `{"id", "title" or "name",
//! "text"}`, such as Wikipedia abstracts. Each line is a person named by `name`, else by `title`
//! without its disambiguation ("Lee Wallace (actor)" → "Lee Wallace"), whose facts and other
//! names are read from the text itself by [`crate::derive::Deriver`]; the text becomes a document
//! about the person (`bio:{id}`). Ids that are Wikidata ids (`Q…`) stay the person's id, so they
//! merge with other sources by identifier; other people merge by name and birth date.

use std::collections::BTreeMap;
use std::path::PathBuf;

use kanon_core::Document;
use rustc_hash::FxHashSet;
use serde::Deserialize;

use super::source::{ImportOptions, InvalidLines, SourceData, for_each_json_line};
use crate::derive::Deriver;
use crate::error::{Error, Result};
use crate::model::{Person, is_wikidata_id};

#[derive(Deserialize)]
struct Line {
    id: String,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    title: Option<String>,
    text: String,
}

/// The person's name: `name`, else `title` without a trailing "(disambiguation)".
fn person_name(record: &Line) -> Option<String> {
    let name = match (&record.name, &record.title) {
        (Some(name), _) if !name.trim().is_empty() => name.trim(),
        (_, Some(title)) => {
            // Titles come from crawls too: `"Nick Adams (actor` loses its quote and its
            // unclosed disambiguation like `Nick Adams (actor)` loses the closed one.
            let title = title.trim().trim_matches('"').trim();
            match title.rfind(" (") {
                Some(open) if open > 0 => &title[..open],
                _ => title,
            }
        }
        _ => return None,
    };
    (!name.trim().is_empty()).then(|| name.trim().to_owned())
}

/// Imports biography files: a person per line, with the facts read from the text and the text as a
/// document about them.
pub fn import(inputs: &[PathBuf], options: &ImportOptions) -> Result<SourceData> {
    let deriver = Deriver::embedded();
    let mut invalid = InvalidLines::new(options);
    let mut data = SourceData::default();
    let mut seen_ids = FxHashSet::default();
    let mut by_property: BTreeMap<String, usize> = BTreeMap::new();
    for_each_json_line(
        inputs,
        &mut invalid,
        |invalid, path, line_no, record: Line| {
            let id = record.id.trim();
            if id.is_empty() {
                return invalid.handle(Error::invalid(path, line_no, "id", "empty"));
            }
            if !seen_ids.insert(id.to_owned()) {
                return invalid.handle(Error::invalid(
                    path,
                    line_no,
                    "id",
                    format!(
                        "{id:?} is used by an earlier line: give each biography its own id \
                     (or --skip-invalid to keep the first)"
                    ),
                ));
            }
            let Some(name) = person_name(&record) else {
                return invalid.handle(Error::invalid(
                    path,
                    line_no,
                    "name",
                    "neither `name` nor `title` gives the person's name",
                ));
            };
            if record.text.trim().is_empty() {
                return invalid.handle(Error::invalid(path, line_no, "text", "empty"));
            }
            let person_id = if is_wikidata_id(id) {
                id.to_owned()
            } else {
                format!("bio:{id}")
            };
            let derived = deriver.derive(&name, &record.text);
            for fact in &derived.facts {
                *by_property
                    .entry(fact.property.name().to_owned())
                    .or_default() += 1;
            }
            let mut person = Person::new(person_id.clone(), name);
            person.aliases = derived.aliases;
            person.facts = derived.facts;
            data.people.push(person);
            data.docs.push(Document {
                id: format!("bio:{id}"),
                person: Some(person_id),
                text: record.text.trim().to_owned(),
                split: None,
            });
            Ok(())
        },
    )?;
    data.report.skipped_invalid = invalid.count;
    data.report.derived = by_property;
    Ok(data)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Property;

    fn write(lines: &str) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bios.jsonl");
        std::fs::write(&path, lines).unwrap();
        (dir, path)
    }

    #[test]
    fn imports_people_facts_and_documents() {
        let (_dir, path) = write(concat!(
            r#"{"id": "lee-wallace", "title": "Lee Wallace (actor)", "text": "Lee Wallace (born July 15, 1930) is an American actor of film, stage, and television."}"#,
            "\n\n",
            r#"{"id": "Q42", "title": "\"Douglas Adams (writer", "name": "Douglas Adams", "text": "Douglas Noel Adams (11 March 1952 – 11 May 2001) was an English author."}"#,
            "\n"
        ));
        let data = import(&[path], &ImportOptions::default()).unwrap();
        assert_eq!(data.people.len(), 2);
        let lee = &data.people[0];
        assert_eq!(
            (lee.id.as_str(), lee.label.as_str()),
            ("bio:lee-wallace", "Lee Wallace")
        );
        assert_eq!(lee.birth_date().unwrap().to_string(), "1930-07-15");
        let adams = &data.people[1];
        assert_eq!(adams.id, "Q42");
        assert_eq!(adams.aliases, ["Douglas Noel Adams"]);
        assert!(
            adams
                .facts
                .iter()
                .any(|f| f.property == Property::Occupation && f.value == "author")
        );
        assert_eq!(data.docs[1].id, "bio:Q42");
        assert_eq!(data.docs[1].person.as_deref(), Some("Q42"));
        assert_eq!(data.report.derived["birth_date"], 2);
        assert_eq!(data.report.derived["citizenship"], 2);
    }

    #[test]
    fn names_come_from_name_else_the_cleaned_title() {
        let line = |name: Option<&str>, title: Option<&str>| Line {
            id: "x".into(),
            name: name.map(str::to_owned),
            title: title.map(str::to_owned),
            text: "t".into(),
        };
        let name = |n, t| person_name(&line(n, t));
        assert_eq!(
            name(None, Some("Lee Wallace (actor)")).unwrap(),
            "Lee Wallace"
        );
        assert_eq!(
            name(None, Some("\"Nick Adams (actor")).unwrap(),
            "Nick Adams"
        );
        assert_eq!(
            name(Some("Douglas Adams"), Some("x (y)")).unwrap(),
            "Douglas Adams"
        );
        assert_eq!(name(Some(" "), None), None);
    }

    #[test]
    fn bad_lines_name_file_line_and_field() {
        let (_dir, path) = write(concat!(
            r#"{"id": "a", "title": "A B", "text": "A B is a writer."}"#,
            "\n",
            r#"{"id": "b", "text": "No name here."}"#,
            "\n"
        ));
        let err = import(std::slice::from_ref(&path), &ImportOptions::default())
            .unwrap_err()
            .to_string();
        assert!(err.contains("bios.jsonl:2: field `name`"), "{err}");
        let (_dir, path) = write(concat!(
            r#"{"id": "a", "title": "A B", "text": "A B is a writer."}"#,
            "\n",
            r#"{"id": "a", "title": "C D", "text": "C D is a writer."}"#,
            "\n"
        ));
        let err = import(std::slice::from_ref(&path), &ImportOptions::default())
            .unwrap_err()
            .to_string();
        assert!(err.contains("bios.jsonl:2: field `id`"), "{err}");
        let options = ImportOptions {
            skip_invalid: true,
            ..ImportOptions::default()
        };
        let data = import(&[path], &options).unwrap();
        assert_eq!((data.people.len(), data.report.skipped_invalid), (1, 1));
    }
}
