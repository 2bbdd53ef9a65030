#!/usr/bin/env bash
# Builds kanon for a GPU machine and gathers what it needs there into one directory, to copy to a
# machine that has an NVIDIA driver and nothing else (no toolkit, no registry, no internet), and
# packs that directory into OUT_DIR.tar.xz (what travels; scripts/device_check.sh unpacks it).
#
#   scripts/gpu_bundle.sh [OUT_DIR]          # default target/gpu-bundle (+ target/gpu-bundle.tar.xz)
#
# kanon is built with cargo's `release-gpu` profile (Cargo.toml: release without debug tables, in
# target/release-gpu) and without the embedded llama.cpp runtime (kanon-cli's default feature
# `embedded-llm`): the GPU machine trains and detects; `--llm` there takes a server URL.
#
# Environment:
#   KANON_GPU_FEATURES   cargo features of kanon-cli (default "cuda,wgpu"; add "embedded-llm"
#                        for llama.cpp)
#   KANON_GPU_PROFILE    cargo profile (default "release-gpu")
#   KANON_BUNDLE_XZ      xz's options for the archive (default "-9e"; "none": no archive)
#   KANON_LIBDEVICE      libdevice.10.bc to use; else $CUDA_PATH/nvvm/libdevice/libdevice.10.bc,
#                        else extracted from PyPI's nvidia-cuda-nvcc-cu12 wheel (pip download;
#                        KANON_WHEELS=DIR reads the wheel from DIR instead)
#
# What the directory holds (docs/gpu.md, "On a GPU machine"):
#   bin/kanon                    the CLI with the GPU runtimes, stripped
#   cuda/nvvm/libdevice/...      NVIDIA's libdevice: the CUDA kernels' erf, exp, tanh… (GELU and
#                                softmax need them); found through CUDA_PATH
#   lib/libvulkan.so.1           the Vulkan loader, for machines that lack one (wgpu feature)
#   kanon                        wrapper: sets CUDA_PATH and the library path, runs bin/kanon
#   MANIFEST                     versions and sha256 of every file
# The models (`kanon models fetch`) are not in it: copy ~/.cache/kanon/models along, or point
# KANON_CACHE at a copy.
set -euo pipefail
cd "$(dirname "$0")/.."

out="${1:-target/gpu-bundle}"
out="${out%/}"
features="${KANON_GPU_FEATURES:-cuda,wgpu}"
profile="${KANON_GPU_PROFILE:-release-gpu}"
xz_options="${KANON_BUNDLE_XZ:--9e}"
target_dir="${CARGO_TARGET_DIR:-$PWD/target}"

if [[ ",$features," == *",cuda,"* ]] && ! scripts/cuda_llvm.sh --check; then
    # Offline, burn-cuda's build would try to download its LLVM bundle.
    scripts/cuda_llvm.sh
fi

echo "gpu_bundle: building kanon-cli with features $features (profile $profile)" >&2
cargo build --profile "$profile" -p kanon-cli --no-default-features --features "$features"
# cargo's directory of a profile: `dev` builds into debug/, the others into their own name.
case "$profile" in dev) profile_dir=debug ;; *) profile_dir="$profile" ;; esac
binary="$target_dir/$profile_dir/kanon"

tmp="$(mktemp -d "$out.tmp.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" "$tmp/lib"
cp "$binary" "$tmp/bin/kanon"
strip "$tmp/bin/kanon"

