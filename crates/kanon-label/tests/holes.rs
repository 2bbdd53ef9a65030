//! The labeler's input is complete: nested terms enter Algorithm 1, cities are found under their
//! other names, names match only where they are written as names, and dates in their ordinal,
//! yearless and "Sept." forms are terms. Each case on its own tiny knowledge graph.
#![allow(clippy::unwrap_used)]

#[allow(dead_code)]
mod common;

use kanon_core::NoProgress;
use kanon_index::{Index, IndexBuilder};
use kanon_kg::{Fact, KnowledgeGraph, Person, Property};
use kanon_label::LabelerConfig;
use kanon_label::document::LabeledSpan;

fn index_of(people: Vec<Person>, dir: &std::path::Path) -> Index {
    let path = dir.join("index");
    IndexBuilder::new()
        .build(&KnowledgeGraph { people }, &path, &NoProgress)
        .unwrap();
    Index::open(&path).unwrap()
}

fn person(id: &str, name: &str, facts: &[(Property, &str)]) -> Person {
    let mut person = Person::new(id, name);
    person.facts = facts
        .iter()
        .map(|(property, value)| Fact::new(property.clone(), *value))
        .collect();
    person
}

fn texts(text: &str, spans: &[LabeledSpan]) -> Vec<String> {
    spans
        .iter()
        .map(|s| text.chars().skip(s.start).take(s.end - s.start).collect())
        .collect()
}

/// Six alumni of the University of Oslo, two people born in Oslo, one of them on 5 August 1992.
fn oslo_kg() -> Vec<Person> {
    let mut people = Vec::new();
    for i in 1..=8 {
        let born = if i == 1 {
            "1992-08-05".to_owned()
        } else {
            format!("{}-01-0{}", 1940 + i, i)
        };
        let mut facts = vec![(Property::BirthDate, born.as_str())];
        if i <= 6 {
            facts.push((Property::EducatedAt, "University of Oslo"));
        }
        if i == 1 || i == 7 {
            facts.push((Property::BirthPlace, "Oslo"));
        }
        let name = format!("Person Number{i}");
        people.push(person(&format!("Q{i}"), &name, &facts));
    }
    people
}

#[test]
fn a_term_nested_in_a_kept_term_is_masked_on_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let index = index_of(oslo_kg(), dir.path());
    let text = "She studied at the University of Oslo and was born on Aug. 5, 1992.";
    let labeled = common::label(&index, "d", "Q1", text, &common::config(5));
    let spans = &labeled.document.spans;
    // "University of Oslo" (6 people) may stay; "Oslo" (2 people) inside it may not.
    assert_eq!(texts(text, spans), ["Oslo", "Aug. 5, 1992"], "{spans:?}");
    assert_eq!(spans[0].term, "oslo");
    let report = &labeled.report;
    let terms: Vec<&str> = report.terms.iter().map(|t| t.term.as_str()).collect();
    assert!(terms.contains(&"university of oslo") && terms.contains(&"oslo"));
    assert_eq!(report.k_reached, Some(6), "{report:?}");
}

#[test]
fn masked_terms_that_overlap_become_one_span_typed_by_the_longest() {
    let dir = tempfile::tempdir().unwrap();
    let index = index_of(oslo_kg(), dir.path());
    let text = "She studied at the University of Oslo.";
    // k = 7: the university (6 people) and Oslo (2) are both masked: one span, the university's.
    let labeled = common::label(&index, "d", "Q1", text, &common::config(7));
    let spans = &labeled.document.spans;
    assert_eq!(texts(text, spans), ["University of Oslo"], "{spans:?}");
    assert_eq!(spans[0].term, "university of oslo");
    assert_eq!(spans[0].entity_type, kanon_core::EntityType::Org);
    assert_eq!(labeled.report.masked.len(), 2);
}

#[test]
fn a_city_is_found_under_its_other_names() {
    let dir = tempfile::tempdir().unwrap();
    let people = vec![
        person("Q1", "Anna Weber", &[(Property::BirthPlace, "München")]),
        person("Q2", "Ben Ortiz", &[(Property::BirthPlace, "Lisbon")]),
    ];
    let index = index_of(people, dir.path());
    let text = "Weber was born in Munich.";
    let labeled = common::label(&index, "d", "Q1", text, &common::config(2));
    assert_eq!(
        texts(text, &labeled.document.spans),
        ["Weber", "Munich"],
        "{:?}",
        labeled.document.spans
    );
}

#[test]
fn names_match_only_where_they_are_written_as_names() {
    let dir = tempfile::tempdir().unwrap();
    let people = vec![
        // Surnames that are common words and not on the whitelist (which has "little" and "lie").
        person("Q1", "Tom Bush", &[]),
        person("Q2", "Anne Farmer", &[]),
        person("Q3", "Erik Frost", &[]),
        person("Q4", "Vincent van Gogh", &[]),
    ];
    let index = index_of(people, dir.path());
    let config = common::config(2);
    let text = "They planted a bush near the house until Bush was cast. He saw frost on \
                a farmer's field, and A farmer's son. He admired van Gogh.";
    let labeled = common::label(&index, "d", "Q1", text, &config);
    assert_eq!(
        texts(text, &labeled.document.spans),
        ["Bush", "van Gogh"],
        "{:?}",
        labeled.document.spans
    );
    // Without the case rule, the common words match as before.
    let caseless = LabelerConfig {
        match_case: false,
        ..config
    };
    let labeled = common::label(&index, "d", "Q1", text, &caseless);
    let found = texts(text, &labeled.document.spans);
    for word in ["bush", "frost", "a farmer"] {
        assert!(found.iter().any(|f| f == word), "{word} not in {found:?}");
    }
    // A text without any capital letter is matched whatever its case.
    let lower = "they planted a bush.";
    let labeled = common::label(&index, "d", "Q1", lower, &config);
    assert_eq!(texts(lower, &labeled.document.spans), ["bush"]);
}

#[test]
fn dates_match_in_ordinal_yearless_and_sept_forms() {
    let dir = tempfile::tempdir().unwrap();
    let people = vec![
        person("Q1", "Anna Weber", &[(Property::BirthDate, "1992-08-05")]),
        person("Q2", "Ben Ortiz", &[(Property::BirthDate, "1990-09-21")]),
    ];
    let index = index_of(people, dir.path());
    let config = common::config(2);
    for (person, text, expected) in [
        (
            "Q1",
            "Weber was born on the 5th August 1992.",
            "5th August 1992",
        ),
        (
            "Q1",
            "Weber was born on August 5th, 1992.",
            "August 5th, 1992",
        ),
        ("Q1", "Weber celebrates on 5 August every year.", "5 August"),
        ("Q2", "Ortiz was born on Sept. 21, 1990.", "Sept. 21, 1990"),
    ] {
        let labeled = common::label(&index, "d", person, text, &config);
        let found = texts(text, &labeled.document.spans);
        assert!(
            found.iter().any(|f| f == expected),
            "{expected} not in {found:?}"
        );
    }
}
