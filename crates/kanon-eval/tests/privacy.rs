//! The lexical attacker on a small made-up population: it names the person behind the original
//! documents and cannot behind suppressed ones; bad inputs are errors or counted skips.
#![allow(clippy::unwrap_used)]

use kanon_eval::job::{PrivacyJob, Truth, privacy};
use kanon_eval::privacy::{AttackedDocument, Background, evaluate_privacy};

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
    let original = evaluate_privacy(&background, &originals, &by_id).unwrap();
    let bm25 = original.attackers["bm25"];
    assert!(bm25.top1 >= 0.9, "{original:?}");
    assert!(bm25.top5 >= bm25.top1);
    let masked = evaluate_privacy(&background, &suppressed, &by_id).unwrap();
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
    let report = evaluate_privacy(&background, &docs, &|id: &str| Some(id.to_owned())).unwrap();
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
    };
    let by_field = privacy(&job(Truth::Field {
        field: "who".into(),
    }))
    .unwrap();
    assert_eq!(by_field.documents, 2);
    assert_eq!(by_field.attackers["bm25"].top1, 1.0);
    // By id, neither d1 nor d2 is a person of the background.
    let by_id = privacy(&job(Truth::Id)).unwrap();
    assert_eq!(by_id.unknown_people, ["d1", "d2"]);
    let map = dir.path().join("people.json");
    std::fs::write(&map, r#"{"d1": "a"}"#).unwrap();
    let by_map = privacy(&job(Truth::Map { path: map })).unwrap();
    assert_eq!((by_map.documents, by_map.unknown_people.len()), (1, 1));

    std::fs::write(&sanitized, "").unwrap();
    let err = privacy(&job(Truth::Id)).unwrap_err().to_string();
    assert!(err.contains("out.jsonl: no documents"), "{err}");
    std::fs::write(&background, "[]").unwrap();
    let err = privacy(&job(Truth::Id)).unwrap_err().to_string();
    assert!(err.contains("no people in the background"), "{err}");
    std::fs::write(&background, r#"[{"name": "a"}]"#).unwrap();
    let err = privacy(&job(Truth::Id)).unwrap_err().to_string();
    assert!(
        err.contains("background.json") && err.contains("public_knowledge"),
        "{err}"
    );
}
