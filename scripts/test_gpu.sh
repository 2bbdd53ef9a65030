#!/usr/bin/env bash
# The GPU features, compiled and tested on a machine with or without a GPU (CI runs this after the
# workspace tests): kanon-tagger built with `cuda` (against scripts/cuda_llvm.sh's LLVM 22, so
# offline) and `wgpu`, linked into its tests, which then
#   - check device selection (`--device` names, a runtime the build lacks refused by name), and
#   - train a tiny BERT on the first CUDA and the first wgpu device, against the same run on the
#     CPU (losses, weights), resume a run interrupted on the CPU on the GPU and back, and predict
#     the same spans on both. Mesa's lavapipe (Debian's mesa-vulkan-drivers) stands in for a GPU
#     where there is none; with no device at all the test says it skipped (it fails instead when
#     KANON_REQUIRE_GPU_DEVICE is set, as .ci/run sets it).
#
#   scripts/test_gpu.sh            # both features
#   KANON_GPU_FEATURES=wgpu scripts/test_gpu.sh
set -euo pipefail
cd "$(dirname "$0")/.."

features="${KANON_GPU_FEATURES:-cuda,wgpu}"
if [[ ",$features," == *",cuda,"* ]] && ! scripts/cuda_llvm.sh --check; then
    scripts/cuda_llvm.sh
fi
# burn loads a resumed run's optimiser state on its default device, which a GPU build makes the
# GPU; the kanon binary sets this itself (crates/kanon-cli/src/main.rs).
export BURN_DEVICE="${BURN_DEVICE:-flex}"
cargo test --release -p kanon-tagger --features "$features" --lib --test train
