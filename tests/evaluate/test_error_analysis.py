"""`neardup evaluate` hints and error analysis (issue 30, item 16): no threshold hint for
threshold-free methods, no hint repeating the range just run, methods left out under
``--measure containment`` named with the reason, false-positive and missed pairs at each
method's best threshold in the JSON and the HTML report. Real text from examples/corpus."""

from __future__ import annotations

import collections
import dataclasses
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from neardup.cli.main import app
from neardup.evaluate import report
from neardup.evaluate.gold import GoldStandard
from neardup.evaluate.metrics import Scores
from neardup.evaluate.run import (
    EvalConfig,
    EvalRow,
    Evaluation,
    evaluate_corpus,
    evaluation_from_dict,
)
from neardup.text.types import Document
from shared_data import require

CORPUS = Path(__file__).resolve().parents[2] / "examples" / "corpus"
runner = CliRunner()


def _read(*parts: str) -> str:
    return CORPUS.joinpath(*parts).read_text(encoding="utf-8")


def _docs() -> list[Document]:
    """Known pairs of examples/README.md: «Ванька» as text and as a web page, the excerpt
    inside «Хамелеон»; «Тоска» unrelated to both."""
    return [
        Document("vanka", _read("chekhov", "Ванька.txt")),
        Document("vanka-web", _read("chekhov", "Ванька.txt").replace("Ванька", "Ваня")),
        Document("toska", _read("chekhov", "Тоска.txt")),
        Document("chameleon", _read("chekhov", "Хамелеон.txt")),
        Document("chameleon-start", _read("excerpts", "Хамелеон (начало).txt")),
    ]


def _rows(method: str, f1_by_t: dict[float, int], fp: int = 1) -> list[EvalRow]:
    """Rows whose true positives (of 2 gold pairs) are given per threshold, each with ``fp``
    false positives (F1 below 1 unless 0)."""
    return [
        EvalRow(method, t, tp + fp, Scores(tp=tp, fp=fp, fn=2 - tp), None, None, None)
        for t, tp in f1_by_t.items()
    ]


def test_no_threshold_hint_for_a_threshold_free_method() -> None:
    # TF-RIDF (Romanov 2019) decides by equal signatures: every threshold gives the same
    # pairs, the tie goes to the highest, and the old hint asked for higher thresholds
    config = EvalConfig(methods=("tf-ridf",), thresholds=(0.5, 0.7, 0.9), replicates=20)
    gold = GoldStandard.from_pairs([("vanka", "vanka-web", 1), ("vanka", "toska", 0)])
    ev = evaluate_corpus(_docs(), gold, config)
    assert len({r.scores.f1 for r in ev.rows}) == 1
    assert report.edge_hints(ev) == []
    # verified on the exact sets, the threshold applies again: the hint comes back
    verified = Evaluation(_rows("tf-ridf", {0.5: 1, 0.7: 1, 0.9: 1}), {"decision": "verified"})
    assert [h.split(":")[0] for h in report.edge_hints(verified)] == ["tf-ridf"]


def test_a_threshold_free_method_gets_one_row() -> None:
    # I-Match's own rule (equal signatures, Chowdhury et al. 2002) takes no threshold: one
    # run, one row, not three identical ones; verified, the threshold applies: three rows
    config = EvalConfig(methods=("imatch",), thresholds=(0.5, 0.7, 0.9), replicates=20)
    gold = GoldStandard.from_pairs([("vanka", "vanka-web", 1), ("vanka", "toska", 0)])
    ev = evaluate_corpus(_docs(), gold, config)
    (row,) = ev.rows
    assert row.threshold_free and row.as_dict()["threshold_free"] is True
    assert (row.threshold, row.scores.tp, row.scores.fp) == (0.5, 1, 0)
    assert report._cells(row)[1] == "any"
    assert evaluation_from_dict(ev.as_dict()).rows[0].threshold_free
    verified = dataclasses.replace(config, decision="verified")
    rows = evaluate_corpus(_docs(), gold, verified).rows
    assert [r.threshold for r in rows] == [0.5, 0.7, 0.9]
    assert not any(r.threshold_free for r in rows)


