"""Test helpers: the real corpora in ../shared/data, and the one "fail in CI, else skip" rule.

A clone without ``../shared`` beside it (as anyone cloning the repository has) runs the suite
with the data tests skipped; with the environment variable ``CI`` set (to anything but ``""``,
``0`` or ``false``) a missing data file, database server or browser fails the test instead,
so CI never passes by skipping. Every test reaching ``../shared/data`` goes through
:func:`data_path` (or the loaders built on it).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, NoReturn

import pytest

from neardup.text.types import Document

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"


def in_ci() -> bool:
    """True when the environment variable ``CI`` is set to a true value (``CI=true``)."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def unavailable(msg: str) -> NoReturn:
    """Stop a test whose resource (data, server, browser) is missing: fail in CI, else skip."""
    if in_ci():
        pytest.fail(msg)
    pytest.skip(msg)


def data_path(*parts: str) -> Path:
    """A path under ../shared/data; fails in CI and skips elsewhere if it is missing."""
    path = DATA.joinpath(*parts)
    if not path.exists():
        unavailable(f"shared data missing: {path}")
    return path


def load_docs(name: str) -> list[Document]:
    """Documents of a labelled set in ../shared/data/NAME/docs.jsonl."""
    path = data_path(name, "docs.jsonl")
    with path.open(encoding="utf-8") as fh:
        return [Document(r["id"], r["text"], source=name) for r in map(json.loads, fh)]


def paragraphs(name: str, count: int, *, min_words: int = 25) -> list[str]:
    """The first ``count`` paragraphs of >= ``min_words`` words of a labelled set's documents."""
    out: list[str] = []
    with data_path(name, "docs.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            text = json.loads(line)["text"]
            out += [p for p in text.split("\n\n") if len(p.split()) >= min_words]
            if len(out) >= count:
                return out[:count]
    return out


def job_scores(
    name: str, method: str, threshold: float, params: dict[str, Any], *, scope: str = "all"
) -> dict[str, float]:
    """Precision, recall and F1 of the dedup job (``verify=False``: the method's own score
    decides) with ``method`` at ``threshold`` on the labelled set ``name``, against its
    ``gold.jsonl`` (``scope="all"``: unlisted pairs are non-duplicates)."""
    from neardup.dedup import DedupOptions, dedup
    from neardup.evaluate.metrics import Gold, score_pairs

    docs = load_docs(name)
    gold = Gold.load(data_path(name, "gold.jsonl"))
    options = DedupOptions(threshold=threshold, verify=False)
    result = dedup(docs, method=method, options=options, **params)
    scores = score_pairs(((p.a, p.b) for p in result.pairs), gold, scope=scope)
    return {"precision": scores.precision, "recall": scores.recall, "f1": scores.f1}
