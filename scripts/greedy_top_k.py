#!/usr/bin/env python3
"""Spans of `kanon detect reid-greedy --top-k K` for a smaller K, from the trace of a run
with a larger one (`--trace FILE`): the search is deterministic and does not depend on K until it
stops, so the run for K is the prefix of the steps up to the first that leaves the person outside
the model's first K guesses. Saves rerunning the search once per K.

    scripts/greedy_top_k.py TRACE.jsonl DOCS.jsonl K OUT.jsonl
"""
import json
import sys


def main(trace_path, docs_path, k, out_path):
    k = int(k)
    texts = {}
    with open(docs_path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                doc = json.loads(line)
                texts[doc["id"]] = doc["text"]
    with open(trace_path, encoding="utf-8") as f, open(out_path, "w", encoding="utf-8") as out:
        for line in f:
            trace = json.loads(line)
            spans = []
            if trace["initial_rank"] <= k:
                for step in trace["steps"]:
                    spans.extend((s["start"], s["end"]) for s in step["spans"])
                    if step["rank"] > k:
                        break
            spans.sort()
            text = texts[trace["id"]]
            merged = []
            for start, end in spans:
                if merged and set(text[merged[-1][1]:start]) <= {" "}:
                    merged[-1][1] = max(merged[-1][1], end)
                else:
                    merged.append([start, end])
            record = {"id": trace["id"], "spans": [{"start": s, "end": e, "label": "MASK"} for s, e in merged]}
            out.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    main(*sys.argv[1:])
