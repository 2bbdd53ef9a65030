//! What a test does when a real model or the shared data it needs is absent: it skips, saying so
//! on a line of its own, unless the environment requires the real thing, when it fails.
//! `.ci/run` fetches the models and sets `KANON_REQUIRE_MODELS=1`, and sets
//! `KANON_REQUIRE_SHARED=1` when `../shared` exists, so that on CI nothing that should run is
//! skipped (docs/testing.md).
//!
//! ```no_run
//! use kanon_core::testing::{Requirement, skip};
//!
//! let cached: Option<std::path::PathBuf> = None;
//! let Some(model) = cached else {
//!     skip(Requirement::Model("all-minilm-l6-v2"));
//!     return;
//! };
//! # let _ = model;
//! ```

use std::io::Write;

/// What a test needs that a fresh machine may lack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Requirement {
    /// A model of kanon's cache, by name (`kanon models fetch NAME`).
    Model(&'static str),
    /// A file or directory of the shared data, relative to `../shared/data`.
    SharedData(&'static str),
}

impl Requirement {
    /// The environment variable that, set to `1`, makes the requirement's absence a failure.
    pub fn variable(self) -> &'static str {
        match self {
            Requirement::Model(_) => "KANON_REQUIRE_MODELS",
            Requirement::SharedData(_) => "KANON_REQUIRE_SHARED",
        }
    }

    fn missing(self) -> String {
        match self {
            Requirement::Model(name) => {
                format!("model {name} is not cached (kanon models fetch {name})")
            }
            Requirement::SharedData(path) => format!("../shared/data/{path} is absent"),
        }
    }

    /// Whether the environment requires it: its absence is then a failure, not a skip.
    pub fn required(self) -> bool {
        std::env::var(self.variable()).is_ok_and(|value| value == "1")
    }
}

/// Called by a test (or the part of one) that cannot run because `requirement` is absent: prints
/// `skipped <test>: <what is missing>` straight to the process's standard error, past the test
/// harness's capture, so that the log of a passing run shows every skip; the caller then returns.
/// Panics instead when the environment requires it ([`Requirement::required`]).
#[track_caller]
pub fn skip(requirement: Requirement) {
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("a test");
    let missing = requirement.missing();
    if requirement.required() {
        panic!(
            "{test}: {missing}, and {}=1 says it must run",
            requirement.variable()
        );
    }
    // `eprintln!` would be captured with the output of a passing test, and so never seen.
    let _ = writeln!(std::io::stderr(), "skipped {test}: {missing}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_what_is_missing_and_how_to_get_it() {
        assert_eq!(
            Requirement::Model("smollm2-135m-instruct").missing(),
            "model smollm2-135m-instruct is not cached (kanon models fetch smollm2-135m-instruct)"
        );
        assert_eq!(
            Requirement::SharedData("wiki553").variable(),
            "KANON_REQUIRE_SHARED"
        );
    }
}
