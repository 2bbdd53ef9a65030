//! A whole (tiny) training run: a pretrained checkpoint of a tiny random BERT, a small corpus, a
//! few steps, the checkpoint directory, loading it back, and determinism given a seed.
#![allow(clippy::unwrap_used, clippy::print_stderr)]

use std::path::Path;

use burn::tensor::Device;
use kanon_core::NoProgress;
use kanon_tagger::device::DeviceChoice;
use kanon_tagger::inference::Tagger;
use kanon_tagger::train::{TrainConfig, TrainJob, TrainOptions, resume_dir, run};

/// burn's device RNG (dropout, initialisation) is process-wide: tests that compare runs for
/// determinism must not let another test draw from it meanwhile.
static RNG: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    RNG.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

const WORDS: &str = "the writer was born in vienna paris london berlin 1992 1990 and works lives she he lilian albano tomas varga";

fn write_pretrained(dir: &Path) {
    let words: Vec<&str> = std::iter::once(".").chain(WORDS.split(' ')).collect();
    kanon_tagger::testing::write_tiny_pretrained(dir, &words, 1).unwrap();
}

fn write_corpus(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let doc = |id: usize, name: &str, city: &str, year: &str| {
        let text = format!("{name} was born in {city} in {year} and works in paris .");
        let start = |s: &str| text.find(s).unwrap();
        serde_json::json!({"id": format!("d{id}"), "person": "p", "text": text, "split": "train", "spans": [
            {"start": 0, "end": name.len(), "label": "MASK", "type": "PERSON"},
            {"start": start(city), "end": start(city) + city.len(), "label": "MASK", "type": "LOC"},
            {"start": start(year), "end": start(year) + year.len(), "label": "MASK", "type": "DATETIME"},
        ]})
        .to_string()
    };
    let names = ["lilian albano", "tomas varga"];
    let cities = ["vienna", "london", "berlin"];
    let lines: Vec<String> = (0..24)
        .map(|i| {
            doc(
                i,
                names[i % 2],
                cities[i % 3],
                if i % 2 == 0 { "1992" } else { "1990" },
            )
        })
        .collect();
    std::fs::write(dir.join("train.jsonl"), lines[..20].join("\n")).unwrap();
    std::fs::write(dir.join("dev.jsonl"), lines[20..].join("\n")).unwrap();
    std::fs::write(dir.join("manifest.json"), r#"{"corpus_format_version": 1}"#).unwrap();
}

/// The trained classifier head's weights of the checkpoint in `dir`, loaded on `device`.
fn classifier_weights(dir: &Path, device: &Device) -> Vec<f32> {
    let model = Tagger::load(dir, device).unwrap().model;
    model
        .classifier
        .weight
        .val()
        .into_data()
        .try_to_vec::<f32>()
        .unwrap()
}

/// A training job on the tiny pretrained model.
fn job(pretrained: &Path, corpus: &Path, out: &Path, config: &TrainConfig) -> TrainJob {
    TrainJob {
        pretrained: pretrained.display().to_string(),
        corpus: corpus.to_owned(),
        out: out.to_owned(),
        config: config.clone(),
    }
}

fn config() -> TrainConfig {
    TrainConfig {
        learning_rate: 5e-3,
        epochs: 3,
        token_budget: 64,
        entity_weight: 2.0,
        ..TrainConfig::default()
    }
}

#[test]
fn trains_saves_and_reloads_deterministically() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    write_pretrained(&dir.path().join("pretrained"));
    write_corpus(&dir.path().join("corpus"));
    let out = dir.path().join("ckpt");
    let report = run(
        &job(
            &dir.path().join("pretrained"),
            &dir.path().join("corpus"),
            &out,
            &config(),
        ),
        &TrainOptions::default(),
        &NoProgress,
    )
    .unwrap();
    eprintln!("{report:?}");
    assert!(
        report.steps > 0 && report.last_loss < report.first_loss,
        "{report:?}"
    );
    for file in [
        "config.json",
        "labels.json",
        "model.safetensors",
        "tokenizer.json",
        "train_config.json",
    ] {
        assert!(out.join(file).exists(), "{file}");
    }
    let device = Device::flex();
    let tagger = Tagger::load(&out, &device).unwrap();
    let spans = tagger
        .predict("tomas varga was born in berlin in 1990 .")
        .unwrap();
    for (span, _, score) in &spans {
        assert!(span.end <= 38 && (0.0..=1.0).contains(score));
    }

    // Windows of several texts batched by length predict what each text alone does.
    let texts = [
        "tomas varga was born in berlin in 1990 .",
        "she works in paris .",
        "",
        "lilian albano was born in vienna in 1992 and works in london and lives in paris . she was born in 1992 .",
    ];
    let alone: Vec<_> = texts.iter().map(|t| tagger.predict(t).unwrap()).collect();
    for budget in [16, 64, 4096] {
        let together = tagger.predict_many(&texts, budget).unwrap();
        assert_eq!(together.len(), texts.len());
        for (a, b) in alone.iter().zip(&together) {
            assert_eq!(a.len(), b.len(), "budget {budget}");
            for ((sa, ta, pa), (sb, tb, pb)) in a.iter().zip(b) {
                assert_eq!((sa, ta), (sb, tb), "budget {budget}");
                assert!((pa - pb).abs() < 1e-4, "budget {budget}: {pa} vs {pb}");
            }
        }
    }

    // The same seed gives the same weights.
    let again = dir.path().join("ckpt2");
    run(
        &job(
            &dir.path().join("pretrained"),
            &dir.path().join("corpus"),
            &again,
            &config(),
        ),
        &TrainOptions::default(),
        &NoProgress,
    )
    .unwrap();
    let weights = |dir: &Path| classifier_weights(dir, &device);
    assert_eq!(weights(&out), weights(&again));
}

