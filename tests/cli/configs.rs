//! The committed examples of `configs/`: each is exactly what its struct's `save()` writes, and
//! `load()` reads it back to the same value. With `KANON_WRITE_CONFIGS=1` the files are written
//! instead (after a change of a config's fields).

use std::fmt::Debug;
use std::path::Path;

use kanon_core::config::ConfigFile;
use kanon_llm::LlmConfig;
use kanon_sanitize::SanitizerConfig;
use kanon_tagger::{DetectConfig, TrainConfig};

use crate::common::repo_root;

fn check_example<T: ConfigFile + PartialEq + Debug>(name: &str, value: &T) {
    let example = repo_root().join("configs").join(name);
    if std::env::var_os("KANON_WRITE_CONFIGS").is_some() {
        value.save(&example).unwrap();
    }
    let dir = tempfile::tempdir().unwrap();
    let written = dir.path().join(name);
    value.save(&written).unwrap();
    assert_eq!(
        read(&written),
        read(&example),
        "configs/{name} is not what save() writes: regenerate it with KANON_WRITE_CONFIGS=1"
    );
    assert_eq!(&T::load(&example).unwrap(), value);
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

#[test]
fn the_train_example_is_the_default_config() {
    check_example("train.toml", &TrainConfig::default());
}

#[test]
fn the_detect_example_masks_from_a_probability_of_five_percent() {
    let config = DetectConfig {
        threshold: Some(0.05),
        ..DetectConfig::default()
    };
    check_example("detect.toml", &config);
}

#[test]
fn the_sanitize_example_is_the_default_config() {
    check_example("sanitize.toml", &SanitizerConfig::default());
}

#[test]
fn the_http_example_names_an_openai_compatible_server() {
    let config = LlmConfig::Http {
        url: "http://localhost:8000/v1".into(),
        servers: Vec::new(),
        model: "mistral-7b-instruct".into(),
        api_key_env: Some("OPENAI_API_KEY".into()),
        timeout_seconds: 120,
        retries: 4,
        max_in_flight: 4,
    };
    check_example("llm-http.toml", &config);
}

#[test]
fn the_run_configs_load_and_give_every_stage_its_inputs() {
    use kanon_pipeline::{Pipeline, RunConfig, Stage};
    let expected: [(&str, &[Stage]); 5] = [
        ("demo.toml", &Stage::ALL),
        ("corpus.toml", &[Stage::Kg, Stage::Index, Stage::Label]),
        (
            "detector.toml",
            &[
                Stage::Kg,
                Stage::Index,
                Stage::Label,
                Stage::Train,
                Stage::Detect,
                Stage::Sanitize,
                Stage::Eval,
            ],
        ),
        ("wiki553.toml", &[Stage::Sanitize, Stage::Eval]),
        ("tab.toml", &[Stage::Sanitize, Stage::Eval]),
    ];
    for (name, stages) in expected {
        let path = repo_root().join("configs").join(name);
        let config = RunConfig::load_with(&path, &[]).unwrap();
        let configured: Vec<Stage> = Stage::ALL
            .into_iter()
            .filter(|stage| config.has(*stage))
            .collect();
        assert_eq!(configured, stages, "{name}");
        let dir = tempfile::tempdir().unwrap();
        Pipeline::new(config, dir.path()).unwrap();
    }
}
