//! TAB's metrics on a fixture worked out by hand (and checked against the official script:
//! `scripts/tab_reference.py` gives the same figures on it).
#![allow(clippy::unwrap_used)]

use kanon_core::Span;
use kanon_core::tab::TabDocument;
use kanon_eval::tab::{evaluate_tab, ignorable_word};
use rustc_hash::FxHashMap;

const D1: &str = "Mr Lilian Albano, born in Vienna in 1992, met Tomas Varga's sister.";
const D2: &str = "The Tribunal of Oslo fined Varga Holdings AS in May 2003.";

fn mention(text: &str, phrase: &str, entity_type: &str, identifier: &str, entity: &str) -> String {
    let start = text.find(phrase).unwrap();
    let (start, end) = (
        text[..start].chars().count(),
        text[..start].chars().count() + phrase.chars().count(),
    );
    format!(
        r#"{{"entity_type": "{entity_type}", "start_offset": {start}, "end_offset": {end}, "identifier_type": "{identifier}", "entity_id": "{entity}"}}"#
    )
}

/// d1 has two annotators; d2 one, with mentions that need no masking; d3 no prediction.
fn gold() -> Vec<TabDocument> {
    let a1 = [
        mention(D1, "Mr Lilian Albano", "PERSON", "DIRECT", "a1e1"),
        mention(D1, "Vienna", "LOC", "QUASI", "a1e2"),
        mention(D1, "1992", "DATETIME", "QUASI", "a1e3"),
        mention(D1, "Tomas Varga", "PERSON", "DIRECT", "a1e4"),
    ];
    let a2 = [
        mention(D1, "Lilian Albano", "PERSON", "DIRECT", "a2e1"),
        mention(D1, "Vienna", "LOC", "NO_MASK", "a2e2"),
        mention(D1, "in 1992", "DATETIME", "QUASI", "a2e3"),
        mention(D1, "Tomas Varga's sister", "PERSON", "QUASI", "a2e4"),
    ];
    let b = [
        mention(D2, "The Tribunal of Oslo", "ORG", "NO_MASK", "b1"),
        mention(D2, "Oslo", "LOC", "QUASI", "b2"),
        mention(D2, "Varga Holdings AS", "ORG", "QUASI", "b3"),
        mention(D2, "May 2003", "DATETIME", "QUASI", "b4"),
    ];
    serde_json::from_str(&format!(
        r#"[{{"doc_id": "d1", "text": "{D1}", "annotations": {{
              "a1": {{"entity_mentions": [{}]}}, "a2": {{"entity_mentions": [{}]}}}}}},
            {{"doc_id": "d2", "text": "{D2}", "annotations": {{"a1": {{"entity_mentions": [{}]}}}}}},
            {{"doc_id": "d3", "text": "Nothing here.", "annotations": {{}}}}]"#,
        a1.join(","),
        a2.join(","),
        b.join(",")
    ))
    .unwrap()
}

fn spans(text: &str, phrases: &[&str]) -> Vec<Span> {
    phrases
        .iter()
        .map(|p| {
            let start = text.find(p).unwrap();
            Span::new(start, start + p.len())
        })
        .collect()
}

