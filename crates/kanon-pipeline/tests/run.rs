//! A whole run on a tiny config (synthetic KG, a tiny random BERT, masking strategies, the KG as
//! the attacker's background): a second run skips every stage; a run stopped in the middle of
//! training resumes and ends with the outputs of an uninterrupted run; a changed parameter reruns
//! its stage and those after it, and only those.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use kanon_core::NoProgress;
use kanon_pipeline::{Action, Error, Event, Pipeline, RunConfig, RunOptions, Stage};

/// burn's device RNG is process-wide: runs that are compared must not train at the same time.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// A synthetic KG with biographies, and a tiny pretrained BERT whose vocabulary is their words.
fn fixture(dir: &Path) {
    let job = kanon_kg::SynthJob {
        config: kanon_kg::synth::SynthConfig {
            people: 80,
            seed: 11,
            doc_rate: 1.0,
        },
        out: dir.join("kg"),
        docs: Some(dir.join("docs.jsonl")),
    };
    kanon_kg::job::synth(&job).unwrap();
    let text = std::fs::read_to_string(dir.join("docs.jsonl")).unwrap();
    let mut words: Vec<String> = Vec::new();
    for doc in kanon_core::io::read_documents(&dir.join("docs.jsonl"))
        .unwrap()
        .docs
    {
        for word in doc.text.split(|c: char| !c.is_alphanumeric()) {
            let word = word.to_lowercase();
            if !word.is_empty() && !words.contains(&word) && words.len() < 400 {
                words.push(word);
            }
        }
    }
    assert!(!text.is_empty());
    let mut vocabulary: Vec<&str> = vec![".", ","];
    vocabulary.extend(words.iter().map(String::as_str));
    kanon_tagger::testing::write_tiny_pretrained(&dir.join("bert"), &vocabulary, 3).unwrap();
    std::fs::write(
        dir.join("run.toml"),
        r#"
[kg]
from = "dir"
path = "kg"

[index]

[label]
docs = "docs.jsonl"
config = { k = 3, seed = 1 }

[train]
pretrained = "bert"
config = { epochs = 1, max_steps = 6, checkpoint_every = 2, max_len = 48, overlap = 8, token_budget = 256, seed = 5 }

[detect]
corpus_split = "test"
limit = 6
config = { threshold = 0.2 }

[sanitize]
config = { strategy = { type = "numbered-label" } }
baselines = ["suppress"]

[eval]
background_from_kg = true
"#,
    )
    .unwrap();
}

fn pipeline(dir: &Path, run: &str, overrides: &[String]) -> Pipeline {
    let config = RunConfig::load_with(&dir.join("run.toml"), overrides).unwrap();
    Pipeline::new(config, dir.join(run)).unwrap()
}

fn actions(pipeline: &Pipeline) -> Vec<Action> {
    pipeline
        .plan(&RunOptions::default())
        .unwrap()
        .iter()
        .map(|s| s.action)
        // The fixture has no gate (certify): stages it does not configure are not counted.
        .filter(|a| *a != Action::NotConfigured)
        .collect()
}

/// The files a user keeps: spans, sanitized outputs and the evaluation's table.
fn outputs(run: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    [
        "detect/spans.jsonl",
        "sanitize/numbered-label.jsonl",
        "sanitize/suppress.jsonl",
        "eval/report.md",
    ]
    .iter()
    .map(|file| (PathBuf::from(file), std::fs::read(run.join(file)).unwrap()))
    .collect()
}

