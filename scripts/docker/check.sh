#!/usr/bin/env bash
# The container recipe's steps without Docker (for a machine that cannot reach an image
# registry, as CI's): scripts/docker/build.sh into a scratch PREFIX, then scripts/docker/smoke.sh
# on it. Usage: scripts/docker/check.sh [PREFIX] (default: target/docker-prefix).
set -euo pipefail
cd "$(dirname "$0")/../.."
prefix="${1:-${CARGO_TARGET_DIR:-$PWD/target}/docker-prefix}"
scripts/docker/build.sh "$prefix"
scripts/docker/smoke.sh "$prefix"
