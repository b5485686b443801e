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
    assert "passage 1: A [" in html and "Resemblance (shared shingles" in html


def test_html_shows_both_whole_texts_with_the_passages_marked(tmp_path: Path) -> None:
    """Issue 41 item 13: the unmatched text of both sides is on the page beside the
    highlighted passages, and the scores have readable names, not field names."""
    from neardup.cli.pairview import html_report
    from neardup.passages import AlignedPassage

    a = "Only in A <first>. The shared sentence is here. Tail of A."
    b = "B opens differently. The shared sentence is here."
    shared = "The shared sentence is here."
    p = AlignedPassage(a.index(shared), a.index(shared) + len(shared), b.index(shared), len(b), 3)
    page = tmp_path / "pair.html"
    scores = {"resemblance": 0.5, "compaire": 0.75, "empty_lexicon": False, "shared": 2}
    html_report(page, [p], a, b, name_a="a.txt", name_b="b.txt", scores=scores)
    text = page.read_text(encoding="utf-8")
    mark = f"<mark title='passage 1'><sup>1</sup>{shared}</mark>"
    left = f"<td class=text>Only in A &lt;first&gt;. {mark} Tail of A.</td>"
    right = f"<td class=text>B opens differently. {mark}</td>"
    assert left + right in text
    assert "48% of A and 57% of B (characters) lie in shared passages" in text  # 28/58, 28/49
    assert "<th>Rodnenko&#x27;s (2009) similarity of A&#x27;s list to B&#x27;s" in text
    assert "<th>No lexicon word found (the method score means nothing)</th><td>False" in text
    assert "compaire" not in text and "empty_lexicon" not in text
