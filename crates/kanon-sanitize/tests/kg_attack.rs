//! INTACT with the KG attacker on a tiny KG: a rung that would single a person out is refused and
//! the next one up chosen; the document's other KG terms count; no model is needed.
#![allow(clippy::unwrap_used)]

use kanon_core::{EntityType, NoProgress};
use kanon_index::{Index, IndexBuilder};
use kanon_kg::{Fact, KnowledgeGraph, Person, Property};
use kanon_sanitize::audit::Rejection;
use kanon_sanitize::config::Attacker;
use kanon_sanitize::kg_attack::{KgAttackConfig, KgAttacker};
use kanon_sanitize::ontology::RungSource;
use kanon_sanitize::verify::ModelCandidates;
use kanon_sanitize::{Mention, Reason, Sanitizer, SanitizerConfig};

/// Person 0 was born in Bergen, people 1–5 in Oslo, 6 and 7 in Stockholm; people 0, 1, 6 and 7
/// are chemists.
fn attacker(k: u64) -> (tempfile::TempDir, KgAttacker) {
    let mut people = Vec::new();
    for i in 0..8 {
        let mut person = Person::new(format!("Q{i}"), format!("Person Number{i}"));
        let city = match i {
            0 => "Bergen",
            1..=5 => "Oslo",
            _ => "Stockholm",
        };
        person.facts.push(Fact::new(Property::BirthPlace, city));
        if [0, 1, 6, 7].contains(&i) {
            person
                .facts
                .push(Fact::new(Property::Occupation, "chemist"));
        }
        people.push(person);
    }
    attacker_of(people, k)
}

/// The KG attacker (k, combinations of up to 3) over an index of `people`, in a temporary
/// directory.
fn attacker_of(people: Vec<Person>, k: u64) -> (tempfile::TempDir, KgAttacker) {
    attacker_with(
        people,
        KgAttackConfig {
            k,
            max_arity: 3,
            ..KgAttackConfig::default()
        },
    )
}

fn attacker_with(people: Vec<Person>, config: KgAttackConfig) -> (tempfile::TempDir, KgAttacker) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index");
    IndexBuilder::new()
        .build(&KnowledgeGraph { people }, &path, &NoProgress)
        .unwrap();
    let index = Index::open(&path).unwrap();
    (dir, KgAttacker::new(index, config))
}

fn sanitize(text: &str, mentions: &[Mention], kg: &KgAttacker) -> kanon_sanitize::Sanitized {
    Sanitizer::new(SanitizerConfig::default())
        .unwrap()
        .with_kg(kg)
        .sanitize("d", text, mentions)
        .unwrap()
}

#[test]
fn phrases_stand_for_everyone_the_terms_they_cover_stand_for() {
    let (_dir, kg) = attacker(2);
    assert_eq!(*kg.people_of("a city in Hordaland").unwrap(), [0]);
    assert_eq!(
        *kg.people_of("a city in Norway").unwrap(),
        [0, 1, 2, 3, 4, 5]
    );
    assert_eq!(
        *kg.people_of("a city in Northern Europe").unwrap(),
        [0, 1, 2, 3, 4, 5, 6, 7]
    );
    // A KG term named by a candidate itself.
    assert_eq!(*kg.people_of("Oslo").unwrap(), [1, 2, 3, 4, 5]);
    assert!(kg.people_of("a nice town").is_none());
    // An indefinite phrase names no term, though its noun is spelt like one (`a team`).
    assert!(kg.people_of("an Oslo").is_none());
}

