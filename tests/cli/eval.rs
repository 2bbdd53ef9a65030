//! `kanon eval spans|tab|privacy`: scores against TAB gold, the real gold against itself, and the
//! re-identification risk of the real summaries before and after sanitization.

use std::path::{Path, PathBuf};

use crate::common::{kanon, ok, p, shared};

/// One TAB-schema document: a DIRECT name, a QUASI place and year, a NO_MASK word.
fn write_gold(dir: &Path) -> PathBuf {
    let gold = dir.join("gold.json");
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
    gold
}

#[test]
fn eval_spans_scores_predictions_against_tab_gold() {
    let dir = tempfile::tempdir().unwrap();
    let gold = write_gold(dir.path());
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
    let Some(gold) = shared("data/wiki553/dev_100_tab_schema.json") else {
        eprintln!("skipped: ../shared/data/wiki553 is absent (real annotated Wikipedia summaries)");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let pred = gold_as_system_format(&gold, dir.path());
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

/// The gold's own DIRECT and QUASI spans, in TAB's system format, written into `dir`.
fn gold_as_system_format(gold: &Path, dir: &Path) -> PathBuf {
    let docs: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(gold).unwrap()).unwrap();
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
    let pred = dir.join("system.json");
    std::fs::write(&pred, serde_json::Value::Object(system).to_string()).unwrap();
    pred
}

#[test]
fn eval_tab_of_the_real_gold_against_itself_protects_every_entity() {
    // Token and mention recall count every mention of an entity to mask, NO_MASK ones too (as
    // the official script does), so they stay below 1: the script's figures on these files.
    for (data, documents, token_recall, mention_recall) in [
        ("data/wiki553/dev_100_tab_schema.json", 100, 0.994, 0.989),
        ("data/tab/tab_dev_113.json", 113, 0.984, 0.978),
    ] {
        let Some(gold) = shared(data) else {
            eprintln!("skipped: ../shared/{data} is absent (real annotated documents)");
            continue;
        };
        let dir = tempfile::tempdir().unwrap();
        let pred = gold_as_system_format(&gold, dir.path());
        let report: serde_json::Value = serde_json::from_str(&ok(&[
            "eval",
            "tab",
            "--gold",
            p(&gold),
            "--pred",
            p(&pred),
            "--json",
        ]))
        .unwrap();
        assert_eq!(report["documents"], documents, "{data}");
        for figure in [
            "entity_recall_direct",
            "entity_recall_quasi",
            "token_precision",
            "mention_precision",
        ] {
            assert_eq!(report[figure], 1.0, "{data}: {figure}");
        }
        let rounded = |figure: &str| (report[figure].as_f64().unwrap() * 1000.0).round() / 1000.0;
        assert_eq!(rounded("token_recall"), token_recall, "{data}");
        assert_eq!(rounded("mention_recall"), mention_recall, "{data}");
    }
}

#[test]
fn eval_tab_reads_the_figures_of_the_benchmark() {
    let dir = tempfile::tempdir().unwrap();
    let gold = write_gold(dir.path());
    let pred = dir.path().join("pred.jsonl");
    std::fs::write(
        &pred,
        "{\"id\":\"d1\",\"spans\":[{\"start\":0,\"end\":9},{\"start\":30,\"end\":34}]}\n",
    )
    .unwrap();
    let out = ok(&["eval", "tab", "--gold", p(&gold), "--pred", p(&pred)]);
    // The name and the year; not Lyon.
    assert!(
        out.contains("direct identifiers (ER_di) 1.000, quasi identifiers (ER_qi) 0.500"),
        "{out}"
    );
    std::fs::write(&pred, "{\"id\":\"d2\",\"spans\":[]}\n").unwrap();
    let unknown = kanon(&["eval", "tab", "--gold", p(&gold), "--pred", p(&pred)]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("not in the gold"));
}

#[test]
fn suppressing_the_gold_spans_lowers_the_re_identification_risk() {
    let (Some(gold), Some(background)) = (
        shared("data/wiki553/dev_100_tab_schema.json"),
        shared("data/wiki553/background_553.json"),
    ) else {
        eprintln!("skipped: ../shared/data/wiki553 is absent (summaries and background texts)");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let suppressed = dir.path().join("suppressed.jsonl");
    ok(&[
        "sanitize",
        "--docs",
        p(&gold),
        "--gold-spans",
        "--strategy",
        "suppress",
        "--out",
        p(&suppressed),
    ]);
    let trir = |docs: &Path| {
        let report: serde_json::Value = serde_json::from_str(&ok(&[
            "eval",
            "privacy",
            "--background",
            p(&background),
            "--sanitized",
            p(docs),
            "--json",
        ]))
        .unwrap();
        assert_eq!(report["documents"], 100);
        assert_eq!(report["background_without_text"], 5);
        report["attackers"]["bm25"]["top1"].as_f64().unwrap()
    };
    let (original, after) = (trir(&gold), trir(&suppressed));
    assert!(original >= 0.6, "the original summaries: {original}");
    assert!(after <= original - 0.15, "{original} before, {after} after");
}
