//! A window's label probabilities are a function of the window alone (issue 37): on real MiniLM
//! weights, every window of texts of many lengths gives the same bits detected alone and batched
//! with the others, at token budgets of 512, 4096 and 16384 pieces, on 1, 2 and 3 threads, with
//! the texts in two orders. Runs when the weights are cached (`kanon models fetch
//! all-minilm-l6-v2`).
#![allow(clippy::unwrap_used)]

use burn::tensor::Device;
use kanon_tagger::checkpoint::{LabelsFile, Precision};
use kanon_tagger::data::TaggerTokenizer;
use kanon_tagger::dataset::Windowing;
use kanon_tagger::weights::load_pretrained;
use kanon_tagger::{LabelScheme, Tagger};

/// Texts whose windows take many lengths: the bundled biographies, some joined so that a text
/// has several windows and a short last one, and texts of a few pieces (padded to 16).
fn texts() -> Vec<String> {
    let docs = kanon_tagger::testing::sample_texts(24).unwrap();
    let mut texts: Vec<String> = docs[..12].to_vec();
    for group in docs[12..].chunks(4) {
        texts.push(group.join(" "));
    }
    texts.push("Oslo.".into());
    texts.push("Lilian Albano was born in Graz in 1992.".into());
    texts
}

/// Each text's windows' probabilities as bits, computed on a pool of `threads` threads.
fn bits(tagger: &Tagger, texts: &[&str], budget: usize, threads: usize) -> Vec<Vec<Vec<u32>>> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| tagger.probabilities(texts, budget))
        .unwrap()
        .into_iter()
        .map(|windows| {
            windows
                .into_iter()
                .map(|w| w.into_iter().map(f32::to_bits).collect())
                .collect()
        })
        .collect()
}

#[test]
fn a_windows_probabilities_do_not_depend_on_its_batch() {
    let Some(dir) = kanon_models::cached_or_skip("all-minilm-l6-v2") else {
        return;
    };
    // The int8 encoder too: its activations are quantized row by row and its products summed
    // exactly, so a row's values do not depend on the others either.
    for precision in Precision::ALL {
        let device = Device::flex();
        let scheme = LabelScheme::Typed;
        let (config, model) = load_pretrained(&dir, scheme.names().len(), &device).unwrap();
        let tokenizer = TaggerTokenizer::from_file(&dir.join("tokenizer.json")).unwrap();
        let labels = LabelsFile::new(
            scheme,
            Windowing {
                max_len: 128,
                overlap: 32,
            },
        );
        let tagger =
            Tagger::new(model, config, tokenizer, labels, &device).with_precision(precision);
        same_bits_everywhere(&tagger, precision);
    }
}

fn same_bits_everywhere(tagger: &Tagger, precision: Precision) {
    let owned = texts();
    let texts: Vec<&str> = owned.iter().map(String::as_str).collect();
    // The reference: each text alone, one thread.
    let alone: Vec<Vec<Vec<u32>>> = texts
        .iter()
        .map(|&text| bits(tagger, &[text], 16_384, 1).pop().unwrap())
        .collect();
    let windows: usize = alone.iter().map(Vec::len).sum();
    let lengths: std::collections::BTreeSet<usize> =
        alone.iter().flatten().map(|w| w.len() / 17).collect();
    assert!(
        windows > texts.len() && lengths.len() > 10,
        "{windows} windows of {} lengths: too few to test batching",
        lengths.len()
    );

    let mut reversed = texts.clone();
    reversed.reverse();
    for (budget, threads) in [
        (512, 2),
        (4096, 2),
        (16_384, 2),
        (4096, 1),
        (512, 1),
        (4096, 3),
    ] {
        let together = bits(tagger, &texts, budget, threads);
        let backwards = bits(tagger, &reversed, budget, threads);
        for (t, want) in alone.iter().enumerate() {
            let context = format!("{precision}: text {t}, budget {budget}, {threads} thread(s)");
            same_bits(
                &together[t],
                want,
                &format!("{context}, batched with the others"),
            );
            let back = &backwards[texts.len() - 1 - t];
            same_bits(back, want, &format!("{context}, texts in reverse order"));
        }
    }
}

/// Fails naming the first window and value that differ (the vectors are too long to print).
fn same_bits(got: &[Vec<u32>], want: &[Vec<u32>], context: &str) {
    assert_eq!(got.len(), want.len(), "{context}: window counts differ");
    for (w, (got, want)) in got.iter().zip(want).enumerate() {
        assert_eq!(
            got.len(),
            want.len(),
            "{context}, window {w}: lengths differ"
        );
        if let Some(i) = (0..got.len()).find(|&i| got[i] != want[i]) {
            panic!(
                "{context}, window {w}, value {i}: {} here, {} alone",
                f32::from_bits(got[i]),
                f32::from_bits(want[i])
            );
        }
    }
}
