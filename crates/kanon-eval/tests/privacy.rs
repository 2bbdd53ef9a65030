//! The lexical and neural attackers on small made-up populations: they name the person behind the
//! original documents and cannot behind suppressed ones; bad inputs are errors or counted skips.
#![allow(clippy::unwrap_used)]

use kanon_core::NoProgress;
use kanon_eval::job::{PrivacyJob, Truth, privacy};
use kanon_eval::privacy::{
    AttackedDocument, Attacker, Background, LexicalAttacker, NeuralAttacker, NeuralAttackerJob,
    evaluate_privacy,
};
use kanon_tagger::classifier::ClassifierConfig;

/// The lexical attacker alone.
fn attack_bm25(
    background: &Background,
    docs: &[AttackedDocument],
    person_of: &dyn Fn(&str) -> Option<String>,
) -> kanon_eval::PrivacyReport {
    let attacker = LexicalAttacker::new(background).unwrap();
    evaluate_privacy(background, docs, person_of, &[&attacker as &dyn Attacker]).unwrap()
}

const FIRST: [&str; 6] = ["Lilian", "Tomas", "Ingrid", "Mateo", "Aiko", "Bram"];
const LAST: [&str; 5] = ["Albano", "Varga", "Solberg", "Okafor", "Lindqvist"];
const CITIES: [&str; 6] = ["Vienna", "Debrecen", "Bergen", "Lagos", "Uppsala", "Porto"];
const JOBS: [&str; 5] = ["chemist", "footballer", "painter", "judge", "cellist"];

/// Person `i`: a name, a city, a job and a year, told twice in different words.
fn person(i: usize) -> (String, String, String) {
    let (first, last) = (FIRST[i % 6], LAST[i % 5]);
    let (city, job, year) = (CITIES[(i / 2) % 6], JOBS[(i / 3) % 5], 1950 + i);
    let background = format!(
        "{first} {last} (born {year} in {city}) is a {job}. {last} trained in {city} and worked as a {job} for many years."
    );
    let document = format!("{first} {last}, the {job} from {city}, was born in {year}.");
    let suppressed = "***, the *** from ***, was born in ***.".to_owned();
    (background, document, suppressed)
}

fn population(n: usize) -> (Background, Vec<AttackedDocument>, Vec<AttackedDocument>) {
    let mut people = Vec::new();
    let (mut originals, mut suppressed) = (Vec::new(), Vec::new());
    for i in 0..n {
        let (background, document, masked) = person(i);
        let name = format!("person-{i}");
        people.push((name.clone(), Some(background)));
        originals.push(AttackedDocument {
            id: name.clone(),
            text: document,
        });
        suppressed.push(AttackedDocument {
            id: name,
            text: masked,
        });
    }
    (Background::new(people), originals, suppressed)
}

#[test]
fn the_attacker_names_people_from_their_texts_and_not_from_suppressed_ones() {
    let (background, originals, suppressed) = population(30);
    let by_id = |id: &str| Some(id.to_owned());
    let original = attack_bm25(&background, &originals, &by_id);
    let bm25 = original.attackers["bm25"];
    assert!(bm25.top1 >= 0.9, "{original:?}");
    assert!(bm25.top5 >= bm25.top1);
    let masked = attack_bm25(&background, &suppressed, &by_id);
    let bm25 = masked.attackers["bm25"];
    // Only words every background shares are left: at most chance.
    assert!(bm25.top1 <= 1.0 / 30.0 + 1e-9, "{masked:?}");
    assert_eq!(masked.documents, 30);
}

#[test]
fn unknown_people_are_counted_and_people_without_a_text_are_known_to_nobody() {
    let (mut people, mut docs) = (Vec::new(), Vec::new());
    for i in 0..4 {
        let (background, document, _) = person(i);
        people.push((format!("person-{i}"), Some(background)));
        docs.push(AttackedDocument {
            id: format!("person-{i}"),
            text: document,
        });
    }
    people.push(("silent".into(), None));
    let (_, silent_doc, _) = person(9);
    docs.push(AttackedDocument {
        id: "silent".into(),
        text: silent_doc,
    });
    docs.push(AttackedDocument {
        id: "stranger".into(),
        text: "Someone else entirely.".into(),
    });
    let background = Background::new(people);
    let report = attack_bm25(&background, &docs, &|id: &str| Some(id.to_owned()));
    assert_eq!(report.unknown_people, ["stranger"]);
    assert_eq!((report.documents, report.background_without_text), (5, 1));
    // Four of five named; the person without a background text cannot be.
    assert!(
        (report.attackers["bm25"].top1 - 0.8).abs() < 1e-9,
        "{report:?}"
    );
    assert!(
        report
            .render()
            .contains("1 whose person is not in the background")
    );
}

