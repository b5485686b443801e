"""The web UI's side-by-side view (neardup.service.highlight) uses the one aligner."""

from __future__ import annotations

import random
import re
from pathlib import Path

from neardup.passages import align_passages
from neardup.service.highlight import side_by_side

CHEKHOV = Path(__file__).resolve().parents[2] / "examples" / "corpus" / "chekhov"


def _story(name: str) -> list[str]:
    text = (CHEKHOV / f"{name}.txt").read_text(encoding="utf-8")
    return [p for p in text.split("\n") if len(p.split()) >= 30]


def _reworded(text: str, rng: random.Random) -> str:
    """Each sentence's words in a random order: no word n-gram of ``text`` is left."""
    out = []
    for sentence in re.split(r"(?<=[.!?])\s+", text):
        words = sentence.rstrip(".!?").split()
        rng.shuffle(words)
        out.append(" ".join(words) + ".")
    return " ".join(out)


def test_side_by_side_marks_a_reworded_passage_as_one_passage() -> None:
    """The marks are align_passages' passages: a reworded copy is one passage on both sides
    (greedy string tiling of exact shingles, the view's matcher before, found nothing)."""
    stored = "\n".join(_story("Хамелеон"))
    original = "\n".join(_story("Хамелеон")[1:4])
    host = _story("Ванька")
    query = "\n".join(host[:2]) + "\n" + _reworded(original, random.Random(0)) + "\n"
    query += "\n".join(host[2:])
    view = side_by_side(query, stored)
    (p,) = align_passages(query, stored)
    assert view.passages == 1
    marked_q = [s for s in view.query if s.passage]
    marked_s = [s for s in view.stored if s.passage]
    assert [s.text for s in marked_q] == [query[p.a_start : p.a_end]]
    assert [s.text for s in marked_s] == [stored[p.b_start : p.b_end]]
    assert "".join(s.text for s in view.query) == query
    assert view.shared_chars == p.a_end - p.a_start
