//! The tagger's spans file is a function of the documents alone (issue 37): with real MiniLM
//! weights (a fresh head), the same documents detected at token budgets of 512, 4096 and 16384
//! pieces, on 1 and 2 threads, in two orders and as 3 merged shards give the same bytes. Runs
//! when the weights are cached (`kanon models fetch all-minilm-l6-v2`).
#![allow(clippy::unwrap_used)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use burn::tensor::Device;
use kanon_core::NoProgress;
use kanon_core::shard::{Shard, ShardSet, merge_jsonl};
use kanon_detect::job::{Method, MethodJob, run};
use kanon_tagger::dataset::Windowing;
use kanon_tagger::{DetectConfig, LabelScheme};

/// Documents JSONL lines of many window lengths: bundled biographies, some joined into
/// documents of several windows, and a short one.
fn documents() -> Vec<String> {
    let texts = kanon_tagger::testing::sample_texts(27).unwrap();
    let mut docs: Vec<String> = texts[..15].to_vec();
    docs.extend(texts[15..].chunks(3).map(|group| group.join(" ")));
    docs.push("Lilian Albano was born in Graz.".into());
    docs.iter()
        .enumerate()
        .map(|(i, text)| serde_json::json!({"id": format!("doc-{i:02}"), "text": text}).to_string())
        .collect()
}

/// Detects `docs` with the tagger at `budget` on `threads` threads (one part when `shard`) into
/// `out`.
fn detect(
    model: &Path,
    docs: &Path,
    out: &Path,
    budget: usize,
    threads: usize,
    shard: Option<Shard>,
) {
    let job = MethodJob {
        docs: docs.to_owned(),
        out: out.to_owned(),
        background: None,
        method: Method::Tagger {
            model: Some(model.to_owned()),
            config: DetectConfig {
                token_budget: budget,
                ..DetectConfig::default()
            },
        },
        trace: None,
        format: Default::default(),
        shard,
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| run(&job, &Device::flex(), &NoProgress))
        .unwrap();
}

#[test]
fn the_spans_file_does_not_depend_on_budget_threads_order_or_shards() {
    let Some(pretrained) = kanon_models::cached_or_skip("all-minilm-l6-v2") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("model");
    let windowing = Windowing {
        max_len: 128,
        overlap: 32,
    };
    kanon_tagger::testing::write_fresh_head_checkpoint(
        &pretrained,
        &model,
        LabelScheme::Typed,
        windowing,
        7,
    )
    .unwrap();
    let lines = documents();
    let docs = dir.path().join("docs.jsonl");
    std::fs::write(&docs, lines.join("\n") + "\n").unwrap();
    let reversed_docs = dir.path().join("reversed.jsonl");
    let reversed: Vec<&String> = lines.iter().rev().collect();
    let reversed: Vec<&str> = reversed.iter().map(|s| s.as_str()).collect();
    std::fs::write(&reversed_docs, reversed.join("\n") + "\n").unwrap();

    let reference = dir.path().join("reference.jsonl");
    detect(&model, &docs, &reference, 4096, 2, None);
    let want = std::fs::read_to_string(&reference).unwrap();
    let scores = want.matches("\"score\"").count();
    assert!(scores > 50, "{scores} spans: too few to compare");

    for (budget, threads) in [(512, 2), (16_384, 2), (4096, 1), (512, 1)] {
        let out = dir.path().join(format!("b{budget}-t{threads}.jsonl"));
        detect(&model, &docs, &out, budget, threads, None);
        let got = std::fs::read_to_string(&out).unwrap();
        assert!(
            got == want,
            "budget {budget}, {threads} thread(s): {}",
            first_difference(&got, &want)
        );
    }

    // The documents in reverse order: each document's line the same bytes.
    let out = dir.path().join("reversed-spans.jsonl");
    detect(&model, &reversed_docs, &out, 4096, 2, None);
    let by_id = |text: &str| -> HashMap<String, String> {
        text.lines()
            .map(|line| {
                let record: serde_json::Value = serde_json::from_str(line).unwrap();
                (record["id"].as_str().unwrap().to_owned(), line.to_owned())
            })
            .collect()
    };
    let (got, expected) = (by_id(&std::fs::read_to_string(&out).unwrap()), by_id(&want));
    assert_eq!(got.len(), expected.len());
    for (id, line) in &expected {
        assert!(
            got[id] == *line,
            "{id} in reverse order: {}",
            first_difference(&got[id], line)
        );
    }

    // Three parts, each detected alone, merged.
    let parts: Vec<PathBuf> = (0..3)
        .map(|i| {
            let part = dir.path().join(format!("part{i}.jsonl"));
            detect(&model, &docs, &part, 4096, 2, Shard::new(i, 3));
            part
        })
        .collect();
    let merged = dir.path().join("merged.jsonl");
    merge_jsonl(&ShardSet::open(&parts).unwrap(), &merged).unwrap();
    let got = std::fs::read_to_string(&merged).unwrap();
    assert!(
        got == want,
        "3 merged shards: {}",
        first_difference(&got, &want)
    );
}

/// The first line that differs, both ways (the files are too long to print).
fn first_difference(got: &str, want: &str) -> String {
    match got.lines().zip(want.lines()).position(|(a, b)| a != b) {
        Some(i) => format!(
            "line {} differs:\n  got  {}\n  want {}",
            i + 1,
            got.lines().nth(i).unwrap_or(""),
            want.lines().nth(i).unwrap_or("")
        ),
        None => format!(
            "{} lines against {}",
            got.lines().count(),
            want.lines().count()
        ),
    }
}