fn predicted() -> FxHashMap<String, Vec<Span>> {
    [
        (
            "d1".to_owned(),
            spans(D1, &["Lilian Albano", "1992", "Tomas Varga's"]),
        ),
        (
            "d2".to_owned(),
            spans(D2, &["Tribunal of Oslo", "Varga Holdings", "2003"]),
        ),
    ]
    .into_iter()
    .collect()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

#[test]
fn every_figure_as_worked_out_by_hand() {
    let report = evaluate_tab(&gold(), &predicted()).unwrap();
    assert_eq!((report.documents, report.unscored_gold_documents), (2, 1));
    assert_eq!(report.annotators, 2);
    // Direct: a1's Mr Lilian Albano ("Mr" is ignored), a1's Tomas Varga, a2's Lilian Albano.
    assert!(close(report.entity_recall_direct, 3.0 / 3.0));
    // Quasi: 1992 (a1), in 1992 (a2: "in" is an adposition), Oslo; not Vienna (a1), Tomas
    // Varga's sister (a2), Varga Holdings AS ("AS" is no adposition), May 2003.
    assert!(close(report.entity_recall_quasi, 3.0 / 7.0));
    assert!(close(report.entity_recall_all, 6.0 / 10.0));
    assert!(close(report.mention_recall, 6.0 / 10.0));
    // Tokens of the mentions to mask: PERSON 10 of 11 (not "sister"), LOC 1 of 2, DATETIME 4 of
    // 5 (not "May"), ORG 2 of 3 (not "AS").
    assert!(close(report.token_recall, 17.0 / 21.0));
    let by_type = &report.token_recall_by_type;
    assert!(close(by_type["PERSON"], 10.0 / 11.0));
    assert!(close(by_type["LOC"], 1.0 / 2.0));
    assert!(close(by_type["DATETIME"], 4.0 / 5.0));
    assert!(close(by_type["ORG"], 2.0 / 3.0));
    // d1: 6 masked tokens × 2 annotators, right 11 times (only a2 masked the "s" of "Varga's");
    // d2: 6 × 1, right 4 times ("Tribunal" and "of" belong to a mention that needs no masking).
    assert!(close(report.token_precision, 15.0 / 18.0));
    // Spans: d1 3 × 2, right 5 times; d2 3 × 1, right 2 times.
    assert!(close(report.mention_precision, 7.0 / 9.0));
    let (p, r) = (15.0 / 18.0, 17.0 / 21.0);
    assert!(close(report.token_f1, 2.0 * p * r / (p + r)));
    insta::assert_snapshot!(report.render());
}

#[test]
fn a_predicted_document_that_is_not_in_the_gold_is_an_error() {
    let mut predicted = predicted();
    predicted.insert("d9".into(), vec![Span::new(0, 3)]);
    let err = evaluate_tab(&gold(), &predicted).unwrap_err().to_string();
    assert!(
        err.contains("\"d9\"") && err.contains("not in the gold"),
        "{err}"
    );
}

#[test]
fn nothing_predicted_is_nothing_masked() {
    let predicted = [("d1".to_owned(), Vec::new())].into_iter().collect();
    let report = evaluate_tab(&gold(), &predicted).unwrap();
    assert_eq!(report.entity_recall_all, 0.0);
    assert_eq!(report.token_precision, 0.0);
    assert_eq!(report.token_f1, 0.0);
}

#[test]
fn closed_class_words_as_spacy_tags_them() {
    for word in ["the", "The", "of", "and", "Mr", "about", "v."] {
        assert!(ignorable_word(word, false), "{word}");
    }
    for word in ["AS", "IN", "V.", "Vienna", "Mr."] {
        assert!(!ignorable_word(word, false), "{word}");
    }
    assert!(ignorable_word("s", true) && !ignorable_word("s", false));
}

/// Every character carries one nat, so a token weighs its length.
struct PerCharacter;

impl kanon_llm::TextScorer for PerCharacter {
    fn id(&self) -> kanon_llm::ModelId {
        kanon_llm::ModelId::new("scripted", "per-character")
    }
    fn token_logprobs(&self, text: &str) -> kanon_llm::Result<Vec<kanon_llm::ScoredToken>> {
        Ok((0..text.chars().count())
            .map(|i| kanon_llm::ScoredToken {
                start: i,
                end: i + 1,
                logprob: -1.0,
            })
            .collect())
    }
}

#[test]
fn information_weighted_precision_as_worked_out_by_hand() {
    let text = "Mr Lilian Albano was born in the city of Vienna.";
    let gold: Vec<TabDocument> = serde_json::from_str(&format!(
        r#"[{{"doc_id": "d1", "text": "{text}", "annotations": {{"a1": {{"entity_mentions": [
          {{"entity_type": "PERSON", "start_offset": 3, "end_offset": 16, "identifier_type": "DIRECT", "entity_id": "e1"}}]}}}}}}]"#
    ))
    .unwrap();
    // The name (two right tokens of 6 characters) and "was" (a wrong one of 3).
    let predicted: FxHashMap<String, Vec<Span>> =
        [("d1".to_owned(), vec![Span::new(3, 16), Span::new(17, 20)])]
            .into_iter()
            .collect();
    let report =
        kanon_eval::tab::evaluate_tab_weighted(&gold, &predicted, Some(&PerCharacter)).unwrap();
    assert!(close(report.token_precision, 2.0 / 3.0));
    assert!(close(report.token_precision_weighted.unwrap(), 12.0 / 15.0));
    assert!(
        report
            .render()
            .contains("information-weighted token-level precision 0.800")
    );
    assert_eq!(
        evaluate_tab(&gold, &predicted)
            .unwrap()
            .token_precision_weighted,
        None
    );
}
