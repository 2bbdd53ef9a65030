//! The gate end to end on synthetic KGs: a generalization that alone singles a person out is
//! climbed past; the gate's output re-checked by Algorithm 1 finds nothing; the BM25 attacker
//! is made to fail; certificates hold no original string; a resumed run equals an
//! uninterrupted one.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::path::Path;

use kanon_core::{EntityType, NoProgress};
use kanon_gate::reid::{Bm25Attacker, ReidAttacker};
use kanon_gate::{
    AttackerKind, Escalation, Gate, GateConfig, GateInput, Gated, KgAttacker, Status,
};
use kanon_index::{Index, IndexBuilder};
use kanon_kg::{Fact, KnowledgeGraph, Person, Property};
use kanon_sanitize::config::CandidateSources;
use kanon_sanitize::{Mention, Sanitizer, SanitizerConfig, Strategy};
use proptest::prelude::*;

fn index_of(people: Vec<Person>, dir: &Path) -> Index {
    IndexBuilder::new()
        .build(&KnowledgeGraph { people }, &dir.join("index"), &NoProgress)
        .unwrap();
    Index::open(&dir.join("index")).unwrap()
}

fn person(i: usize, facts: &[(Property, &str)]) -> Person {
    let mut person = Person::new(format!("Q{i}"), format!("Person{i} Surname{i}"));
    for (property, value) in facts {
        person.facts.push(Fact::new(property.clone(), *value));
    }
    person
}

/// The KG's hierarchies, no model: "Graz" → "a city in Styria" → "a city in Austria" → ….
fn generalizing() -> Sanitizer<'static> {
    Sanitizer::new(
        SanitizerConfig::builder()
            .strategy(Strategy::MostSpecific)
            .candidate_sources(CandidateSources::KnowledgeGraph)
            .build()
            .unwrap(),
    )
    .unwrap()
}

/// A sanitizer that masks every span by `strategy` (no candidates).
fn masking(strategy: Strategy) -> Sanitizer<'static> {
    Sanitizer::new(
        SanitizerConfig::builder()
            .strategy(strategy)
            .build()
            .unwrap(),
    )
    .unwrap()
}

/// One document through `gate`, as id `d1`.
fn certify_one(gate: &Gate<'_>, text: &str, mentions: &[Mention], person: Option<usize>) -> Gated {
    gate.certify(&[GateInput {
        id: "d1",
        text,
        mentions,
        person,
    }])
    .unwrap()
    .remove(0)
}

fn kg_only(k: u64) -> GateConfig {
    GateConfig::builder()
        .attackers(vec![AttackerKind::Kg])
        .k(k)
        .max_words_changed(1.0)
        .build()
        .unwrap()
}

#[test]
fn the_numbers_of_labels_are_not_read_as_facts() {
    let dir = tempfile::tempdir().unwrap();
    // Ten chemists; one of them born in the year 10 (Pantheon has such a person).
    let people = (0..10)
        .map(|i| {
            let mut facts = vec![(Property::Occupation, "chemist")];
            if i == 0 {
                facts.push((Property::BirthDate, "10"));
            }
            person(i, &facts)
        })
        .collect();
    let index = index_of(people, dir.path());
    // A chemist and the nine people she met: the last is "PERSON 10".
    let names = [
        "Lilian Albano",
        "Ada Berg",
        "Bo Carr",
        "Cy Dunn",
        "Di Egan",
        "Ed Finch",
        "Flo Gray",
        "Gus Hale",
        "Hal Ives",
        "Tomas Varga",
    ];
    let text = format!(
        "{} is a chemist. She met {}.",
        names[0],
        names[1..].join(", ")
    );
    let mentions: Vec<Mention> = names
        .iter()
        .map(|name| {
            let at = text.find(name).unwrap();
            Mention::new(at, at + name.len(), EntityType::Person)
        })
        .collect();
    let text = text.as_str();
    let sanitizer = masking(Strategy::NumberedLabel);
    let config = kg_only(3);
    let kg = KgAttacker::new(&index, config.labeler());
    let plain = sanitizer.sanitize("d1", text, &mentions).unwrap();
    assert!(
        plain.document.text.ends_with("PERSON 9, PERSON 10."),
        "{}",
        plain.document.text
    );
    // Read as plain text, "chemist" and the "10" of "PERSON 10" single out one person …
    assert!(!kg.check("d1", &plain.document.text).passes());
    // … but a label is the sanitizer's numbering, not a fact.
    assert!(kg.check_output("d1", &plain).passes());
    let gate = Gate::new(config.clone(), &sanitizer, Some(kg), Vec::new(), None).unwrap();
    let gated = certify_one(&gate, text, &mentions, None);
    assert_eq!(gated.certificate.status, Status::Passed);
    assert_eq!(gated.document.text, plain.document.text);
}

