//! Sentence embeddings: unit length, independent of what a text is batched with, and — on the real
//! all-MiniLM-L6-v2 weights when cached — closer for related phrases than for unrelated ones.
#![allow(clippy::unwrap_used, clippy::print_stderr)]

use burn::tensor::Device;
use kanon_tagger::encoder::{SentenceEncoder, cosine, write_test_tokenizer};
use kanon_tagger::model::BertConfig;

#[test]
fn an_embedding_does_not_depend_on_its_batch() {
    let dir = tempfile::tempdir().unwrap();
    let tokenizer = dir.path().join("tokenizer.json");
    write_test_tokenizer(
        &tokenizer,
        &["lilian", "albano", "lives", "in", "vienna", "a", "city"],
    )
    .unwrap();
    let device = Device::flex();
    let encoder = SentenceEncoder::new(
        BertConfig::new(16, 8, 1, 2, 16).init(&device),
        &tokenizer,
        &device,
    )
    .unwrap();
    let alone = encoder.embed(&["vienna"]).unwrap();
    let batched = encoder
        .embed(&["lilian albano lives in vienna a city", "vienna", ""])
        .unwrap();
    for (a, b) in alone[0].iter().zip(&batched[1]) {
        assert!((a - b).abs() < 1e-5, "{a} vs {b}");
    }
    for embedding in &batched {
        assert_eq!(embedding.len(), 8);
        assert!((cosine(embedding, embedding) - 1.0).abs() < 1e-4);
    }
    // Cut at the piece limit: the tail of a long text is not read.
    let short = encoder.with_max_pieces(3);
    let cut = short.embed(&["vienna lives in a city", "vienna"]).unwrap();
    assert!((cosine(&cut[0], &cut[1]) - 1.0).abs() < 1e-5);
}

#[test]
fn related_phrases_are_closer_on_the_real_weights() {
    let Some(dir) = kanon_models::cached_or_skip("all-minilm-l6-v2") else {
        return;
    };
    let encoder = SentenceEncoder::load(&dir, &Device::flex()).unwrap();
    let e = encoder
        .embed(&[
            "Vienna",
            "a city in Austria",
            "a football club",
            "1965",
            "the 1960s",
        ])
        .unwrap();
    assert!(cosine(&e[0], &e[1]) > cosine(&e[0], &e[2]));
    assert!(cosine(&e[3], &e[4]) > cosine(&e[3], &e[2]));
    eprintln!(
        "cos(Vienna, a city in Austria) {:.3}, cos(Vienna, a football club) {:.3}, cos(1965, the 1960s) {:.3}",
        cosine(&e[0], &e[1]),
        cosine(&e[0], &e[2]),
        cosine(&e[3], &e[4])
    );
}
