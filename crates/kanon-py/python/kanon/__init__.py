"""kanon for Python: detect, sanitize and run kanon's pipeline from the same Rust crates as the
``kanon`` command, returning plain Python objects.

>>> import kanon
>>> detector = kanon.Detector.load("runs/demo/train/model")          # doctest: +SKIP
>>> spans = detector.detect(["Ada Lovelace was born in London."])    # doctest: +SKIP
>>> kanon.Sanitizer({"config": {"strategy": {"type": "label"}}}).sanitize(
...     ["Ada Lovelace was born in London."], spans)                 # doctest: +SKIP

Spans are dicts as ``kanon detect`` writes them (``start`` and ``end`` in characters, ``label``,
``type``, ``score``); sanitized documents are dicts as ``kanon sanitize`` writes them (``text``,
``edits``). Work in Rust releases the GIL: a thread pool of Python threads runs in parallel.
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

from . import _kanon

__version__: str = _kanon.__version__
__all__ = ["Detector", "Sanitizer", "run", "__version__"]

Span = Dict[str, Any]
"""A span record: ``start``, ``end`` (characters), and where known ``label``, ``type``,
``entity_id``, ``score``."""

SanitizedDocument = Dict[str, Any]
"""A sanitized document: ``id``, ``text`` and its ``edits``, as ``kanon sanitize`` writes them."""

PathLike = Union[str, "os.PathLike[str]"]


def _strings(values: Sequence[str], what: str = "texts") -> List[str]:
    if isinstance(values, str):
        raise TypeError(f"{what} must be a sequence of strings, not one string")
    out = list(values)
    for i, value in enumerate(out):
        if not isinstance(value, str):
            raise TypeError(f"{what}[{i}] is {type(value).__name__}, not str")
    return out


class Detector:
    """A trained tagger (the checkpoint directory ``kanon train`` writes) on the CPU."""

    def __init__(self, native: _kanon.Detector) -> None:
        self._native = native

    @classmethod
    def load(cls, model: PathLike, config: Optional[Mapping[str, Any]] = None) -> "Detector":
        """Loads ``model``; ``config`` holds the keys of ``configs/detect.toml`` (threshold,
        token_budget, …), the defaults otherwise."""
        config_json = None if config is None else json.dumps(dict(config))
        return cls(_kanon.Detector.load(os.fspath(model), config_json))

    def detect(self, texts: Sequence[str]) -> List[List[Span]]:
        """Each text's spans, in text order, as ``kanon detect`` writes them."""
        return json.loads(self._native.detect_json(_strings(texts)))


class Sanitizer:
    """The sanitizer of a run config's ``[sanitize]`` section, its models opened once."""

    def __init__(
        self, settings: Optional[Mapping[str, Any]] = None, *, strategy: Optional[str] = None
    ) -> None:
        """``settings``: the ``[sanitize]`` section's keys (``config`` with the keys of
        ``configs/sanitize.toml``, ``llm``, ``index``, …); ``strategy`` (``label``,
        ``numbered-label``, ``intact``, …) overrides its strategy. Neither: ``label`` masking,
        which opens no model."""
        merged: Dict[str, Any] = dict(settings or {})
        if strategy is not None or settings is None:
            config = dict(merged.get("config") or {})
            config["strategy"] = {"type": strategy or "label"}
            merged["config"] = config
        self._native = _kanon.Sanitizer(json.dumps(merged))

    @property
    def strategy(self) -> str:
        """The strategy's name (``label``, ``intact``, …)."""
        return self._native.strategy

    def sanitize(
        self,
        texts: Sequence[str],
        spans: Sequence[Sequence[Mapping[str, Any]]],
        ids: Optional[Sequence[str]] = None,
    ) -> List[SanitizedDocument]:
        """Each text sanitized at its spans (``spans[i]`` for ``texts[i]``, as
        :meth:`Detector.detect` gives them); ``ids`` name the documents (default: their
        positions, ``"0"``, ``"1"``, …)."""
        texts = _strings(texts)
        spans_json = json.dumps([[dict(span) for span in doc] for doc in spans])
        id_list = None if ids is None else _strings(ids, "ids")
        return json.loads(self._native.sanitize_json(texts, spans_json, id_list))


def run(config: PathLike, out: Optional[PathLike] = None) -> Dict[str, Any]:
    """``kanon run --config CONFIG --out OUT``: every stage of the run config, resuming what an
    earlier run in ``out`` left (default ``runs/NAME``); the run's report as a dict."""
    return json.loads(_kanon.run(os.fspath(config), None if out is None else os.fspath(out)))