#[test]
fn a_generalization_that_alone_singles_a_person_out_climbs_a_rung() {
    let dir = tempfile::tempdir().unwrap();
    // Ten Austrian chemists; one of them lives in Styria.
    let people = (0..10)
        .map(|i| {
            let mut facts = vec![
                (Property::Occupation, "chemist"),
                (Property::Citizenship, "Austria"),
            ];
            if i == 0 {
                facts.push((Property::Residence, "Styria"));
            }
            person(i, &facts)
        })
        .collect();
    let index = index_of(people, dir.path());
    let text = "Lilian Albano is a chemist, born in Graz in 1950.";
    let mentions = [
        Mention::new(0, 13, EntityType::Person),
        Mention::new(36, 40, EntityType::Loc),
        Mention::new(44, 48, EntityType::Datetime),
    ];
    let sanitizer = generalizing();
    let config = kg_only(3);
    let kg = KgAttacker::new(&index, config.labeler());
    // The sanitizer alone: "a city in Styria" names the one person living there.
    let plain = sanitizer.sanitize("d1", text, &mentions).unwrap();
    assert!(
        plain.document.text.contains("a city in Styria"),
        "{}",
        plain.document.text
    );
    assert!(!kg.check("d1", &plain.document.text).passes());

    let gate = Gate::new(
        config.clone(),
        &sanitizer,
        Some(KgAttacker::new(&index, config.labeler())),
        Vec::new(),
        None,
    )
    .unwrap();
    let gated = &certify_one(&gate, text, &mentions, None);
    assert_eq!(
        gated.document.text,
        "PERSON 1 is a chemist, born in a city in Austria in the early 1950s."
    );
    assert!(kg.check("d1", &gated.document.text).passes());
    let certificate = &gated.certificate;
    assert_eq!(certificate.status, Status::Escalated);
    assert_eq!(
        certificate.escalations,
        [Escalation::Rung {
            round: 1,
            by: "kg".into(),
            entity: "LOC 1".into(),
            from: Some(1),
            to: Some(2)
        }]
    );
    let kg_figures = certificate.kg.as_ref().unwrap();
    assert_eq!(
        (kg_figures.objections_before, kg_figures.objections_after),
        (1, 0)
    );
    assert_eq!(kg_figures.k_reached, Some(10));
}

