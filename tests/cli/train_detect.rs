//! `kanon train` and `kanon detect` with the real MiniLM weights, when they are cached.

use crate::common::{cached_minilm, kanon, ok, p, small_index};

#[test]
fn train_and_detect_with_the_real_weights() {
    let Some(minilm) = cached_minilm() else {
        kanon_core::testing::skip(kanon_core::testing::Requirement::Model("all-minilm-l6-v2"));
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

    let test_docs = corpus.join("test.jsonl");
    // `kanon detect` of the test documents with `model` into `out`, then `extra` options.
    let detect = |model: &std::path::Path, out: &std::path::Path, extra: &[&str]| {
        let mut args = vec![
            "detect",
            "--model",
            p(model),
            "--docs",
            p(&test_docs),
            "--out",
            p(out),
            "--threshold",
            "0.3",
        ];
        args.extend_from_slice(extra);
        ok(&args)
    };
    let spans = dir.path().join("spans.jsonl");
    let detected = detect(&ckpt, &spans, &[]);
    // The summary says what ran: MiniLM's six layers, at full precision.
    assert!(
        detected.starts_with("tagger (6 layers, f32): "),
        "{detected}"
    );
    let lines = std::fs::read_to_string(&spans).unwrap();
    let first: serde_json::Value = serde_json::from_str(lines.lines().next().unwrap()).unwrap();
    assert!(first["spans"].is_array(), "{first}");
    // The same checkpoint in int8, and the summary says so.
    let int8_spans = dir.path().join("int8.jsonl");
    let detected = detect(&ckpt, &int8_spans, &["--precision", "int8"]);
    assert!(
        detected.starts_with("tagger (6 layers, int8): "),
        "{detected}"
    );
    // Written at int8, the checkpoint detects at int8 by itself, the same spans.
    let quantized = dir.path().join("ckpt.int8");
    let written = ok(&["quantize", "--model", p(&ckpt), "--out", p(&quantized)]);
    assert!(
        written.starts_with("tagger (6 layers, int8) -> "),
        "{written}"
    );
    assert!(quantized.join("precision.json").exists());
    let again = dir.path().join("again.jsonl");
    let detected = detect(&quantized, &again, &[]);
    assert!(
        detected.starts_with("tagger (6 layers, int8): "),
        "{detected}"
    );
    assert_eq!(
        std::fs::read_to_string(&again).unwrap(),
        std::fs::read_to_string(&int8_spans).unwrap()
    );
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

#[test]
fn devices_are_checked_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).display().to_string();
    let unknown = kanon(&[
        "train",
        "--corpus",
        &path("corpus"),
        "--out",
        &path("ckpt"),
        "--device",
        "gpu",
    ]);
    assert_eq!(unknown.status.code(), Some(2));
    let message = String::from_utf8_lossy(&unknown.stderr);
    assert!(
        message.contains("expected auto, cpu, cuda[:N] or wgpu[:N]"),
        "{message}"
    );

    let detect = |device: &str, method: &str| {
        kanon(&[
            "detect",
            method,
            "--model",
            &path("ckpt"),
            "--docs",
            &path("docs.jsonl"),
            "--out",
            &path("spans.jsonl"),
            "--device",
            device,
        ])
    };
    for runtime in ["cuda", "wgpu"] {
        let compiled = match runtime {
            "cuda" => cfg!(feature = "cuda"),
            _ => cfg!(feature = "wgpu"),
        };
        if compiled {
            continue;
        }
        let refused = detect(&format!("{runtime}:0"), "tagger");
        assert_eq!(refused.status.code(), Some(2));
        let message = String::from_utf8_lossy(&refused.stderr);
        assert!(
            message.contains(&format!("built without the `{runtime}` feature")),
            "{message}"
        );
    }
    // `--device` is the tagger's: the other detectors run on the CPU, and clap refuses it.
    let elsewhere = kanon(&[
        "detect",
        "idf",
        "--docs",
        &path("docs.jsonl"),
        "--out",
        &path("spans.jsonl"),
        "--device",
        "cpu",
    ]);
    assert_eq!(elsewhere.status.code(), Some(2));
    let message = String::from_utf8_lossy(&elsewhere.stderr);
    assert!(
        message.contains("unexpected argument '--device'"),
        "{message}"
    );
}
