"""Every registered method runs in `neardup dedup` and `neardup compare` on real text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from neardup.cli.main import app
from neardup.methods.registry import method_names

runner = CliRunner()
CORPUS = Path(__file__).resolve().parents[2] / "examples" / "corpus"
A = CORPUS / "progit" / "2016" / "rerere.asc"
B = CORPUS / "progit" / "latest" / "rerere.asc"
OTHER = CORPUS / "chekhov" / "Хамелеон.txt"


def test_the_seed_methods_are_all_registered():
    assert {
        "shingles-full", "shingles-mod", "shingles-min", "minhash-lsh", "megashingles",
        "imatch", "imatch-random", "anchor-words", "tf-ridf", "sl-st", "spotsigs", "simhash",
    } <= set(method_names())  # fmt: skip


@pytest.mark.parametrize("method", method_names())
def test_dedup_runs_every_method(method, tmp_path):
    res = runner.invoke(
        app,
        [
            "dedup",
            str(CORPUS / "progit"),
            "-m",
            method,
            "-t",
            "0.3",
            "--out",
            str(tmp_path),
            "--json",
        ],
    )
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    summary = doc["summary"]
    assert summary["method"] == method and summary["documents"] == 12
    pairs = [json.loads(x) for x in (tmp_path / "pairs.jsonl").read_text().splitlines()]
    assert all(p["method"] == method for p in pairs)
    assert doc["pairs"] == pairs and len(doc["clusters"]) == summary["clusters"]


@pytest.mark.parametrize("method", method_names())
def test_compare_runs_every_method_and_ranks_the_revision_above_a_stranger(method):
    def score(a: Path, b: Path) -> float:
        args = ["compare", str(a), str(b), "-m", method, "--corpus", str(CORPUS), "--json"]
        res = runner.invoke(app, args)
        assert res.exit_code == 0, res.output
        return json.loads(res.stdout)["score"]

    assert score(A, B) >= score(A, OTHER)
    assert score(A, OTHER) < 0.5