#[test]
fn a_run_skips_what_is_done_resumes_what_was_stopped_and_reruns_what_changed() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let dir = tempfile::tempdir().unwrap();
    fixture(dir.path());

    let whole = pipeline(dir.path(), "whole", &[]);
    assert_eq!(actions(&whole), vec![Action::Run; 7]);
    let report = whole
        .run(&RunOptions::default(), &NoProgress, &mut |_| {})
        .unwrap();
    assert!(
        report
            .stages
            .iter()
            .all(|row| row.action == Action::Run || row.stage == kanon_pipeline::Stage::Certify)
    );
    let markdown = std::fs::read_to_string(whole.paths().report_markdown()).unwrap();
    for needle in ["| train | run |", "numbered-label", "suppress", "TRIR"] {
        assert!(markdown.contains(needle), "{needle}: {markdown}");
    }
    let first = outputs(whole.paths().dir());
    // Something was detected and replaced, so that the comparisons below compare something.
    let spans = String::from_utf8(first[0].1.clone()).unwrap();
    assert!(spans.contains("\"start\""), "{spans}");
    let sanitized = String::from_utf8(first[1].1.clone()).unwrap();
    assert!(sanitized.contains("\"replacement\""), "{sanitized}");

    // Everything is done: nothing runs, nothing changes.
    assert_eq!(actions(&whole), vec![Action::Skip; 7]);
    whole
        .run(&RunOptions::default(), &NoProgress, &mut |_| {})
        .unwrap();
    assert_eq!(outputs(whole.paths().dir()), first);

    // Stopped after three training steps, then run again: training resumes, and the end is the
    // uninterrupted run's.
    let stopped = pipeline(dir.path(), "stopped", &[]);
    let steps = AtomicUsize::new(0);
    let stop_at_third = || steps.fetch_add(1, Ordering::SeqCst) >= 2;
    let options = RunOptions {
        should_stop: Some(&stop_at_third),
        ..RunOptions::default()
    };
    let err = stopped.run(&options, &NoProgress, &mut |_| {}).unwrap_err();
    assert!(
        matches!(
            err,
            Error::Interrupted {
                stage: Stage::Train
            }
        ),
        "{err}"
    );
    assert_eq!(
        actions(&stopped),
        [
            vec![Action::Skip; 3],
            vec![Action::Resume],
            vec![Action::Run; 3]
        ]
        .concat()
    );
    let mut started = Vec::new();
    stopped
        .run(&RunOptions::default(), &NoProgress, &mut |event| {
            if let Event::Started { stage, action } = event {
                started.push((*stage, *action));
            }
        })
        .unwrap();
    assert_eq!(started[0], (Stage::Train, Action::Resume));
    assert_eq!(outputs(stopped.paths().dir()), first);

    // Stopped after two sanitized documents, then run again: sanitization resumes after them.
    let halted = pipeline(dir.path(), "halted", &[]);
    let in_sanitize = AtomicBool::new(false);
    let documents = AtomicUsize::new(0);
    let stop_at_third_document =
        || in_sanitize.load(Ordering::SeqCst) && documents.fetch_add(1, Ordering::SeqCst) >= 2;
    let options = RunOptions {
        should_stop: Some(&stop_at_third_document),
        ..RunOptions::default()
    };
    let err = halted
        .run(&options, &NoProgress, &mut |event| {
            if let Event::Started {
                stage: Stage::Sanitize,
                ..
            } = event
            {
                in_sanitize.store(true, Ordering::SeqCst);
            }
        })
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::Interrupted {
                stage: Stage::Sanitize
            }
        ),
        "{err}"
    );
    let partial = halted
        .paths()
        .stage_dir(Stage::Sanitize)
        .join("numbered-label.jsonl.partial");
    assert_eq!(
        std::fs::read_to_string(&partial).unwrap().lines().count(),
        2
    );
    assert_eq!(
        actions(&halted),
        [vec![Action::Skip; 5], vec![Action::Resume, Action::Run]].concat()
    );
    halted
        .run(&RunOptions::default(), &NoProgress, &mut |_| {})
        .unwrap();
    assert_eq!(outputs(halted.paths().dir()), first);

    // A detection parameter changed: detect and what follows rerun, the rest is skipped.
    let changed = pipeline(
        dir.path(),
        "whole",
        &["detect.config.threshold=0.4".to_owned()],
    );
    assert_eq!(
        actions(&changed),
        [vec![Action::Skip; 4], vec![Action::Rerun; 3]].concat()
    );
    // --until stops early; --from refuses to start after a stage that has not finished.
    let until = RunOptions {
        until: Some(Stage::Detect),
        ..RunOptions::default()
    };
    let plan = changed.plan(&until).unwrap();
    assert_eq!(plan[5].action, Action::OutOfRange);
    let fresh = pipeline(dir.path(), "fresh", &[]);
    let from = RunOptions {
        from: Some(Stage::Sanitize),
        ..RunOptions::default()
    };
    let err = fresh.plan(&from).unwrap_err().to_string();
    assert!(err.contains("stage kg has not finished"), "{err}");
}

