"""The fixtures of the package's tests: a tiny `kanon run` over the bundled sample KG with the real
MiniLM, whose files the package's answers are compared with."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import kanon

ROOT = Path(__file__).resolve().parents[3]
MODEL = "all-minilm-l6-v2"
THRESHOLD = 0.3


def model_cache() -> Path:
    cache = os.environ.get("KANON_CACHE")
    return Path(cache) if cache else Path.home() / ".cache" / "kanon" / "models"


def require_model() -> None:
    if not (model_cache() / MODEL / "model.safetensors").is_file():
        message = f"{MODEL} is not in {model_cache()} (kanon models fetch {MODEL})"
        if os.environ.get("KANON_REQUIRE_MODELS") == "1":
            pytest.fail(message)
        pytest.skip(message)


def jsonl(path: Path) -> list:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture(scope="session")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run of the whole pipeline on the sample KG: labels, a MiniLM tagger trained for a few
    steps, its spans on four held-out biographies, `label` masking."""
    require_model()
    work = tmp_path_factory.mktemp("run")
    config = work / "run.toml"
    config.write_text(
        f"""
name = "python"

[kg]
from = "dir"
path = "{ROOT / 'kg' / 'sample'}"

[index]

[label]
docs = "{ROOT / 'corpora' / 'sample' / 'docs.jsonl'}"
config = {{ k = 5, seed = 0 }}

[train]
pretrained = "{MODEL}"
config = {{ epochs = 1, max_steps = 6, max_len = 64, overlap = 16, token_budget = 512, seed = 0 }}

[detect]
corpus_split = "test"
limit = 4

[detect.method]
threshold = {THRESHOLD}

[sanitize.config.strategy]
type = "label"
"""
    )
    report = kanon.run(config, work / "out")
    assert isinstance(report, dict)
    return work / "out"


def documents(run: Path) -> tuple[list[str], list[str], list[list[dict]]]:
    """The detect stage's documents (ids, texts) and spans."""
    records = jsonl(run / "detect" / "spans.jsonl")
    ids = [r["id"] for r in records]
    texts_by_id = {
        d["id"]: d["text"] for d in jsonl(ROOT / "corpora" / "sample" / "docs.jsonl")
    }
    return ids, [texts_by_id[i] for i in ids], [r["spans"] for r in records]
