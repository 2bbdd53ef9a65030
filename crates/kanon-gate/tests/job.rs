//! The job: certificates hold no original string; a run stopped between batches and resumed
//! writes what an uninterrupted run writes; the summary a person reads.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::path::Path;

use kanon_core::NoProgress;
use kanon_gate::job::{run, run_until};
use kanon_gate::{AttackerKind, BackgroundSource, Error, GateConfig, GateJob};
use kanon_index::IndexBuilder;
use kanon_kg::{Fact, KnowledgeGraph, Person, Property};
use kanon_sanitize::{SanitizeSettings, SanitizerConfig, SpanSource, Strategy};
use serde_json::json;

const CITIES: [&str; 3] = ["Graz", "Vienna", "Linz"];
const JOBS: [&str; 3] = ["chemist", "painter", "violinist"];

/// Twelve people, their background texts, and a document about each of the first six with
/// its name and birthplace as spans.
fn fixture(dir: &Path) -> (GateJob, Vec<(String, Vec<String>)>) {
    let mut people = Vec::new();
    let mut background = Vec::new();
    let mut docs = Vec::new();
    let mut spans = Vec::new();
    let mut originals = Vec::new();
    for i in 0..12 {
        let name = format!("Lilia{i} Albano{i}");
        let (city, job) = (CITIES[i % 3], JOBS[i % 3]);
        let mut person = Person::new(format!("Q{i}"), name.clone());
        person.facts.push(Fact::new(Property::Occupation, job));
        person.facts.push(Fact::new(Property::BirthPlace, city));
        person
            .facts
            .push(Fact::new(Property::Citizenship, "Austria"));
        if i == 0 {
            person
                .facts
                .push(Fact::new(Property::Award, "Kepler Prize"));
        }
        people.push(person);
        let hobby = ["sailing", "chess", "orchids", "falconry"][i % 4];
        background.push(json!({
            "name": format!("Q{i}"),
            "public_knowledge": format!("{name} is an Austrian {job} born in {city}, who is fond of {hobby} and tango{i}."),
        }));
        if i < 6 {
            let award = if i == 0 {
                " She won the Kepler Prize."
            } else {
                ""
            };
            let text = format!(
                "{name} is a {job} from Austria, born in {city}. {name} loves {hobby} and tango{i}.{award}"
            );
            let at = text.find(city).unwrap();
            let second = text[at..].find(&name).unwrap() + at;
            let chars = |byte: usize| text[..byte].chars().count();
            spans.push(json!({"id": format!("d{i}"), "spans": [
                {"start": 0, "end": name.chars().count(), "type": "PERSON"},
                {"start": chars(at), "end": chars(at) + city.len(), "type": "LOC"},
                {"start": chars(second), "end": chars(second) + name.chars().count(), "type": "PERSON"},
            ]}));
            docs.push(json!({"id": format!("d{i}"), "person": format!("Q{i}"), "text": text}));
            originals.push((format!("d{i}"), vec![name.clone(), city.to_owned()]));
        }
    }
    IndexBuilder::new()
        .build(&KnowledgeGraph { people }, &dir.join("index"), &NoProgress)
        .unwrap();
    let write_jsonl = |path: &Path, rows: &[serde_json::Value]| {
        let text: String = rows.iter().map(|r| format!("{r}\n")).collect();
        std::fs::write(path, text).unwrap();
    };
    write_jsonl(&dir.join("docs.jsonl"), &docs);
    write_jsonl(&dir.join("spans.jsonl"), &spans);
    std::fs::write(
        dir.join("background.json"),
        serde_json::to_string(&background).unwrap(),
    )
    .unwrap();
    let job = GateJob {
        docs: dir.join("docs.jsonl"),
        spans: SpanSource::File {
            path: dir.join("spans.jsonl"),
        },
        out: dir.join("out/gated.jsonl"),
        certificates: dir.join("out/certificates.jsonl"),
        summary: Some(dir.join("out/summary.json")),
        index: Some(dir.join("index")),
        background: Some(BackgroundSource::Texts {
            path: dir.join("background.json"),
        }),
        truth: kanon_eval::job::Truth::Field {
            field: "person".into(),
        },
        neural: None,
        gate: GateConfig::builder()
            .attackers(vec![AttackerKind::Kg, AttackerKind::Bm25])
            .k(3)
            .max_words_changed(0.6)
            .batch(2)
            .build()
            .unwrap(),
        sanitize: SanitizeSettings {
            sanitizer: SanitizerConfig::builder()
                .strategy(Strategy::NumberedLabel)
                .build()
                .unwrap(),
            ..SanitizeSettings::default()
        },
    };
    (job, originals)
}

fn outputs(job: &GateJob) -> (String, String) {
    (
        std::fs::read_to_string(&job.out).unwrap(),
        std::fs::read_to_string(&job.certificates).unwrap(),
    )
}

#[test]
fn a_resumed_run_equals_an_uninterrupted_one_and_certificates_leak_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (job, originals) = fixture(dir.path());
    let summary = run(&job, &NoProgress).unwrap();
    let (gated, certificates) = outputs(&job);
    assert_eq!(summary.documents, 6);
    assert!(summary.escalated > 0, "{summary:?}");
    assert_eq!(summary.trir["bm25"].after, 0.0, "{}", summary.render());
    assert!(summary.trir["bm25"].before > 0.5, "{}", summary.render());

    // Certificates name no original string, not even one the output still shows.
    for (id, strings) in &originals {
        for original in strings {
            assert!(
                !certificates.contains(original.as_str()),
                "{id}: {original:?} in a certificate"
            );
        }
    }
    // Nor does the partial file a stopped run leaves: stop after the first batch.
    let resumed_dir = tempfile::tempdir().unwrap();
    let (resumed_job, _) = fixture(resumed_dir.path());
    let calls = std::cell::Cell::new(0);
    let stop_second = || {
        calls.set(calls.get() + 1);
        calls.get() > 1
    };
    let err = run_until(&resumed_job, &NoProgress, &stop_second).unwrap_err();
    assert!(
        matches!(
            err,
            Error::Stopped {
                done: 2,
                documents: 6,
                ..
            }
        ),
        "{err}"
    );
    let partial =
        std::fs::read_to_string(kanon_core::io::with_suffix(&resumed_job.out, ".partial")).unwrap();
    assert_eq!(partial.lines().count(), 2);
    assert!(!resumed_job.out.exists());
    let summary = run(&resumed_job, &NoProgress).unwrap();
    assert_eq!(summary.resumed_documents, 2);
    assert_eq!(outputs(&resumed_job), (gated, certificates));
}

#[test]
fn the_summary_reads_as_a_table() {
    let dir = tempfile::tempdir().unwrap();
    let (job, _) = fixture(dir.path());
    let mut summary = run(&job, &NoProgress).unwrap();
    summary.seconds = 0.0;
    summary.documents_per_second = 0.0;
    insta::assert_snapshot!(summary.render());
    let first: serde_json::Value = serde_json::from_str(
        std::fs::read_to_string(&job.certificates)
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    insta::assert_json_snapshot!(first);
}