#[test]
fn a_term_outside_every_span_is_masked_and_the_cap_holds() {
    let dir = tempfile::tempdir().unwrap();
    let people = (0..6)
        .map(|i| {
            person(
                i,
                &[
                    (Property::Occupation, "chemist"),
                    (Property::BirthPlace, if i == 0 { "Graz" } else { "Vienna" }),
                ],
            )
        })
        .collect();
    let index = index_of(people, dir.path());
    let text = "Lilian Albano, a chemist, was born in Graz. Graz is where Albano grew up.";
    let mentions = [Mention::new(0, 13, EntityType::Person)];
    let sanitizer = masking(Strategy::Label);
    let config = kg_only(3);
    let gate = Gate::new(
        config.clone(),
        &sanitizer,
        Some(KgAttacker::new(&index, config.labeler())),
        Vec::new(),
        None,
    )
    .unwrap();
    let input = GateInput {
        id: "d1",
        text,
        mentions: &mentions,
        person: None,
    };
    let gated = gate.certify(&[input]).unwrap().remove(0);
    assert_eq!(
        gated.document.text,
        "PERSON, a chemist, was born in ***. *** is where PERSON grew up."
    );
    let Escalation::Mask { words, by, .. } = &gated.certificate.escalations[0] else {
        panic!("{:?}", gated.certificate.escalations)
    };
    assert_eq!(by, "kg");
    let chars: Vec<char> = gated.document.text.chars().collect();
    for w in words {
        assert_eq!(chars[w.start..w.end].iter().collect::<String>(), "***");
    }
    // Masking Graz would change more than a tenth of the words: capped, never released as safe.
    let strict = GateConfig {
        max_words_changed: 0.1,
        ..config.clone()
    };
    let gate = Gate::new(
        strict.clone(),
        &sanitizer,
        Some(KgAttacker::new(&index, strict.labeler())),
        Vec::new(),
        None,
    )
    .unwrap();
    let capped = gate.certify(&[input]).unwrap().remove(0);
    assert_eq!(capped.certificate.status, Status::Capped);
    assert_eq!(
        capped.certificate.capped,
        Some(kanon_gate::CapReason::MaskingCap)
    );
    assert!(capped.document.text.contains("Graz"));
}

#[test]
fn the_bm25_attacker_is_made_to_fail_by_masking_what_it_leans_on() {
    let background = kanon_core::background::Background::new(vec![
        ("lilian".into(), Some("Lilian Albano is an Austrian chemist, known for the Albano reaction; she plays the violin.".into())),
        ("tomas".into(), Some("Tomas Varga is a Hungarian chemist and footballer from Debrecen.".into())),
        ("anna".into(), Some("Anna Huber is an Austrian painter from Linz.".into())),
        ("eva".into(), Some("Eva Gruber is a German chemist and singer.".into())),
    ]);
    let bm25 = Bm25Attacker::new(&background).unwrap();
    let text = "Lilian Albano is a chemist who found a reaction and plays the violin.";
    let mentions = [Mention::new(0, 13, EntityType::Person)];
    let sanitizer = masking(Strategy::Label);
    let config = GateConfig::builder()
        .attackers(vec![AttackerKind::Bm25])
        .max_words_changed(0.6)
        .words_per_round(1)
        .build()
        .unwrap();
    let attackers: Vec<&dyn ReidAttacker> = vec![&bm25];
    let gate = Gate::new(config, &sanitizer, None, attackers, Some(&bm25)).unwrap();
    let gated = certify_one(&gate, text, &mentions, Some(0));
    let outcome = &gated.certificate.attackers["bm25"];
    assert_eq!(outcome.rank_before, Some(1));
    assert!(
        outcome.succeeded_before && !outcome.succeeded_after,
        "{gated:?}"
    );
    assert_ne!(outcome.rank_after, Some(1));
    assert_eq!(gated.certificate.status, Status::Escalated);
    // The words it leaned on are gone; the sentence's frame stays.
    assert!(
        !gated.document.text.contains("violin"),
        "{}",
        gated.document.text
    );
    assert!(
        gated.document.text.starts_with("PERSON is a"),
        "{}",
        gated.document.text
    );
}