#[test]
fn a_place_counts_for_the_rungs_of_the_places_that_contain_it_without_being_generalized_by_them() {
    let (_dir, kg) = attacker(2);
    // Bergen lies in Hordaland, a county of Norway: whoever was born there was born in a county
    // of Norway and in a country of Northern Europe, as an attacker reading either reads it.
    assert_eq!(*kg.people_of("a county in Norway").unwrap(), [0]);
    assert_eq!(
        *kg.people_of("a country in Northern Europe").unwrap(),
        [0, 1, 2, 3, 4, 5, 6, 7]
    );
    // But `a county in Norway` is no generalization of Bergen: the truthfulness check does not
    // take it for one.
    assert_ne!(kg.true_of("a county in Norway", &["Bergen"]), Some(true));
    assert_eq!(kg.true_of("a city in Norway", &["Bergen"]), Some(true));
}

#[test]
fn a_country_and_its_demonym_stand_for_the_same_people() {
    let people = (0..3)
        .map(|i| {
            let mut person = Person::new(format!("Q{i}"), format!("Person Number{i}"));
            person
                .facts
                .push(Fact::new(Property::Citizenship, "Norway"));
            person
        })
        .collect();
    let (_dir, kg) = attacker_of(people, 2);
    // `Northern European` describes the citizens of Norway though no fact says `Norwegian`.
    assert_eq!(*kg.people_of("Northern European").unwrap(), [0, 1, 2]);
    assert_eq!(
        *kg.people_of("a country in Northern Europe").unwrap(),
        [0, 1, 2]
    );
}

#[test]
fn a_rung_that_singles_a_person_out_is_refused_and_the_next_one_up_chosen() {
    let (_dir, kg) = attacker(2);
    let text = "Ada Lind was born in Bergen.";
    let mentions = [
        Mention::new(0, 8, EntityType::Person),
        Mention::new(21, 27, EntityType::Loc),
    ];
    let sanitized = sanitize(text, &mentions, &kg);
    assert_eq!(
        sanitized.document.text,
        "PERSON 1 was born in a city in Norway."
    );
    let bergen = &sanitized.audit.entities[1];
    assert_eq!(bergen.choice, Some(2));
    let verdicts: Vec<(&str, u64, bool)> = bergen
        .attacks
        .iter()
        .map(|attack| {
            assert_eq!(attack.attacker, Attacker::Kg);
            let verdict = attack.kg.unwrap();
            (attack.candidate.as_str(), verdict.people, verdict.safe)
        })
        .collect();
    assert_eq!(
        verdicts,
        [
            ("a city in Hordaland", 1, false),
            ("a city in Norway", 6, true)
        ]
    );
    assert_eq!(
        (sanitized.stats.kg_checks, sanitized.stats.kg_refused),
        (2, 1)
    );
    assert_eq!(sanitized.stats.llm_calls(), 0);
}

#[test]
fn the_documents_remaining_terms_count_with_the_rung() {
    // "chemist" stays in the text (four people): with Norway's rung it leaves people 0 and 1,
    // fewer than 3; Northern Europe's leaves four.
    let (_dir, kg) = attacker(3);
    let text = "Ada Lind, a chemist, was born in Bergen.";
    let mentions = [
        Mention::new(0, 8, EntityType::Person),
        Mention::new(33, 39, EntityType::Loc),
    ];
    let sanitized = sanitize(text, &mentions, &kg);
    assert_eq!(
        sanitized.document.text,
        "PERSON 1, a chemist, was born in a city in Northern Europe."
    );
    let refused: Vec<bool> = sanitized.audit.entities[1]
        .attacks
        .iter()
        .map(|attack| attack.recovered)
        .collect();
    assert_eq!(refused, [true, true, false]);
    assert_eq!(sanitized.document.edits[1].reason, Reason::NotGuessed);
    // Without the chemist, the country's rung is safe at k = 3.
    let text = "Ada Lind was born in Bergen.";
    let mentions = [
        Mention::new(0, 8, EntityType::Person),
        Mention::new(21, 27, EntityType::Loc),
    ];
    assert_eq!(
        sanitize(text, &mentions, &kg).document.text,
        "PERSON 1 was born in a city in Norway."
    );
}

