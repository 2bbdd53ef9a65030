//! Output that reads well: the examples of docs/results/sanitization.md and more, rendered one replacement at a time.
#![allow(clippy::unwrap_used, clippy::print_stderr)]

use kanon_core::EntityType;
use kanon_sanitize::render::{Replacement, render, render_with_ranges};

/// Renders `text` with `phrase` replaced by `with` (a label when `label`).
fn one(text: &str, phrase: &str, entity_type: EntityType, with: &str, label: bool) -> String {
    let byte = text.find(phrase).unwrap();
    let start = text[..byte].chars().count();
    render(
        text,
        &[Replacement {
            start,
            end: start + phrase.chars().count(),
            entity_type,
            text: with.to_owned(),
            bracketed: false,
            label,
            fallback: label,
        }],
    )
}

#[test]
fn the_readme_examples_and_a_dozen_more() {
    use EntityType::*;
    let cases: &[(&str, &str, EntityType, &str, bool, &str)] = &[
        // docs/results/sanitization.md: an article before a modifier and a candidate's own article.
        (
            "He is the former Kentucky State Treasurer.",
            "Kentucky",
            Loc,
            "a state in the United States",
            false,
            "He is the former state in the United States State Treasurer.",
        ),
        // docs/results/sanitization.md: a label of a person takes no article.
        (
            "She married the Daoguang Emperor.",
            "Daoguang Emperor",
            Person,
            "PERSON 2",
            true,
            "She married PERSON 2.",
        ),
        // Definiteness is the generalization's: `the` + `a university` is `a university`.
        (
            "She studied at the University of Oslo.",
            "University of Oslo",
            Org,
            "a university in Norway",
            false,
            "She studied at a university in Norway.",
        ),
        (
            "He joined a Labour Party branch.",
            "Labour Party",
            Org,
            "the largest party in Norway",
            false,
            "He joined the largest party in Norway branch.",
        ),
        // A possessive determiner stays and the candidate's article goes.
        (
            "She left her University of Oslo post.",
            "University of Oslo",
            Org,
            "a university in Norway",
            false,
            "She left her university in Norway post.",
        ),
        // Possessives are kept.
        (
            "Todd Hollenbach's term ended.",
            "Todd Hollenbach's",
            Person,
            "PERSON 1",
            true,
            "PERSON 1's term ended.",
        ),
        (
            "Oslo’s mayor spoke.",
            "Oslo’s",
            Loc,
            "a city in Norway",
            false,
            "A city in Norway's mayor spoke.",
        ),
        // `a`/`an` agree with the replacement.
        (
            "She moved to an Oslo suburb.",
            "Oslo",
            Loc,
            "Norwegian",
            false,
            "She moved to a Norwegian suburb.",
        ),
        (
            "He is a Bergen resident.",
            "Bergen",
            Loc,
            "eastern Norwegian",
            false,
            "He is an eastern Norwegian resident.",
        ),
        // No doubled preposition.
        (
            "He was born in Tromsø.",
            "Tromsø",
            Loc,
            "in northern Norway",
            false,
            "He was born in northern Norway.",
        ),
        // `on` becomes `in` before a date coarser than a day.
        (
            "She arrived on 5 August 2003.",
            "5 August 2003",
            Datetime,
            "August 2003",
            false,
            "She arrived in August 2003.",
        ),
        // A replacement opening a sentence is capitalised; the article before it goes.
        (
            "The University of Oslo hired her.",
            "University of Oslo",
            Org,
            "a university in Norway",
            false,
            "A university in Norway hired her.",
        ),
        (
            "Oslo is large.",
            "Oslo",
            Loc,
            "a city in Norway",
            false,
            "A city in Norway is large.",
        ),
        // A label that is not a name keeps the article before it.
        (
            "She joined the Labour Party.",
            "Labour Party",
            Org,
            "ORG 1",
            true,
            "She joined the ORG 1.",
        ),
        // A quantity the generalizer could not replace, before the noun it counts.
        (
            "He directed 87 films between 1915 and 1949.",
            "87",
            Quantity,
            "QUANTITY 1",
            true,
            "He directed a number of films between 1915 and 1949.",
        ),
        (
            "The population was 4,312.",
            "4,312",
            Quantity,
            "QUANTITY 1",
            true,
            "The population was QUANTITY 1.",
        ),
        // A preposition between the determiner and the span is no modifier.
        (
            "It is the first of Oslo's kind.",
            "Oslo's",
            Loc,
            "a city in Norway",
            false,
            "It is the first of a city in Norway's kind.",
        ),
    ];
    for &(text, phrase, entity_type, with, label, expected) in cases {
        assert_eq!(
            one(text, phrase, entity_type, with, label),
            expected,
            "{text} / {phrase} -> {with}"
        );
    }
}

#[test]
fn ranges_say_where_each_replacement_landed_after_touch_ups() {
    // The second replacement turns the article before it from `a` into `an`, which moves the
    // first replacement's neighbours but not the first replacement.
    let text = "Zoë met a Bergen man in Oslo.";
    let replacements = [
        Replacement {
            start: 0,
            end: 3,
            entity_type: EntityType::Person,
            text: "PERSON 1".into(),
            bracketed: false,
            label: true,
            fallback: false,
        },
        Replacement {
            start: 10,
            end: 16,
            entity_type: EntityType::Loc,
            text: "eastern Norwegian".into(),
            bracketed: false,
            label: false,
            fallback: false,
        },
        Replacement {
            start: 24,
            end: 28,
            entity_type: EntityType::Loc,
            text: "a city".into(),
            bracketed: false,
            label: false,
            fallback: false,
        },
    ];
    let (out, ranges) = render_with_ranges(text, &replacements);
    assert_eq!(out, "PERSON 1 met an eastern Norwegian man in a city.");
    let pieces: Vec<String> = ranges
        .iter()
        .map(|range| out.chars().skip(range.start).take(range.len()).collect())
        .collect();
    assert_eq!(pieces, ["PERSON 1", "eastern Norwegian", "a city"]);
}
