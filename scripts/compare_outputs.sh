#!/usr/bin/env bash
# Runs label, detect, sanitize (masking strategies) and eval spans with the kanon binary BIN into
# the directory FINAL, so that two builds can be compared byte for byte (`diff -r`) after a
# refactoring: scripts/compare_outputs.sh OLD_KANON before CKPT; ... NEW_KANON after CKPT.
# Needs ../shared/data and a trained checkpoint CKPT (any: the same one for both builds).
# Timings and run-specific paths are left out of what it keeps.
set -euo pipefail
BIN=$(realpath "$1"); FINAL=$(realpath -m "$2"); CK=$(realpath "${3:?a checkpoint directory (kanon train)}")
# Always the same working path: outputs name their paths.
OUT=${TMPDIR:-/tmp}/kanon-compare-work
cd "$(dirname "$0")/.."
rm -rf "$OUT" "$FINAL"; mkdir -p "$OUT"
S=../shared/data
run() { echo "+ $*" >> "$OUT/commands.txt"; "$BIN" "$@"; }
# label: the bundled sample, and a real KG (Pantheon + Google-RE, its snippets as documents)
run index build --kg kg/sample --out "$OUT/index-sample" > /dev/null
run label --index "$OUT/index-sample" --docs corpora/sample/docs.jsonl --out "$OUT/label-sample" --format conll > "$OUT/label-sample.txt"
run kg import --format pantheon $S/kg-sources/pantheon.tsv --format google-re $S/kg-sources/google-re/date_of_birth_test.jsonl $S/kg-sources/google-re/place_of_birth_test.jsonl $S/kg-sources/google-re/place_of_death_test.jsonl --out "$OUT/kg-real" > "$OUT/kg-real.txt"
run index build --kg "$OUT/kg-real" --out "$OUT/index-real" > /dev/null
run label --index "$OUT/index-real" --docs "$OUT/kg-real/docs.jsonl" --out "$OUT/label-real" --k 10 --strategy random --seed 3 > "$OUT/label-real.txt"
# detect: sample JSONL, wiki553 and TAB dev (TAB JSON), JSONL and TAB export, threshold, raw spans

run detect --model $CK --docs corpora/sample/docs.jsonl --out "$OUT/detect-sample.jsonl" > /dev/null
run detect --model $CK --docs $S/wiki553/dev_100_tab_schema.json --out "$OUT/detect-wiki.jsonl" --threshold 0.05 > /dev/null
run detect --model $CK --docs $S/wiki553/dev_100_tab_schema.json --out "$OUT/detect-wiki-tab.json" --threshold 0.05 --export tab > /dev/null
run detect --model $CK --docs $S/tab/tab_dev_113.json --out "$OUT/detect-tab-raw.jsonl" --raw-spans --token-budget 2048 > /dev/null
# sanitize --strategy label: detector spans, gold spans (wiki553, TAB)
run sanitize --docs corpora/sample/docs.jsonl --spans "$OUT/detect-sample.jsonl" --strategy label --out "$OUT/san-sample.jsonl" --summary "$OUT/san-sample.summary.json" | grep -v '^time:' > "$OUT/san-sample.txt"
run sanitize --docs $S/wiki553/dev_100_tab_schema.json --gold-spans --strategy label --out "$OUT/san-wiki.jsonl" | grep -v '^time:' > "$OUT/san-wiki.txt"
run sanitize --docs $S/tab/tab_dev_113.json --gold-spans --strategy label --out "$OUT/san-tab.jsonl" | grep -v '^time:' > "$OUT/san-tab.txt"
run sanitize --docs $S/wiki553/dev_100_tab_schema.json --spans "$OUT/detect-wiki.jsonl" --strategy numbered-label --out "$OUT/san-wiki-detected.jsonl" | grep -v '^time:' > "$OUT/san-wiki-detected.txt"
# eval spans: text and JSON, JSONL and system-format predictions
run eval spans --gold $S/wiki553/dev_100_tab_schema.json --pred "$OUT/detect-wiki.jsonl" > "$OUT/eval-wiki.txt"
run eval spans --gold $S/wiki553/dev_100_tab_schema.json --pred "$OUT/detect-wiki-tab.json" --json > "$OUT/eval-wiki-tab.json"
run eval spans --gold $S/tab/tab_dev_113.json --pred "$OUT/detect-tab-raw.jsonl" > "$OUT/eval-tab.txt"
run eval spans --gold "$OUT/detect-wiki-tab.json" --pred "$OUT/detect-wiki.jsonl" > "$OUT/eval-system-gold.txt"
# what varies from run to run: timings in the label summaries and the manifests' created_by
sed -i -E 's/ in [0-9.]+s / in Xs /' "$OUT"/label-*.txt
for f in "$OUT"/san-*.summary.json; do python3 -c "import json,sys; d=json.load(open('$f')); d.pop('wall_seconds'); d.pop('document_seconds'); json.dump(d, open('$f','w'), indent=1)"; done
rm -rf "$OUT/index-sample" "$OUT/index-real" "$OUT/kg-real"
mv "$OUT" "$FINAL"
echo done
