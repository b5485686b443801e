"""``neardup compare --passages``: context, a word diff whose markers survive a pipe, and the
HTML page of one pair (``--html``), on the sample's two Pro Git revisions of a chapter."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from neardup.cli.main import app
from neardup.cli.pairview import Change, diff_counts, diff_text, word_diff

PROGIT = Path(__file__).resolve().parents[2] / "examples" / "corpus" / "progit"
runner = CliRunner()


def test_word_diff_exact() -> None:
    changes = word_diff("Её имя — сокращение для reuse", "Ее имя -- сокращение для reuse")
    assert changes == [
        Change("removed", ("Её",)),
        Change("inserted", ("Ее",)),
        Change("equal", ("имя",)),
        Change("removed", ("—",)),
        Change("inserted", ("--",)),
        Change("equal", ("сокращение", "для", "reuse")),
    ]
    assert diff_counts(changes) == (4, 2, 2)
    assert diff_text(changes) == "[-Её-] {+Ее+} имя [-—-] {+--+} сокращение для reuse"


def test_long_unchanged_runs_are_shortened() -> None:
    words = [f"w{i}" for i in range(30)]
    text = " ".join(words)
    assert diff_text(word_diff(text, text), keep=2) == "w0 w1 ... w28 w29"


def test_piped_compare_keeps_the_markers_and_writes_html(tmp_path: Path) -> None:
    a, b = PROGIT / "2016" / "rerere.asc", PROGIT / "latest" / "rerere.asc"
    page = tmp_path / "pair.html"
    res = runner.invoke(app, ["compare", str(a), str(b), "--html", str(page)])
    assert res.exit_code == 0, res.output
    assert "passage 1 of" in res.stdout
    assert "[-Ее-] {+Её+}" in res.stdout  # the 2016 'Ее' became 'Её' in the latest revision
    html = page.read_text(encoding="utf-8")
    assert "<del>Ее</del>" in html and "<ins>Её</ins>" in html
    assert "passage 1: A [" in html and "resemblance" in html
