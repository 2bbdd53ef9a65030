//! The detectors over small made-up populations, through their job: `reid-greedy` with a tiny
//! random BERT trained on the background, `idf` and `ner-lexical`; resumption, and the errors a
//! user meets.
#![allow(clippy::unwrap_used)]

use std::path::Path;

use kanon_core::NoProgress;
use kanon_core::spans::read_spans;
use kanon_detect::greedy::{GreedySettings, Stop};
use kanon_detect::job::{Method, MethodJob, TraceRecord, run};
use kanon_detect::reid::ReidModelJob;
use kanon_tagger::classifier::ClassifierConfig;
use kanon_tagger::device::cpu;

const FIRST: [&str; 6] = ["Lilian", "Tomas", "Ingrid", "Mateo", "Aiko", "Bram"];
const LAST: [&str; 5] = ["Albano", "Varga", "Solberg", "Okafor", "Lindqvist"];
const CITIES: [&str; 6] = ["Vienna", "Debrecen", "Bergen", "Lagos", "Uppsala", "Porto"];
const JOBS: [&str; 5] = ["chemist", "footballer", "painter", "judge", "cellist"];

/// Person `i`: a background text and a document, a name, a city, a job and a year in each.
fn person(i: usize) -> (String, String) {
    let (first, last) = (FIRST[i % 6], LAST[i % 5]);
    let (city, job, year) = (CITIES[(i / 2) % 6], JOBS[(i / 3) % 5], 1950 + i);
    let background = format!(
        "{first} {last} (born {year} in {city}) is a {job}. {last} trained in {city} and worked as a {job} for many years."
    );
    let document = format!("{first} {last}, the {job} from {city}, was born in {year}.");
    (background, document)
}

/// Writes `background.json` and `docs.jsonl` for `n` people.
fn population(dir: &Path, n: usize) {
    let mut background = Vec::new();
    let mut docs = String::new();
    for i in 0..n {
        let (text, doc) = person(i);
        background
            .push(serde_json::json!({"name": format!("person-{i}"), "public_knowledge": text}));
        docs += &serde_json::json!({"id": format!("doc-{i}"), "person": format!("person-{i}"), "text": doc})
            .to_string();
        docs += "\n";
    }
    std::fs::write(
        dir.join("background.json"),
        serde_json::to_string(&background).unwrap(),
    )
    .unwrap();
    std::fs::write(dir.join("docs.jsonl"), docs).unwrap();
}

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
        "from", "was", "(", ")", ".", ",",
    ] {
        words.push(extra.to_owned());
    }
    words.extend((1950..1962).map(|y| y.to_string()));
    words
}

fn job(dir: &Path, method: Method) -> MethodJob {
    MethodJob {
        docs: dir.join("docs.jsonl"),
        out: dir.join("spans.jsonl"),
        background: Some(dir.join("background.json")),
        method,
        trace: None,
        format: Default::default(),
        shard: None,
    }
}

