//! `kanon label` and `kanon label explain`: the corpus, the skipped documents, resuming from shards.

use std::path::Path;

use crate::common::{kanon, ok, p, small_index};

#[test]
fn label_writes_a_corpus_and_explains_it() {
    let (dir, _, docs, index) = small_index(400, 2);
    let corpus = dir.path().join("corpus");
    let out = ok(&[
        "label",
        "--index",
        p(&index),
        "--docs",
        p(&docs),
        "--out",
        p(&corpus),
        "--format",
        "conll",
    ]);
    assert!(out.contains("labeled 400 of 400 documents"), "{out}");
    for file in [
        "train.jsonl",
        "dev.jsonl",
        "test.jsonl",
        "train.conll",
        "report.jsonl",
        "skipped.jsonl",
        "manifest.json",
    ] {
        assert!(corpus.join(file).exists(), "{file}");
    }
    assert!(
        !corpus.join(".shards").exists(),
        "shards are gathered and removed"
    );
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(corpus.join("manifest.json")).unwrap())
            .unwrap();
    assert_eq!(manifest["config"]["k"], 5);
    assert_eq!(manifest["stats"]["labeled"], 400);
    let first_id = std::fs::read_to_string(&docs)
        .unwrap()
        .lines()
        .next()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["id"]
                .as_str()
                .unwrap()
                .to_owned()
        });
    let explained = ok(&[
        "label",
        "explain",
        "--corpus",
        p(&corpus),
        &first_id.unwrap(),
    ]);
    assert!(explained.contains("k = 5"), "{explained}");
    let missing = kanon(&["label", "explain", "--corpus", p(&corpus), "no-such-doc"]);
    assert_eq!(missing.status.code(), Some(2));
}

#[test]
fn label_reports_documents_whose_person_is_unknown() {
    let (dir, _, _, index) = small_index(50, 4);
    let docs = dir.path().join("odd.jsonl");
    std::fs::write(
        &docs,
        "{\"id\":\"a\",\"person\":\"S0000001\",\"text\":\"Nothing to see.\"}\n\
         {\"id\":\"b\",\"person\":\"nobody\",\"text\":\"Who?\"}\n\
         {\"id\":\"c\",\"text\":\"No person field.\"}\n",
    )
    .unwrap();
    let corpus = dir.path().join("corpus");
    let out = ok(&[
        "label",
        "--index",
        p(&index),
        "--docs",
        p(&docs),
        "--out",
        p(&corpus),
    ]);
    assert!(out.contains("labeled 1 of 3 documents"), "{out}");
    let skipped = std::fs::read_to_string(corpus.join("skipped.jsonl")).unwrap();
    assert!(
        skipped.contains("\"b\"") && skipped.contains("not in the index"),
        "{skipped}"
    );
    assert!(
        skipped.contains("\"c\"") && skipped.contains("no `person` field"),
        "{skipped}"
    );

    let bad = dir.path().join("bad.jsonl");
    std::fs::write(&bad, "{\"id\":\"a\",\"text\":\"x\"}\n{\"id\": 3}\n").unwrap();
    let out = kanon(&[
        "label",
        "--index",
        p(&index),
        "--docs",
        p(&bad),
        "--out",
        p(&dir.path().join("c2")),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad.jsonl:2:"));
}

#[test]
fn an_interrupted_label_run_resumes_from_its_finished_shards() {
    let (dir, _, docs, index) = small_index(120, 9);
    let corpus = dir.path().join("corpus");
    let args = [
        "label",
        "--index",
        p(&index),
        "--docs",
        p(&docs),
        "--out",
        p(&corpus),
        "--shard-size",
        "50",
    ];
    ok(&args);
    let complete = std::fs::read_to_string(corpus.join("report.jsonl")).unwrap();

    // Simulate a run killed after its first shard: re-create the shard directory as that run left it,
    // with a marker in the finished shard, and check the rerun keeps it instead of redoing it.
    std::fs::remove_dir_all(&corpus).unwrap();
    let first_shard_docs: Vec<&str> = std::fs::read_to_string(&docs)
        .unwrap()
        .leak()
        .lines()
        .take(50)
        .collect();
    let params = run_params_of(&index, &docs, 50);
    let shards = corpus.join(".shards");
    std::fs::create_dir_all(&shards).unwrap();
    std::fs::write(shards.join("params.json"), params).unwrap();
    let marker_doc = serde_json::from_str::<serde_json::Value>(first_shard_docs[0]).unwrap();
    let marker = serde_json::json!({
        "document": null,
        "report": null,
        "skipped": {"id": marker_doc["id"], "line": 1, "reason": "MARKER from the earlier run"}
    });
    std::fs::write(shards.join("shard-000000.jsonl"), format!("{marker}\n")).unwrap();
    ok(&args);
    let skipped = std::fs::read_to_string(corpus.join("skipped.jsonl")).unwrap();
    assert!(
        skipped.contains("MARKER from the earlier run"),
        "the finished shard was reused"
    );
    let resumed = std::fs::read_to_string(corpus.join("report.jsonl")).unwrap();
    // The marker shard stands for the first 50 documents; the other 70 were labeled afresh.
    assert_eq!(
        resumed.lines().count(),
        complete.lines().count() - 50,
        "the other shards were labeled"
    );
    assert!(
        complete.lines().skip(50).eq(resumed.lines()),
        "and labeled as before"
    );
}

/// The parameters a label run records beside its shards, as `kanon label` writes them.
fn run_params_of(index: &Path, docs: &Path, shard_size: usize) -> String {
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(index.join("meta.json")).unwrap()).unwrap();
    serde_json::json!({
        "index": index.display().to_string(),
        "index_terms": meta["terms"],
        "index_people": meta["people"],
        "docs": docs.display().to_string(),
        "docs_bytes": std::fs::metadata(docs).unwrap().len(),
        "config": {"k": 5, "max_arity": 3, "strategy": "greedy", "seed": 0},
        "shard_size": shard_size,
    })
    .to_string()
}
