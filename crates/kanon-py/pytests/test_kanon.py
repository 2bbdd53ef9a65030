"""The Python package against the `kanon` pipeline it wraps (scripts/test_python.sh runs it on the
wheel built here): a tiny `kanon.run` over the bundled sample KG with the real MiniLM, then the
package's detector and sanitizer on the same documents must give the run's own files."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

import kanon

from conftest import THRESHOLD, ROOT, documents, jsonl


def test_run_reports_every_stage(run_dir: Path) -> None:
    report = json.loads((run_dir / "report.json").read_text())
    assert kanon.run is not None and report
    assert (run_dir / "detect" / "spans.jsonl").is_file()
    assert (run_dir / "sanitize" / "label.jsonl").is_file()


def test_detector_gives_the_runs_spans(run_dir: Path) -> None:
    ids, texts, spans = documents(run_dir)
    detector = kanon.Detector.load(run_dir / "train" / "model", {"threshold": THRESHOLD})
    found = detector.detect(texts)
    assert found == spans
    assert any(found), "the tagger found nothing: the comparison would prove little"
    for doc in found:
        for span in doc:
            assert isinstance(span["start"], int) and isinstance(span["end"], int)
            assert span["start"] < span["end"]
    # One at a time gives the same as all at once.
    assert [detector.detect([t])[0] for t in texts] == found


def test_sanitizer_gives_the_runs_outputs(run_dir: Path) -> None:
    ids, texts, spans = documents(run_dir)
    sanitizer = kanon.Sanitizer({"config": {"strategy": {"type": "label"}}})
    assert sanitizer.strategy == "label"
    assert kanon.Sanitizer(strategy="numbered-label").strategy == "numbered-label"
    out = sanitizer.sanitize(texts, spans, ids=ids)
    expected = jsonl(run_dir / "sanitize" / "label.jsonl")
    assert out == expected
    # The same bytes as the run's file, record for record.
    lines = (run_dir / "sanitize" / "label.jsonl").read_text().splitlines()
    assert [json.dumps(r, ensure_ascii=False, separators=(",", ":")) for r in out] == [
        json.dumps(json.loads(line), ensure_ascii=False, separators=(",", ":"))
        for line in lines
    ]


def test_sanitizer_without_a_model_masks_with_labels() -> None:
    text = "Ada Lovelace was born in London in 1815."
    spans = [[{"start": 0, "end": 12, "type": "PERSON"}, {"start": 25, "end": 31, "type": "LOC"}]]
    (doc,) = kanon.Sanitizer().sanitize([text], spans)
    assert "Ada" not in doc["text"] and "London" not in doc["text"]
    assert doc["text"].endswith("in 1815.")
    assert doc["id"] == "0"
    assert len(doc["edits"]) == 2


def test_bad_input_is_a_python_error_that_says_what() -> None:
    sanitizer = kanon.Sanitizer()
    with pytest.raises(ValueError, match=r"text 0, span 0: start = 5, end = 2"):
        sanitizer.sanitize(["short text"], [[{"start": 5, "end": 2}]])
    with pytest.raises(ValueError, match=r"end = 99 is not a span of its 10-character text"):
        sanitizer.sanitize(["short text"], [[{"start": 0, "end": 99}]])
    with pytest.raises(ValueError, match="1 texts but spans for 2"):
        sanitizer.sanitize(["short text"], [[], []])
    with pytest.raises(TypeError, match=r"texts\[1\] is int"):
        sanitizer.sanitize(["a", 3], [[], []])
    with pytest.raises(TypeError, match="not one string"):
        sanitizer.sanitize("one string", [[]])
    with pytest.raises(ValueError, match="sanitize settings"):
        kanon.Sanitizer({"config": {"strategy": {"type": "no-such-strategy"}}})
    with pytest.raises(RuntimeError, match="no-such-dir"):
        kanon.Detector.load("no-such-dir")
    with pytest.raises(RuntimeError, match="no-such.toml"):
        kanon.run("no-such.toml")


def test_detection_releases_the_gil(run_dir: Path) -> None:
    """A Python thread counts while the detector works: it could not, were the GIL held."""
    _, texts, _ = documents(run_dir)
    detector = kanon.Detector.load(run_dir / "train" / "model")
    many = texts * 30
    counted = 0
    stop = threading.Event()

    def count() -> None:
        nonlocal counted
        while not stop.is_set():
            counted += 1

    started = time.perf_counter()
    detector.detect(many)
    alone = time.perf_counter() - started
    counter = threading.Thread(target=count)
    counter.start()
    time.sleep(0.01)
    before = counted
    detector.detect(many)
    during = counted - before
    stop.set()
    counter.join()
    assert alone > 0.05, f"detection took {alone:.3f} s: too short to tell"
    assert during > 10_000, f"the counting thread advanced {during} times while Rust worked"
