"""Detect and sanitize a documents file with Spark: each executor loads the tagger and the
sanitizer once per partition (`mapInPandas`), and kanon's Rust code works with the GIL released.

    spark-submit crates/kanon-py/examples/spark_sanitize.py DOCS.jsonl MODEL_DIR OUT_DIR \\
        [--strategy numbered-label] [--threshold 0.3]

DOCS.jsonl holds kanon's documents (`{"id", "text"}`); OUT_DIR gets Spark's JSON parts, one
record per document: `id`, the sanitized `text`, the detected `spans` (as `kanon detect` writes
them, JSON text) and the `edits` (as `kanon sanitize` writes them, JSON text). The wheel must be
installed where the executors run (`pip install kanon-*.whl`, or `--py-files` for a cluster).
"""

from __future__ import annotations

import argparse
import json
from typing import Callable, Iterator

SCHEMA = "id string, text string, spans string, edits string"


def sanitize_batches(
    model: str, strategy: str, threshold: float
) -> Callable[[Iterator["pandas.DataFrame"]], Iterator["pandas.DataFrame"]]:
    """The function `mapInPandas` runs on each partition."""

    def run(batches: Iterator["pandas.DataFrame"]) -> Iterator["pandas.DataFrame"]:
        import pandas as pd

        import kanon

        detector = kanon.Detector.load(model, {"threshold": threshold})
        sanitizer = kanon.Sanitizer(strategy=strategy)
        for batch in batches:
            ids = batch["id"].astype(str).tolist()
            texts = batch["text"].tolist()
            spans = detector.detect(texts)
            docs = sanitizer.sanitize(texts, spans, ids=ids)
            yield pd.DataFrame(
                {
                    "id": ids,
                    "text": [d["text"] for d in docs],
                    "spans": [json.dumps(s) for s in spans],
                    "edits": [json.dumps(d["edits"]) for d in docs],
                }
            )

    return run


def sanitize_frame(frame: "pyspark.sql.DataFrame", model: str, strategy: str, threshold: float):
    """`frame` (columns `id`, `text`) detected and sanitized."""
    return frame.select("id", "text").mapInPandas(
        sanitize_batches(model, strategy, threshold), schema=SCHEMA
    )


def main() -> None:
    from pyspark.sql import SparkSession

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("docs")
    parser.add_argument("model")
    parser.add_argument("out")
    parser.add_argument("--strategy", default="numbered-label")
    parser.add_argument("--threshold", type=float, default=0.3)
    args = parser.parse_args()
    spark = SparkSession.builder.appName("kanon").getOrCreate()
    frame = spark.read.json(args.docs)
    sanitize_frame(frame, args.model, args.strategy, args.threshold).write.mode(
        "overwrite"
    ).json(args.out)
    spark.stop()


if __name__ == "__main__":
    main()