/// A document whose person BM25 names by many words of their own text: with too few words
/// left under the cap, the gate caps it at once (`OutOfReach`) instead of masking up to the cap;
/// and wherever it does so, masking on would have ended capped too (the bound is sound), while
/// documents that can pass come out the same with the check and without.
#[test]
fn a_document_bm25_names_whatever_the_cap_allows_is_capped_at_once() {
    let background = kanon_core::background::Background::new(vec![
        ("lilian".into(), Some("Lilian Albano is an Austrian chemist, known for the Albano reaction; she plays the violin.".into())),
        ("tomas".into(), Some("Tomas Varga is a Hungarian chemist and footballer from Debrecen.".into())),
        ("anna".into(), Some("Anna Huber is an Austrian painter from Linz.".into())),
        ("eva".into(), Some("Eva Gruber is a German chemist and singer.".into())),
    ]);
    let bm25 = Bm25Attacker::new(&background).unwrap();
    let sanitizer = masking(Strategy::Label);
    let attackers: Vec<&dyn ReidAttacker> = vec![&bm25];
    let gate_with = |cap: f64, out_of_reach: bool| {
        let config = GateConfig::builder()
            .attackers(vec![AttackerKind::Bm25])
            .max_words_changed(cap)
            .max_rounds(60)
            .cap_out_of_reach(out_of_reach)
            .build()
            .unwrap();
        Gate::new(config, &sanitizer, None, attackers.clone(), Some(&bm25)).unwrap()
    };
    let close =
        "Lilian Albano, an Austrian chemist known for the Albano reaction, plays the violin.";
    let mentions = [Mention::new(0, 13, EntityType::Person)];
    let early = certify_one(&gate_with(0.45, true), close, &mentions, Some(0));
    assert_eq!(early.certificate.status, Status::Capped);
    assert_eq!(
        early.certificate.capped,
        Some(kanon_gate::CapReason::OutOfReach)
    );
    assert_eq!(early.certificate.rounds, 0);
    assert_eq!(
        early.certificate.words_changed.after,
        early.certificate.words_changed.before
    );
    let late = certify_one(&gate_with(0.45, false), close, &mentions, Some(0));
    assert_eq!(late.certificate.status, Status::Capped);
    assert!(
        late.certificate.words_changed.after > late.certificate.words_changed.before,
        "{late:?}"
    );
    let far = "Lilian Albano is a chemist who found a reaction and plays the violin.";
    let mut out_of_reach = 0;
    let mut passed = 0;
    for text in [close, far] {
        for tenths in 1..=9 {
            let cap = f64::from(tenths) / 10.0;
            let with = certify_one(&gate_with(cap, true), text, &mentions, Some(0));
            let without = certify_one(&gate_with(cap, false), text, &mentions, Some(0));
            if with.certificate.capped == Some(kanon_gate::CapReason::OutOfReach) {
                out_of_reach += 1;
                assert_eq!(
                    without.certificate.status,
                    Status::Capped,
                    "{text} at {cap}"
                );
            } else {
                assert_eq!(with, without, "{text} at {cap}");
            }
            passed += usize::from(without.certificate.status != Status::Capped);
        }
    }
    assert!(out_of_reach >= 2 && passed >= 2, "{out_of_reach} {passed}");
}

/// Facts drawn from a small vocabulary, so that people share some and not others.
fn facts_strategy() -> impl proptest::strategy::Strategy<Value = Vec<(usize, usize, usize)>> {
    prop::collection::vec((0usize..3, 0usize..2, 0usize..4), 4..14)
}

const OCCUPATIONS: [&str; 3] = ["chemist", "painter", "singer"];
const COUNTRIES: [&str; 2] = ["Austria", "Norway"];
const CITIES: [&str; 4] = ["Graz", "Vienna", "Bergen", "Oslo"];

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Whatever the KG and the document, the gate's output re-checked by Algorithm 1 finds
    /// nothing (with no cap on masking, no document is capped).
    #[test]
    fn the_gates_output_rechecked_by_algorithm_1_finds_nothing(
        facts in facts_strategy(),
        subject in 0usize..4,
        k in 2u64..5,
        arity in 1usize..4,
        mask_city in any::<bool>(),
        generalize in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let people: Vec<Person> = facts
            .iter()
            .enumerate()
            .map(|(i, &(o, c, b))| person(i, &[
                (Property::Occupation, OCCUPATIONS[o]),
                (Property::Citizenship, COUNTRIES[c]),
                (Property::BirthPlace, CITIES[b]),
            ]))
            .collect();
        let index = index_of(people, dir.path());
        let (o, c, b) = facts[subject % facts.len()];
        let text = format!(
            "Lilian Albano is a {} from {}, born in {}. In {} she met other {}s.",
            OCCUPATIONS[o], COUNTRIES[c], CITIES[b], CITIES[b], OCCUPATIONS[o]
        );
        let city_at = text.find(CITIES[b]).unwrap();
        let mut mentions = vec![Mention::new(0, 13, EntityType::Person)];
        if mask_city {
            mentions.push(Mention::new(city_at, city_at + CITIES[b].len(), EntityType::Loc));
        }
        let sanitizer = if generalize {
            generalizing()
        } else {
            masking(Strategy::Label)
        };
        let config = GateConfig { max_arity: arity, ..kg_only(k) };
        let gate = Gate::new(config.clone(), &sanitizer, Some(KgAttacker::new(&index, config.labeler())), Vec::new(), None).unwrap();
        let gated = gate
            .certify(&[GateInput { id: "d", text: &text, mentions: &mentions, person: None }])
            .unwrap()
            .remove(0);
        prop_assert_ne!(gated.certificate.status, Status::Capped);
        let recheck = KgAttacker::new(&index, config.labeler()).check("d", &gated.document.text);
        prop_assert!(recheck.passes(), "{} -> {:?}", gated.document.text, recheck.decisions.masks);
        prop_assert_eq!(gated.certificate.kg.as_ref().unwrap().objections_after, 0);
    }
}