#[test]
fn the_llm_alone_keeps_todays_behaviour() {
    let (_dir, kg) = attacker(2);
    let config = SanitizerConfig::builder()
        .attackers([Attacker::Llm])
        .build()
        .unwrap();
    // No model and only the LLM listed: INTACT cannot attack, as before the KG attacker.
    let text = "Ada Lind was born in Bergen.";
    let mentions = [Mention::new(21, 27, EntityType::Loc)];
    let result = Sanitizer::new(config)
        .unwrap()
        .with_kg(&kg)
        .sanitize("d", text, &mentions);
    assert!(result.is_err());
}

#[test]
fn with_a_model_a_candidate_must_survive_both_attackers() {
    let (_dir, kg) = attacker(2);
    // The model names Bergen from "a city in Norway", not from Northern Europe.
    let model = kanon_llm::ScriptedModel::new("attacker")
        .reply("[[a city in Norway]]", "1. Bergen\n2. Oslo")
        .fallback("1. Stockholm\n2. Oslo");
    let config = SanitizerConfig::builder()
        .candidate_sources(kanon_sanitize::config::CandidateSources::KnowledgeGraph)
        .build()
        .unwrap();
    let text = "Ada Lind was born in Bergen.";
    let mentions = [
        Mention::new(0, 8, EntityType::Person),
        Mention::new(21, 27, EntityType::Loc),
    ];
    let sanitized = Sanitizer::new(config)
        .unwrap()
        .with_model(&model)
        .with_kg(&kg)
        .sanitize("d", text, &mentions)
        .unwrap();
    assert_eq!(
        sanitized.document.text,
        "PERSON 1 was born in a city in Northern Europe."
    );
    let attacks: Vec<(Attacker, &str, bool)> = sanitized.audit.entities[1]
        .attacks
        .iter()
        .map(|attack| (attack.attacker, attack.candidate.as_str(), attack.recovered))
        .collect();
    assert_eq!(
        attacks,
        [
            (Attacker::Kg, "a city in Hordaland", true),
            (Attacker::Kg, "a city in Norway", false),
            (Attacker::Llm, "a city in Norway", true),
            (Attacker::Kg, "a city in Northern Europe", false),
            (Attacker::Llm, "a city in Northern Europe", false),
        ]
    );
}

#[test]
fn the_truthfulness_check_catches_a_false_generalization() {
    let (_dir, kg) = attacker(2);
    // INTACT as published with a model that calls Bergen a Swedish city.
    let model = kanon_llm::ScriptedModel::new("model")
        .reply("Phrase: Bergen", "1. a city in Sweden\n2. a city")
        .fallback("1. Oslo");
    let config = SanitizerConfig::builder()
        .candidate_sources(kanon_sanitize::config::CandidateSources::Model)
        .model_candidates(ModelCandidates::Any)
        .attackers([Attacker::Llm])
        .build()
        .unwrap();
    let text = "Ada Lind was born in Bergen.";
    let mentions = [Mention::new(21, 27, EntityType::Loc)];
    let sanitized = Sanitizer::new(config)
        .unwrap()
        .with_model(&model)
        .with_kg(&kg)
        .sanitize("d", text, &mentions)
        .unwrap();
    assert_eq!(
        sanitized.document.text,
        "Ada Lind was born in a city in Sweden."
    );
    assert_eq!(
        (sanitized.stats.kg_resolved, sanitized.stats.kg_true),
        (1, 0)
    );
    assert_eq!(kg.true_of("a city in Norway", &["Bergen"]), Some(true));
    assert_eq!(kg.true_of("a city in Norway", &["Stockholm"]), Some(false));
    assert_eq!(kg.true_of("a city in Norway", &["Atlantis"]), None);
}

