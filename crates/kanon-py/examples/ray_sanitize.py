"""Detect and sanitize a documents file with Ray Data: a pool of actors, each holding the tagger
and the sanitizer, maps batches of documents (`map_batches`).

    python crates/kanon-py/examples/ray_sanitize.py DOCS.jsonl MODEL_DIR OUT_DIR \\
        [--strategy numbered-label] [--threshold 0.3] [--actors 2]

Records as in spark_sanitize.py: `id`, the sanitized `text`, `spans` and `edits` as JSON text.
"""

from __future__ import annotations

import argparse
import json
from typing import Any, Dict


class Sanitize:
    """One actor: the models loaded once, then batch after batch."""

    def __init__(self, model: str, strategy: str, threshold: float) -> None:
        import kanon

        self.detector = kanon.Detector.load(model, {"threshold": threshold})
        self.sanitizer = kanon.Sanitizer(strategy=strategy)

    def __call__(self, batch: Dict[str, Any]) -> Dict[str, Any]:
        ids = [str(i) for i in batch["id"]]
        texts = [str(t) for t in batch["text"]]
        spans = self.detector.detect(texts)
        docs = self.sanitizer.sanitize(texts, spans, ids=ids)
        return {
            "id": ids,
            "text": [d["text"] for d in docs],
            "spans": [json.dumps(s) for s in spans],
            "edits": [json.dumps(d["edits"]) for d in docs],
        }


def sanitize_dataset(dataset, model: str, strategy: str, threshold: float, actors: int = 2):
    """`dataset` (columns `id`, `text`) detected and sanitized by `actors` actors."""
    return dataset.select_columns(["id", "text"]).map_batches(
        Sanitize,
        fn_constructor_args=(model, strategy, threshold),
        batch_format="numpy",
        batch_size=64,
        concurrency=actors,
    )


def main() -> None:
    import ray

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("docs")
    parser.add_argument("model")
    parser.add_argument("out")
    parser.add_argument("--strategy", default="numbered-label")
    parser.add_argument("--threshold", type=float, default=0.3)
    parser.add_argument("--actors", type=int, default=2)
    args = parser.parse_args()
    dataset = ray.data.read_json(args.docs)
    sanitize_dataset(dataset, args.model, args.strategy, args.threshold, args.actors).write_json(
        args.out
    )


if __name__ == "__main__":
    main()
