#!/usr/bin/env python3
"""Statistics of labeled corpora written by `kanon label`, side by side.

    python3 scripts/corpus_stats.py BEFORE_DIR AFTER_DIR [...]

For each corpus directory (train/dev/test.jsonl and report.jsonl): documents, spans and masked terms
per document, the share of masked words, k reached (the smallest group left, from the risk report),
and how many PERSON spans are written in lower case ("attracted little attention"), the symptom of
names matched as common words. Reads the corpus only; prints a Markdown table.
"""

import json
import statistics
import sys
from pathlib import Path


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def stats(corpus):
    corpus = Path(corpus)
    docs = spans = lowercase_person = 0
    span_types = {}
    for split in ("train", "dev", "test"):
        path = corpus / f"{split}.jsonl"
        if not path.exists():
            continue
        for doc in read_jsonl(path):
            docs += 1
            for s in doc["spans"]:
                spans += 1
                span_types[s["type"]] = span_types.get(s["type"], 0) + 1
                text = doc["text"][s["start"] : s["end"]]
                if s["type"] == "PERSON" and text == text.lower():
                    lowercase_person += 1
    masks, tokens, masked_tokens, reached, unmasked_docs, terms = [], 0, 0, [], 0, []
    for report in read_jsonl(corpus / "report.jsonl"):
        masks.append(len(report["masked"]))
        terms.append(len(report["terms"]))
        tokens += report["tokens"]
        masked_tokens += report["masked_tokens"]
        if report["k_reached"] is None:
            unmasked_docs += 1
        else:
            reached.append(report["k_reached"])
    return {
        "documents": docs,
        "KG terms / doc": statistics.mean(terms) if terms else 0.0,
        "masked terms / doc": statistics.mean(masks) if masks else 0.0,
        "spans / doc": spans / docs if docs else 0.0,
        "masked words %": 100.0 * masked_tokens / tokens if tokens else 0.0,
        "k reached: median": statistics.median(reached) if reached else "-",
        "k reached: min": min(reached) if reached else "-",
        "no term left (docs)": unmasked_docs,
        "lower-case PERSON spans": lowercase_person,
        "spans by type": ", ".join(f"{t} {n}" for t, n in sorted(span_types.items())),
    }


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    columns = [stats(c) for c in sys.argv[1:]]
    print("| | " + " | ".join(Path(c).name or c for c in sys.argv[1:]) + " |")
    print("| --- |" + " ---: |" * len(columns))
    for key in columns[0]:
        values = []
        for c in columns:
            v = c[key]
            values.append(f"{v:.2f}" if isinstance(v, float) else str(v))
        print(f"| {key} | " + " | ".join(values) + " |")


if __name__ == "__main__":
    main()
