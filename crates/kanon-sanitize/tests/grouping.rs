//! Mention grouping: annotated entity ids, name variants by normalisation and LCS, numbering.
#![allow(clippy::unwrap_used, clippy::print_stderr)]

use kanon_core::EntityType;
use kanon_sanitize::Mention;
use kanon_sanitize::group::{group_mentions, lcs_similarity, same_entity};

/// Mentions for every occurrence of each `(phrase, type)` in `text`, sorted by start.
fn mentions_of(text: &str, phrases: &[(&str, EntityType)]) -> Vec<Mention> {
    let mut mentions = Vec::new();
    for &(phrase, entity_type) in phrases {
        for (byte, _) in text.match_indices(phrase) {
            let start = text[..byte].chars().count();
            mentions.push(Mention::new(
                start,
                start + phrase.chars().count(),
                entity_type,
            ));
        }
    }
    mentions.sort_by_key(|mention| mention.span.start);
    mentions
}

#[test]
fn name_variants_are_one_person() {
    for (a, b) in [
        ("L. Trosterud", "Lilian Trosterud"),
        ("Trosterud, Lilian", "Lilian Trosterud"),
        ("Trosterud", "Lilian Trosterud"),
        ("Lilian Trosterud", "LILIAN TROSTERUD"),
        ("Zoë Ølund", "Zoe Olund"),
    ] {
        assert!(same_entity(a, b, EntityType::Person), "{a} ~ {b}");
    }
    for (a, b) in [
        ("Anna Trosterud", "Lilian Trosterud"),
        ("L. Olsen", "Lilian Trosterud"),
        ("L.", "Lilian Trosterud"),
    ] {
        assert!(!same_entity(a, b, EntityType::Person), "{a} !~ {b}");
    }
}

#[test]
fn numbers_must_agree_and_dates_are_never_fuzzy() {
    assert!(!same_entity(
        "5 August 2003",
        "6 August 2003",
        EntityType::Datetime
    ));
    assert!(same_entity(
        "5 August 2003",
        "5 August, 2003",
        EntityType::Datetime
    ));
    assert!(!same_entity("Apollo 11", "Apollo 13", EntityType::Misc));
    assert!(same_entity(
        "University of Oslo",
        "the University of Oslo",
        EntityType::Org
    ));
    assert!(lcs_similarity("abc", "abc") == 1.0 && lcs_similarity("abc", "xyz") == 0.0);
}

#[test]
fn groups_by_similarity_in_order_of_first_mention() {
    let text = "L. Trosterud met Per Olsen in Oslo. Lilian Trosterud left Oslo; Olsen and \
                Trosterud, Lilian stayed. Anna Trosterud came.";
    let mentions = mentions_of(
        text,
        &[
            ("L. Trosterud", EntityType::Person),
            ("Per Olsen", EntityType::Person),
            ("Oslo", EntityType::Loc),
            ("Lilian Trosterud", EntityType::Person),
            ("Olsen and", EntityType::Person),
            ("Trosterud, Lilian", EntityType::Person),
            ("Anna Trosterud", EntityType::Person),
        ],
    );
    // "Olsen and" is a sloppy detector span: "and" is a word Per Olsen lacks, so it stays apart.
    let groups = group_mentions(text, &mentions);
    let labels: Vec<(String, Vec<&str>)> = groups
        .iter()
        .map(|group| {
            (
                group.label(),
                group
                    .mentions
                    .iter()
                    .map(|&i| mentions[i].span.slice(text).unwrap())
                    .collect(),
            )
        })
        .collect();
    assert_eq!(
        labels,
        vec![
            (
                "PERSON 1".to_owned(),
                vec!["L. Trosterud", "Lilian Trosterud", "Trosterud, Lilian"]
            ),
            ("PERSON 2".to_owned(), vec!["Per Olsen"]),
            ("LOC 1".to_owned(), vec!["Oslo", "Oslo"]),
            ("PERSON 3".to_owned(), vec!["Olsen and"]),
            ("PERSON 4".to_owned(), vec!["Anna Trosterud"]),
        ]
    );
}

#[test]
fn entity_ids_decide_when_given() {
    let text = "Maya Kodnani and Kodnani and Maya K.";
    let mentions = vec![
        Mention::new(0, 12, EntityType::Person).with_entity_id("e1"),
        Mention::new(17, 24, EntityType::Person).with_entity_id("e2"),
        Mention::new(29, 36, EntityType::Person).with_entity_id("e1"),
    ];
    let groups = group_mentions(text, &mentions);
    assert_eq!(groups.len(), 2);
    assert_eq!(groups[0].mentions, vec![0, 2]);
    assert_eq!(groups[1].label(), "PERSON 2");
}
