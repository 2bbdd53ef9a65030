//! `--shard I/N` on `label`, `detect` and `sanitize`, and `kanon merge`: four parts merged are
//! byte for byte the output of one run; parts that do not make a whole are refused.

use std::path::{Path, PathBuf};

use crate::common::{kanon, ok, p, small_index};

/// Every file of a corpus directory, by name.
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|entry| {
            (
                entry.file_name().to_string_lossy().into_owned(),
                std::fs::read(entry.path()).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

/// Runs `args` once whole into `whole`, then as four parts merged into `merged`; both outputs are
/// returned for comparison. `out_flag` names the option that takes the output path.
fn whole_and_merged(
    dir: &Path,
    name: &str,
    args: &[&str],
    extension: &str,
) -> (PathBuf, PathBuf, Vec<PathBuf>) {
    let whole = dir.join(format!("{name}-whole{extension}"));
    let mut command: Vec<&str> = args.to_vec();
    command.extend(["--out", p(&whole)]);
    ok(&command);
    let parts: Vec<PathBuf> = (0..4)
        .map(|i| dir.join(format!("{name}-part{i}{extension}")))
        .collect();
    // Out of order, as a scheduler finishes them.
    for i in [2, 0, 3, 1] {
        let shard = format!("{i}/4");
        let mut command: Vec<&str> = args.to_vec();
        command.extend(["--out", p(&parts[i]), "--shard", &shard]);
        ok(&command);
    }
    let merged = dir.join(format!("{name}-merged{extension}"));
    let mut command = vec!["merge", "--out", p(&merged)];
    command.extend(parts.iter().rev().map(|part| p(part)));
    let said = ok(&command);
    assert!(said.contains("merged 4 shards"), "{said}");
    (whole, merged, parts)
}

#[test]
fn four_shards_merged_equal_one_run_for_label_detect_and_sanitize() {
    let (dir, _, docs, index) = small_index(90, 21);
    let dir = dir.path();

    // label, with CoNLL files too.
    let label = [
        "label",
        "--index",
        p(&index),
        "--docs",
        p(&docs),
        "--format",
        "conll",
        "--shard-size",
        "7",
    ];
    let (whole, merged, parts) = whole_and_merged(dir, "corpus", &label, "");
    assert!(parts[1].join("shard.json").exists());
    let merged_files = files(&merged);
    assert_eq!(merged_files, files(&whole));
    assert!(merged_files.iter().any(|(name, _)| name == "train.conll"));
    let part_docs: usize = parts
        .iter()
        .map(|part| {
            let manifest: serde_json::Value =
                serde_json::from_slice(&std::fs::read(part.join("manifest.json")).unwrap())
                    .unwrap();
            manifest["stats"]["documents"].as_u64().unwrap() as usize
        })
        .sum();
    assert_eq!(part_docs, 90);

    // A tiny tagger to detect with.
    let mut words: Vec<String> = vec![".".into(), ",".into()];
    for doc in kanon_core::io::read_documents(&docs).unwrap().docs {
        for word in doc.text.split(|c: char| !c.is_alphanumeric()) {
            let word = word.to_lowercase();
            if !word.is_empty() && !words.contains(&word) && words.len() < 300 {
                words.push(word);
            }
        }
    }
    let vocabulary: Vec<&str> = words.iter().map(String::as_str).collect();
    let bert = dir.join("bert");
    kanon_tagger::testing::write_tiny_pretrained(&bert, &vocabulary, 4).unwrap();
    let model = dir.join("model");
    ok(&[
        "train",
        "--corpus",
        p(&whole),
        "--pretrained",
        p(&bert),
        "--out",
        p(&model),
        "--epochs",
        "4",
    ]);

    // detect, as spans JSONL and as TAB's system format.
    let detect = ["detect", "--model", p(&model), "--docs", p(&docs)];
    let (whole_spans, merged_spans, _) = whole_and_merged(dir, "spans", &detect, ".jsonl");
    let spans = std::fs::read(&whole_spans).unwrap();
    assert_eq!(std::fs::read(&merged_spans).unwrap(), spans);
    assert_eq!(String::from_utf8_lossy(&spans).lines().count(), 90);
    let found = String::from_utf8_lossy(&spans).matches("\"start\"").count();
    assert!(
        found > 200,
        "the tiny tagger should mask something: {found} spans"
    );
    assert!(
        !dir.join("spans-merged.jsonl.shard.json").exists(),
        "a merged output is not a part"
    );
    let mut detect_tab = detect.to_vec();
    detect_tab.extend(["--export", "tab"]);
    let (whole_tab, merged_tab, _) = whole_and_merged(dir, "tab", &detect_tab, ".json");
    assert_eq!(
        std::fs::read(&merged_tab).unwrap(),
        std::fs::read(&whole_tab).unwrap()
    );

    // sanitize --strategy label.
    let sanitize = [
        "sanitize",
        "--docs",
        p(&docs),
        "--spans",
        p(&whole_spans),
        "--strategy",
        "label",
        "--limit",
        "70",
    ];
    let (whole_out, merged_out, parts) = whole_and_merged(dir, "sanitized", &sanitize, ".jsonl");
    let sanitized = std::fs::read(&whole_out).unwrap();
    assert_eq!(std::fs::read(&merged_out).unwrap(), sanitized);
    assert_eq!(String::from_utf8_lossy(&sanitized).lines().count(), 70);
    assert!(String::from_utf8_lossy(&sanitized).contains("\"edits\":[{"));

    // Parts that are not a whole: one missing, one of another run, an unsharded output.
    let missing = kanon(&[
        "merge",
        "--out",
        p(&dir.join("x.jsonl")),
        p(&parts[0]),
        p(&parts[1]),
        p(&parts[3]),
    ]);
    assert_eq!(missing.status.code(), Some(2));
    let message = String::from_utf8_lossy(&missing.stderr);
    assert!(message.contains("shard 2/4 is missing"), "{message}");
    let other = dir.join("other.jsonl");
    let mut suppress = sanitize.to_vec();
    suppress[6] = "suppress";
    suppress.extend(["--shard", "2/4", "--out", p(&other)]);
    ok(&suppress);
    let mixed = kanon(&[
        "merge",
        "--out",
        p(&dir.join("x.jsonl")),
        p(&parts[0]),
        p(&parts[1]),
        p(&other),
        p(&parts[3]),
    ]);
    let message = String::from_utf8_lossy(&mixed.stderr);
    assert!(
        message.contains("other.jsonl") && message.contains("its settings"),
        "{message}"
    );
    let unsharded = kanon(&["merge", "--out", p(&dir.join("x.jsonl")), p(&whole_out)]);
    let message = String::from_utf8_lossy(&unsharded.stderr);
    assert!(message.contains("no shard record"), "{message}");
    assert!(!dir.join("x.jsonl").exists());
}
