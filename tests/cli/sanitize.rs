//! `kanon sanitize` end to end: detector spans and gold TAB spans, the summary, the response
//! cache, resuming an interrupted run, and the embedded model for real when its GGUF is cached.

use std::path::Path;

use crate::common::{kanon_in, ok_in, shared};

const DOCS: &str = r#"{"id": "a", "text": "Zoë Ølund was born in Vexlun on 5 August 2003 and joined the Labour Party."}
{"id": "b", "text": "Per Olsen moved to Bergen in 1999."}
{"id": "c", "text": "Nothing to hide here."}
"#;

const SPANS: &str = r#"{"id": "a", "spans": [{"start": 0, "end": 9, "label": "MASK", "type": "PERSON", "score": 0.9}, {"start": 22, "end": 28, "label": "MASK", "type": "LOC", "score": 0.8}, {"start": 32, "end": 45, "label": "MASK", "type": "DATETIME", "score": 0.8}, {"start": 61, "end": 73, "label": "MASK", "type": "ORG", "score": 0.7}]}
{"id": "b", "spans": [{"start": 0, "end": 9, "label": "MASK", "type": "PERSON", "score": 0.9}, {"start": 19, "end": 25, "label": "MASK", "score": 0.6}, {"start": 29, "end": 33, "label": "MASK", "type": "DATETIME", "score": 0.6}]}
"#;

const SCRIPTED: &str = r#"{"backend": "scripted", "name": "cli-test",
  "replies": [
    ["Phrase: Vexlun", "1. a city in northern Norway\n2. a Norwegian city\n3. a city"],
    ["Phrase: Labour Party", "1. a Norwegian political party\n2. a political party"],
    ["Phrase: Bergen", "1. a Norwegian city\n2. a European city"],
    ["[[a city in Hordaland]]", "1. Bergen\n2. Bodø"],
    ["[[a Norwegian political party]]", "1. the Labour Party"]
  ],
  "fallback": "1. Oslo\n2. 1999-01-01"}"#;

struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("docs.jsonl"), DOCS).unwrap();
        std::fs::write(dir.path().join("spans.jsonl"), SPANS).unwrap();
        std::fs::write(dir.path().join("llm.json"), SCRIPTED).unwrap();
        Fixture { dir }
    }
    fn path(&self) -> &Path {
        self.dir.path()
    }
    fn sanitize(&self, extra: &[&str]) -> String {
        let mut args = vec![
            "sanitize",
            "--docs",
            "docs.jsonl",
            "--spans",
            "spans.jsonl",
            "--llm",
            "llm.json",
            "--cache",
            "cache",
            "--out",
            "out.jsonl",
        ];
        args.extend_from_slice(extra);
        ok_in(&args, self.path())
    }
    fn output(&self) -> Vec<serde_json::Value> {
        std::fs::read_to_string(self.path().join("out.jsonl"))
            .unwrap()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    }
}