if [[ ",$features," == *",cuda,"* ]]; then
    libdevice="${KANON_LIBDEVICE:-}"
    if [ -z "$libdevice" ] && [ -n "${CUDA_PATH:-}" ] &&
        [ -f "$CUDA_PATH/nvvm/libdevice/libdevice.10.bc" ]; then
        libdevice="$CUDA_PATH/nvvm/libdevice/libdevice.10.bc"
    fi
    if [ -z "$libdevice" ]; then
        wheels="${KANON_WHEELS:-$tmp/wheels}"
        if ! compgen -G "$wheels/nvidia_cuda_nvcc_cu12-*.whl" >/dev/null; then
            python3 -m pip download --quiet nvidia-cuda-nvcc-cu12 --no-deps --only-binary=:all: \
                --platform manylinux2014_x86_64 --python-version 3.11 -d "$wheels"
        fi
        wheel="$(compgen -G "$wheels/nvidia_cuda_nvcc_cu12-*.whl" | sort | tail -n 1)"
        python3 - "$wheel" "$tmp/libdevice.10.bc" <<'EOF'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as wheel:
    name = next(n for n in wheel.namelist() if n.endswith("nvvm/libdevice/libdevice.10.bc"))
    with open(sys.argv[2], "wb") as out:
        out.write(wheel.read(name))
EOF
        libdevice="$tmp/libdevice.10.bc"
        echo "gpu_bundle: libdevice from $(basename "$wheel")" >&2
    fi
    mkdir -p "$tmp/cuda/nvvm/libdevice"
    cp "$libdevice" "$tmp/cuda/nvvm/libdevice/libdevice.10.bc"
    rm -rf "$tmp/wheels" "$tmp/libdevice.10.bc"
fi

if [[ ",$features," == *",wgpu,"* ]]; then
    # awk reads to the end: an early exit would kill ldconfig with SIGPIPE, fatal under pipefail.
    loader="$(ldconfig -p | awk '/libvulkan\.so\.1 .*x86-64/ && !found {print $NF; found = 1}')"
    if [ -n "$loader" ]; then
        cp -L "$loader" "$tmp/lib/libvulkan.so.1"
    else
        echo "gpu_bundle: no Vulkan loader here (apt-get install libvulkan1); the GPU machine needs its own" >&2
    fi
fi

cat >"$tmp/kanon" <<'EOF'
#!/usr/bin/env bash
# kanon from a GPU bundle: the kernels' math library and, where the machine has none, the Vulkan
# loader come from this directory; everything else is the machine's (the NVIDIA driver).
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [ -d "$here/cuda" ] && [ -z "${CUDA_PATH:-}" ]; then export CUDA_PATH="$here/cuda"; fi
if ! ldconfig -p 2>/dev/null | grep 'libvulkan\.so\.1' >/dev/null; then
    export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
exec "$here/bin/kanon" "$@"
EOF
chmod +x "$tmp/kanon"

{
    echo "kanon GPU bundle"
    echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (modified)')"
    echo "features: $features (profile $profile)"
    echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -m)"
    if [[ ",$features," == *",cuda,"* ]]; then
        echo "llvm: $(cat "${XDG_DATA_HOME:-$HOME/.local/share}/tracel/tracel-llvm-23.1.0-4/.tracel-llvm-installed" 2>/dev/null || echo 'tracel-llvm 23.1.0-4 (downloaded)')"
    fi
    echo
    (cd "$tmp" && find . -type f ! -name MANIFEST -print0 | sort -z | xargs -0 sha256sum)
} >"$tmp/MANIFEST"

rm -rf "$out"
mv "$tmp" "$out"
trap - EXIT
mib() { echo "$(($(stat -c %s "$1") / 1048576)) MiB"; }
echo "gpu_bundle: $binary $(mib "$binary"), stripped $(mib "$out/bin/kanon"); $out $(du -sm "$out" | cut -f1) MiB" >&2

if [ "$xz_options" != "none" ]; then
    # One archive of one directory, to carry to the GPU machine and unpack there.
    archive="$out.tar.xz"
    tar -C "$(dirname "$out")" -cf - "$(basename "$out")" | xz -T0 $xz_options >"$archive.tmp"
    mv "$archive.tmp" "$archive"
    echo "gpu_bundle: $archive $(mib "$archive") (xz $xz_options)" >&2
fi
echo "$out"
