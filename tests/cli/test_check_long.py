"""Issue 27 item 6: ``neardup check`` of a 130k-word document against a ``shingles-full``
collection works on SQLite and PostgreSQL (SQLite failed with "too many SQL variables",
a traceback and exit 1, the code of "duplicate found")."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from neardup.cli.main import app
from store._db import db_url, pg_database, unique  # noqa: F401  (fixtures)

runner = CliRunner()


@pytest.mark.slow
def test_a_130k_word_document_is_checked(db_url: str, tmp_path: Path) -> None:  # noqa: F811
    rng = random.Random(6)
    words = [f"w{i}" for i in range(50_000)]
    big = " ".join(rng.choice(words) for _ in range(130_000))
    (tmp_path / "big.txt").write_text(big, encoding="utf-8")
    other = " ".join(rng.choice(words) for _ in range(130_000))
    (tmp_path / "other.txt").write_text(other, encoding="utf-8")
    name = unique("long")
    db = ["--db", db_url]
    res = runner.invoke(app, ["collection", "create", name, "-m", "shingles-full", *db])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["collection", "add", name, str(tmp_path / "big.txt"), "-q", *db])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["check", name, str(tmp_path / "big.txt"), "--json", *db])
    assert res.exit_code == 1, res.output  # a duplicate found
    line = json.loads(res.stdout.strip().splitlines()[-1])
    assert [m["id"] for m in line["matches"]] == ["big.txt"]
    res = runner.invoke(app, ["check", name, str(tmp_path / "other.txt"), "--json", *db])
    assert res.exit_code == 0, res.output  # nothing matched
    assert "Traceback" not in res.output