/// The summary without its timings, which vary from run to run.
fn without_times(summary: &str) -> String {
    summary
        .lines()
        .map(|line| {
            if line.starts_with("time:") {
                "time: [redacted]"
            } else {
                line
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn sanitizes_detector_spans_and_reruns_from_the_cache() {
    let fixture = Fixture::new();
    let first = fixture.sanitize(&["--summary", "summary.json"]);
    insta::assert_snapshot!("sanitize_summary", without_times(&first));
    let docs = fixture.output();
    let texts: Vec<&str> = docs.iter().map(|d| d["text"].as_str().unwrap()).collect();
    assert_eq!(
        texts,
        [
            // No table lists Vexlun (a place made up), so nothing could confirm a model's generalization of
            // it: the model is not asked, and the place keeps its label. Where a hierarchy
            // answers, its rungs are the candidates, and the model only attacks them.
            "PERSON 1 was born in LOC 1 in August 2003 and joined a political party.",
            "PERSON 1 moved to a city in Norway in the late 1990s.",
            "Nothing to hide here.",
        ]
    );
    assert_eq!(docs[0]["edits"][1]["reason"], "no-candidates");
    let edit = &docs[1]["edits"][1];
    assert_eq!(edit["start"], 19);
    assert_eq!(edit["replacement"], "a city in Norway");
    assert_eq!(edit["choice"], 2);
    assert_eq!(edit["reason"], "not-guessed");
    // A span without a type is MISC.
    assert_eq!(docs[1]["edits"][1]["original_type"], "MISC");
    let summary: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(fixture.path().join("summary.json")).unwrap(),
    )
    .unwrap();
    let misses = summary["cache_misses"].as_u64().unwrap();
    assert!(misses > 0);
    assert_eq!(summary["cache_hits"], 0);

    // The same command again: every answer from the cache, the same output.
    let second = fixture.sanitize(&["--summary", "summary.json"]);
    let summary: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(fixture.path().join("summary.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(summary["cache_misses"], 0, "{second}");
    assert_eq!(summary["cache_hits"].as_u64().unwrap(), misses);
    assert_eq!(fixture.output(), docs);
    assert!(!fixture.path().join("out.jsonl.partial").exists());
}

#[test]
fn documents_sanitized_at_once_give_the_same_output_and_figures() {
    let fixture = Fixture::new();
    let read = |name: &str| std::fs::read_to_string(fixture.path().join(name)).unwrap();
    let summary_of =
        |name: &str| -> serde_json::Value { serde_json::from_str(&read(name)).unwrap() };
    let one = fixture.sanitize(&["--summary", "one.json"]);
    let output = read("out.jsonl");
    // An empty cache again, so that each worker asks the model itself.
    std::fs::remove_dir_all(fixture.path().join("cache")).unwrap();
    let three = fixture.sanitize(&["--workers", "3", "--summary", "three.json"]);
    assert_eq!(read("out.jsonl"), output);
    assert_eq!(without_times(&three), without_times(&one));
    let (one, three) = (summary_of("one.json"), summary_of("three.json"));
    assert_eq!(three["cache_misses"], one["cache_misses"]);
    assert_eq!(three["stats"], one["stats"]);
}

#[test]
fn resumes_where_an_interrupted_run_stopped() {
    let fixture = Fixture::new();
    // An interrupted run: document a is done, b was being written when the process died.
    std::fs::write(
        fixture.path().join("out.jsonl.partial"),
        "{\"id\":\"a\",\"text\":\"done before\",\"edits\":[]}\n{\"id\":\"b\",\"te",
    )
    .unwrap();
    let summary = fixture.sanitize(&[]);
    assert!(
        summary.starts_with("sanitized 3 documents (1 resumed from an earlier run)"),
        "{summary}"
    );
    let docs = fixture.output();
    assert_eq!(docs.len(), 3);
    assert_eq!(docs[0]["text"], "done before", "a was not redone");
    assert_eq!(docs[1]["id"], "b");
    assert!(!fixture.path().join("out.jsonl.partial").exists());
    assert!(!fixture.path().join("out.jsonl.partial.runs").exists());
}

#[test]
fn the_audit_goes_to_its_own_file_and_the_output_holds_no_original() {
    let fixture = Fixture::new();
    let summary = fixture.sanitize(&["--audit", "audit.jsonl"]);
    assert!(summary.contains("-> out.jsonl"), "{summary}");
    let shareable = std::fs::read_to_string(fixture.path().join("out.jsonl")).unwrap();
    let audit: Vec<serde_json::Value> = std::fs::read_to_string(fixture.path().join("audit.jsonl"))
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(audit.len(), 3, "one audit line per document");
    let city = &audit[1]["entities"][1];
    assert_eq!(city["mentions"][0]["text"], "Bergen");
    assert_eq!(city["attacks"][0]["guesses"][0]["text"], "Bergen");
    assert_eq!(city["attacks"][0]["guesses"][0]["matched"], "exact");
    // By default the model only attacks: the hierarchies' rungs and the date ladder are the
    // candidates, and nothing could confirm a generalization of Vexlun.
    for document in &audit {
        for entity in document["entities"].as_array().unwrap() {
            for candidate in entity["candidates"].as_array().into_iter().flatten() {
                assert_ne!(candidate["source"], "model", "{candidate}");
            }
        }
    }
    for original in [
        "Zoë Ølund",
        "Vexlun",
        "Labour",
        "Per Olsen",
        "Bergen",
        "Bodø",
        "1999",
    ] {
        assert!(!shareable.contains(original), "{original} in {shareable}");
    }
    assert!(!shareable.contains("\"candidates\":") && !shareable.contains("\"guesses\":"));
    // The audit holds the originals: it is its owner's alone, the shareable output is not.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |name: &str| {
            std::fs::metadata(fixture.path().join(name))
                .unwrap()
                .permissions()
                .mode()
                & 0o777
        };
        assert_eq!(mode("audit.jsonl"), 0o600);
        assert_eq!(mode("out.jsonl") & 0o600, 0o600);
    }
    // Without --audit, no audit is written.
    std::fs::remove_file(fixture.path().join("audit.jsonl")).unwrap();
    fixture.sanitize(&[]);
    assert!(!fixture.path().join("audit.jsonl").exists());
}

#[test]
fn a_bad_span_is_named_by_file_line_and_its_values_as_written() {
    let fixture = Fixture::new();
    let sanitize = |spans: &str| {
        std::fs::write(fixture.path().join("bad.jsonl"), spans).unwrap();
        let out = kanon_in(
            &[
                "sanitize",
                "--docs",
                "docs.jsonl",
                "--spans",
                "bad.jsonl",
                "--strategy",
                "numbered-label",
                "--out",
                "out.jsonl",
            ],
            fixture.path(),
        );
        assert!(!out.status.success());
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    // Reversed: the values as written, not as a span would read them (7..7).
    let err = sanitize(
        "{\"id\": \"b\", \"spans\": [{\"start\": 0, \"end\": 9}]}\n{\"id\": \"c\", \"spans\": [{\"start\": 7, \"end\": 2}]}\n",
    );
    assert!(
        err.contains(
            "bad.jsonl:2: document \"c\", span 0: `start` = 7, `end` = 2 is empty or reversed"
        ),
        "{err}"
    );
    // Past the end of its 21-character text, on the document's second line.
    let err = sanitize(
        "{\"id\": \"c\", \"spans\": [{\"start\": 0, \"end\": 7}]}\n{\"id\": \"c\", \"spans\": [{\"start\": 8, \"end\": 30}]}\n",
    );
    assert!(
        err.contains("bad.jsonl:2: document \"c\", span 1: `start` = 8, `end` = 30 is not a span of its 21-character text"),
        "{err}"
    );
}

#[test]
fn masking_strategies_open_no_model() {
    let fixture = Fixture::new();
    // `--llm` names a file that does not exist: a masking strategy never opens it.
    let out = ok_in(
        &[
            "sanitize",
            "--docs",
            "docs.jsonl",
            "--spans",
            "spans.jsonl",
            "--strategy",
            "numbered-label",
            "--llm",
            "missing.json",
            "--out",
            "out.jsonl",
        ],
        fixture.path(),
    );
    assert!(out.contains("LLM calls: 0"), "{out}");
    let docs = fixture.output();
    assert_eq!(
        docs[0]["text"],
        "PERSON 1 was born in LOC 1 on DATETIME 1 and joined the ORG 1."
    );
    let failed = kanon_in(
        &[
            "sanitize",
            "--docs",
            "docs.jsonl",
            "--spans",
            "spans.jsonl",
            "--strategy",
            "greedy",
            "--out",
            "out.jsonl",
        ],
        fixture.path(),
    );
    assert_eq!(failed.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&failed.stderr).contains("unknown strategy \"greedy\""));
}

#[test]
fn plain_text_in_plain_text_out() {
    let fixture = Fixture::new();
    let cases = fixture.path().join("cases");
    std::fs::create_dir_all(cases.join("2003")).unwrap();
    let doc = |id: &str| {
        DOCS.lines()
            .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
            .find(|d| d["id"] == id)
            .unwrap()["text"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    std::fs::write(cases.join("2003/a.txt"), doc("a")).unwrap();
    std::fs::write(cases.join("b.txt"), doc("b")).unwrap();
    let spans = SPANS.replace("\"id\": \"a\"", "\"id\": \"2003/a\"");
    std::fs::write(fixture.path().join("case-spans.jsonl"), spans).unwrap();
    ok_in(
        &[
            "sanitize",
            "--docs",
            "cases",
            "--spans",
            "case-spans.jsonl",
            "--strategy",
            "numbered-label",
            "--out",
            "sanitized.jsonl",
        ],
        fixture.path(),
    );
    let text = |path: &str| std::fs::read_to_string(fixture.path().join(path)).unwrap();
    assert_eq!(
        text("sanitized/2003/a.txt"),
        "PERSON 1 was born in LOC 1 on DATETIME 1 and joined the ORG 1."
    );
    assert_eq!(
        text("sanitized/b.txt"),
        "PERSON 1 moved to MISC 1 in DATETIME 1."
    );
    assert!(text("sanitized.jsonl").contains("\"id\":\"2003/a\""));
}

const TAB: &str = r#"[{"doc_id": "t1", "text": "Lilian Trosterud (born 1962) met L. Trosterud's sister in Bergen.",
  "annotations": {
    "annotator1": {"entity_mentions": [
      {"entity_type": "PERSON", "start_offset": 0, "end_offset": 16, "identifier_type": "DIRECT", "entity_id": "e1"},
      {"entity_type": "DATETIME", "start_offset": 23, "end_offset": 27, "identifier_type": "QUASI", "entity_id": "e2"},
      {"entity_type": "LOC", "start_offset": 58, "end_offset": 64, "identifier_type": "NO_MASK", "entity_id": "e3"}]},
    "annotator2": {"entity_mentions": [
      {"entity_type": "PERSON", "start_offset": 0, "end_offset": 16, "identifier_type": "DIRECT", "entity_id": "x1"},
      {"entity_type": "PERSON", "start_offset": 33, "end_offset": 45, "identifier_type": "DIRECT", "entity_id": "x1"},
      {"entity_type": "LOC", "start_offset": 58, "end_offset": 64, "identifier_type": "QUASI", "entity_id": "x3"}]}}}]"#;

#[test]
fn gold_spans_unite_annotators_and_link_their_entities() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("tab.json"), TAB).unwrap();
    ok_in(
        &[
            "sanitize",
            "--docs",
            "tab.json",
            "--gold-spans",
            "--strategy",
            "numbered-label",
            "--out",
            "out.jsonl",
        ],
        dir.path(),
    );
    let out: serde_json::Value = serde_json::from_str(
        std::fs::read_to_string(dir.path().join("out.jsonl"))
            .unwrap()
            .trim(),
    )
    .unwrap();
    // Annotator 2's "L. Trosterud" is annotator 1's e1 through the shared first mention; only
    // annotator 2 masked Bergen, and the union masks it.
    assert_eq!(
        out["text"],
        "PERSON 1 (born DATETIME 1) met PERSON 1's sister in LOC 1."
    );
    let err = kanon_in(
        &[
            "sanitize",
            "--docs",
            "out.jsonl",
            "--gold-spans",
            "--out",
            "x.jsonl",
        ],
        dir.path(),
    );
    assert!(String::from_utf8_lossy(&err.stderr).contains("--gold-spans needs TAB-schema"));
}

#[test]
fn gold_wiki553_spans_leave_no_direct_identifier() {
    let Some(tab) = shared("data/wiki553/dev_100_tab_schema.json") else {
        kanon_core::testing::skip(kanon_core::testing::Requirement::SharedData(
            "wiki553/dev_100_tab_schema.json",
        ));
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let summary = ok_in(
        &[
            "sanitize",
            "--docs",
            tab.to_str().unwrap(),
            "--gold-spans",
            "--strategy",
            "numbered-label",
            "--out",
            "out.jsonl",
        ],
        dir.path(),
    );
    assert!(summary.starts_with("sanitized 100 documents"), "{summary}");
    let docs = kanon_core::tab::read_tab(&tab).unwrap();
    let out = std::fs::read_to_string(dir.path().join("out.jsonl")).unwrap();
    for (doc, line) in docs.iter().zip(out.lines()) {
        let sanitized: serde_json::Value = serde_json::from_str(line).unwrap();
        let text = sanitized["text"].as_str().unwrap();
        for mention in doc.annotations.values().flat_map(|a| &a.entity_mentions) {
            let original = mention.span().slice(&doc.text).unwrap();
            if mention.identifier_type == kanon_core::tab::IdentifierType::Direct
                && original.chars().count() >= 5
            {
                assert!(
                    !text.contains(original),
                    "{}: a direct identifier survived",
                    doc.doc_id
                );
            }
        }
    }
}

#[test]
fn the_embedded_model_sanitizes_a_short_document() {
    let cached = kanon_models::cached_or_skip("smollm2-135m-instruct");
    if cached.is_none() {
        return;
    }
    let fixture = Fixture::new();
    std::fs::write(
        fixture.path().join("docs.jsonl"),
        "{\"id\": \"a\", \"text\": \"Zoë Ølund was born in Vexlun on 5 August 2003 and joined the Labour Party.\"}\n",
    )
    .unwrap();
    let summary = ok_in(
        &[
            "sanitize",
            "--docs",
            "docs.jsonl",
            "--spans",
            "spans.jsonl",
            "--llm",
            "embedded",
            "--llm-threads",
            "1",
            "--no-cache",
            "--out",
            "out.jsonl",
        ],
        fixture.path(),
    );
    eprintln!("{summary}");
    let docs = fixture.output();
    let text = docs[0]["text"].as_str().unwrap();
    eprintln!("{text}");
    for original in ["Zoë", "Ølund", "Vexlun", "5 August 2003", "Labour Party"] {
        assert!(!text.contains(original), "{original} survived: {text}");
    }
    assert!(text.starts_with("PERSON 1 was born in "), "{text}");
    assert!(summary.contains("LLM calls: "), "{summary}");
}