#[test]
fn an_interrupted_run_resumes_to_the_same_weights() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let pretrained = dir.path().join("pretrained");
    let corpus = dir.path().join("corpus");
    write_pretrained(&pretrained);
    write_corpus(&corpus);
    let config = TrainConfig {
        checkpoint_every: 2,
        ..config()
    };
    let whole = dir.path().join("whole");
    let report = run(
        &job(&pretrained, &corpus, &whole, &config),
        &TrainOptions::default(),
        &NoProgress,
    )
    .unwrap();
    assert!(!report.interrupted && report.steps > 5, "{report:?}");
    assert!(
        !resume_dir(&whole).exists(),
        "a finished run leaves no state"
    );

    // Stop mid-epoch, after step 3 (one step past a periodic save).
    let parts = dir.path().join("parts");
    let stop_at_3 = |step: usize| step == 3;
    let first = run(
        &job(&pretrained, &corpus, &parts, &config),
        &TrainOptions {
            resume: false,
            should_stop: Some(&stop_at_3),
            ..TrainOptions::default()
        },
        &NoProgress,
    )
    .unwrap();
    assert!(first.interrupted && first.steps == 3, "{first:?}");
    assert!(resume_dir(&parts).join("state.json").exists());

    // Without --resume the saved state is not silently overwritten.
    let refused = run(
        &job(&pretrained, &corpus, &parts, &config),
        &TrainOptions::default(),
        &NoProgress,
    )
    .unwrap_err();
    assert!(refused.to_string().contains("--resume"), "{refused}");

    // Another config is refused too.
    let other = TrainConfig {
        learning_rate: 1e-3,
        ..config.clone()
    };
    let resume = TrainOptions {
        resume: true,
        should_stop: None,
        ..TrainOptions::default()
    };
    let mismatch = run(
        &job(&pretrained, &corpus, &parts, &other),
        &resume,
        &NoProgress,
    )
    .unwrap_err();
    assert!(mismatch.to_string().contains("config"), "{mismatch}");

    let rest = run(
        &job(&pretrained, &corpus, &parts, &config),
        &resume,
        &NoProgress,
    )
    .unwrap();
    assert_eq!(rest.resumed_at_step, Some(3));
    assert_eq!(rest.steps, report.steps);
    assert_eq!(rest.dev_f1_by_epoch, report.dev_f1_by_epoch);
    assert!(!resume_dir(&parts).exists());

    let device = Device::flex();
    let weights = |dir: &Path| classifier_weights(dir, &device);
    assert_eq!(weights(&whole), weights(&parts));

    // Stopped on its very last step, a run still owes that epoch's dev evaluation and the
    // checkpoint: the resumed run does them.
    let last = dir.path().join("last");
    let total = report.steps;
    let stop_at_last = move |step: usize| step == total;
    let first = run(
        &job(&pretrained, &corpus, &last, &config),
        &TrainOptions {
            should_stop: Some(&stop_at_last),
            ..TrainOptions::default()
        },
        &NoProgress,
    )
    .unwrap();
    assert!(first.interrupted && first.steps == total, "{first:?}");
    let rest = run(
        &job(&pretrained, &corpus, &last, &config),
        &resume,
        &NoProgress,
    )
    .unwrap();
    assert_eq!(rest.resumed_at_step, Some(total));
    assert_eq!(rest.dev_f1_by_epoch, report.dev_f1_by_epoch);
    assert_eq!(weights(&whole), weights(&last));
}