#[test]
fn reid_greedy_masks_until_the_model_no_longer_names_the_person() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    population(dir, 8);
    let words = vocabulary();
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    kanon_tagger::testing::write_tiny_pretrained(&dir.join("bert"), &words, 3).unwrap();
    let method = Method::ReidGreedy {
        model: ReidModelJob {
            checkpoint: dir.join("guide"),
            pretrained: dir.join("bert").display().to_string(),
            config: ClassifierConfig {
                learning_rate: 2e-2,
                epochs: 30,
                batch_size: 4,
                warmup_ratio: 0.0,
                max_len: 16,
                word_masks: true,
                checkpoint_every: 0,
                ..ClassifierConfig::default()
            },
            precision: Default::default(),
        },
        search: GreedySettings {
            top_k: 1,
            max_share: 0.8,
            shortlist: 0,
        },
    };
    let mut job = job(dir, method);
    job.trace = Some(dir.join("trace.jsonl"));
    let summary = run(&job, &cpu(), &NoProgress).unwrap();
    assert_eq!(summary.documents, 8);
    assert!(summary.masked_words > 0);
    let traces: Vec<TraceRecord> = std::fs::read_to_string(dir.join("trace.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(traces.len(), 8);
    // The trained model names most people from their documents; each search ends with the
    // person out of its first guess, or at the share limit, never masking a function word.
    let named = traces.iter().filter(|t| t.initial_rank == 1).count();
    assert!(named >= 6, "{named} of 8 named before masking");
    for trace in &traces {
        match trace.stop {
            Stop::OutOfTopK => assert!(trace.steps.last().is_none_or(|s| s.rank > 1)),
            Stop::MaxShare | Stop::NoCandidate => {}
        }
        assert!(trace.initial_rank > 1 || !trace.steps.is_empty());
    }
    // The summary counts the searches that stopped short, by why, as the traces say.
    let mut short = std::collections::BTreeMap::new();
    for trace in traces.iter().filter(|t| t.stop != Stop::OutOfTopK) {
        *short.entry(trace.stop).or_insert(0) += 1;
    }
    assert_eq!(summary.stopped_short, short);
    let spans = read_spans(&dir.join("spans.jsonl")).unwrap();
    let docs = std::fs::read_to_string(dir.join("docs.jsonl")).unwrap();
    for line in docs.lines() {
        let doc: kanon_core::Document = serde_json::from_str(line).unwrap();
        for span in spans.get(&doc.id).into_iter().flatten() {
            let masked: String = doc
                .text
                .chars()
                .skip(span.start)
                .take(span.end - span.start)
                .collect();
            for word in ["the", "from", "was", "in"] {
                assert!(!masked.split(' ').any(|w| w == word), "{masked:?}");
            }
        }
    }

    // Deterministic: the model is reused and the search gives the same spans.
    let first = std::fs::read_to_string(dir.join("spans.jsonl")).unwrap();
    run(&job, &cpu(), &NoProgress).unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.join("spans.jsonl")).unwrap(),
        first
    );

    // No word may be masked and every person is among the top 8 (there are 8): every search
    // stops at once, short of its goal, and the summary says so, by why.
    let mut capped = job.clone();
    capped.out = dir.join("capped.jsonl");
    capped.trace = None;
    if let Method::ReidGreedy { search, .. } = &mut capped.method {
        search.max_share = 0.0;
        search.top_k = 8;
    }
    let summary = run(&capped, &cpu(), &NoProgress).unwrap();
    assert_eq!(
        summary.stopped_short,
        [(Stop::MaxShare, 8)].into_iter().collect()
    );
    assert_eq!(summary.masked_words, 0);
    let headline = summary.headline();
    assert!(
        headline.contains(", 8 stopped short (max-share 8)"),
        "{headline}"
    );
    assert_eq!(
        serde_json::to_value(&summary).unwrap()["stopped_short"],
        serde_json::json!({"max-share": 8})
    );

    // A document whose person the background lacks is named before any work.
    let mut bad = job.clone();
    bad.docs = dir.join("bad.jsonl");
    std::fs::write(
        &bad.docs,
        "{\"id\":\"d1\",\"person\":\"person-1\",\"text\":\"Tomas Varga\"}\n{\"id\":\"d2\",\"person\":\"nobody\",\"text\":\"a judge\"}\n",
    )
    .unwrap();
    let err = run(&bad, &cpu(), &NoProgress).unwrap_err().to_string();
    assert!(
        err.contains("\"d2\"") && err.contains("\"nobody\" is not in the background"),
        "{err}"
    );
    std::fs::write(&bad.docs, "{\"id\":\"d3\",\"text\":\"a judge\"}\n").unwrap();
    let err = run(&bad, &cpu(), &NoProgress).unwrap_err().to_string();
    assert!(
        err.contains("\"d3\"") && err.contains("no `person`"),
        "{err}"
    );
    bad.background = None;
    let err = run(&bad, &cpu(), &NoProgress).unwrap_err().to_string();
    assert!(err.contains("--background"), "{err}");
}