#[test]
fn the_job_reads_its_files_and_names_what_is_wrong_with_them() {
    let dir = tempfile::tempdir().unwrap();
    let background = dir.path().join("background.json");
    std::fs::write(
        &background,
        r#"[{"name": "a", "public_knowledge": "Lilian Albano, chemist of Vienna."},
            {"name": "b", "public_knowledge": "Tomas Varga, footballer of Debrecen."},
            {"name": "c", "public_knowledge": null}]"#,
    )
    .unwrap();
    let sanitized = dir.path().join("out.jsonl");
    std::fs::write(
        &sanitized,
        "{\"id\": \"d1\", \"text\": \"The chemist of Vienna.\", \"edits\": [], \"who\": \"a\"}\n\
         {\"id\": \"d2\", \"text\": \"PERSON 1, footballer.\", \"edits\": [], \"who\": \"b\"}\n",
    )
    .unwrap();
    let job = |truth| PrivacyJob {
        background: background.clone(),
        sanitized: sanitized.clone(),
        truth,
        neural: None,
    };
    let by_field = privacy(
        &job(Truth::Field {
            field: "who".into(),
        }),
        &NoProgress,
    )
    .unwrap();
    assert_eq!(by_field.documents, 2);
    assert_eq!(by_field.attackers["bm25"].top1, 1.0);
    // By id, neither d1 nor d2 is a person of the background.
    let by_id = privacy(&job(Truth::Id), &NoProgress).unwrap();
    assert_eq!(by_id.unknown_people, ["d1", "d2"]);
    let map = dir.path().join("people.json");
    std::fs::write(&map, r#"{"d1": "a"}"#).unwrap();
    let by_map = privacy(&job(Truth::Map { path: map }), &NoProgress).unwrap();
    assert_eq!((by_map.documents, by_map.unknown_people.len()), (1, 1));

    std::fs::write(&sanitized, "").unwrap();
    let err = privacy(&job(Truth::Id), &NoProgress)
        .unwrap_err()
        .to_string();
    assert!(err.contains("out.jsonl: no documents"), "{err}");
    std::fs::write(&background, "[]").unwrap();
    let err = privacy(&job(Truth::Id), &NoProgress)
        .unwrap_err()
        .to_string();
    assert!(err.contains("no people in the background"), "{err}");
    std::fs::write(&background, r#"[{"name": "a"}]"#).unwrap();
    let err = privacy(&job(Truth::Id), &NoProgress)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("background.json") && err.contains("public_knowledge"),
        "{err}"
    );
}

/// Every word the tiny BERT's vocabulary knows: the made-up population's.
fn vocabulary() -> Vec<String> {
    let mut words: Vec<String> = FIRST
        .iter()
        .chain(&LAST)
        .chain(&CITIES)
        .chain(&JOBS)
        .map(|w| w.to_lowercase())
        .collect();
    for extra in [
        "born", "in", "is", "a", "trained", "and", "worked", "as", "for", "many", "years", "the",
        "from", "was", "(", ")", ".", ",", "*",
    ] {
        words.push(extra.to_owned());
    }
    words.extend((1950..1962).map(|y| y.to_string()));
    words
}

#[test]
fn the_neural_attacker_names_people_from_their_texts_and_not_from_suppressed_ones() {
    let dir = tempfile::tempdir().unwrap();
    let words = vocabulary();
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    kanon_tagger::testing::write_tiny_pretrained(&dir.path().join("bert"), &words, 3).unwrap();
    let (background, originals, suppressed) = population(8);
    let job = NeuralAttackerJob {
        checkpoint: dir.path().join("attacker"),
        pretrained: dir.path().join("bert").display().to_string(),
        config: ClassifierConfig {
            learning_rate: 2e-2,
            epochs: 30,
            batch_size: 4,
            warmup_ratio: 0.0,
            max_len: 16,
            mask_probability: 0.1,
            checkpoint_every: 0,
            ..ClassifierConfig::default()
        },
        precision: Default::default(),
    };
    let attacker = NeuralAttacker::load_or_train(&background, &job, &NoProgress).unwrap();
    let by_id = |id: &str| Some(id.to_owned());
    let original = evaluate_privacy(
        &background,
        &originals,
        &by_id,
        &[&attacker as &dyn Attacker],
    )
    .unwrap();
    let bert = original.attackers["bert"];
    assert!(bert.top1 >= 0.75, "{original:?}");
    let masked = evaluate_privacy(
        &background,
        &suppressed,
        &by_id,
        &[&attacker as &dyn Attacker],
    )
    .unwrap();
    // Every suppressed document reads the same: one guess for all, right for one person at most.
    assert!(
        masked.attackers["bert"].top1 <= 1.0 / 8.0 + 1e-9,
        "{masked:?}"
    );

    // The checkpoint is reused, and refused for another population or other settings.
    let again = NeuralAttacker::load_or_train(&background, &job, &NoProgress).unwrap();
    let texts = ["Lilian Albano, the chemist from Vienna"];
    assert_eq!(
        again.rank_many(&texts, 3).unwrap(),
        attacker.rank_many(&texts, 3).unwrap()
    );
    let (smaller, _, _) = population(5);
    let err = NeuralAttacker::load_or_train(&smaller, &job, &NoProgress)
        .unwrap_err()
        .to_string();
    assert!(err.contains("another background"), "{err}");
    let mut other = job.clone();
    other.config.epochs = 2;
    let err = NeuralAttacker::load_or_train(&background, &other, &NoProgress)
        .unwrap_err()
        .to_string();
    assert!(err.contains("other settings"), "{err}");

    // With both attackers, the ensemble re-identifies what either does.
    let lexical = LexicalAttacker::new(&background).unwrap();
    let both = evaluate_privacy(
        &background,
        &originals,
        &by_id,
        &[&lexical as &dyn Attacker, &attacker as &dyn Attacker],
    )
    .unwrap();
    let ensemble = both.attackers["ensemble"].top1;
    assert!(ensemble >= both.attackers["bm25"].top1 && ensemble >= both.attackers["bert"].top1);
}