def test_no_hint_at_f1_one() -> None:
    # F1 1.000 at the lowest threshold tried: lower thresholds cannot do better
    perfect = Evaluation(_rows("shingles-full", {0.3: 2, 0.5: 1, 0.7: 1}, fp=0), {})
    assert report.edge_hints(Evaluation(_rows("shingles-full", {0.3: 2, 0.5: 1, 0.7: 1}), {}))
    assert report.edge_hints(perfect) == []


def test_a_hint_never_suggests_the_range_just_run() -> None:
    # 0.05:0.95:0.1 was run; "0.05:1.0:0.1" would run the same thresholds again
    high = Evaluation(_rows("shingles-full", {0.05: 0, 0.85: 1, 0.95: 2}), {})
    assert report.edge_hints(high) == [
        "shingles-full: the best F1 is at t=0.95, the highest threshold tried; higher "
        "thresholds may do better (e.g. --thresholds 0.95:1.0:0.025)"
    ]
    # 0.1:0.3:0.1 was run; the old hint said "0.1:0.3:0.1"
    low = Evaluation(_rows("shingles-full", {0.1: 2, 0.2: 1, 0.3: 0}), {})
    assert report.edge_hints(low) == [
        "shingles-full: the best F1 is at t=0.1, the lowest threshold tried; lower "
        "thresholds may do better (e.g. --thresholds 0.05:0.3:0.1)"
    ]


def _files(tmp_path: Path, gold_rows: list[tuple[str, str, int]]) -> list[str]:
    corpus = tmp_path / "docs.jsonl"
    corpus.write_text(
        "".join(json.dumps({"id": d.id, "text": d.text}, ensure_ascii=False) + "\n"
                for d in _docs()),
        encoding="utf-8",
    )  # fmt: skip
    gold = tmp_path / "gold.jsonl"
    gold.write_text(
        "".join(json.dumps({"a": a, "b": b, "label": v}) + "\n" for a, b, v in gold_rows),
        encoding="utf-8",
    )
    return [str(corpus), "--gold", str(gold), "--memory", "off", "-q", "--bootstrap", "20"]


GOLD_ROWS = [("vanka", "vanka-web", 1), ("chameleon", "chameleon-start", 1), ("vanka", "toska", 0)]