#[test]
fn idf_and_lexical_overlap_run_over_a_file_and_resume() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    population(dir, 6);
    let idf = job(dir, Method::Idf { budget: 0.25 });
    let summary = run(&idf, &cpu(), &NoProgress).unwrap();
    assert_eq!(summary.documents, 6);
    assert_eq!(summary.resumed, 0);
    // 10 words a document, 3 masked each (a quarter, rounded).
    assert_eq!((summary.words, summary.masked_words), (60, 18));
    let full = std::fs::read_to_string(dir.join("spans.jsonl")).unwrap();

    // An interrupted run's finished documents are kept, and the output is the same.
    let mut first: serde_json::Value = serde_json::from_str(full.lines().next().unwrap()).unwrap();
    for span in first["spans"].as_array_mut().unwrap() {
        span.as_object_mut().unwrap().remove("label");
    }
    std::fs::write(
        dir.join("spans.jsonl.partial"),
        format!("{first}\n{{\"id\":\"doc-1\","),
    )
    .unwrap();
    let summary = run(&idf, &cpu(), &NoProgress).unwrap();
    assert_eq!(summary.resumed, 1);
    assert_eq!(
        std::fs::read_to_string(dir.join("spans.jsonl")).unwrap(),
        full
    );
    assert!(!dir.join("spans.jsonl.partial").exists());

    let lexical = job(dir, Method::NerLexical);
    run(&lexical, &cpu(), &NoProgress).unwrap();
    let spans = read_spans(&dir.join("spans.jsonl")).unwrap();
    // "Lilian Albano, the chemist from Vienna, was born in 1950.": all but the function words
    // and "was" are in the background text.
    let texts: Vec<(usize, usize)> = spans["doc-0"].iter().map(|s| (s.start, s.end)).collect();
    assert_eq!(texts, [(0, 13), (19, 26), (32, 38), (44, 48), (52, 56)]);
}

#[test]
fn a_method_table_without_a_name_is_the_tagger_and_unknown_keys_are_named() {
    use kanon_core::config::{from_json, from_toml};
    let path = Path::new("job.toml");
    let head = "docs = \"d.jsonl\"\nout = \"s.jsonl\"\n[method]\n";
    let job: MethodJob =
        from_toml(path, &format!("{head}threshold = 0.3\nmodel = \"ckpt\"\n")).unwrap();
    let Method::Tagger { model, config } = &job.method else {
        panic!("{:?}", job.method);
    };
    assert_eq!(model.as_deref(), Some(Path::new("ckpt")));
    assert_eq!(config.threshold, Some(0.3));
    assert_eq!(config.token_budget, 4096);
    // Written with its name, and read back the same, in both file forms.
    let text = toml::to_string(&job).unwrap();
    assert!(text.contains("name = \"tagger\""), "{text}");
    assert_eq!(from_toml::<MethodJob>(path, &text).unwrap(), job);
    let json = serde_json::to_string(&job).unwrap();
    assert_eq!(
        from_json::<MethodJob>(Path::new("job.json"), &json).unwrap(),
        job
    );

    let idf: MethodJob = from_toml(path, &format!("{head}name = \"idf\"\nbudget = 0.5\n")).unwrap();
    assert_eq!(idf.method, Method::Idf { budget: 0.5 });

    for (table, expected) in [
        ("thresold = 0.3\n", "unknown field `thresold`"),
        (
            "name = \"idf\"\nthreshold = 0.3\n",
            "unknown field `threshold`",
        ),
        (
            "threshold = \"high\"\n",
            "invalid type: string \"high\", expected f32",
        ),
        (
            "name = \"idf\"\nbudget = \"all\"\n",
            "invalid type: string \"all\", expected f64",
        ),
        ("name = \"bert\"\n", "unknown variant `bert`"),
    ] {
        let err = from_toml::<MethodJob>(path, &format!("{head}{table}"))
            .unwrap_err()
            .to_string();
        assert!(err.contains(expected), "{table}: {err}");
    }
}
