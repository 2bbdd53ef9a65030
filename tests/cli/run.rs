//! `kanon run` end to end: a corpus job from a config whose paths are relative to it, run from
//! another directory; events as JSON lines; a second run skips every stage; a directory another
//! run holds is refused; bad configs name the file, the line and the key.

use crate::common::{kanon_in, ok_in};

const CONFIG: &str = r#"
name = "tiny"

[kg]
from = "synth"
config = { people = 40, seed = 3 }

[index]

[label]
format = "conll"
config = { k = 3 }
"#;

fn events(stdout: &str) -> Vec<serde_json::Value> {
    stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

#[test]
fn runs_the_configured_stages_then_skips_them() {
    let dir = tempfile::tempdir().unwrap();
    let configs = dir.path().join("configs");
    std::fs::create_dir_all(&configs).unwrap();
    std::fs::write(configs.join("tiny.toml"), CONFIG).unwrap();
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let config = configs.join("tiny.toml");
    let args = [
        "run",
        "--config",
        config.to_str().unwrap(),
        "--log-format",
        "json",
    ];

    let first = events(&ok_in(&args, &elsewhere));
    assert_eq!(first[0]["event"], "plan");
    let plan: Vec<(&str, &str)> = first[0]["stages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["stage"].as_str().unwrap(), s["action"].as_str().unwrap()))
        .collect();
    assert_eq!(
        plan,
        [
            ("kg", "run"),
            ("index", "run"),
            ("label", "run"),
            ("train", "not-configured"),
            ("detect", "not-configured"),
            ("sanitize", "not-configured"),
            ("certify", "not-configured"),
            ("eval", "not-configured")
        ]
    );
    let finished: Vec<&str> = first
        .iter()
        .filter(|e| e["event"] == "finished")
        .map(|e| e["stage"].as_str().unwrap())
        .collect();
    assert_eq!(finished, ["kg", "index", "label"]);
    // The default run directory is runs/<name> under the working directory.
    let run = elsewhere.join("runs/tiny");
    assert!(run.join("label/corpus/train.conll").exists());
    let report = std::fs::read_to_string(run.join("report.md")).unwrap();
    assert!(report.contains("| label | run |"), "{report}");

    let second = events(&ok_in(&args, &elsewhere));
    let actions: Vec<&str> = second[0]["stages"]
        .as_array()
        .unwrap()
        .iter()
        .take(3)
        .map(|s| s["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions, ["skip"; 3]);
    assert!(!second.iter().any(|e| e["event"] == "started"));

    // A changed labeling parameter reruns the label stage only.
    let quiet = ok_in(
        &[
            "run",
            "--config",
            config.to_str().unwrap(),
            "--set",
            "label.config.k=4",
            "--quiet",
        ],
        &elsewhere,
    );
    assert_eq!(quiet.trim(), "runs/tiny/report.md");
    let report = std::fs::read_to_string(run.join("report.md")).unwrap();
    assert!(report.contains("| index | skip (done) |"), "{report}");
    assert!(report.contains("| label | rerun |"), "{report}");
}

#[test]
fn a_run_directory_in_use_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("tiny.toml");
    std::fs::write(&config, CONFIG).unwrap();
    let run = dir.path().join("runs/tiny");
    std::fs::create_dir_all(&run).unwrap();
    // Another process's run: the lock on run.lock held, as a running `kanon run` holds it.
    let held = std::fs::File::create(run.join("run.lock")).unwrap();
    held.try_lock().unwrap();
    let args = ["run", "--config", config.to_str().unwrap()];
    let out = kanon_in(&args, dir.path());
    assert!(!out.status.success());
    let message = String::from_utf8_lossy(&out.stderr);
    assert!(
        message.contains("run directory runs/tiny is in use by another kanon run")
            && message.contains("runs/tiny/run.lock"),
        "{message}"
    );
    // Refused before anything was written.
    assert!(!run.join("kg").exists() && !run.join("config.toml").exists());
    // Once the other run is over (its lock goes with it), the directory is this run's.
    drop(held);
    ok_in(&args, dir.path());
    assert!(run.join("report.md").exists());
}

#[test]
fn a_bad_config_names_the_file_the_line_and_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("bad.toml");
    std::fs::write(
        &config,
        "[kg]\nfrom = \"synth\"\n\n[label.config]\nk = \"five\"\n",
    )
    .unwrap();
    let out = kanon_in(&["run", "--config", config.to_str().unwrap()], dir.path());
    assert_eq!(out.status.code(), Some(2));
    let message = String::from_utf8_lossy(&out.stderr);
    assert!(
        message.contains("bad.toml:5: key `label.config.k`"),
        "{message}"
    );
    std::fs::write(&config, "[index]\n").unwrap();
    let out = kanon_in(&["run", "--config", config.to_str().unwrap()], dir.path());
    let message = String::from_utf8_lossy(&out.stderr);
    assert!(
        message.contains("stage index needs a [kg] section"),
        "{message}"
    );
}

#[test]
fn the_demo_config_runs_end_to_end_with_the_real_weights() {
    let Some(_) = crate::common::cached_minilm() else {
        kanon_core::testing::skip(kanon_core::testing::Requirement::Model("all-minilm-l6-v2"));
        return;
    };
    // The README's main command, shortened: a few training steps, two documents, and masking
    // instead of INTACT so that no LLM is needed.
    let dir = tempfile::tempdir().unwrap();
    let config = crate::common::repo_root().join("configs/demo.toml");
    let out = ok_in(
        &[
            "run",
            "--config",
            config.to_str().unwrap(),
            "--out",
            dir.path().join("demo").to_str().unwrap(),
            "--set",
            "train.config.max_steps=3",
            "--set",
            "detect.limit=2",
            "--set",
            "sanitize.config.strategy.type=label",
        ],
        dir.path(),
    );
    assert!(out.contains("report: "), "{out}");
    let report = std::fs::read_to_string(dir.path().join("demo/report.md")).unwrap();
    for needle in [
        "| train | run |",
        "| eval | run |",
        "| label | – |",
        "TRIR bm25",
    ] {
        assert!(report.contains(needle), "{needle}: {report}");
    }
}
