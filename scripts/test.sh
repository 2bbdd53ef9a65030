#!/usr/bin/env bash
# The test suite: the workspace's tests, then the Python package's (its wheel built by maturin
# and tested with pytest, scripts/test_python.sh). What .ci/run runs; arguments go to cargo test.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --release --workspace "$@"
scripts/test_python.sh
