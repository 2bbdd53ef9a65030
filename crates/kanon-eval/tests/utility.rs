//! How much sanitization changed: hand-computed shares, and inputs that do not fit.
#![allow(clippy::unwrap_used)]

use kanon_eval::job::{UtilityJob, utility};

const DOCS: &str = r#"{"id": "a", "text": "Zoë Ølund was born in Tromsø in 2003."}
{"id": "b", "text": "Per Olsen moved to Bergen."}
{"id": "c", "text": "Nothing here."}
"#;

fn edit(start: usize, end: usize, replacement: &str) -> String {
    format!(
        r#"{{"start": {start}, "end": {end}, "original_type": "MISC", "entity": "MISC 1", "replacement": "{replacement}", "reason": "label"}}"#
    )
}

fn job(dir: &std::path::Path, sanitized: &str) -> UtilityJob {
    std::fs::write(dir.join("docs.jsonl"), DOCS).unwrap();
    std::fs::write(dir.join("out.jsonl"), sanitized).unwrap();
    UtilityJob {
        docs: dir.join("docs.jsonl"),
        sanitized: dir.join("out.jsonl"),
        tps: None,
    }
}

#[test]
fn shares_of_characters_and_words_as_worked_out_by_hand() {
    let dir = tempfile::tempdir().unwrap();
    // a: "Zoë Ølund" (0..9) and "Tromsø" (22..28) replaced; b: nothing; c not sanitized.
    let sanitized = format!(
        "{{\"id\": \"a\", \"text\": \"MISC was born in MISC in 2003.\", \"edits\": [{}, {}]}}\n\
         {{\"id\": \"b\", \"text\": \"Per Olsen moved to Bergen.\", \"edits\": []}}\n",
        edit(0, 9, "MISC"),
        edit(22, 28, "MISC")
    );
    let report = utility(&job(dir.path(), &sanitized)).unwrap();
    assert_eq!((report.documents, report.unsanitized_documents), (2, 1));
    // Characters: a has 37, b 26; 9 + 6 replaced.
    assert_eq!(report.chars_changed, 15.0 / 63.0);
    // Words: a has 8 (Zoë Ølund was born in Tromsø in 2003), b 5; 3 touched.
    assert_eq!(report.words_changed, 3.0 / 13.0);
    assert_eq!(report.length_ratio, (30.0 + 26.0) / 63.0);
    assert!(
        report.render().contains("23.8 % of the characters"),
        "{}",
        report.render()
    );
}

#[test]
fn inputs_that_do_not_fit_are_errors_naming_the_document() {
    let dir = tempfile::tempdir().unwrap();
    let unknown = "{\"id\": \"z\", \"text\": \"x\", \"edits\": []}\n";
    let err = utility(&job(dir.path(), unknown)).unwrap_err().to_string();
    assert!(
        err.contains("out.jsonl:1: sanitized document \"z\" has no original"),
        "{err}"
    );

    let beyond = format!(
        "{{\"id\": \"b\", \"text\": \"x\", \"edits\": [{}]}}\n",
        edit(20, 40, "x")
    );
    let err = utility(&job(dir.path(), &beyond)).unwrap_err().to_string();
    assert!(
        err.contains("out.jsonl:1: sanitized document \"b\", edit 0: `start` = 20, `end` = 40 is not a span of its 26-character original"),
        "{err}"
    );

    let twice = "{\"id\": \"b\", \"text\": \"x\", \"edits\": []}\n{\"id\": \"b\", \"text\": \"x\", \"edits\": []}\n";
    let err = utility(&job(dir.path(), twice)).unwrap_err().to_string();
    assert!(
        err.contains("out.jsonl:2: sanitized document \"b\" appears twice (first on line 1)"),
        "{err}"
    );

    let err = utility(&job(dir.path(), "")).unwrap_err().to_string();
    assert!(err.contains("out.jsonl: no documents"), "{err}");

    let not_sanitized = "{\"id\": \"b\", \"text\": \"x\"}\n";
    let err = utility(&job(dir.path(), not_sanitized))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("out.jsonl:1:") && err.contains("edits"),
        "{err}"
    );
}