def test_methods_left_out_under_containment_are_named(tmp_path: Path) -> None:
    # issue 41, item 14: TF-RIDF and SimHash decide by their own rules, which take no
    # threshold nor measure: they run under --measure containment (one row each); the
    # methods whose own rule decides by a measure and cannot by containment are left out
    args = [*_files(tmp_path, GOLD_ROWS), "--measure", "containment", "--thresholds", "0.5:0.7:0.1"]
    methods = ["--methods", "shingles-full,tf-ridf,simhash,shingles-min,sl-st"]
    res = runner.invoke(app, ["evaluate", *args, *methods, "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    left = {x["method"]: x["reason"] for x in data["left_out"]}
    assert set(left) == {"shingles-min", "sl-st"}
    assert "containment" in left["sl-st"] and "--decision verified" in left["sl-st"]
    per_method = collections.Counter(r["method"] for r in data["rows"])
    assert per_method == {"shingles-full": 3, "tf-ridf": 1, "simhash": 1}
    free = {r["method"]: r for r in data["rows"] if r["threshold_free"]}
    assert set(free) == {"tf-ridf", "simhash"}
    text = runner.invoke(app, ["evaluate", *args, *methods])
    assert text.exit_code == 0, text.output
    lines = [ln for ln in text.stdout.splitlines() if "left out" in ln]
    assert len(lines) == 2 and "shingles-min left out" in lines[0] and "sl-st left out" in lines[1]


def test_false_positive_and_missed_pairs_at_the_best_threshold(tmp_path: Path) -> None:
    # labelled as not duplicates, «Ванька» and its web copy (resemblance 0.89) become a false
    # positive at both thresholds; the excerpt (resemblance 0.63) is found at t=0.5 only, the
    # best threshold; «Ванька» and «Тоска», labelled duplicates, are missed at both
    rows = [("vanka", "vanka-web", 0), ("chameleon", "chameleon-start", 1), ("vanka", "toska", 1)]
    args = [*_files(tmp_path, rows), "--methods", "shingles-full", "--thresholds", "0.5,0.8"]
    res = runner.invoke(app, ["evaluate", *args, "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    back = evaluation_from_dict(data)  # --from-json keeps them
    assert back.errors == data["errors"] and back.left_out == data["left_out"] == []
    err = data["errors"]["shingles-full"]
    assert err["threshold"] == 0.5
    assert err["false_positives_total"] == 1 and err["missed_total"] == 1
    assert err["false_positives"] == [
        {"a": "vanka", "b": "vanka-web", "resemblance": 0.8896,
         "containment_ab": 0.9416, "containment_ba": 0.9416}
    ]  # fmt: skip
    (missed,) = err["missed"]
    assert (missed["a"], missed["b"]) == ("toska", "vanka")
    assert missed["resemblance"] < 0.01 and missed["containment_ab"] < 0.02


@pytest.mark.slow
def test_html_lists_the_error_pairs(tmp_path: Path) -> None:
    require("matplotlib")
    rows = [("vanka", "vanka-web", 0), ("chameleon", "chameleon-start", 1), ("vanka", "toska", 1)]
    out = tmp_path / "r.html"
    args = [*_files(tmp_path, rows), "--methods", "shingles-full", "--thresholds", "0.5,0.8"]
    res = runner.invoke(app, ["evaluate", *args, "--html", str(out)])
    assert res.exit_code == 0, res.output
    page = out.read_text(encoding="utf-8")
    assert "Errors at the best threshold" in page
    assert "shingles-full at t=0.5: 1 false positives" in page
    assert "shingles-full at t=0.5: 1 missed pairs" in page
    assert "<td>vanka-web</td><td>0.890</td><td>0.942</td><td>0.942</td>" in page
    assert "<td>toska</td><td>vanka</td>" in page


def test_error_pairs_of_a_dedup_output_directory(tmp_path: Path) -> None:
    # `evaluate --pairs DIR`: the false positive's measures come from pairs.jsonl (the same
    # values as from the texts); a missed pair's are unknown (the texts are not there)
    import neardup
    from neardup.evaluate.run import evaluate_pairs_dir

    result = neardup.dedup(_docs(), options=neardup.DedupOptions(threshold=0.5))
    neardup.write_result(result, tmp_path / "out")
    rows = [("vanka", "vanka-web", 0), ("chameleon", "chameleon-start", 1), ("vanka", "toska", 1)]
    gold = GoldStandard.from_pairs(rows)
    err = evaluate_pairs_dir(tmp_path / "out", gold, replicates=20).errors["shingles-full"]
    assert err["threshold"] == 0.5
    assert err["false_positives"] == [
        {"a": "vanka", "b": "vanka-web", "resemblance": 0.8896,
         "containment_ab": 0.9416, "containment_ba": 0.9416}
    ]  # fmt: skip
    assert err["missed"] == [
        {"a": "toska", "b": "vanka", "resemblance": None,
         "containment_ab": None, "containment_ba": None}
    ]  # fmt: skip


def test_a_threshold_free_row_is_a_line_across_the_thresholds() -> None:
    require("matplotlib")
    config = EvalConfig(methods=("shingles-full", "imatch"), thresholds=(0.3, 0.7), replicates=10)
    gold = GoldStandard.from_pairs([("vanka", "vanka-web", 1), ("vanka", "toska", 0)])
    ev = evaluate_corpus(_docs(), gold, config)
    for figure in (report.plot_found(ev), report.plot_f1(ev)):
        lines = {ln.get_label(): ln for ln in figure.axes[0].get_lines()}
        free = lines["imatch (any t)"]
        assert list(free.get_xdata()) == [0, 1]  # axhline: the whole width of the axes
        assert list(lines["shingles-full"].get_xdata()) == [0.3, 0.7]