#[test]
fn by_default_a_models_false_generalization_never_reaches_the_text() {
    let (_dir, kg) = attacker(2);
    // The model calls Bergen a Swedish city, then says something true in its own words.
    let model = kanon_llm::ScriptedModel::new("model")
        .reply(
            "Phrase: Bergen",
            "1. a city in Sweden\n2. the most beautiful city in Scandinavia\n3. a Norwegian city",
        )
        .fallback("1. Oslo");
    let text = "Ada Lind was born in Bergen.";
    let mentions = [Mention::new(21, 27, EntityType::Loc)];
    let run = |policy: ModelCandidates| {
        let config = SanitizerConfig::builder()
            .candidate_sources(kanon_sanitize::config::CandidateSources::Model)
            .model_candidates(policy)
            .attackers([Attacker::Llm])
            .build()
            .unwrap();
        Sanitizer::new(config)
            .unwrap()
            .with_model(&model)
            .with_kg(&kg)
            .sanitize("d", text, &mentions)
            .unwrap()
    };
    // Confirmed by the hierarchy's rungs (`a city in Norway`), whatever source the candidates
    // are taken from; the false and the judging ones are dropped with their reason.
    for policy in [ModelCandidates::Verified, ModelCandidates::Checked] {
        let sanitized = run(policy);
        assert_eq!(
            sanitized.document.text,
            "Ada Lind was born in a Norwegian city."
        );
        let reasons: Vec<_> = sanitized.audit.entities[0]
            .candidates
            .iter()
            .map(|candidate| (candidate.text.as_str(), candidate.rejected))
            .collect();
        assert_eq!(
            reasons,
            [
                ("a city in Sweden", Some(Rejection::Unconfirmed)),
                (
                    "the most beautiful city in Scandinavia",
                    Some(Rejection::Unconfirmed)
                ),
                ("a Norwegian city", None),
            ]
        );
        // The KG reads the paraphrase as the rung it repeats: true of Bergen.
        assert_eq!(
            (sanitized.stats.kg_resolved, sanitized.stats.kg_true),
            (1, 1)
        );
    }
    assert_eq!(
        run(ModelCandidates::Any).document.text,
        "Ada Lind was born in a city in Sweden."
    );
}

/// People 0–2 played for Nordvik Blå, 3 for Fjordhavn; 4 and 5 worked at Kestrel Brygge, and
/// 6 played for it. No table of kanon's lists these names: their kinds come from the KG's facts.
fn clubs(k: u64) -> (tempfile::TempDir, KgAttacker) {
    let mut people = Vec::new();
    for i in 0..7 {
        let mut person = Person::new(format!("Q{i}"), format!("Person Number{i}"));
        let fact = match i {
            0..=2 => Fact::new(Property::Team, "Nordvik Blå"),
            3 => Fact::new(Property::Team, "Fjordhavn"),
            4 | 5 => Fact::new(Property::Employer, "Kestrel Brygge"),
            _ => Fact::new(Property::Team, "Kestrel Brygge"),
        };
        person.facts.push(fact);
        people.push(person);
    }
    attacker_of(people, k)
}

#[test]
fn a_name_no_table_lists_takes_the_kind_the_kgs_facts_give_it() {
    let text = "Ada Lind played for Fjordhavn.";
    let mentions = [
        Mention::new(0, 8, EntityType::Person),
        Mention::new(20, 29, EntityType::Org),
    ];
    // Everyone who played for a team, and everyone of a team or an employer.
    let (_dir, kg) = clubs(2);
    assert_eq!(*kg.people_of("a sports team").unwrap(), [0, 1, 2, 3]);
    assert_eq!(
        *kg.people_of("an organization").unwrap(),
        [0, 1, 2, 3, 4, 5, 6]
    );
    let sanitized = sanitize(text, &mentions, &kg);
    assert_eq!(
        sanitized.document.text,
        "PERSON 1 played for a sports team."
    );
    let rungs: Vec<_> = sanitized.audit.entities[1]
        .candidates
        .iter()
        .filter_map(|candidate| candidate.hierarchy)
        .collect();
    assert!(
        !rungs.is_empty() && rungs.iter().all(|&source| source == RungSource::KgFacts),
        "{rungs:?}"
    );
    // k = 5: a sports team covers four people, so the organisation is chosen.
    let (_dir, kg) = clubs(5);
    assert_eq!(
        sanitize(text, &mentions, &kg).document.text,
        "PERSON 1 played for an organization."
    );
    // A team that is also an employer is only an organisation.
    assert_eq!(
        kanon_sanitize::ontology::kg_candidates(EntityType::Org, "Kestrel Brygge"),
        Vec::<String>::new()
    );
    let kinds: Vec<String> = kg
        .fact_kinds(EntityType::Org, "Kestrel Brygge")
        .into_iter()
        .map(|rung| rung.text)
        .collect();
    assert_eq!(kinds, ["an organization"]);
}

