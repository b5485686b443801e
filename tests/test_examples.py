"""The bundled sample corpus: `make demo`'s job finds the documented duplicates."""

from __future__ import annotations

from pathlib import Path

from neardup.job.pipeline import DedupOptions, dedup

CORPUS = Path(__file__).resolve().parents[1] / "examples" / "corpus"


def test_demo_finds_the_known_duplicates_and_reports_bad_files() -> None:
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


def test_the_shipped_gold_labels_the_sample_and_evaluate_scores_it() -> None:
    """examples/gold.jsonl (README's evaluate example after ``make demo``): every labelled id
    is a document of the sample, and shingles-full by containment finds every pair at 0.3."""
    import json

    from typer.testing import CliRunner

    from neardup.cli.main import app

    root = Path(__file__).resolve().parents[1] / "examples"
    gold = [json.loads(x) for x in (root / "gold.jsonl").read_text(encoding="utf-8").splitlines()]
    ids = {str(p.relative_to(root / "corpus")) for p in (root / "corpus").rglob("*") if p.is_file()}
    assert len(gold) == 10 and all(g["a"] in ids and g["b"] in ids for g in gold)
    res = CliRunner().invoke(
        app,
        [
            "evaluate",
            str(root / "corpus"),
            "--gold",
            str(root / "gold.jsonl"),
            "--methods",
            "shingles-full",
            "--measure",
            "containment",
            "--thresholds",
            "0.3",
            "--json",
        ],
    )
    assert res.exit_code == 0, res.output
    row = json.loads(res.stdout)["rows"][0]
    assert (row["tp"], row["fp"], row["fn"]) == (10, 0, 0)
