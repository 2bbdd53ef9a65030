//! A `kanon` process killed outright (SIGKILL: no handler runs, no state is saved on the way out)
//! and started again with the same command ends with the bytes of a run that was never
//! interrupted (issues 36 and 37): `kanon detect` killed once part of its output is logged, and
//! `kanon run` killed in training, in sanitization and in the release gate. Tiny models, so that it runs everywhere in
//! seconds: a random BERT of the documents' words, and for INTACT a local OpenAI-compatible server
//! that answers every request the same, after a pause (so that a kill lands between documents).
#![allow(clippy::unwrap_used)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use kanon_tagger::LabelScheme;
use kanon_tagger::dataset::Windowing;

fn kanon(dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_kanon"));
    command
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// Runs `kanon`, which must succeed; its standard output.
fn ok(dir: &Path, args: &[&str]) -> String {
    let out = kanon(dir, args).output().unwrap();
    assert!(
        out.status.success(),
        "kanon {args:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Starts `kanon args`, SIGKILLs it as soon as `ready` holds, and checks that it was killed (not
/// finished) then.
fn kill_when(dir: &Path, args: &[&str], what: &str, ready: impl Fn() -> bool) {
    let mut child = kanon(dir, args).stdout(Stdio::null()).spawn().unwrap();
    let started = Instant::now();
    while !ready() {
        if let Some(status) = child.try_wait().unwrap() {
            let mut stderr = String::new();
            child
                .stderr
                .take()
                .unwrap()
                .read_to_string(&mut stderr)
                .unwrap();
            panic!("kanon {args:?} ended ({status}) before {what}:\n{stderr}");
        }
        assert!(
            started.elapsed() < Duration::from_secs(300),
            "kanon {args:?}: no {what} after 300 s"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    // `Child::kill` is SIGKILL on Unix.
    child.kill().unwrap();
    let status = child.wait().unwrap();
    assert_eq!(
        status.signal(),
        Some(9),
        "kanon {args:?} was not killed: {status}"
    );
}

/// The complete lines of a file (0 when it is absent).
fn complete_lines(path: &Path) -> usize {
    std::fs::read(path).map_or(0, |bytes| bytes.iter().filter(|&&b| b == b'\n').count())
}

/// Words of made-up biographies, and a document of `i`'s: sentences of varied length, so that
/// documents have windows of many lengths.
const WORDS: [&str; 24] = [
    "lilian", "albano", "tomas", "varga", "ingrid", "solberg", "was", "born", "in", "graz",
    "vienna", "bergen", "porto", "chemist", "painter", "judge", "cellist", "she", "he", "worked",
    "as", "a", "studied", "moved",
];

fn document(i: usize) -> String {
    let sentences = 1 + i % 5;
    let mut text = String::new();
    for s in 0..sentences {
        let length = 4 + (i * 7 + s * 3) % 23;
        let words: Vec<&str> = (0..length)
            .map(|w| WORDS[(i * 31 + s * 17 + w * 13) % WORDS.len()])
            .collect();
        text += &words.join(" ");
        text += ". ";
    }
    text
}

/// A tagger checkpoint (mask scheme, windows of 24 pieces) of a tiny random BERT of `words`.
fn tiny_tagger(dir: &Path, words: &[&str]) -> PathBuf {
    let pretrained = dir.join("bert");
    let mut vocabulary = vec![".", ","];
    vocabulary.extend_from_slice(words);
    kanon_tagger::testing::write_tiny_pretrained(&pretrained, &vocabulary, 5).unwrap();
    let windowing = Windowing {
        max_len: 24,
        overlap: 4,
    };
    let out = dir.join("tagger");
    kanon_tagger::testing::write_fresh_head_checkpoint(
        &pretrained,
        &out,
        LabelScheme::Mask,
        windowing,
        5,
    )
    .unwrap();
    out
}

#[test]
fn detect_killed_mid_run_resumes_to_the_bytes_of_an_uninterrupted_run() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    tiny_tagger(dir, &WORDS);
    let docs: String = (0..1_000)
        .map(|i| {
            serde_json::json!({"id": format!("d{i:05}"), "text": document(i)}).to_string() + "\n"
        })
        .collect();
    std::fs::write(dir.join("docs.jsonl"), docs).unwrap();
    let args = |out: &'static str| {
        [
            "detect",
            "--model",
            "tagger",
            "--docs",
            "docs.jsonl",
            "--threshold",
            "0.4",
            "--out",
            out,
        ]
    };

    ok(dir, &args("whole.jsonl"));
    let whole = std::fs::read(dir.join("whole.jsonl")).unwrap();
    assert!(String::from_utf8_lossy(&whole).contains("\"start\""));

    // The log gains a line per document (each synced to disk), so the kill lands inside a
    // batch of 64 documents: the rest of that batch is detected in a smaller one on resumption,
    // which gives the same bytes because a window's scores do not depend on its batch.
    let partial = dir.join("killed.jsonl.partial");
    kill_when(dir, &args("killed.jsonl"), "a logged document", || {
        complete_lines(&partial) > 0
    });
    let logged = complete_lines(&partial);
    assert!(!dir.join("killed.jsonl").exists());
    assert!(
        logged < 1_000,
        "{logged} documents logged: the kill came too late"
    );

    let summary = ok(dir, &args("killed.jsonl"));
    let kept: usize = summary
        .split("documents (")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count of kept documents in {summary:?}"));
    assert_eq!(kept, logged, "kept against logged documents: {summary}");
    assert!(
        std::fs::read(dir.join("killed.jsonl")).unwrap() == whole,
        "resumed spans differ"
    );
    assert!(!partial.exists());
}

/// A local OpenAI-compatible chat server that gives every request the same `n` answers after
/// `pause`: deterministic, and slow enough that a kill lands while a document is being
/// sanitized. Its address.
fn slow_llm_server(pause: Duration) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { break };
            std::thread::spawn(move || answer(stream, pause));
        }
    });
    url
}

