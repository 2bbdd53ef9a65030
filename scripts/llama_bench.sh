#!/usr/bin/env bash
# llama.cpp's own throughput figure for a GGUF, to put beside `kanon bench llm`.
#
# The llama-cpp-sys-2 crate vendors llama.cpp's library sources but not its tools, and GitHub is out
# of reach here, so llama-bench's source is taken from the llama-cpp-python sdist on PyPI (which
# vendors the whole llama.cpp tree) and built against the crate's own vendored llama.cpp — the same
# ggml kernels kanon links — with native CPU flags (llama.cpp's default build).
#
#   scripts/llama_bench.sh [GGUF] [THREADS]
#
# Needs cmake, a C++ compiler and pip; works in $KANON_LLAMA_BENCH_DIR (default /tmp/kanon-llama-bench).
set -euo pipefail
cd "$(dirname "$0")/.."

model="${1:-${KANON_MODELS_DIR:-$HOME/.cache/kanon/models}/smollm2-135m-instruct/SmolLM2-135M-Instruct.Q4_1.gguf}"
threads="${2:-$(nproc)}"
work="${KANON_LLAMA_BENCH_DIR:-/tmp/kanon-llama-bench}"
sdist_version="0.3.36"

if [ ! -f "$model" ]; then
    echo "no GGUF at $model (run: kanon models fetch smollm2-135m-instruct)" >&2
    exit 1
fi

sys_version="$(awk '/^name = "llama-cpp-sys-2"/ { getline; gsub(/[" ]/, "", $0); sub(/version=/, "", $0); print }' Cargo.lock)"
registry="${CARGO_HOME:-$HOME/.cargo}/registry/src"
vendored="$(ls -d "$registry"/*/"llama-cpp-sys-2-$sys_version"/llama.cpp 2>/dev/null | head -n 1 || true)"
if [ -z "$vendored" ]; then
    echo "llama-cpp-sys-2 $sys_version is not in $registry (run: cargo fetch)" >&2
    exit 1
fi

mkdir -p "$work"
if [ ! -d "$work/src" ]; then
    cp -r "$vendored" "$work/src.tmp"
    pip download --quiet --no-deps --no-binary :all: "llama-cpp-python==$sdist_version" -d "$work/sdist"
    tar -xzf "$work/sdist/llama_cpp_python-$sdist_version.tar.gz" -C "$work/sdist"
    mkdir -p "$work/src.tmp/tools/llama-bench"
    cp "$work/sdist/llama_cpp_python-$sdist_version/vendor/llama.cpp/tools/llama-bench/"* "$work/src.tmp/tools/llama-bench/"
    # Only llama-bench: the other tools' sources are not vendored either.
    cat > "$work/src.tmp/tools/CMakeLists.txt" <<'EOF'
find_package(Threads REQUIRED)
llama_add_compile_flags()
add_subdirectory(llama-bench)
EOF
    mv "$work/src.tmp" "$work/src"
fi

cmake -S "$work/src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=ON \
    -DLLAMA_BUILD_COMMON=ON -DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
    -DLLAMA_BUILD_SERVER=OFF -DLLAMA_BUILD_APP=OFF -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF >/dev/null
cmake --build "$work/build" --target llama-bench -j "$(nproc)" >/dev/null
"$work/build/bin/llama-bench" -m "$model" -t "$threads" -p 512 -n 128 -r 5
