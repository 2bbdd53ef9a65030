//! Labeling documents end to end over a real (small, hand-built) index: terms found by the
//! gazetteer, decisions, spans in character offsets, the risk report; and the train/dev/test split.
#![allow(clippy::unwrap_used, clippy::print_stderr)]

mod common;

use kanon_core::{Document, EntityType};
use kanon_label::document::{LabeledSpan, ReportMask, split_of};

/// The text of a span, by character offsets.
fn chars(text: &str, span: &LabeledSpan) -> String {
    text.chars()
        .skip(span.start)
        .take(span.end - span.start)
        .collect()
}

fn assert_no_overlaps(spans: &[LabeledSpan]) {
    for pair in spans.windows(2) {
        assert!(
            pair[0].end <= pair[1].start,
            "overlapping or unsorted spans: {pair:?}"
        );
    }
}

#[test]
fn a_document_without_kg_terms_has_no_spans() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let index = common::index(dir.path());
    let text = "The weather was mild all week, and the harbour was quiet.";
    let labeled = common::label(&index, "d0", "Q1", text, &common::config(3));
    assert!(index.find_terms(text).is_empty());
    assert_eq!(labeled.document.id, "d0");
    assert_eq!(labeled.document.person, "Q1");
    assert_eq!(labeled.document.split, "train");
    assert_eq!(labeled.document.text, text);
    assert!(labeled.document.spans.is_empty());
    let report = &labeled.report;
    assert!(report.terms.is_empty());
    assert!(report.masked.is_empty());
    assert_eq!(report.k_reached, None);
    assert_eq!((report.tokens, report.masked_tokens), (11, 0));
    assert_eq!(
        (report.k, report.max_arity, report.strategy.as_str()),
        (3, 3, "greedy")
    );
}

#[test]
fn every_occurrence_of_a_masked_term_is_a_span() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let index = common::index(dir.path());
    // "albano" is a term of 2 people (Lilian and Tomas): rare for k = 3.
    let text = "Albano wrote to Albano, and Albano answered.";
    let labeled = common::label(&index, "d1", "Q1", text, &common::config(3));
    let spans = &labeled.document.spans;
    assert_eq!(
        spans.iter().map(|s| (s.start, s.end)).collect::<Vec<_>>(),
        vec![(0, 6), (16, 22), (28, 34)]
    );
    for span in spans {
        assert_eq!(chars(text, span), "Albano");
        assert_eq!(
            (span.term.as_str(), span.postings, span.reason.as_str()),
            ("albano", 2, "rare")
        );
        assert_eq!(
            (span.label.as_str(), span.entity_type),
            ("MASK", EntityType::Person)
        );
    }
    let report = &labeled.report;
    assert_eq!(report.terms.len(), 1);
    assert_eq!(report.terms[0].occurrences, 3);
    assert!(report.terms[0].of_person);
    assert_eq!(report.masked.len(), 1, "one decision, three spans");
    assert_eq!((report.tokens, report.masked_tokens), (7, 3));
    assert_eq!(report.k_reached, None);
}

#[test]
fn overlapping_matches_all_count_and_give_one_span() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let index = common::index(dir.path());
    let text = "Lilian Albano, a chemist, was born on 14 March 1961.";
    // The gazetteer sees overlapping terms: "lilian albano" and "albano"; "14 march 1961",
    // "march 1961" and "1961".
    let all: Vec<(usize, usize, String)> = index
        .gazetteer()
        .find_all(text)
        .iter()
        .map(|m| (m.start, m.end, index.term_text(m.term).unwrap_or_default()))
        .collect();
    for expected in [
        (0, 13, "lilian albano"),
        (7, 13, "albano"),
        (38, 51, "14 march 1961"),
        (41, 51, "march 1961"),
        (47, 51, "1961"),
    ] {
        assert!(
            all.contains(&(expected.0, expected.1, expected.2.to_owned())),
            "{expected:?} not in {all:?}"
        );
    }
    // k = 100: every term is rare, so every term found becomes a span.
    let labeled = common::label(&index, "d2", "Q1", text, &common::config(100));
    let spans = &labeled.document.spans;
    assert_no_overlaps(spans);
    let found: Vec<(usize, usize, &str)> = spans
        .iter()
        .map(|s| (s.start, s.end, s.term.as_str()))
        .collect();
    assert_eq!(
        found,
        vec![
            (0, 13, "lilian albano"),
            (17, 24, "chemist"),
            (38, 51, "14 march 1961")
        ]
    );
    let terms: Vec<&str> = labeled
        .report
        .terms
        .iter()
        .map(|t| t.term.as_str())
        .collect();
    assert_eq!(
        terms,
        vec![
            "lilian albano",
            "albano",
            "chemist",
            "14 march 1961",
            "14 march",
            "march 1961",
            "1961"
        ],
        "the nested terms are terms of the document too"
    );
}

