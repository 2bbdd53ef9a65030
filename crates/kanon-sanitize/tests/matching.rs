//! The inference attack's matching function, rule by rule.
#![allow(clippy::unwrap_used, clippy::print_stderr)]

use kanon_core::EntityType;
use kanon_sanitize::config::NgramMatch;
use kanon_sanitize::{MatchConfig, MatchRule, guess_matches};

fn rule(
    original: &str,
    guess: &str,
    entity_type: EntityType,
    candidate: &str,
) -> Option<MatchRule> {
    guess_matches(
        original,
        guess,
        entity_type,
        candidate,
        &MatchConfig::default(),
    )
}

#[test]
fn exact_after_normalisation() {
    assert_eq!(
        rule("Zürich", "zurich", EntityType::Loc, "a Swiss city"),
        Some(MatchRule::Exact)
    );
}

#[test]
fn lemma_overlap_ignores_stopwords_numbers_and_frequent_words() {
    use EntityType::*;
    // Inflections share a lemma.
    assert_eq!(
        rule(
            "Naroda Patiya massacre",
            "the massacres of 2002",
            Misc,
            "a riot"
        ),
        Some(MatchRule::Lemma)
    );
    // Shared stopwords, numbers and very frequent words are no evidence.
    assert_eq!(
        rule(
            "the City of Oslo",
            "the 12 biggest cities of the world",
            Loc,
            "a capital"
        ),
        None
    );
    assert_eq!(
        rule("the 2002 elections", "2002 world events", Misc, "a vote"),
        None
    );
    // INTACT: any shared lemma recovers, the candidate's own words too (`party`)…
    assert_eq!(
        rule(
            "Bharatiya Janata Party",
            "Indian National Congress party",
            Org,
            "an Indian political party"
        ),
        Some(MatchRule::Lemma)
    );
    // …kanon's variant: words the candidate shows are disclosed already, so repeating them
    // recovers nothing.
    let disclosed = MatchConfig {
        ignore_candidate_words: true,
        ..MatchConfig::default()
    };
    assert_eq!(
        guess_matches(
            "Bharatiya Janata Party",
            "Indian National Congress party",
            Org,
            "an Indian political party",
            &disclosed
        ),
        None
    );
}

#[test]
fn character_four_grams_for_named_entities_only() {
    assert_eq!(
        rule(
            "Gujarat",
            "Gujarati people",
            EntityType::Loc,
            "an Indian state"
        ),
        Some(MatchRule::CharNgram)
    );
    assert_eq!(
        rule("Trosterud", "Trosterund", EntityType::Person, "PERSON 1"),
        Some(MatchRule::CharNgram)
    );
    // Not for quantities or dates.
    assert_eq!(
        rule(
            "twenty-eight years",
            "twentyish yearly",
            EntityType::Quantity,
            "decades"
        ),
        None
    );
    // INTACT: one shared 4-gram is enough (`Turkey` ~ `Turkish`, `Norway` ~ `Norwegian`)…
    for (original, guess) in [("Turkey", "Turkish"), ("Norway", "Norwegian people")] {
        assert_eq!(
            rule(original, guess, EntityType::Loc, "a country"),
            Some(MatchRule::CharNgram),
            "{original} ~ {guess}"
        );
    }
    assert_eq!(
        rule("Gujarat", "Gujranwala", EntityType::Loc, "a region"),
        None
    );
    // …kanon's variant asks for a Dice coefficient of 0.6, which these miss.
    let dice = MatchConfig {
        ngram_match: NgramMatch::Dice { threshold: 0.6 },
        ..MatchConfig::default()
    };
    for (original, guess) in [("Turkey", "Turkish"), ("Norway", "Norwegian people")] {
        assert_eq!(
            guess_matches(original, guess, EntityType::Loc, "a country", &dice),
            None,
            "{original} ~ {guess}"
        );
    }
    assert_eq!(
        guess_matches(
            "Gujarat",
            "Gujarati people",
            EntityType::Loc,
            "an Indian state",
            &dice
        ),
        Some(MatchRule::CharNgram)
    );
}

#[test]
fn acronyms_both_ways() {
    use EntityType::*;
    assert_eq!(
        rule("Bharatiya Janata Party", "BJP", Org, "a political party"),
        Some(MatchRule::Acronym)
    );
    assert_eq!(
        rule(
            "NATO",
            "North Atlantic Treaty Organization",
            Org,
            "a military alliance"
        ),
        Some(MatchRule::Acronym)
    );
    assert_eq!(
        rule("University of Oslo", "the UO", Org, "a university"),
        Some(MatchRule::Acronym)
    );
    assert_eq!(
        rule("United States", "U.S.", Loc, "a country"),
        Some(MatchRule::Acronym)
    );
    // Lower-case words are not acronyms.
    assert_eq!(rule("Bharatiya Janata Party", "bjp", Org, "a party"), None);
}

#[test]
fn dates_need_every_lemma_to_agree() {
    use EntityType::Datetime;
    assert_eq!(
        rule("5 August 2003", "August 5, 2003", Datetime, "August 2003"),
        Some(MatchRule::Date)
    );
    assert_eq!(
        rule("5 August 2003", "2003-08-05", Datetime, "summer 2003"),
        Some(MatchRule::Date)
    );
    assert_eq!(
        rule("5 August 2003", "August 2003", Datetime, "summer 2003"),
        None
    );
    assert_eq!(
        rule("5 August 2003", "6 August 2003", Datetime, "August 2003"),
        None
    );
    // Phrases no rule parses compare their lemmas, numbers included.
    assert_eq!(
        rule(
            "twenty-eight years'",
            "twenty-eight year",
            Datetime,
            "decades"
        ),
        Some(MatchRule::Date)
    );
    assert_eq!(
        rule("twenty-eight years'", "twenty years", Datetime, "decades"),
        None
    );
}
