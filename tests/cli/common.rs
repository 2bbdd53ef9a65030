//! What the end-to-end tests share: running the binary, small fixtures, and where the real data
//! and the cached models are (tests that need them skip with a message when they are absent).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs `kanon` in `cwd`.
pub fn kanon_in(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kanon"))
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("the kanon binary runs")
}

/// Runs `kanon` at the repository root.
pub fn kanon(args: &[&str]) -> Output {
    kanon_in(args, &repo_root())
}

/// The repository root (the bundled `kg/sample`, `corpora/sample`).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `kanon` in `cwd`, which must succeed; its standard output.
pub fn ok_in(args: &[&str], cwd: &Path) -> String {
    let out = kanon_in(args, cwd);
    assert!(
        out.status.success(),
        "kanon {args:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 output")
}

/// `kanon` at the repository root, which must succeed; its standard output.
pub fn ok(args: &[&str]) -> String {
    ok_in(args, &repo_root())
}

pub fn p(path: &Path) -> &str {
    path.to_str().expect("utf-8 temp path")
}

/// A file of `../shared/` (the real data, outside the repository), when it is there.
pub fn shared(relative: &str) -> Option<PathBuf> {
    let path = repo_root().join("../shared").join(relative);
    path.exists().then_some(path)
}

/// Synthesizes a small population and builds its index: (tempdir, kg, docs, index).
pub fn small_index(people: usize, seed: u64) -> (tempfile::TempDir, PathBuf, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let kg = dir.path().join("kg");
    let docs = dir.path().join("docs.jsonl");
    let index = dir.path().join("index");
    ok(&[
        "kg",
        "synth",
        "--people",
        &people.to_string(),
        "--seed",
        &seed.to_string(),
        "--out",
        p(&kg),
        "--docs",
        p(&docs),
    ]);
    ok(&["index", "build", "--kg", p(&kg), "--out", p(&index)]);
    (dir, kg, docs, index)
}

/// The MiniLM weights in the model cache, when `kanon models fetch all-minilm-l6-v2` has run.
pub fn cached_minilm() -> Option<PathBuf> {
    kanon_models::cached("all-minilm-l6-v2")
}

/// The SmolLM2 GGUF in the model cache, when `kanon models fetch smollm2-135m-instruct` has run.
pub fn cached_smollm2() -> Option<PathBuf> {
    kanon_models::cached("smollm2-135m-instruct")
}
