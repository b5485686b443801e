"""The bundled sample corpus: `make demo`'s job finds the documented duplicates."""

from __future__ import annotations

from pathlib import Path

from neardup.dedup import DedupOptions, dedup

CORPUS = Path(__file__).resolve().parents[1] / "examples" / "corpus"


def test_demo_finds_the_known_duplicates_and_reports_bad_files():
    res = dedup([str(CORPUS)], options=DedupOptions(measure="containment", threshold=0.5))
    pairs = {frozenset((p.a, p.b)) for p in res.pairs}
    expected = {
        ("chekhov/Ванька.txt", "web/vanka.html"),
        ("chekhov/Тоска.txt", "wiki/Тоска.wiki"),
        ("chekhov/Хамелеон.txt", "excerpts/Хамелеон (начало).txt"),
        ("chekhov/Смерть чиновника.txt", "web/zametki-chitatelya.html"),
    } | {
        (f"progit/2016/{n}", f"progit/latest/{n}")
        for n in ("bash.asc", "first-time-setup.asc", "gitweb.asc", "rerere.asc", "workflows.asc")
    }
    # tagging.asc was rewritten too heavily between 2016 and latest to reach 0.5
    assert pairs == {frozenset(p) for p in expected}
    dropped = {d.id: d.kept for d in res.dropped}
    assert dropped["excerpts/Хамелеон (начало).txt"] == "chekhov/Хамелеон.txt"
    assert dropped["web/zametki-chitatelya.html"] == "chekhov/Смерть чиновника.txt"
    reasons = {s.id: s.reason for s in res.skipped}
    assert reasons == {
        "bad/empty.txt": "empty",
        "bad/binary.txt": "binary",
        "bad/short.txt": "too-short",
    }
    assert "bad/cp1251-ruslan.txt" in res.ids
