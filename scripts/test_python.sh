#!/usr/bin/env bash
# The Python package's tests: build the wheel with maturin from crates/kanon-py (release profile,
# beside the workspace's own build so that its compiled crates are reused), install it into a
# virtual environment under the target directory, and run pytest on crates/kanon-py/pytests.
# maturin and pytest come from PyPI (pinned). Usage: scripts/test_python.sh [pytest args...]
set -euo pipefail
cd "$(dirname "$0")/.."

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
venv="$CARGO_TARGET_DIR/python-venv"
python="${PYTHON:-python3}"
if [ ! -x "$venv/bin/python" ]; then
    "$python" -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    "maturin==1.16.0" "pytest==9.2.0"

wheels="$CARGO_TARGET_DIR/wheels"
rm -rf "$wheels"
# `linux` rather than a manylinux tag: the wheel is for this machine (llama.cpp links the
# system's OpenMP runtime, which manylinux does not allow); stripped, as a release wheel is.
"$venv/bin/maturin" build --release --strip --compatibility linux \
    --manifest-path crates/kanon-py/Cargo.toml --interpreter "$venv/bin/python" --out "$wheels"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --force-reinstall \
    --no-deps "$wheels"/kanon-*.whl
ls -l "$wheels"
# From the tests' folder, so that `import kanon` is the installed wheel.
cd crates/kanon-py/pytests
"$venv/bin/python" -m pytest -q "$@" .
