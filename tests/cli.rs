//! End-to-end tests over the `kanon` binary with small fixtures: what a user runs and reads.
#![allow(clippy::unwrap_used, clippy::print_stderr)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn kanon(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kanon"))
        .args(args)
        .current_dir(repo_root())
        .output()
        .expect("the kanon binary runs")
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn ok(args: &[&str]) -> String {
    let out = kanon(args);
    assert!(
        out.status.success(),
        "kanon {args:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 output")
}

fn p(path: &Path) -> &str {
    path.to_str().expect("utf-8 temp path")
}

/// Synthesizes a small population and builds its index: (tempdir, kg, docs, index).
fn small_index(people: usize, seed: u64) -> (tempfile::TempDir, PathBuf, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let kg = dir.path().join("kg");
    let docs = dir.path().join("docs.jsonl");
    let index = dir.path().join("index");
    ok(&[
        "kg",
        "synth",
        "--people",
        &people.to_string(),
        "--seed",
        &seed.to_string(),
        "--out",
        p(&kg),
        "--docs",
        p(&docs),
    ]);
    ok(&["index", "build", "--kg", p(&kg), "--out", p(&index)]);
    (dir, kg, docs, index)
}

#[test]
fn index_stats_query_and_match_read_well() {
    let (_dir, _, _, index) = small_index(300, 11);
    insta::assert_snapshot!("index_stats", ok(&["index", "stats", "--index", p(&index)]));
    let query = ok(&[
        "index",
        "query",
        "--index",
        p(&index),
        "United States",
        "AMERICAN",
        "Nowhere At All",
    ]);
    insta::assert_snapshot!("index_query", query);
    let text = "Zoë Ölund, an American actor born in Lyon on 5 May 1990.";
    insta::assert_snapshot!(
        "index_match",
        ok(&["index", "match", "--index", p(&index), "--text", text])
    );
}

#[test]
fn query_intersection_is_the_count_of_people_sharing_all_terms() {
    let (_dir, _, _, index) = small_index(300, 11);
    let out = ok(&["index", "query", "--index", p(&index), "American", "actor"]);
    let counts: Vec<u64> = out
        .lines()
        .map(|l| {
            l.rsplit(": ")
                .next()
                .unwrap()
                .split(' ')
                .next()
                .unwrap()
                .parse()
                .unwrap()
        })
        .collect();
    assert_eq!(counts.len(), 3, "{out}");
    assert!(counts[2] <= counts[0].min(counts[1]), "{out}");
    assert!(out.lines().last().unwrap().starts_with("intersection: "));
}

