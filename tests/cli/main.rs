//! End-to-end tests over the `kanon` binary with small fixtures: what a user runs and reads. One
//! module per command; `common` runs the binary and finds the real data and cached models.
#![allow(clippy::unwrap_used, clippy::print_stderr)]

mod common;
mod configs;
mod detect_methods;
mod eval;
mod index;
mod kg;
mod label;
mod run;
mod sanitize;
mod shard;
mod train_detect;
