//! The int8 encoder (`kanon_tagger::int8`): a quantized checkpoint round-trips through save and
//! load with its precision, computes what the f32 model computes to within the quantization
//! error, and leaves an f32 run unchanged; on real MiniLM weights (when cached) the labels it
//! reads off agree with f32's.
#![allow(clippy::unwrap_used)]

use burn::tensor::Device;
use kanon_tagger::checkpoint::{LabelsFile, PRECISION_FILE, Precision};
use kanon_tagger::data::TaggerTokenizer;
use kanon_tagger::dataset::Windowing;
use kanon_tagger::testing::{write_fresh_head_checkpoint, write_tiny_pretrained_layers};
use kanon_tagger::weights::load_pretrained;
use kanon_tagger::{LabelScheme, Tagger};

const WORDS: &[&str] = &[
    "lilian", "albano", "was", "born", "in", "graz", "oslo", "1992", ".",
];

fn texts() -> Vec<&'static str> {
    vec![
        "lilian albano was born in graz in 1992 .",
        "oslo .",
        "albano was born in oslo",
    ]
}

fn probabilities(tagger: &Tagger) -> Vec<f32> {
    tagger
        .probabilities(&texts(), 4096)
        .unwrap()
        .into_iter()
        .flatten()
        .flatten()
        .collect()
}

fn largest_difference(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

#[test]
fn an_int8_checkpoint_round_trips_with_its_precision() {
    let dir = tempfile::tempdir().unwrap();
    let pretrained = dir.path().join("pretrained");
    write_tiny_pretrained_layers(&pretrained, WORDS, 3, 2).unwrap();
    let f32_dir = dir.path().join("f32");
    write_fresh_head_checkpoint(
        &pretrained,
        &f32_dir,
        LabelScheme::Typed,
        Windowing::default(),
        5,
    )
    .unwrap();
    let device = Device::flex();

    let tagger = Tagger::load(&f32_dir, &device).unwrap();
    assert_eq!(tagger.precision(), Precision::F32);
    assert_eq!(tagger.describe(), "2 layers, f32");
    let f32_probabilities = probabilities(&tagger);

    let int8 = tagger.with_precision(Precision::Int8);
    assert_eq!(int8.describe(), "2 layers, int8");
    let int8_probabilities = probabilities(&int8);
    let error = largest_difference(&int8_probabilities, &f32_probabilities);
    assert!(
        error > 0.0 && error < 0.02,
        "int8 moved a probability by {error}"
    );

    let int8_dir = dir.path().join("int8");
    std::fs::create_dir_all(&int8_dir).unwrap();
    int8.save(&int8_dir, &f32_dir.join("tokenizer.json"))
        .unwrap();
    assert!(int8_dir.join(PRECISION_FILE).exists());
    let loaded = Tagger::load(&int8_dir, &device).unwrap();
    assert_eq!(loaded.precision(), Precision::Int8);
    let error = largest_difference(&probabilities(&loaded), &int8_probabilities);
    assert!(error < 1e-6, "the saved int8 tagger moved by {error}");

    // The f32 checkpoint is untouched, and so are its probabilities.
    assert!(!f32_dir.join(PRECISION_FILE).exists());
    let again = Tagger::load(&f32_dir, &device).unwrap();
    assert_eq!(probabilities(&again), f32_probabilities);

    // Loaded at f32, an int8 checkpoint computes the values its integers stand for, in f32.
    let as_f32 = Tagger::load(&int8_dir, &device)
        .unwrap()
        .with_precision(Precision::F32);
    let error = largest_difference(&probabilities(&as_f32), &int8_probabilities);
    assert!(error < 0.02, "{error}");

    // A precision file of another format is named, not guessed at.
    std::fs::write(
        int8_dir.join(PRECISION_FILE),
        r#"{"format_version": 9, "precision": "int8"}"#,
    )
    .unwrap();
    let err = Tagger::load(&int8_dir, &device).unwrap_err().to_string();
    assert!(
        err.contains(PRECISION_FILE) && err.contains("checkpoint precision format version 9"),
        "{err}"
    );
}

#[test]
fn int8_reads_the_same_labels_as_f32_on_real_weights() {
    let Some(dir) = kanon_models::cached_or_skip("all-minilm-l6-v2") else {
        return;
    };
    let owned = kanon_tagger::testing::sample_texts(20).unwrap();
    let texts: Vec<&str> = owned.iter().map(String::as_str).collect();
    let device = Device::flex();
    let scheme = LabelScheme::Typed;
    // One draw of the fresh head, shared by both taggers.
    let (config, model) = load_pretrained(&dir, scheme.names().len(), &device).unwrap();
    let tagger_at = |precision: Precision| {
        let tokenizer = TaggerTokenizer::from_file(&dir.join("tokenizer.json")).unwrap();
        let labels = LabelsFile::new(scheme, Windowing::default());
        Tagger::new(model.clone(), config.clone(), tokenizer, labels, &device)
            .with_precision(precision)
    };
    let read = |tagger: &Tagger| -> Vec<Vec<f32>> {
        tagger
            .probabilities(&texts, 4096)
            .unwrap()
            .into_iter()
            .flatten()
            .flat_map(|window| {
                window
                    .chunks_exact(LabelScheme::Typed.names().len())
                    .map(<[f32]>::to_vec)
                    .collect::<Vec<_>>()
            })
            .collect()
    };
    let full = read(&tagger_at(Precision::F32));
    let int8 = read(&tagger_at(Precision::Int8));
    // A fresh head spreads its probabilities thin, so only pieces whose label f32 reads with a
    // lead larger than twice the error allowed are compared by label (such a lead cannot flip);
    // every probability is compared by value. (A trained tagger: docs/benchmarks.md, "Low
    // precision", on the wiki553 dev set.)
    let ranked = |p: &[f32]| {
        let mut order: Vec<usize> = (0..p.len()).collect();
        order.sort_by(|&a, &b| p[b].total_cmp(&p[a]));
        (order[0], p[order[0]] - p[order[1]])
    };
    let clear: Vec<(&Vec<f32>, &Vec<f32>)> = full
        .iter()
        .zip(&int8)
        .filter(|(a, _)| ranked(a).1 > 0.02)
        .collect();
    let agree = clear
        .iter()
        .filter(|(a, b)| ranked(a).0 == ranked(b).0)
        .count();
    let error = full
        .iter()
        .zip(&int8)
        .map(|(a, b)| largest_difference(a, b))
        .fold(0.0, f32::max);
    assert!(clear.len() >= 20, "only {} clear pieces", clear.len());
    assert_eq!(agree, clear.len(), "pieces read with another label");
    assert!(error < 0.02, "a probability moved by {error}");
}
