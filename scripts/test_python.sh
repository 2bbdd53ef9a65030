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

# The wheel reuses the workspace's compiled crates only while kanon-py's dependencies have the
# features the workspace turns on (crates/kanon-py/Cargo.toml says why): warn when they drift.
features() {
    cargo tree --offline --prefix none -f '{p} {f}' "$@" 2>/dev/null | sed 's/ (\*)//; s/ (proc-macro)//' | sort -u
}
drift="$(python3 - <(features -p kanon-py -e normal,build) <(features --workspace -e normal,build,dev) <<'PY'
import sys
from collections import defaultdict
def sets(path):
    found = defaultdict(set)
    for line in open(path):
        parts = line.split()
        if len(parts) >= 2:
            found[" ".join(parts[:2])].add(" ".join(p for p in parts[2:] if not p.startswith("(")))
    return found
package, workspace = sets(sys.argv[1]), sets(sys.argv[2])
print("; ".join(f"{name}: {sorted(package[name])} vs {sorted(workspace[name])}"
                for name in sorted(package) if name in workspace and package[name] != workspace[name]))
PY
)"
if [ -n "$drift" ]; then
    echo "warning: kanon-py's dependency features differ from the workspace's, so the wheel rebuilds them: $drift" >&2
fi

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
