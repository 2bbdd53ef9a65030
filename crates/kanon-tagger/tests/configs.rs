//! The committed examples `configs/train.toml` and `configs/detect.toml`.
#![allow(clippy::unwrap_used)]

use std::path::Path;

use kanon_tagger::{DetectConfig, TrainConfig};

/// `configs/NAME` as committed: what `save` writes for `value`, and what `load` reads back. With
/// `KANON_WRITE_CONFIGS=1` the file is written instead (after a change of the config's fields).
fn check_example<T: PartialEq + std::fmt::Debug>(
    name: &str,
    value: &T,
    save: impl Fn(&T, &Path) -> Result<(), Box<dyn std::error::Error>>,
    load: impl Fn(&Path) -> Result<T, Box<dyn std::error::Error>>,
) {
    let example = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../configs")
        .join(name);
    if std::env::var_os("KANON_WRITE_CONFIGS").is_some() {
        save(value, &example).unwrap();
    }
    let dir = tempfile::tempdir().unwrap();
    let written = dir.path().join(name);
    save(value, &written).unwrap();
    assert_eq!(
        std::fs::read_to_string(&written).unwrap(),
        std::fs::read_to_string(&example).unwrap(),
        "configs/{name} is not what save() writes: regenerate it with KANON_WRITE_CONFIGS=1 cargo test"
    );
    assert_eq!(&load(&example).unwrap(), value);
}

#[test]
fn the_train_example_is_the_default_config() {
    check_example(
        "train.toml",
        &TrainConfig::default(),
        |config, path| Ok(config.save(path)?),
        |path| Ok(TrainConfig::load(path)?),
    );
}

#[test]
fn the_detect_example_masks_from_a_probability_of_five_percent() {
    let config = DetectConfig {
        threshold: Some(0.05),
        ..DetectConfig::default()
    };
    check_example(
        "detect.toml",
        &config,
        |config, path| Ok(config.save(path)?),
        |path| Ok(DetectConfig::load(path)?),
    );
}
