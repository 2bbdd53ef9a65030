#!/usr/bin/env bash
# End-to-end speed and memory on the same texts and machine: kanon `detect`, kanon `detect` +
# `sanitize --strategy label`, and Presidio's analyzer + anonymizer (spaCy small English model).
# Each is run as a user runs it, a fresh process per command (model loading included), timed by
# /usr/bin/time for wall seconds and peak RSS; the best of REPEAT runs is reported.
#
#   scripts/bench_pipeline.sh KANON CHECKPOINT [DOCS] [REPEAT]
#
# KANON: the release binary; CHECKPOINT: a `kanon train` checkpoint directory; DOCS: default the
# wiki553 dev texts in ../shared/data; REPEAT: default 3. Presidio comes from a venv at
# $PRESIDIO_VENV (default /tmp/presidio; setup in scripts/presidio_pipeline.py).
set -euo pipefail
cd "$(dirname "$0")/.."

kanon="${1:?usage: scripts/bench_pipeline.sh KANON CHECKPOINT [DOCS] [REPEAT]}"
checkpoint="${2:?usage: scripts/bench_pipeline.sh KANON CHECKPOINT [DOCS] [REPEAT]}"
docs="${3:-../shared/data/wiki553/dev_100_tab_schema.json}"
repeat="${4:-3}"
presidio="${PRESIDIO_VENV:-/tmp/presidio}/bin/python"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

if [ ! -f "$docs" ]; then
    echo "no documents at $docs (the wiki553 dev set lives in ../shared/data)" >&2
    exit 1
fi
documents="$(python3 -c "
import json, sys
text = open(sys.argv[1], encoding='utf-8').read()
print(len(json.loads(text)) if text.lstrip().startswith('[') else sum(1 for l in text.splitlines() if l.strip()))
" "$docs")"

# Runs a command under /usr/bin/time; prints "seconds peak_kib".
measure() {
    /usr/bin/time -f "%e %M" -o "$work/time" "$@" > "$work/stdout" 2> "$work/stderr" || {
        cat "$work/stderr" >&2
        exit 1
    }
    cat "$work/time"
}

# The best (lowest) wall time of $repeat runs of a named step, with its peak RSS.
best() {
    local name="$1"
    shift
    local best_seconds="" best_kib=""
    for _ in $(seq "$repeat"); do
        read -r seconds kib < <(measure "$@")
        if [ -z "$best_seconds" ] || awk "BEGIN { exit !($seconds < $best_seconds) }"; then
            best_seconds="$seconds"
            best_kib="$kib"
        fi
    done
    echo "$name $best_seconds $best_kib"
}

best detect "$kanon" detect --model "$checkpoint" --docs "$docs" --out "$work/spans.jsonl" > "$work/detect"
best sanitize "$kanon" sanitize --docs "$docs" --spans "$work/spans.jsonl" --strategy label \
    --out "$work/sanitized.jsonl" > "$work/sanitize"
best presidio "$presidio" scripts/presidio_pipeline.py "$docs" "$work/presidio.jsonl" > "$work/presidio"

python3 - "$documents" "$work/detect" "$work/sanitize" "$work/presidio" <<'EOF'
import sys

documents = int(sys.argv[1])
rows = {}
for path in sys.argv[2:]:
    name, seconds, kib = open(path).read().split()
    rows[name] = (float(seconds), int(kib))
detect, sanitize, presidio = rows["detect"], rows["sanitize"], rows["presidio"]
pipeline = (detect[0] + sanitize[0], max(detect[1], sanitize[1]))
print(f"{documents} documents; wall seconds (best run) and peak RSS; each a fresh process")
print("| pipeline | seconds | documents/s | peak RSS |")
print("| --- | ---: | ---: | ---: |")
for name, (seconds, kib) in [
    ("kanon detect", detect),
    ("kanon sanitize --strategy label (the detected spans)", sanitize),
    ("kanon detect + sanitize", pipeline),
    ("Presidio analyzer + anonymizer", presidio),
]:
    print(f"| {name} | {seconds:.2f} | {documents / seconds:.1f} | {kib / 1024:.0f} MiB |")
print(f"sanitize adds {100 * sanitize[0] / detect[0]:.1f} % to detect's time; "
      f"kanon detect + sanitize runs at {presidio[0] / pipeline[0]:.2f}x Presidio's speed")
EOF