#[test]
fn span_offsets_are_character_offsets() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let index = common::index(dir.path());
    let text = "Zoë Ølund met Lilian Albano in Dunmere.";
    let labeled = common::label(&index, "d3", "Q3", text, &common::config(3));
    let spans = &labeled.document.spans;
    assert_eq!(spans.len(), 2, "{spans:?}");
    assert_eq!((spans[0].start, spans[0].end), (0, 9));
    assert_eq!(chars(text, &spans[0]), "Zoë Ølund");
    assert_eq!(spans[0].term, "zoe olund");
    assert_eq!((spans[1].start, spans[1].end), (14, 27));
    assert_eq!(chars(text, &spans[1]), "Lilian Albano");
    // Byte offsets would be 2 further on ("ë" and "Ø" take two bytes each).
    assert_eq!(text.find("Lilian"), Some(16));
    // Dunmere (5 people) is kept; the two names (1 person each) are masked as rare.
    let report = &labeled.report;
    assert_eq!(
        report
            .masked
            .iter()
            .map(|m| m.term.as_str())
            .collect::<Vec<_>>(),
        vec!["zoe olund", "olund", "lilian albano", "albano"]
    );
    assert_eq!(
        report
            .terms
            .iter()
            .map(|t| (t.term.as_str(), t.of_person))
            .collect::<Vec<_>>(),
        vec![
            ("zoe olund", true),
            ("olund", true),
            ("lilian albano", false),
            ("albano", false),
            ("dunmere", false),
        ]
    );
    assert_eq!(report.k_reached, Some(5));
}

#[test]
fn span_types_come_from_the_terms_entity_types() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let index = common::index(dir.path());
    let text = "Lilian Albano was born in Marrowgate on 14 March 1961 and became a chemist.";
    let labeled = common::label(&index, "d4", "Q1", text, &common::config(100));
    let types: Vec<(String, EntityType)> = labeled
        .document
        .spans
        .iter()
        .map(|s| (chars(text, s), s.entity_type))
        .collect();
    assert_eq!(
        types,
        vec![
            ("Lilian Albano".to_owned(), EntityType::Person),
            ("Marrowgate".to_owned(), EntityType::Loc),
            ("14 March 1961".to_owned(), EntityType::Datetime),
            ("chemist".to_owned(), EntityType::Dem),
        ]
    );
    let types: Vec<EntityType> = labeled.report.terms.iter().map(|t| t.entity_type).collect();
    assert_eq!(
        types,
        vec![
            EntityType::Person,
            EntityType::Person, // "albano", nested in the name
            EntityType::Loc,
            EntityType::Datetime,
            EntityType::Datetime, // "14 march", "march 1961", "1961", nested in the date
            EntityType::Datetime,
            EntityType::Datetime,
            EntityType::Dem
        ]
    );
    let json = serde_json::to_value(&labeled.document.spans[2]).expect("a span serialises");
    assert_eq!(json["type"], "DATETIME");
}

#[test]
fn a_combination_shared_by_too_few_people_masks_a_term() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let index = common::index(dir.path());
    let text = "Lilian Albano was born in Marrowgate in 1961 and worked as a chemist.";
    let labeled = common::label(&index, "d5", "Q1", text, &common::config(3));
    let report = &labeled.report;
    // Lilian Albano is the only one with her name; of the others, 1961 and chemist are shared by
    // two people (Lilian and Oren Vask), and chemist (5 people) is rarer than 1961 (6).
    assert_eq!(
        report.masked,
        vec![
            ReportMask {
                term: "lilian albano".into(),
                reason: "rare".into(),
                combination: vec!["lilian albano".into()],
                people: 1,
                arity: 1,
            },
            // The surname alone, nested in the name, is a term of its own (2 people).
            ReportMask {
                term: "albano".into(),
                reason: "rare".into(),
                combination: vec!["albano".into()],
                people: 2,
                arity: 1,
            },
            ReportMask {
                term: "chemist".into(),
                reason: "combination".into(),
                combination: vec!["1961".into(), "chemist".into()],
                people: 2,
                arity: 2,
            },
        ]
    );
    let spans: Vec<(String, &str)> = labeled
        .document
        .spans
        .iter()
        .map(|s| (chars(text, s), s.reason.as_str()))
        .collect();
    assert_eq!(
        spans,
        vec![
            ("Lilian Albano".to_owned(), "rare"),
            ("chemist".to_owned(), "combination")
        ]
    );
    // Marrowgate (7) and 1961 (6) are kept; together they are shared by 3 people.
    assert_eq!(report.k_reached, Some(3));
    assert!(report.terms.iter().all(|t| t.of_person));
    assert_eq!((report.tokens, report.masked_tokens), (13, 3));
}

fn doc(id: &str, split: Option<&str>) -> Document {
    Document {
        id: id.to_owned(),
        person: None,
        text: String::new(),
        split: split.map(str::to_owned),
    }
}

#[test]
fn split_of_is_deterministic_and_about_80_10_10() {
    let mut counts = std::collections::BTreeMap::<String, usize>::new();
    for i in 0..10_000 {
        let d = doc(&format!("doc-{i}"), None);
        let split = split_of(&d);
        assert_eq!(split_of(&d), split, "split of {} changed", d.id);
        *counts.entry(split).or_default() += 1;
    }
    assert_eq!(
        counts.keys().map(String::as_str).collect::<Vec<_>>(),
        vec!["dev", "test", "train"]
    );
    assert!((7700..=8300).contains(&counts["train"]), "{counts:?}");
    assert!((800..=1200).contains(&counts["dev"]), "{counts:?}");
    assert!((800..=1200).contains(&counts["test"]), "{counts:?}");
    // An empty split counts as none.
    assert_eq!(
        split_of(&doc("doc-1", Some(""))),
        split_of(&doc("doc-1", None))
    );
}

#[test]
fn split_of_respects_a_documents_own_split() {
    for (own, expected) in [
        ("train", "train"),
        ("dev", "dev"),
        ("test", "test"),
        ("validation", "dev"),
        ("valid", "dev"),
        ("val", "dev"),
    ] {
        for i in 0..20 {
            assert_eq!(
                split_of(&doc(&format!("doc-{i}"), Some(own))),
                expected,
                "split {own:?}"
            );
        }
    }
}
