//! The committed example `configs/sanitize.toml`.
#![allow(clippy::unwrap_used)]

use std::path::Path;

use kanon_sanitize::SanitizerConfig;

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
fn the_sanitize_example_is_the_default_config() {
    check_example(
        "sanitize.toml",
        &SanitizerConfig::default(),
        |config, path| Ok(config.save(path)?),
        |path| Ok(SanitizerConfig::load(path)?),
    );
}
