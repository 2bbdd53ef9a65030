"""The examples on engines users already run (crates/kanon-py/examples): Spark's mapInPandas and
Ray Data's map_batches in local mode, each against the package called directly. Skipped when the
engine is not installed (`pip install pyspark pandas pyarrow`, `pip install "ray[data]"`)."""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from pathlib import Path

import pytest

import kanon

from conftest import ROOT, THRESHOLD, documents

EXAMPLES = ROOT / "crates" / "kanon-py" / "examples"
sys.path.insert(0, str(EXAMPLES))


def expected(run_dir: Path, strategy: str) -> dict:
    ids, texts, _ = documents(run_dir)
    spans = kanon.Detector.load(run_dir / "train" / "model", {"threshold": THRESHOLD}).detect(texts)
    docs = kanon.Sanitizer(strategy=strategy).sanitize(texts, spans, ids=ids)
    return {
        i: (d["text"], s, d["edits"]) for i, d, s in zip(ids, docs, spans)
    }, list(zip(ids, texts))


@pytest.mark.skipif(
    importlib.util.find_spec("pyspark") is None or shutil.which("java") is None,
    reason="pyspark (and Java) not installed",
)
def test_spark_map_in_pandas_matches_the_package(
    run_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pyspark.sql import SparkSession

    import spark_sanitize

    # The workers run this interpreter, the one the wheel is installed in.
    monkeypatch.setenv("PYSPARK_PYTHON", sys.executable)

    want, rows = expected(run_dir, "numbered-label")
    spark = SparkSession.builder.master("local[2]").appName("kanon-test").getOrCreate()
    try:
        frame = spark.createDataFrame(rows, schema="id string, text string").repartition(2)
        out = spark_sanitize.sanitize_frame(
            frame, str(run_dir / "train" / "model"), "numbered-label", THRESHOLD
        ).collect()
    finally:
        spark.stop()
    got = {r["id"]: (r["text"], json.loads(r["spans"]), json.loads(r["edits"])) for r in out}
    assert got == want


@pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason="ray not installed")
def test_ray_map_batches_matches_the_package(run_dir: Path) -> None:
    import ray

    import ray_sanitize

    want, rows = expected(run_dir, "numbered-label")
    # The actors import the example module too.
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        ignore_reinit_error=True,
        runtime_env={"env_vars": {"PYTHONPATH": str(EXAMPLES)}},
    )
    try:
        dataset = ray.data.from_items([{"id": i, "text": t} for i, t in rows])
        out = ray_sanitize.sanitize_dataset(
            dataset, str(run_dir / "train" / "model"), "numbered-label", THRESHOLD, actors=1
        ).take_all()
    finally:
        ray.shutdown()
    got = {r["id"]: (r["text"], json.loads(r["spans"]), json.loads(r["edits"])) for r in out}
    assert got == want
