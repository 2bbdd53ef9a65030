//! `kanon eval spans`: scores against TAB gold, and the real gold against itself.

use crate::common::{ok, p, shared};

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
    let Some(gold) = shared("data/wiki553/dev_100_tab_schema.json") else {
        eprintln!("skipped: ../shared/data/wiki553 is absent (real annotated Wikipedia summaries)");
        return;
    };
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
