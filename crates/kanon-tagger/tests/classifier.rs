//! The document classifier on a tiny random BERT: it learns four classes from their texts (and
//! names them in int8 too), its checkpoint round-trips, an interrupted training resumes to the same weights, and a damaged
//! classes file is a clear error.
#![allow(clippy::unwrap_used)]

use std::path::Path;

use burn::tensor::Device;
use kanon_core::NoProgress;
use kanon_tagger::checkpoint::Precision;
use kanon_tagger::classifier::{
    CLASSES_FILE, ClassifierConfig, ClassifierTrainJob, LabeledText, TextClassifier, train,
};
use kanon_tagger::train::TrainOptions;

const WORDS: &[&str] = &[
    "alba", "writes", "songs", "vienna", "boris", "plays", "chess", "oslo", "carla", "paints",
    "boats", "lima", "dario", "builds", "bridges", "cairo", "in", "and", "the",
];

/// burn's device RNG is process-wide: runs compared for determinism must not interleave.
static RNG: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn classes() -> Vec<String> {
    ["alba", "boris", "carla", "dario"]
        .map(String::from)
        .to_vec()
}

fn texts() -> Vec<LabeledText> {
    [
        "alba writes songs in vienna",
        "boris plays chess in oslo",
        "carla paints boats in lima",
        "dario builds bridges in cairo",
    ]
    .iter()
    .enumerate()
    .map(|(class, sentence)| LabeledText {
        class,
        text: [*sentence; 4].join(" and "),
    })
    .collect()
}

fn job(dir: &Path) -> ClassifierTrainJob {
    ClassifierTrainJob {
        pretrained: dir.join("pretrained").display().to_string(),
        out: dir.join("classifier"),
        config: ClassifierConfig {
            learning_rate: 2e-2,
            epochs: 30,
            batch_size: 4,
            warmup_ratio: 0.0,
            max_len: 12,
            max_windows: 4,
            mask_probability: 0.1,
            checkpoint_every: 0,
            ..ClassifierConfig::default()
        },
    }
}

#[test]
fn it_learns_the_classes_and_its_checkpoint_round_trips() {
    let _serial = RNG.lock().unwrap_or_else(|p| p.into_inner());
    let dir = tempfile::tempdir().unwrap();
    kanon_tagger::testing::write_tiny_pretrained(&dir.path().join("pretrained"), WORDS, 1).unwrap();
    let job = job(dir.path());
    let report = train(
        &job,
        &classes(),
        &texts(),
        &TrainOptions::default(),
        &NoProgress,
    )
    .unwrap();
    eprintln!("{report:?}");
    assert!(report.last_loss < report.first_loss, "{report:?}");
    let classifier = TextClassifier::load(&job.out, &Device::flex()).unwrap();
    assert_eq!(classifier.classes(), classes().as_slice());
    let queries = [
        "songs in vienna",
        "chess in oslo",
        "paints boats",
        "bridges cairo",
    ];
    let scores = classifier.scores(&queries).unwrap();
    for (class, row) in scores.iter().enumerate() {
        let best = (0..row.len())
            .max_by(|&a, &b| row[a].total_cmp(&row[b]))
            .unwrap();
        assert_eq!(best, class, "{:?} scored {row:?}", queries[class]);
    }
    // In int8 the classifier names the same classes, its log-probabilities within the
    // quantization error of f32's.
    let int8 = TextClassifier::load(&job.out, &Device::flex())
        .unwrap()
        .with_precision(Precision::Int8);
    let int8_scores = int8.scores(&queries).unwrap();
    for (class, (row, full)) in int8_scores.iter().zip(&scores).enumerate() {
        let best = (0..row.len())
            .max_by(|&a, &b| row[a].total_cmp(&row[b]))
            .unwrap();
        assert_eq!(best, class, "int8: {:?} scored {row:?}", queries[class]);
        for (a, b) in row.iter().zip(full) {
            assert!(
                (a - b).abs() < 0.1 * b.abs().max(1.0),
                "int8 {a} against f32 {b}"
            );
        }
    }
    assert_ne!(int8_scores, scores, "int8 computed nothing of its own");
    // A text longer than a window is scored over all its windows, and an empty one still scores.
    let long = ["vienna songs alba"; 10].join(" ");
    let scores = classifier.scores(&[&long, ""]).unwrap();
    assert_eq!(scores[1].len(), 4);
    assert!(scores[0][0] > scores[0][1]);

    std::fs::write(
        job.out.join(CLASSES_FILE),
        r#"{"format_version": 9, "names": ["a"], "max_len": 12}"#,
    )
    .unwrap();
    let err = TextClassifier::load(&job.out, &Device::flex())
        .unwrap_err()
        .to_string();
    assert!(err.contains("classes.json") && err.contains('9'), "{err}");
}

#[test]
fn an_interrupted_training_resumes_to_the_same_weights() {
    let _serial = RNG.lock().unwrap_or_else(|p| p.into_inner());
    let dir = tempfile::tempdir().unwrap();
    kanon_tagger::testing::write_tiny_pretrained(&dir.path().join("pretrained"), WORDS, 1).unwrap();
    let mut job = job(dir.path());
    job.config.epochs = 2;
    let whole = train(
        &job,
        &classes(),
        &texts(),
        &TrainOptions::default(),
        &NoProgress,
    )
    .unwrap();
    let probe = ["songs in vienna and chess", "bridges"];
    let scores = |dir: &Path| {
        TextClassifier::load(dir, &Device::flex())
            .unwrap()
            .scores(&probe)
            .unwrap()
    };
    let whole_scores = scores(&job.out);
    std::fs::remove_dir_all(&job.out).unwrap();

    let stop_at_3 = |step: usize| step == 3;
    let first = train(
        &job,
        &classes(),
        &texts(),
        &TrainOptions {
            should_stop: Some(&stop_at_3),
            ..TrainOptions::default()
        },
        &NoProgress,
    )
    .unwrap();
    assert!(first.interrupted && !job.out.exists());
    // Without asking to resume, the state left behind is not silently overwritten.
    let err = train(
        &job,
        &classes(),
        &texts(),
        &TrainOptions::default(),
        &NoProgress,
    )
    .unwrap_err();
    assert!(err.to_string().contains("resume"), "{err}");
    let resumed = train(
        &job,
        &classes(),
        &texts(),
        &TrainOptions {
            resume: true,
            ..TrainOptions::default()
        },
        &NoProgress,
    )
    .unwrap();
    assert_eq!(resumed.resumed_at_step, Some(3));
    assert_eq!(resumed.steps, whole.steps);
    assert_eq!(resumed.last_loss, whole.last_loss);
    assert_eq!(scores(&job.out), whole_scores);
}

#[test]
fn bad_settings_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let mut job = job(dir.path());
    job.config.mask_probability = 1.5;
    let err = train(
        &job,
        &classes(),
        &texts(),
        &TrainOptions::default(),
        &NoProgress,
    )
    .unwrap_err();
    assert!(err.to_string().contains("mask_probability"), "{err}");
    let job = self::job(dir.path());
    let wrong = [LabeledText {
        class: 7,
        text: "alba".into(),
    }];
    let err = train(
        &job,
        &classes(),
        &wrong,
        &TrainOptions::default(),
        &NoProgress,
    )
    .unwrap_err();
    assert!(err.to_string().contains("class 7"), "{err}");
}
