//! `kanon detect <method> …`: the detectors without a KG from the command line — their output,
//! their errors, the embedded LLM's `ic-threshold` and MiniLM's `substitute` for real when cached.

use crate::common::{cached_minilm, cached_smollm2, kanon_in, ok_in};

const DOCS: &str = r#"{"id": "a", "person": "zoe", "text": "Zoë Ølund, a cellist from Tromsø, joined the Bergen Philharmonic in 2003."}
{"id": "b", "person": "per", "text": "Per Olsen is a judge who moved to Bergen in 1999."}
"#;

const BACKGROUND: &str = r#"[
  {"name": "zoe", "public_knowledge": "Zoë Ølund (born 1980 in Tromsø) is a Norwegian cellist of the Bergen Philharmonic."},
  {"name": "per", "public_knowledge": "Per Olsen is a Norwegian judge."},
  {"name": "nobody", "public_knowledge": null}
]"#;

fn fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("docs.jsonl"), DOCS).unwrap();
    std::fs::write(dir.path().join("background.json"), BACKGROUND).unwrap();
    dir
}

/// The masked strings of each document of a spans file, in order.
fn masked(dir: &std::path::Path, out: &str) -> Vec<Vec<String>> {
    let texts: Vec<String> = DOCS
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["text"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    std::fs::read_to_string(dir.join(out))
        .unwrap()
        .lines()
        .zip(&texts)
        .map(|(line, text)| {
            let record: serde_json::Value = serde_json::from_str(line).unwrap();
            record["spans"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| {
                    let (start, end) = (
                        s["start"].as_u64().unwrap() as usize,
                        s["end"].as_u64().unwrap() as usize,
                    );
                    text.chars().skip(start).take(end - start).collect()
                })
                .collect()
        })
        .collect()
}

#[test]
fn lexical_overlap_and_idf_from_the_command_line() {
    let dir = fixture();
    let summary = ok_in(
        &[
            "detect",
            "ner-lexical",
            "--docs",
            "docs.jsonl",
            "--background",
            "background.json",
            "--out",
            "lex.jsonl",
        ],
        dir.path(),
    );
    assert!(
        summary.starts_with("ner-lexical: 2 documents (0 kept from an interrupted run), "),
        "{summary}"
    );
    assert_eq!(
        masked(dir.path(), "lex.jsonl"),
        [
            vec!["Zoë Ølund", "cellist", "Tromsø", "Bergen Philharmonic"],
            vec!["Per Olsen", "judge"],
        ]
    );
    let summary = ok_in(
        &[
            "detect",
            "idf",
            "--budget",
            "0.2",
            "--docs",
            "docs.jsonl",
            "--out",
            "idf.jsonl",
        ],
        dir.path(),
    );
    // 12 and 11 words: 2 each (a fifth, rounded); 4 of 23 (17.4 %).
    assert!(
        summary.contains("4 of 23 words masked (17.4 %)"),
        "{summary}"
    );
}

#[test]
fn a_method_refuses_what_it_cannot_use() {
    let dir = fixture();
    let err = |args: &[&str]| {
        let out = kanon_in(args, dir.path());
        assert!(!out.status.success());
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let e = err(&[
        "detect",
        "ner-lexical",
        "--budget",
        "0.3",
        "--docs",
        "docs.jsonl",
        "--background",
        "background.json",
        "--out",
        "x.jsonl",
    ]);
    // Each detector is a subcommand with only its own options: clap refuses the others.
    assert!(
        e.contains("unexpected argument '--budget'") && e.contains("ner-lexical"),
        "{e}"
    );
    let e = err(&[
        "detect",
        "idf",
        "--threshold",
        "0.3",
        "--docs",
        "docs.jsonl",
        "--out",
        "x.jsonl",
    ]);
    assert!(e.contains("unexpected argument '--threshold'"), "{e}");
    let e = err(&["detect", "--docs", "docs.jsonl", "--out", "x.jsonl"]);
    assert!(e.contains("--model"), "{e}");
    let e = err(&[
        "detect",
        "ner-lexical",
        "--docs",
        "docs.jsonl",
        "--out",
        "x.jsonl",
    ]);
    assert!(
        e.contains("required arguments were not provided") && e.contains("--background"),
        "{e}"
    );
    std::fs::write(
        dir.path().join("anon.jsonl"),
        "{\"id\": \"q\", \"text\": \"Who?\"}\n",
    )
    .unwrap();
    let e = err(&[
        "detect",
        "reid-greedy",
        "--reid-model",
        "m",
        "--docs",
        "anon.jsonl",
        "--background",
        "background.json",
        "--out",
        "x.jsonl",
    ]);
    assert!(e.contains("document \"q\": no `person`"), "{e}");
    std::fs::write(
        dir.path().join("nobody.jsonl"),
        "{\"id\": \"n\", \"person\": \"nobody\", \"text\": \"Who?\"}\n",
    )
    .unwrap();
    let e = err(&[
        "detect",
        "reid-greedy",
        "--reid-model",
        "m",
        "--docs",
        "nobody.jsonl",
        "--background",
        "background.json",
        "--out",
        "x.jsonl",
        "--reid-epochs",
        "1",
    ]);
    assert!(
        e.contains("document \"n\"") && e.contains("no text about its person \"nobody\""),
        "{e}"
    );
}

#[test]
fn ic_threshold_with_the_embedded_model() {
    if cached_smollm2().is_none() {
        kanon_core::testing::skip(kanon_core::testing::Requirement::Model(
            "smollm2-135m-instruct",
        ));
        return;
    }
    let dir = fixture();
    let run = |out: &str| {
        ok_in(
            &[
                "detect",
                "ic-threshold",
                "--p",
                "1e-4",
                "--llm-threads",
                "1",
                "--docs",
                "docs.jsonl",
                "--out",
                out,
            ],
            dir.path(),
        );
        masked(dir.path(), out)
    };
    let first = run("ic1.jsonl");
    // The names are improbable in any context; "the" after "joined" is not.
    assert!(first[0].iter().any(|m| m.contains("Ølund")), "{first:?}");
    assert!(first[1].iter().any(|m| m.contains("Olsen")), "{first:?}");
    assert!(
        first.iter().flatten().all(|m| m != "the" && m != "a"),
        "{first:?}"
    );
    assert_eq!(run("ic2.jsonl"), first);
}

#[test]
fn substitute_replaces_words_by_neighbours_with_minilm() {
    if cached_minilm().is_none() {
        kanon_core::testing::skip(kanon_core::testing::Requirement::Model("all-minilm-l6-v2"));
        return;
    }
    let dir = fixture();
    ok_in(
        &[
            "detect",
            "ner-lexical",
            "--docs",
            "docs.jsonl",
            "--background",
            "background.json",
            "--out",
            "lex.jsonl",
        ],
        dir.path(),
    );
    let sanitize = |out: &str| {
        ok_in(
            &[
                "sanitize",
                "--docs",
                "docs.jsonl",
                "--spans",
                "lex.jsonl",
                "--strategy",
                "substitute",
                "--out",
                out,
            ],
            dir.path(),
        );
        std::fs::read_to_string(dir.path().join(out)).unwrap()
    };
    let first = sanitize("sub1.jsonl");
    let masked = [
        &["Ølund", "cellist", "Tromsø", "Bergen"][..],
        &["Olsen", "judge"][..],
    ];
    for (line, originals) in first.lines().zip(masked) {
        let doc: serde_json::Value = serde_json::from_str(line).unwrap();
        let text = doc["text"].as_str().unwrap();
        for original in originals {
            assert!(!text.contains(original), "{text}");
        }
        // The words not masked stay, and every edit is a substitution.
        assert!(text.contains(" in "), "{text}");
        for edit in doc["edits"].as_array().unwrap() {
            assert_eq!(edit["reason"], "substituted");
            assert!(!edit["replacement"].as_str().unwrap().is_empty());
        }
    }
    assert_eq!(sanitize("sub2.jsonl"), first);
}