#[test]
fn import_merges_repeated_formats_and_reports_bad_lines() {
    let dir = tempfile::tempdir().unwrap();
    let fixtures = repo_root().join("crates/kanon-kg/tests/fixtures");
    let triples = dir.path().join("extra.csv");
    std::fs::write(
        &triples,
        "subject,property,value\nX1,label,Ilse Varnholt\nX1,birth_date,1931\nX1,occupation,botanist\n",
    )
    .unwrap();
    let kg = dir.path().join("kg");
    let out = ok(&[
        "kg",
        "import",
        "--format",
        "pantheon",
        p(&fixtures.join("pantheon_sample.tsv")),
        "--format",
        "google-re",
        p(&fixtures.join("google_re_sample.jsonl")),
        "--format",
        "triples",
        p(&triples),
        "--out",
        p(&kg),
    ]);
    assert!(out.contains("pantheon: "), "{out}");
    assert!(out.contains("google-re: "), "{out}");
    assert!(out.contains("triples: 1 people"), "{out}");
    assert!(out.contains("by name and birth year"), "{out}");
    assert!(kg.join("triples.csv").exists() && kg.join("docs.jsonl").exists());

    let bad = dir.path().join("bad.csv");
    std::fs::write(
        &bad,
        "subject,property,value\nX1,label,A B\nX1,Birth Date,1990\n",
    )
    .unwrap();
    let out = kanon(&[
        "kg",
        "import",
        "--format",
        "triples",
        p(&bad),
        "--out",
        p(&dir.path().join("kg2")),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.csv:3: field `property`"), "{err}");
    assert!(
        !dir.path().join("kg2").exists(),
        "no partial KG is left behind"
    );
    let out = ok(&[
        "kg",
        "import",
        "--format",
        "triples",
        p(&bad),
        "--skip-invalid",
        "--out",
        p(&dir.path().join("kg3")),
    ]);
    assert!(out.contains("1 invalid lines skipped"), "{out}");
}

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

#[test]
fn imports_the_real_kg_sources_when_present() {
    let sources = repo_root().join("../shared/data/kg-sources");
    if !sources.join("pantheon.tsv").exists() {
        eprintln!(
            "skipped: ../shared/data/kg-sources is absent (real Pantheon and Google-RE data)"
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let kg = dir.path().join("kg");
    let gre = |f: &str| sources.join("google-re").join(f);
    let out = ok(&[
        "kg",
        "import",
        "--format",
        "pantheon",
        p(&sources.join("pantheon.tsv")),
        "--format",
        "google-re",
        p(&gre("date_of_birth_test.jsonl")),
        p(&gre("place_of_birth_test.jsonl")),
        p(&gre("place_of_death_test.jsonl")),
        "--out",
        p(&kg),
    ]);
    assert!(out.contains("pantheon: 11341 people"), "{out}");
    let index = dir.path().join("index");
    ok(&["index", "build", "--kg", p(&kg), "--out", p(&index)]);
    let stats = ok(&["index", "stats", "--index", p(&index)]);
    let people: u64 = stats
        .lines()
        .next()
        .unwrap()
        .trim_start_matches("people: ")
        .parse()
        .unwrap();
    assert!(people > 15_000 && people < 16_900, "{stats}");
    let query = ok(&[
        "index",
        "query",
        "--index",
        p(&index),
        "Abraham Lincoln",
        "Hodgenville",
    ]);
    assert!(query.ends_with("intersection: 1\n"), "{query}");
}

#[test]
fn eval_spans_scores_predictions_against_tab_gold() {
    let dir = tempfile::tempdir().unwrap();
    let gold = dir.path().join("gold.json");
    std::fs::write(
        &gold,
        r#"[{"doc_id": "d1", "text": "Zoë Ølund was born in Lyon in 1990.",
            "annotations": {"annotator1": {"entity_mentions": [
              {"entity_type": "PERSON", "start_offset": 0, "end_offset": 9, "identifier_type": "DIRECT", "entity_id": "e1"},
              {"entity_type": "LOC", "start_offset": 22, "end_offset": 26, "identifier_type": "QUASI", "entity_id": "e2"},
              {"entity_type": "DATETIME", "start_offset": 30, "end_offset": 34, "identifier_type": "QUASI", "entity_id": "e3"},
              {"entity_type": "MISC", "start_offset": 10, "end_offset": 13, "identifier_type": "NO_MASK", "entity_id": "e4"}]}}}]"#,
    )
    .unwrap();
    let pred = dir.path().join("pred.jsonl");
    std::fs::write(
        &pred,
        "{\"id\":\"d1\",\"spans\":[{\"start\":0,\"end\":9,\"label\":\"MASK\"},{\"start\":22,\"end\":24}]}\n\
         {\"id\":\"elsewhere\",\"spans\":[]}\n",
    )
    .unwrap();
    insta::assert_snapshot!(
        "eval_spans",
        ok(&["eval", "spans", "--gold", p(&gold), "--pred", p(&pred)])
    );
    let json: serde_json::Value = serde_json::from_str(&ok(&[
        "eval",
        "spans",
        "--gold",
        p(&gold),
        "--pred",
        p(&pred),
        "--json",
    ]))
    .unwrap();
    assert_eq!(json["exact"]["precision"], 0.5);
    assert_eq!(json["unknown_documents"], 1);
}

#[test]
fn eval_spans_of_the_real_gold_against_itself_is_perfect() {
    let gold = repo_root().join("../shared/data/wiki553/dev_100_tab_schema.json");
    if !gold.exists() {
        eprintln!("skipped: ../shared/data/wiki553 is absent (real annotated Wikipedia summaries)");
        return;
    }
    // The gold's own DIRECT and QUASI spans, in TAB's system format.
    let docs: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&gold).unwrap()).unwrap();
    let mut system = serde_json::Map::new();
    for doc in docs.as_array().unwrap() {
        let mut spans = Vec::new();
        for annotation in doc["annotations"].as_object().unwrap().values() {
            for m in annotation["entity_mentions"].as_array().unwrap() {
                if m["identifier_type"] != "NO_MASK" {
                    spans.push(serde_json::json!([m["start_offset"], m["end_offset"]]));
                }
            }
        }
        system.insert(doc["doc_id"].as_str().unwrap().to_owned(), spans.into());
    }
    let dir = tempfile::tempdir().unwrap();
    let pred = dir.path().join("system.json");
    std::fs::write(&pred, serde_json::Value::Object(system).to_string()).unwrap();
    let report: serde_json::Value = serde_json::from_str(&ok(&[
        "eval",
        "spans",
        "--gold",
        p(&gold),
        "--pred",
        p(&pred),
        "--json",
    ]))
    .unwrap();
    assert_eq!(report["gold_mentions"], 1764, "309 DIRECT + 1,455 QUASI");
    assert_eq!(report["exact"]["f1"], 1.0);
    assert_eq!(report["by_identifier"]["QUASI"]["entity_level"], 1.0);
}