/// People 0–2 are musicians (a singer born in Bergen, a guitarist born in Oslo, a pianist whose
/// birthplace the KG does not know), 3–5 comedians born in Oslo, 6–9 others born in Oslo.
fn performers(
    allocation: kanon_sanitize::kg_attack::Allocation,
) -> (tempfile::TempDir, KgAttacker) {
    let mut people = Vec::new();
    for i in 0..10 {
        let mut person = Person::new(format!("Q{i}"), format!("Person Number{i}"));
        let occupation = match i {
            0 => Some("singer"),
            1 => Some("guitarist"),
            2 => Some("pianist"),
            3..=5 => Some("comedian"),
            _ => None,
        };
        person.facts.extend(
            occupation
                .into_iter()
                .map(|occupation| Fact::new(Property::Occupation, occupation)),
        );
        let city = match i {
            0 => Some("Bergen"),
            2 => None,
            _ => Some("Oslo"),
        };
        person.facts.extend(
            city.into_iter()
                .map(|city| Fact::new(Property::BirthPlace, city)),
        );
        people.push(person);
    }
    attacker_with(
        people,
        KgAttackConfig {
            k: 3,
            max_arity: 3,
            allocation,
        },
    )
}

#[test]
fn the_balanced_allocation_leaves_a_later_entity_a_share_where_greedy_leaves_it_its_label() {
    use kanon_sanitize::kg_attack::Allocation;
    let text = "Ada Lind, a singer, was born in Bergen.";
    let mentions = [
        Mention::new(0, 8, EntityType::Person),
        Mention::new(12, 18, EntityType::Dem),
        Mention::new(32, 38, EntityType::Loc),
    ];
    let run = |allocation: Allocation| {
        let (_dir, kg) = performers(allocation);
        sanitize(text, &mentions, &kg)
    };
    // Greedy: the singer takes `a musician` (3 people), and then every rung of Bergen shares two
    // of them (the pianist's birthplace is unknown): Bergen keeps its label.
    let greedy = run(Allocation::Greedy);
    assert_eq!(
        greedy.document.text,
        "PERSON 1, a musician, was born in LOC 1."
    );
    // Balanced: both start at their roots and climb down in turns; `a musician` beside any city
    // would single out two people, so the singer stays `a performer` and Bergen reaches Norway.
    let balanced = run(Allocation::Balanced);
    assert_eq!(
        balanced.document.text,
        "PERSON 1, a performer, was born in a city in Norway."
    );
    let singer = &balanced.audit.entities[1];
    let musician = singer.attacks[0].kg.unwrap();
    assert_eq!(singer.attacks[0].candidate, "a musician");
    assert!(musician.reserved && !musician.safe, "{musician:?}");
    assert_eq!(balanced.stats.kg_reserved, 1);
    // Both outputs are k-anonymous: the chosen generalizations' people, together.
    let (_dir, kg) = performers(Allocation::Balanced);
    let people = |phrase: &str| kg.people_of(phrase).unwrap();
    let shared: Vec<u32> = people("a performer")
        .iter()
        .filter(|person| people("a city in Norway").contains(person))
        .copied()
        .collect();
    assert!(shared.len() >= 3, "{shared:?}");
}