fn answer(stream: TcpStream, pause: Duration) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut length = 0;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().unwrap();
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap();
    let request: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
    let n = request["n"].as_u64().unwrap_or(1);
    let choices: Vec<serde_json::Value> = (0..n)
        .map(|i| {
            serde_json::json!({"index": i, "finish_reason": "stop",
                "message": {"role": "assistant", "content": "1. a person\n2. a place\n3. a year"}})
        })
        .collect();
    let reply = serde_json::json!({"id": "x", "object": "chat.completion", "choices": choices,
        "usage": {"prompt_tokens": 1, "completion_tokens": 1}})
    .to_string();
    std::thread::sleep(pause);
    let mut out = stream;
    let _ = write!(
        out,
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{reply}",
        reply.len()
    );
}

/// A run directory for a tiny `kanon run`: a synthetic KG with biographies, a tiny BERT of their
/// words, and a config whose training saves its state every 5 steps and whose sanitization is
/// INTACT over `llm`, certified one document a batch (so that a kill can land between them).
fn run_fixture(dir: &Path, llm: &str) {
    ok(
        dir,
        &[
            "kg",
            "synth",
            "--people",
            "80",
            "--seed",
            "11",
            "--out",
            "kg",
            "--docs",
            "docs.jsonl",
        ],
    );
    let mut words: Vec<String> = Vec::new();
    let text = std::fs::read_to_string(dir.join("docs.jsonl")).unwrap();
    for line in text.lines() {
        let doc: serde_json::Value = serde_json::from_str(line).unwrap();
        for word in doc["text"]
            .as_str()
            .unwrap()
            .split(|c: char| !c.is_alphanumeric())
        {
            let word = word.to_lowercase();
            if !word.is_empty() && !words.contains(&word) && words.len() < 400 {
                words.push(word);
            }
        }
    }
    let mut vocabulary = vec![".", ","];
    vocabulary.extend(words.iter().map(String::as_str));
    kanon_tagger::testing::write_tiny_pretrained(&dir.join("bert"), &vocabulary, 3).unwrap();
    std::fs::write(
        dir.join("run.toml"),
        format!(
            r#"
[kg]
from = "dir"
path = "kg"

[index]

[label]
docs = "docs.jsonl"
config = {{ k = 3, seed = 1 }}

[train]
pretrained = "bert"
config = {{ epochs = 1, max_steps = 120, checkpoint_every = 5, max_len = 48, overlap = 8, token_budget = 256, seed = 5 }}

[detect]
corpus_split = "test"
limit = 4
config = {{ threshold = 0.2 }}

[sanitize]
config = {{ strategy = {{ type = "intact" }}, candidates = 2, attacker_guesses = 2 }}
llm = {{ backend = "http", url = "{llm}", model = "slow", retries = 0 }}
attacker_llm = {{ backend = "http", url = "{llm}", model = "slow", retries = 0 }}
cache = "off"

[certify]
sanitizations = ["intact"]
background_from_kg = true
config = {{ attackers = ["kg", "bm25"], k = 3, batch = 1, max_words_changed = 0.9 }}

[eval]
background_from_kg = true
"#
        ),
    )
    .unwrap();
}