/// The MiniLM weights in the model cache, when `kanon models fetch all-minilm-l6-v2` has run.
fn cached_minilm() -> Option<PathBuf> {
    let root = std::env::var_os("KANON_CACHE")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache/kanon/models")))?;
    let dir = root.join("all-minilm-l6-v2");
    dir.join("model.safetensors").exists().then_some(dir)
}

#[test]
fn train_and_detect_with_the_real_weights() {
    let Some(minilm) = cached_minilm() else {
        eprintln!(
            "skipped: all-minilm-l6-v2 is not cached (run `kanon models fetch all-minilm-l6-v2`)"
        );
        return;
    };
    let (dir, _, docs, index) = small_index(120, 5);
    let corpus = dir.path().join("corpus");
    ok(&[
        "label",
        "--index",
        p(&index),
        "--docs",
        p(&docs),
        "--out",
        p(&corpus),
    ]);
    let ckpt = dir.path().join("ckpt");
    let train = [
        "train",
        "--corpus",
        p(&corpus),
        "--pretrained",
        p(&minilm),
        "--out",
        p(&ckpt),
        "--epochs",
        "1",
        "--max-steps",
        "2",
    ];
    let trained = ok(&train);
    assert!(trained.contains("trained 2 steps"), "{trained}");
    assert!(ckpt.join("model.safetensors").exists());

    // A state left by an interrupted run is never overwritten without --resume.
    let state = dir.path().join("ckpt.resume");
    std::fs::create_dir_all(&state).unwrap();
    std::fs::write(state.join("state.json"), "{}").unwrap();
    let refused = kanon(&train);
    assert_eq!(refused.status.code(), Some(2));
    let message = String::from_utf8_lossy(&refused.stderr);
    assert!(
        message.contains("ckpt.resume") && message.contains("--resume"),
        "{message}"
    );

    let spans = dir.path().join("spans.jsonl");
    let detected = ok(&[
        "detect",
        "--model",
        p(&ckpt),
        "--docs",
        p(&corpus.join("test.jsonl")),
        "--out",
        p(&spans),
        "--threshold",
        "0.3",
    ]);
    assert!(detected.contains("documents"), "{detected}");
    let lines = std::fs::read_to_string(&spans).unwrap();
    let first: serde_json::Value = serde_json::from_str(lines.lines().next().unwrap()).unwrap();
    assert!(first["spans"].is_array(), "{first}");
    let bad = kanon(&[
        "detect",
        "--model",
        p(&ckpt),
        "--docs",
        p(&corpus.join("test.jsonl")),
        "--out",
        p(&spans),
        "--threshold",
        "1.5",
    ]);
    assert_eq!(bad.status.code(), Some(2));
}
