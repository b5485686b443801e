"""CLI: `neardup add` stores where each document came from as an absolute path (issue 30,
item 11): not the path as typed relative to the working directory of the add."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from neardup.cli.main import app
from neardup.store import Store
from store._db import unique

runner = CliRunner()
TEXT = " ".join(f"слово{i}" for i in range(60))


def test_add_stores_absolute_sources(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"sqlite:///{tmp_path / 'nd.db'}"
    name = unique()
    assert runner.invoke(app, ["collection", "create", name, "--db", url]).exit_code == 0
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "one.txt").write_text(TEXT, encoding="utf-8")
    rows = [{"id": "r1", "text": TEXT + " другое"}]
    (tmp_path / "lib" / "rows.jsonl").write_text(json.dumps(rows, ensure_ascii=False)[1:-1] + "\n")
    monkeypatch.chdir(tmp_path / "lib")
    res = runner.invoke(app, ["add", name, "one.txt", "../lib/rows.jsonl", "--db", url, "-q"])
    assert res.exit_code == 0, res.output
    with Store(url) as st:
        by_id = {i: st.document(name, i).source for i in ("one.txt", "r1")}
    lib = (tmp_path / "lib").resolve()
    assert by_id["one.txt"] == str(lib / "one.txt")
    assert by_id["r1"] == f"{lib / 'rows.jsonl'}:1"