/// The files a user keeps from a run: spans, sanitized and certified texts, certificates, the
/// evaluation's table.
fn kept_outputs(run: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files = vec!["detect/spans.jsonl".to_owned(), "eval/report.md".to_owned()];
    files.extend(jsonl_files(run, "sanitize"));
    files.extend(jsonl_files(run, "certify"));
    files
        .into_iter()
        .map(|file| {
            let bytes = std::fs::read(run.join(&file))
                .unwrap_or_else(|e| panic!("{}: {e}", run.join(&file).display()));
            (file, bytes)
        })
        .collect()
}

/// The finished JSONL outputs of a stage of the run, `stage/NAME.jsonl`, in name order; there
/// must be some.
fn jsonl_files(run: &Path, stage: &str) -> Vec<String> {
    let mut files: Vec<String> = std::fs::read_dir(run.join(stage))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".jsonl"))
        .map(|name| format!("{stage}/{name}"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no {stage} output in {}", run.display());
    files
}

/// Whether a stage writing to `stage_dir` has logged a finished document in its partial output
/// (`NAME.jsonl.partial`).
fn logged_a_document(stage_dir: &Path) -> bool {
    std::fs::read_dir(stage_dir).is_ok_and(|entries| {
        entries.flatten().any(|e| {
            e.file_name().to_string_lossy().ends_with(".jsonl.partial")
                && complete_lines(&e.path()) > 0
        })
    })
}

/// Whether a file named `name` is somewhere under `dir`.
fn holds_file(dir: &Path, name: &str) -> bool {
    std::fs::read_dir(dir).is_ok_and(|entries| {
        entries.flatten().any(|entry| {
            let path = entry.path();
            path.file_name().is_some_and(|n| n == name)
                || (path.is_dir() && holds_file(&path, name))
        })
    })
}

/// The action `kanon run`'s plan gives `stage` (from its JSON events), the run then finishing.
fn resumed_plan_action(dir: &Path, out: &str, stage: &str) -> String {
    let stdout = ok(
        dir,
        &[
            "run",
            "--config",
            "run.toml",
            "--out",
            out,
            "--log-format",
            "json",
        ],
    );
    let plan: serde_json::Value = serde_json::from_str(stdout.lines().next().unwrap()).unwrap();
    plan["stages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["stage"] == stage)
        .map(|s| s["action"].as_str().unwrap().to_owned())
        .unwrap()
}

#[test]
fn run_killed_in_training_sanitization_or_the_gate_resumes_to_the_bytes_of_an_uninterrupted_run() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let llm = slow_llm_server(Duration::from_millis(25));
    run_fixture(dir, &llm);
    let run = |out: &'static str| ["run", "--config", "run.toml", "--out", out, "--quiet"];

    ok(dir, &run("whole"));
    let whole = kept_outputs(&dir.join("whole"));
    let spans = String::from_utf8_lossy(&whole[0].1).into_owned();
    assert!(spans.contains("\"start\""), "nothing detected: {spans}");

    // Killed once training has saved its state (every 5 of 120 steps), before it ends.
    let train = dir.join("in-training/train");
    kill_when(dir, &run("in-training"), "a saved training state", || {
        holds_file(&train, "state.json")
    });
    assert_eq!(resumed_plan_action(dir, "in-training", "train"), "resume");
    assert!(
        kept_outputs(&dir.join("in-training")) == whole,
        "resumed training: outputs differ"
    );

    // Killed once sanitization has finished a document, before the last.
    let sanitize = dir.join("in-sanitization/sanitize");
    kill_when(dir, &run("in-sanitization"), "a sanitized document", || {
        logged_a_document(&sanitize)
    });
    assert_eq!(
        resumed_plan_action(dir, "in-sanitization", "sanitize"),
        "resume"
    );
    assert!(
        kept_outputs(&dir.join("in-sanitization")) == whole,
        "resumed sanitization: outputs differ"
    );

    // Killed once the gate has certified a document, before the last.
    let certify = dir.join("in-certify/certify");
    kill_when(dir, &run("in-certify"), "a certified document", || {
        logged_a_document(&certify)
    });
    assert_eq!(resumed_plan_action(dir, "in-certify", "certify"), "resume");
    assert!(
        kept_outputs(&dir.join("in-certify")) == whole,
        "resumed certification: outputs differ"
    );
}
