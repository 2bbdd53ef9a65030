#!/usr/bin/env bash
# Documents per second of each detector of `kanon detect` over the same documents, one after the
# other (run it with nothing else on the machine). Every method's own summary line is printed;
# the reid-greedy model must already be trained (its training is not part of the figure).
#
#   scripts/bench_detectors.sh DOCS.jsonl BACKGROUND.json TAGGER_CKPT REID_MODEL_DIR [OUT_DIR]
#
# DOCS.jsonl documents carry `person` (the background name), as reid-greedy and ner-lexical need.
set -euo pipefail
docs=$1 background=$2 tagger=$3 reid=$4 out=${5:-$(mktemp -d)}
kanon=${KANON:-target/release/kanon}
mkdir -p "$out"
run() {
    local name=$1
    shift
    rm -f "$out/$name.jsonl" "$out/$name.jsonl.partial"
    local start end
    start=$(date +%s.%N)
    "$kanon" detect "$@" --docs "$docs" --out "$out/$name.jsonl" > "$out/$name.log" 2>&1
    end=$(date +%s.%N)
    local n
    n=$(wc -l < "$out/$name.jsonl")
    printf '%-14s %5d documents %8.1f s wall %9.2f documents/s\n' "$name" "$n" \
        "$(echo "$end - $start" | bc)" "$(echo "$n / ($end - $start)" | bc -l)"
}
run tagger --model "$tagger" --threshold 0.2
run idf idf --budget 0.3 --background "$background"
run ner-lexical ner-lexical --background "$background"
run ic-threshold ic-threshold --p 1e-3
run reid-greedy reid-greedy --reid-model "$reid" --background "$background" --top-k 1