#[test]
fn a_corrupt_resume_state_is_a_clear_error() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let pretrained = dir.path().join("pretrained");
    let corpus = dir.path().join("corpus");
    write_pretrained(&pretrained);
    write_corpus(&corpus);
    let out = dir.path().join("ckpt");
    let state = resume_dir(&out);
    std::fs::create_dir_all(&state).unwrap();
    std::fs::write(state.join("state.json"), r#"{"format_version": 99}"#).unwrap();
    let resume = TrainOptions {
        resume: true,
        should_stop: None,
        ..TrainOptions::default()
    };
    let error = run(
        &job(&pretrained, &corpus, &out, &config()),
        &resume,
        &NoProgress,
    )
    .unwrap_err();
    let message = error.to_string();
    assert!(
        message.contains("state.json") && message.contains("format_version"),
        "{message}"
    );
}

/// The GPU devices this build and machine have: the first CUDA and the first wgpu device (a software
/// Vulkan such as Mesa's lavapipe counts: it runs the same device-generic code).
fn gpu_devices() -> Vec<Device> {
    [DeviceChoice::Cuda(0), DeviceChoice::Wgpu(0)]
        .into_iter()
        .filter_map(|choice| choice.resolve().ok())
        .collect()
}

#[test]
fn trains_on_a_gpu_and_resumes_across_devices() {
    let gpus = gpu_devices();
    // CI installs a software Vulkan for this test: there, a missing device is a failure.
    if gpus.is_empty() && std::env::var_os("KANON_REQUIRE_GPU_DEVICE").is_some() {
        panic!(
            "KANON_REQUIRE_GPU_DEVICE is set but no GPU device was found (runtimes in this build: {:?})",
            kanon_tagger::device::compiled_runtimes()
        );
    }
    if gpus.is_empty() {
        eprintln!(
            "skipped: no GPU device (runtimes in this build: {:?}; build with --features \
             cuda or wgpu, and for wgpu without a GPU install Mesa's lavapipe, Debian's \
             mesa-vulkan-drivers)",
            kanon_tagger::device::compiled_runtimes()
        );
        return;
    }
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let pretrained = dir.path().join("pretrained");
    let corpus = dir.path().join("corpus");
    write_pretrained(&pretrained);
    // Without dropout a step is the same arithmetic on every device: the runs can be compared.
    let config_path = pretrained.join("config.json");
    let mut hf: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&config_path).unwrap()).unwrap();
    hf["hidden_dropout_prob"] = 0.0.into();
    hf["attention_probs_dropout_prob"] = 0.0.into();
    std::fs::write(&config_path, hf.to_string()).unwrap();
    write_corpus(&corpus);
    let config = TrainConfig {
        epochs: 2,
        checkpoint_every: 2,
        ..config()
    };
    let train = |out: &str, device: &Device, resume: bool, stop_at: Option<usize>| {
        let should_stop = move |step: usize| Some(step) == stop_at;
        run(
            &job(&pretrained, &corpus, &dir.path().join(out), &config),
            &TrainOptions {
                device: device.clone(),
                resume,
                should_stop: Some(&should_stop),
            },
            &NoProgress,
        )
        .unwrap()
    };
    let cpu = Device::flex();
    let weights = |out: &str| classifier_weights(&dir.path().join(out), &cpu);
    let max_difference = |a: &[f32], b: &[f32]| {
        a.iter()
            .zip(b)
            .map(|(x, y)| (x - y).abs())
            .fold(0.0f32, f32::max)
    };
    let on_cpu = train("cpu", &cpu, false, None);
    for gpu in gpus {
        let name = kanon_tagger::device::describe(&gpu);
        eprintln!("training on {name}");
        let on_gpu = train("gpu", &gpu, false, None);
        assert_eq!(on_gpu.steps, on_cpu.steps, "{name}");
        assert!(
            (on_gpu.first_loss - on_cpu.first_loss).abs() < 1e-4 * on_cpu.first_loss.abs(),
            "{name}: first loss {} on the GPU, {} on the CPU",
            on_gpu.first_loss,
            on_cpu.first_loss
        );
        let difference = max_difference(&weights("gpu"), &weights("cpu"));
        assert!(difference < 1e-3, "{name}: weights differ by {difference}");

        // A run interrupted on the CPU resumes on the GPU, and one interrupted on the GPU
        // resumes on the CPU: the state files are the same.
        for (first, second, out) in [(&cpu, &gpu, "cpu-then-gpu"), (&gpu, &cpu, "gpu-then-cpu")] {
            let part = train(out, first, false, Some(3));
            assert!(
                part.interrupted && part.steps == 3,
                "{name} {out}: {part:?}"
            );
            let rest = train(out, second, true, None);
            assert_eq!(rest.resumed_at_step, Some(3), "{name} {out}");
            let difference = max_difference(&weights(out), &weights("cpu"));
            assert!(
                difference < 1e-3,
                "{name} {out}: weights differ by {difference}"
            );
        }

        // The trained model predicts on the GPU what it predicts on the CPU.
        let text = "lilian albano was born in vienna in 1992 and works in paris .";
        let on_cpu_spans = Tagger::load(&dir.path().join("gpu"), &cpu)
            .unwrap()
            .predict(text)
            .unwrap();
        let on_gpu_spans = Tagger::load(&dir.path().join("gpu"), &gpu)
            .unwrap()
            .predict(text)
            .unwrap();
        assert_eq!(on_cpu_spans.len(), on_gpu_spans.len(), "{name}");
        for ((a, type_a, p), (b, type_b, q)) in on_cpu_spans.iter().zip(&on_gpu_spans) {
            assert_eq!((a, type_a), (b, type_b), "{name}");
            assert!((p - q).abs() < 1e-4, "{name}: {p} vs {q}");
        }
        for out in ["gpu", "cpu-then-gpu", "gpu-then-cpu"] {
            std::fs::remove_dir_all(dir.path().join(out)).unwrap();
        }
    }
}

