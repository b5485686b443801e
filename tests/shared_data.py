"""Test helpers: the real corpora in ../shared/data (fail loudly in CI when missing)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from neardup.text.types import Document

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"


def data_path(*parts: str) -> Path:
    """A path under ../shared/data; fails in CI (CI env set) and skips elsewhere if missing."""
    path = DATA.joinpath(*parts)
    if not path.exists():
        msg = f"shared data missing: {path}"
        if os.environ.get("CI"):
            pytest.fail(msg)
        pytest.skip(msg)
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
