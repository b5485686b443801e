"""``neardup view``'s page in a real browser (Debian chromium under Playwright), opened from
``file://``: a pair shows both texts with the aligned passages marked, and a run of 100,000
pairs stays usable (paged, sorted and filtered in the page)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from neardup.cli.main import app
from neardup.html_report import write_view

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "corpus"


def _open(page: Any, path: Path) -> list[str]:
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.route("**/*", lambda route: route.continue_() if route.request.url.startswith("file:")
               else route.abort())  # fmt: skip
    page.goto(path.as_uri())
    return errors


def test_a_pair_shows_both_texts_with_passages(page: Any, tmp_path: Path) -> None:
    out = tmp_path / "demo"
    args = ["dedup", str(EXAMPLES), "--measure", "containment", "-t", "0.5", "--out", str(out)]
    assert CliRunner().invoke(app, [*args, "-q"]).exit_code == 0
    errors = _open(page, write_view(out))
    assert page.locator("#pairs-body tr").count() == 9
    page.locator("#pairs-body tr", has_text="web/vanka.html").click()
    side_a, side_b = page.locator("#side-a"), page.locator("#side-b")
    assert "Ванька Жуков" in side_a.inner_text() and "Ванька Жуков" in side_b.inner_text()
    assert side_a.locator("mark").count() >= 1 and side_b.locator("mark").count() >= 1
    # a partial copy: the blog page quoting two paragraphs of "Смерть чиновника"; its
    # unmatched text is shown around the marked passages
    page.locator("#pairs-body tr", has_text="zametki-chitatelya").click()
    blog = page.locator("#side-b") if "zametki" in page.inner_text("#side-b-title") else side_a
    marked = "".join(blog.locator("mark").all_inner_texts())
    assert 0 < len(marked) < len(blog.inner_text())
    page.locator("#tab-clusters").click()
    assert page.locator("#clusters-body tr").count() == 9
    assert errors == []


def _big_run(out: Path, n: int) -> None:
    rng = random.Random(7)
    out.mkdir()
    rules = ["resemblance >= 0.5 verified", "identical shingle sets"]
    with (out / "pairs.jsonl").open("w") as fh:
        for i in range(n):
            s = round(rng.uniform(0.5, 1.0), 6)
            row = {"a": f"doc{i}", "b": f"doc{i}-copy", "resemblance": s, "score": s}
            row |= {"containment_ab": s, "containment_ba": s, "rule": rules[i % 2]}
            fh.write(json.dumps(row) + "\n")
    with (out / "clusters.jsonl").open("w") as fh:
        for i in range(n):
            members = [f"doc{i}", f"doc{i}-copy"] + ([f"doc{i}-third"] if i % 10 == 0 else [])
            fh.write(json.dumps({"cluster": i, "members": members, "keep": f"doc{i}"}) + "\n")
    (out / "summary.json").write_text(json.dumps({"method": "minhash-lsh", "pairs": n}))


@pytest.mark.slow
def test_a_hundred_thousand_pairs_stay_usable(page: Any, tmp_path: Path) -> None:
    out = tmp_path / "big"
    _big_run(out, 100_000)
    errors = _open(page, write_view(out))
    assert page.locator("#pairs-body tr").count() == 100
    assert "page 1 of 1000 (100000 rows)" in page.inner_text("#pairs-pager")
    first = [float(x) for x in page.locator("#pairs-body tr td:nth-child(4)").all_inner_texts()]
    assert first == sorted(first, reverse=True)
    page.fill("#f-score", "0.99")
    shown = page.inner_text("#pairs-pager")
    kept = int(shown.split("(")[1].split(" ")[0])
    assert 1_000 < kept < 3_000  # about 2 % of uniform scores in [0.5, 1] are >= 0.99
    page.select_option("#f-rule", label="identical shingle sets")
    assert int(page.inner_text("#pairs-pager").split("(")[1].split(" ")[0]) < kept
    page.select_option("#f-rule", value="")
    page.fill("#f-size", "3")  # clusters of three: every tenth pair
    rows = page.locator("#pairs-body tr td:nth-child(9)").all_inner_texts()
    assert rows and set(rows) == {"3"}
    page.locator("#tab-clusters").click()
    page.fill("#fc-size", "3")
    assert "(10000 rows)" in page.inner_text("#clusters-pager")
    assert errors == []