#[test]
fn a_stage_without_its_input_is_a_config_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.toml");
    std::fs::write(&path, "[detect]\ndocs = \"docs.jsonl\"\n").unwrap();
    let config = RunConfig::load_with(&path, &[]).unwrap();
    let err = Pipeline::new(config, dir.path().join("run"))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("stage detect needs a [train] section or `detect.method.model`"),
        "{err}"
    );
    std::fs::write(&path, "[sanitize]\ndocs = \"d.jsonl\"\n").unwrap();
    let config = RunConfig::load_with(&path, &[]).unwrap();
    let err = Pipeline::new(config, dir.path().join("run"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("exactly one of"), "{err}");
}

#[test]
fn a_sharded_stage_must_end_the_run() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("docs.jsonl"),
        "{\"id\":\"a\",\"text\":\"x\"}\n",
    )
    .unwrap();
    std::fs::create_dir_all(dir.path().join("model")).unwrap();
    let path = dir.path().join("run.toml");
    std::fs::write(
        &path,
        "[detect]\ndocs = \"docs.jsonl\"\nmethod = { model = \"model\" }\n\n[sanitize]\nconfig = { strategy = { type = \"label\" } }\n",
    )
    .unwrap();
    let sharded = ["detect.shard=1/4".to_string()];
    let config = RunConfig::load_with(&path, &sharded).unwrap();
    assert_eq!(
        config.detect.as_ref().unwrap().shard.unwrap().to_string(),
        "1/4"
    );
    let pipeline = Pipeline::new(config, dir.path().join("run")).unwrap();
    let err = pipeline
        .plan(&RunOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("detect.shard = \"1/4\"") && err.contains("--until detect"),
        "{err}"
    );
    let until = RunOptions {
        until: Some(Stage::Detect),
        ..RunOptions::default()
    };
    assert!(pipeline.plan(&until).is_ok());
    let bad = ["detect.shard=4/4".to_string()];
    let err = RunConfig::load_with(&path, &bad).unwrap_err().to_string();
    assert!(err.contains("below the number of parts"), "{err}");
}

#[test]
fn a_detector_without_a_kg_runs_in_the_detect_stage() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("docs.jsonl"),
        "{\"id\":\"a\",\"person\":\"vigdis\",\"text\":\"Vigdis sang in Bergen.\"}\n{\"id\":\"b\",\"person\":\"ola\",\"text\":\"Ola sang in Oslo.\"}\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("background.json"),
        r#"[{"name": "vigdis", "public_knowledge": "Vigdis is a singer from Bergen."}, {"name": "ola", "public_knowledge": "Ola is a painter."}]"#,
    )
    .unwrap();
    let path = dir.path().join("run.toml");
    std::fs::write(
        &path,
        "[detect]\ndocs = \"docs.jsonl\"\nbackground = \"background.json\"\nmethod = { name = \"ner-lexical\" }\n\n[sanitize]\nconfig = { strategy = { type = \"placeholder\" } }\n",
    )
    .unwrap();
    let run = |overrides: &[String]| {
        let config = RunConfig::load_with(&path, overrides).unwrap();
        let pipeline = Pipeline::new(config, dir.path().join("run")).unwrap();
        let actions: Vec<Action> = actions(&pipeline)
            .into_iter()
            .filter(|a| *a != Action::NotConfigured)
            .collect();
        pipeline
            .run(&RunOptions::default(), &NoProgress, &mut |_| {})
            .unwrap();
        actions
    };
    assert_eq!(run(&[]), [Action::Run, Action::Run]);
    let sanitized = std::fs::read_to_string(dir.path().join("run/sanitize/placeholder.jsonl"))
        .or_else(|_| std::fs::read_to_string(dir.path().join("run/sanitize/sanitized.jsonl")))
        .unwrap();
    assert!(sanitized.contains("*** sang in ***."), "{sanitized}");
    assert!(sanitized.contains("*** sang in Oslo."), "{sanitized}");
    assert_eq!(run(&[]), [Action::Skip, Action::Skip]);
    // Another method reruns detection and what follows.
    let idf = ["detect.method = { name = \"idf\", budget = 0.5 }".to_string()];
    assert_eq!(run(&idf), [Action::Rerun, Action::Rerun]);
}