#[test]
fn a_distilled_student_keeps_fewer_layers_and_round_trips() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let words: Vec<&str> = std::iter::once(".").chain(WORDS.split(' ')).collect();
    kanon_tagger::testing::write_tiny_pretrained_layers(
        &dir.path().join("pretrained"),
        &words,
        1,
        3,
    )
    .unwrap();
    write_corpus(&dir.path().join("corpus"));
    let corpus = dir.path().join("corpus");
    let teacher = dir.path().join("teacher");
    run(
        &job(&dir.path().join("pretrained"), &corpus, &teacher, &config()),
        &TrainOptions::default(),
        &NoProgress,
    )
    .unwrap();

    // A bare encoder is no teacher; nor is a student as deep as its teacher.
    let student_config = |layers| TrainConfig {
        student_layers: Some(layers),
        ..config()
    };
    let refused = run(
        &job(
            &dir.path().join("pretrained"),
            &corpus,
            &dir.path().join("s0"),
            &student_config(1),
        ),
        &TrainOptions::default(),
        &NoProgress,
    )
    .unwrap_err();
    assert!(format!("{refused}").contains("student_layers"), "{refused}");
    let refused = run(
        &job(
            &teacher,
            &corpus,
            &dir.path().join("s3"),
            &student_config(3),
        ),
        &TrainOptions::default(),
        &NoProgress,
    )
    .unwrap_err();
    assert!(format!("{refused}").contains("has 3 layers"), "{refused}");

    let student = dir.path().join("student");
    let report = run(
        &job(&teacher, &corpus, &student, &student_config(1)),
        &TrainOptions::default(),
        &NoProgress,
    )
    .unwrap();
    assert!(
        report.steps > 0 && report.last_loss.is_finite(),
        "{report:?}"
    );
    let config: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(student.join("config.json")).unwrap())
            .unwrap();
    assert_eq!(config["num_hidden_layers"], 1, "{config}");
    let saved: TrainConfig =
        serde_json::from_str(&std::fs::read_to_string(student.join("train_config.json")).unwrap())
            .unwrap();
    assert_eq!(saved.student_layers, Some(1));

    // Saved and loaded back, the student predicts as it did before saving (the teacher's
    // layers are gone from it: one layer's weights).
    let device = Device::flex();
    let tagger = Tagger::load(&student, &device).unwrap();
    assert_eq!(tagger.model.layers.len(), 1);
    let text = "tomas varga was born in berlin in 1990 .";
    let first = tagger.predict(text).unwrap();
    let again = Tagger::load(&student, &device)
        .unwrap()
        .predict(text)
        .unwrap();
    assert_eq!(first, again);
}
