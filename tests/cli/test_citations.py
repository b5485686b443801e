"""Users see papers cited by author and year, never the internal "seed 000" numbers: in
every command's help, in `neardup methods`, in the README and docs; Rich markup in method
sources (the SimHash formula's brackets) is printed as text."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from neardup.cli.main import app

ROOT = Path(__file__).resolve().parents[2]
SEED = re.compile(r"\bseeds?\s+0\d\d|\bthe seeds\b|\bseed papers?\b", re.IGNORECASE)
runner = CliRunner()


def _command_paths(group: Any, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    paths = [prefix]
    for name, cmd in group.commands.items():
        if hasattr(cmd, "commands"):  # a group (Typer vendors its own click)
            paths += _command_paths(cmd, (*prefix, name))
        else:
            paths.append((*prefix, name))
    return paths


@pytest.mark.slow
def test_no_seed_numbers_in_any_help() -> None:
    root = typer.main.get_command(app)
    paths = _command_paths(root)
    assert ("collection", "check") in paths and ("dedup",) in paths
    for path in paths:
        res = runner.invoke(app, [*path, "--help"], terminal_width=200)
        assert res.exit_code == 0, path
        assert not SEED.search(res.stdout), (path, SEED.search(res.stdout))


def test_methods_cite_authors_and_years(monkeypatch: pytest.MonkeyPatch) -> None:
    rows = json.loads(runner.invoke(app, ["methods", "--json"]).stdout)
    for row in rows:
        assert not SEED.search(row["source"]), row["name"]
        assert re.search(r"[A-Z][a-zł]+.* (19|20)\d\d", row["source"]), row["name"]
    import io

    from rich.console import Console

    from neardup.cli import common

    buf = io.StringIO()
    monkeypatch.setattr(common, "out", Console(file=buf, width=400))  # the consoles live there
    assert runner.invoke(app, ["methods"]).exit_code == 0
    text = buf.getvalue()
    simhash = next(r for r in rows if r["name"] == "simhash")["source"]
    brackets = re.findall(r"\[[^\]]*\]", simhash)
    assert all(b in text for b in brackets)  # not eaten as Rich markup


def test_readme_and_docs_cite_papers() -> None:
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        found = SEED.search(path.read_text(encoding="utf-8"))
        assert not found, (path.name, found)
