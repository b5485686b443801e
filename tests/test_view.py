"""``neardup view``: the page of a dedup output folder (:mod:`neardup.html_report`), on the example
corpus's real run; the page in a browser is tested in ``tests/browser/test_view_browser.py``."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from neardup.cli.main import app
from neardup.errors import InputError, ParameterError
from neardup.html_report import ViewLimits, render_view, view_data, write_view

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "corpus"


@pytest.fixture(scope="module")
def demo_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The README's demo run (`make demo`) written to a folder."""
    out = tmp_path_factory.mktemp("view") / "demo"
    args = ["dedup", str(EXAMPLES), "--measure", "containment", "-t", "0.5", "--out", str(out)]
    res = CliRunner().invoke(app, [*args, "-q"])
    assert res.exit_code == 0, res.output
    return out


def _pairs(out: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (out / "pairs.jsonl").read_text().splitlines()]


def test_the_run_records_its_inputs_for_the_view(demo_out: Path) -> None:
    summary = json.loads((demo_out / "summary.json").read_text())
    assert summary["inputs"] == [str(EXAMPLES)]
    assert summary["read_options"]["text_field"] == "text"


def test_view_data_holds_every_pair_cluster_and_the_texts(demo_out: Path) -> None:
    data = view_data(demo_out)
    pairs = _pairs(demo_out)
    assert data["total_pairs"] == len(pairs) == len(data["pairs"]["a"]) == 9
    ids = data["ids"]
    listed = {(ids[a], ids[b]) for a, b in zip(data["pairs"]["a"], data["pairs"]["b"], strict=True)}
    assert listed == {(p["a"], p["b"]) for p in pairs}
    assert data["pairs"]["s"] == sorted(data["pairs"]["s"], reverse=True)  # highest score first
    clusters = [json.loads(x) for x in (demo_out / "clusters.jsonl").read_text().splitlines()]
    assert [ids[c["k"]] for c in data["clusters"]] == [c["keep"] for c in clusters]
    # the top pair is Chekhov's "Ванька" and its web copy: both texts, one passage covering
    # nearly all of the story in each
    top_a, top_b = ids[data["pairs"]["a"][0]], ids[data["pairs"]["b"][0]]
    assert {top_a, top_b} == {"chekhov/Ванька.txt", "web/vanka.html"}
    text_a = data["texts"][str(data["pairs"]["a"][0])]
    assert "Ванька Жуков, девятилетний мальчик" in text_a
    ((a0, a1, b0, b1),) = data["passages"]["0"]
    assert a1 - a0 > 0.9 * len(text_a)
    assert text_a[a0 + 20 : a0 + 60] in data["texts"][str(data["pairs"]["b"][0])][b0:b1]


def test_dropped_members_carry_their_reason(demo_out: Path) -> None:
    data = view_data(demo_out)
    dropped = {json.loads(x)["id"]: json.loads(x)["reason"]
               for x in (demo_out / "dropped.jsonl").read_text().splitlines()}  # fmt: skip
    shown = {data["ids"][int(k)]: why for c in data["clusters"] for k, why in c["d"].items()}
    assert shown == dropped


def test_limits_cap_pairs_and_texts(demo_out: Path) -> None:
    data = view_data(demo_out, limits=ViewLimits(max_pairs=3, text_pairs=1, max_chars=50))
    assert len(data["pairs"]["a"]) == 3 and data["total_pairs"] == 9
    assert len(data["passages"]) == 1 and len(data["texts"]) == 2
    assert all(len(t) == 50 for t in data["texts"].values())
    assert sorted(data["cut"]) == sorted(int(k) for k in data["texts"])


def test_no_inputs_means_no_texts(demo_out: Path, tmp_path: Path) -> None:
    data = view_data(demo_out, inputs=[str(tmp_path)])  # an empty folder: nothing found
    assert data["texts"] == {} and data["passages"] == {} and data["has_inputs"]


def test_page_is_self_contained_and_script_safe(demo_out: Path, tmp_path: Path) -> None:
    out = tmp_path / "hostile"
    out.mkdir()
    evil = "</script><script>alert(1)</script>"
    row = {"a": evil, "b": "b\u2028", "score": 0.9, "rule": "r", "decision": "own"}
    (out / "pairs.jsonl").write_text(json.dumps(row) + "\n")
    (out / "clusters.jsonl").write_text(
        json.dumps({"cluster": 0, "members": [evil, "b\u2028"], "keep": evil}) + "\n"
    )
    (out / "summary.json").write_text(json.dumps({"method": "x"}))
    html = render_view(view_data(out))
    assert html.count("</script>") == 2  # the two of the page itself, none from the data
    assert not re.search(r"(src|href)=\"https?:", html)  # no network
    payload = html.split('type="application/json">', 1)[1].split("</script>", 1)[0]
    assert json.loads(payload)["ids"] == [evil, "b\u2028"]


def test_not_a_dedup_folder_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"no summary\.json"):
        write_view(tmp_path)
    (tmp_path / "summary.json").write_text("{")
    with pytest.raises(InputError, match="not a dedup output folder"):
        write_view(tmp_path)


@pytest.mark.parametrize("field", ["max_pairs", "text_pairs", "max_chars"])
def test_limits_are_validated(field: str) -> None:
    with pytest.raises(ParameterError, match=field):
        ViewLimits(**{field: -1})


def test_cli_writes_the_page_and_exits_by_the_rules(demo_out: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    res = runner.invoke(app, ["view", str(demo_out)])
    assert res.exit_code == 0, res.output
    assert (demo_out / "view.html").stat().st_size > 1000
    target = tmp_path / "page.html"
    assert runner.invoke(app, ["view", str(demo_out), "-o", str(target)]).exit_code == 0
    assert target.read_text().startswith("<!doctype html>")
    assert runner.invoke(app, ["view", str(tmp_path)]).exit_code == 1
    assert runner.invoke(app, ["view", str(demo_out), "--texts", "-1"]).exit_code == 2
