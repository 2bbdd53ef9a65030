//! What a release gate asks of the sanitizer (`Sanitizer::sanitize_constrained`): floors that keep
//! an entity from its more specific candidates, words masked beside the entities without moving
//! their labels, and output ranges mapped back to the original.
#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;

use kanon_core::{EntityType, Span};
use kanon_sanitize::{Constraints, Mention, Reason, Sanitizer, SanitizerConfig, Strategy};

const TEXT: &str = "Ada Lind was born in Bergen in 1950. She sang in Bergen and Oslo with a choir.";

fn span_of(text: &str, phrase: &str, nth: usize) -> Span {
    let byte = text.match_indices(phrase).nth(nth).unwrap().0;
    let start = text[..byte].chars().count();
    Span::new(start, start + phrase.chars().count())
}

fn mentions() -> Vec<Mention> {
    let mention = |phrase: &str, entity_type| {
        let span = span_of(TEXT, phrase, 0);
        Mention::new(span.start, span.end, entity_type)
    };
    vec![
        mention("Ada Lind", EntityType::Person),
        mention("Bergen", EntityType::Loc),
        mention("Oslo", EntityType::Loc),
    ]
}

fn most_specific() -> Sanitizer<'static> {
    let config = SanitizerConfig::builder()
        .strategy(Strategy::MostSpecific)
        .candidate_sources(kanon_sanitize::config::CandidateSources::KnowledgeGraph)
        .build()
        .unwrap();
    Sanitizer::new(config).unwrap()
}

#[test]
fn no_constraints_is_plain_sanitization() {
    let sanitizer = most_specific();
    let plain = sanitizer.sanitize("d", TEXT, &mentions()).unwrap();
    let constrained = sanitizer
        .sanitize_constrained("d", TEXT, &mentions(), &Constraints::default())
        .unwrap();
    assert_eq!(plain, constrained);
    assert_eq!(
        plain.document.text,
        "PERSON 1 was born in a city in Hordaland in 1950. She sang in a city in Hordaland and \
         a city in Norway with a choir."
    );
}

#[test]
fn a_floor_skips_the_more_specific_candidates_and_past_the_last_one_gives_the_label() {
    let sanitizer = most_specific();
    let constraints = Constraints {
        floors: BTreeMap::from([("LOC 1".to_owned(), 2), ("LOC 2".to_owned(), 99)]),
        ..Constraints::default()
    };
    let sanitized = sanitizer
        .sanitize_constrained("d", TEXT, &mentions(), &constraints)
        .unwrap();
    assert_eq!(
        sanitized.document.text,
        "PERSON 1 was born in a city in Norway in 1950. She sang in a city in Norway and LOC 2 \
         with a choir."
    );
    let bergen = &sanitized.document.edits[1];
    assert_eq!((bergen.entity.as_str(), bergen.choice), ("LOC 1", Some(2)));
    let oslo = sanitized.document.edits.last().unwrap();
    assert_eq!(oslo.reason, Reason::Escalated);
}

#[test]
fn masked_words_and_their_repeats_take_the_placeholder_and_leave_the_labels_alone() {
    let sanitizer = most_specific();
    // "choir" and "1950"; the second "Bergen" is the entity's own repeat, masked already.
    let constraints = Constraints {
        floors: BTreeMap::new(),
        masked: vec![
            span_of(TEXT, "choir", 0),
            span_of(TEXT, "1950", 0),
            span_of(TEXT, "Bergen", 1),
        ],
        ..Constraints::default()
    };
    let sanitized = sanitizer
        .sanitize_constrained("d", TEXT, &mentions(), &constraints)
        .unwrap();
    assert_eq!(
        sanitized.document.text,
        "PERSON 1 was born in a city in Hordaland in ***. She sang in a city in Hordaland and a \
         city in Norway with a ***."
    );
    let masked: Vec<(&str, Reason)> = sanitized
        .document
        .edits
        .iter()
        .filter(|edit| edit.reason == Reason::Masked)
        .map(|edit| (edit.entity.as_str(), edit.reason))
        .collect();
    assert_eq!(
        masked,
        [("MASKED 1", Reason::Masked), ("MASKED 2", Reason::Masked)]
    );
    let labels: Vec<&str> = sanitized
        .audit
        .entities
        .iter()
        .map(|entity| entity.entity.as_str())
        .collect();
    assert_eq!(
        labels,
        ["PERSON 1", "LOC 1", "MASKED 1", "LOC 2", "MASKED 2"]
    );
    assert_eq!(sanitized.stats.entities, 3);
}

#[test]
fn output_ranges_outside_replacements_map_back_to_the_original() {
    let sanitized = most_specific().sanitize("d", TEXT, &mentions()).unwrap();
    let output = &sanitized.document.text;
    let choir = span_of(output, "choir", 0);
    assert_eq!(
        sanitized.original_range(choir.start..choir.end),
        Some(span_of(TEXT, "choir", 0).start..span_of(TEXT, "choir", 0).end)
    );
    let born = span_of(output, "born", 0);
    assert_eq!(
        sanitized.original_range(born.start..born.end),
        Some(span_of(TEXT, "born", 0).start..span_of(TEXT, "born", 0).end)
    );
    // Inside a replacement: no original.
    let hordaland = span_of(output, "Hordaland", 0);
    assert_eq!(
        sanitized.original_range(hordaland.start..hordaland.end),
        None
    );
}

#[test]
fn kept_choices_are_taken_again_without_an_attack() {
    // The attacker never recovers anything: each entity takes its first candidate after one
    // attack.
    let model = kanon_llm::ScriptedModel::new("attacker").fallback("1. Stockholm");
    let config = SanitizerConfig::builder()
        .candidate_sources(kanon_sanitize::config::CandidateSources::KnowledgeGraph)
        .build()
        .unwrap();
    let sanitizer = Sanitizer::new(config).unwrap().with_model(&model);
    let plain = sanitizer.sanitize("d", TEXT, &mentions()).unwrap();
    assert_eq!(plain.stats.attack_calls, 2);
    let constraints = Constraints {
        kept: BTreeMap::from([("LOC 1".to_owned(), 2), ("LOC 2".to_owned(), 0)]),
        ..Constraints::default()
    };
    let kept = sanitizer
        .sanitize_constrained("d", TEXT, &mentions(), &constraints)
        .unwrap();
    assert_eq!(kept.stats.attack_calls, 0);
    assert_eq!(
        kept.document.text,
        "PERSON 1 was born in a city in Norway in 1950. She sang in a city in Norway and LOC 2 \
         with a choir."
    );
    // A floor above a kept choice wins: the entity is attacked from its floor on.
    let constraints = Constraints {
        floors: BTreeMap::from([("LOC 1".to_owned(), 3)]),
        kept: BTreeMap::from([("LOC 1".to_owned(), 2)]),
        ..Constraints::default()
    };
    let floored = sanitizer
        .sanitize_constrained("d", TEXT, &mentions(), &constraints)
        .unwrap();
    assert_eq!(floored.document.edits[1].choice, Some(3));
}