/// Greedy masking guided against the runner-up of the moment takes `linz`, then `chemist`, then
/// `debrecen`; with the other two gone, `debrecen` alone names no one first, so pruning undoes
/// it. Guided against the easiest rival, the greedy makes only the two masks needed.
#[test]
fn masks_made_unneeded_by_later_ones_are_undone() {
    let background = kanon_core::background::Background::new(vec![
        (
            "lilian".into(),
            Some("Someone is linz debrecen chemist chemist.".into()),
        ),
        (
            "tomas".into(),
            Some("Someone is austrian violin chemist.".into()),
        ),
        (
            "anna".into(),
            Some("Someone is austrian violin debrecen reaction.".into()),
        ),
        ("eva".into(), Some("Someone is austrian reaction.".into())),
    ]);
    let bm25 = Bm25Attacker::new(&background).unwrap();
    let text = "Lilian Albano is linz painter chemist debrecen painter.";
    let mentions = [Mention::new(0, 13, EntityType::Person)];
    let sanitizer = masking(Strategy::Label);
    let run = |prune: bool| {
        let config = GateConfig::builder()
            .attackers(vec![AttackerKind::Bm25])
            .max_words_changed(0.9)
            .prune(prune)
            .easiest_rival(false)
            .build()
            .unwrap();
        let attackers: Vec<&dyn ReidAttacker> = vec![&bm25];
        let gate = Gate::new(config, &sanitizer, None, attackers, Some(&bm25)).unwrap();
        certify_one(&gate, text, &mentions, Some(0))
    };
    let greedy = run(false);
    let pruned = run(true);
    // Guided against the rival the fewest masked words put ahead (`anna`, who shares
    // `debrecen`: `linz` and `chemist` are all that set the person apart from her), the greedy
    // itself stops at the two masks needed.
    let easiest = {
        let config = GateConfig::builder()
            .attackers(vec![AttackerKind::Bm25])
            .max_words_changed(0.9)
            .prune(false)
            .build()
            .unwrap();
        let attackers: Vec<&dyn ReidAttacker> = vec![&bm25];
        let gate = Gate::new(config, &sanitizer, None, attackers, Some(&bm25)).unwrap();
        certify_one(&gate, text, &mentions, Some(0))
    };
    assert_eq!(easiest.document.text, pruned.document.text);
    assert_eq!(easiest.certificate.status, Status::Escalated);
    assert_eq!(
        greedy.document.text,
        "PERSON is *** painter *** *** painter."
    );
    assert_eq!(
        pruned.document.text,
        "PERSON is *** painter *** debrecen painter."
    );
    let masks = |gated: &Gated| {
        gated
            .certificate
            .escalations
            .iter()
            .filter(|e| matches!(e, Escalation::Mask { .. }))
            .count()
    };
    assert_eq!((masks(&greedy), greedy.certificate.pruned), (3, 0));
    assert_eq!((masks(&pruned), pruned.certificate.pruned), (2, 1));
    for gated in [&greedy, &pruned] {
        assert_eq!(gated.certificate.status, Status::Escalated);
        assert!(!gated.certificate.attackers["bm25"].succeeded_after);
    }
    assert!(pruned.certificate.words_changed.after < greedy.certificate.words_changed.after);
}
