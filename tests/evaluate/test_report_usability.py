"""`neardup evaluate` for people: matplotlib checked before any run, scores kept when the
HTML report fails, labelled metadata, and a hint when the best F1 is at the edge of the
thresholds tried."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from neardup.cli.main import app
from neardup.errors import NeardupError
from neardup.evaluate import report
from neardup.evaluate.gold import GoldStandard
from neardup.evaluate.run import EvalConfig, Evaluation, evaluate_corpus
from neardup.text.types import Document
from shared_data import require

CORPUS = Path(__file__).resolve().parents[2] / "examples" / "corpus"
runner = CliRunner()


def _docs() -> list[Document]:
    """Real text: a Chekhov story, its web copy (near-duplicate), its excerpt (contained)
    and an unrelated story."""
    read = lambda *p: CORPUS.joinpath(*p).read_text(encoding="utf-8")  # noqa: E731
    return [
        Document("vanka", read("chekhov", "Ванька.txt")),
        Document("vanka-web", read("chekhov", "Ванька.txt").replace("Ванька", "Ваня")),
        Document("toska", read("chekhov", "Тоска.txt")),
        Document("chameleon", read("chekhov", "Хамелеон.txt")),
        Document("chameleon-start", read("excerpts", "Хамелеон (начало).txt")),
    ]


GOLD = GoldStandard.from_pairs(
    [("vanka", "vanka-web", 1), ("chameleon", "chameleon-start", 1), ("vanka", "toska", 0)]
)


def _labelled(gold: GoldStandard) -> list[tuple[str, str, int]]:
    """The gold's positive pairs, sorted, as ``(a, b, 1)`` rows."""
    return [(a, b, 1) for a, b in sorted(gold.positives)]


@pytest.fixture(scope="module")
def evaluation() -> Evaluation:
    config = EvalConfig(methods=("shingles-full",), thresholds=(0.3, 0.5, 0.7), replicates=50)
    return evaluate_corpus(_docs(), GOLD, config)


def _files(tmp_path: Path) -> list[str]:
    corpus = tmp_path / "docs.jsonl"
    corpus.write_text(
        "".join(json.dumps({"id": d.id, "text": d.text}, ensure_ascii=False) + "\n"
                for d in _docs()),
        encoding="utf-8",
    )  # fmt: skip
    gold = tmp_path / "gold.jsonl"
    gold.write_text(
        "".join(json.dumps({"a": a, "b": b, "label": 1}) + "\n" for a, b in GOLD.positives),
        encoding="utf-8",
    )
    return [str(corpus), "--gold", str(gold), "--memory", "off", "-q", "--bootstrap", "20"]


def test_edge_hint_when_the_best_f1_is_the_lowest_threshold(evaluation: Evaluation) -> None:
    # the excerpt shares only 0.63 of the story: only t=0.3 and 0.5 find both pairs
    best = evaluation.best()["shingles-full"]
    assert best.threshold == 0.5 and best.scores.f1 == 1.0
    assert report.edge_hints(evaluation) == []
    low = EvalConfig(methods=("shingles-full",), thresholds=(0.6, 0.7, 0.8), replicates=20)
    # F1 1 at t=0.6, the lowest: nothing to gain lower, no hint (issue 41, item 14)
    assert report.edge_hints(evaluate_corpus(_docs(), GOLD, low)) == []
    # «Тоска» labelled a duplicate of «Ванька» (missed at every t): F1 below 1, the hint
    harder = GoldStandard.from_pairs([*_labelled(GOLD)[:2], ("vanka", "toska", 1)])
    hints = report.edge_hints(evaluate_corpus(_docs(), harder, low))
    assert hints == [
        "shingles-full: the best F1 is at t=0.6, the lowest threshold tried; lower "
        "thresholds may do better (e.g. --thresholds 0.3:0.8:0.1)"
    ]


def test_edge_hint_when_the_best_f1_is_the_highest_threshold() -> None:
    high = EvalConfig(methods=("shingles-full",), thresholds=(0.2, 0.3), replicates=20)
    gold = GoldStandard.from_pairs([("vanka", "vanka-web", 1), ("chameleon", "chameleon-start", 0)])
    hints = report.edge_hints(evaluate_corpus(_docs(), gold, high))
    assert hints == [
        "shingles-full: the best F1 is at t=0.3, the highest threshold tried; higher "
        "thresholds may do better (e.g. --thresholds 0.2:1.0:0.1)"
    ]


def test_metadata_has_labels_not_keys(evaluation: Evaluation) -> None:
    rows = dict(report.meta_rows(evaluation.meta))
    assert rows["Documents"] == "5"
    assert rows["Thresholds"] == "0.3, 0.5, 0.7"
    assert rows["Decision rule"].startswith("each method's default")
    assert "Verified on exact shingle sets" not in rows
    verified = dict(report.meta_rows({**evaluation.meta, "decision": "verified"}))
    assert verified["Decision rule"] == "exact shingle sets"
    assert rows["Bootstrap"].endswith("50 replicates, seed 0")
    assert not any(k.startswith("gold_") for k in rows)


@pytest.mark.slow
def test_html_has_labels_titles_and_hints(evaluation: Evaluation) -> None:
    require("matplotlib")
    text = report.render_html(evaluation, title="t")
    assert "<th>Duplicate pairs in the gold standard</th><td>2</td>" in text
    assert "<h3>F1 vs threshold</h3>" in text and "<h3>f1</h3>" not in text
    assert "{'replicates'" not in text  # no Python reprs


def test_matplotlib_is_checked_before_any_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib.util

    from neardup.evaluate import run

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda n, *a: None if n == "matplotlib" else real(n, *a)
    )
    monkeypatch.setattr(run, "evaluate_corpus", lambda *a, **k: pytest.fail("ran"))
    res = runner.invoke(app, ["evaluate", *_files(tmp_path), "--html", str(tmp_path / "r.html")])
    assert res.exit_code == 2
    assert "pip install 'neardup[report]'" in " ".join(res.stderr.split())


def test_scores_survive_a_failing_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*_a: object, **_k: object) -> None:
        raise NeardupError("disk on fire")

    monkeypatch.setattr(report, "write_html", broken)
    html = tmp_path / "r.html"
    res = runner.invoke(
        app,
        [
            "evaluate",
            *_files(tmp_path),
            "--methods",
            "shingles-full",
            "--thresholds",
            "0.5",
            "--json",
            "--html",
            str(html),
        ],
    )
    assert res.exit_code == 1
    assert json.loads(res.stdout)["rows"][0]["f1"] == 1.0  # printed before the report
    saved = json.loads((tmp_path / "r.html.json").read_text(encoding="utf-8"))
    assert saved["rows"][0]["f1"] == 1.0 and "disk on fire" in " ".join(res.stderr.split())
    again = runner.invoke(app, ["evaluate", "--from-json", str(tmp_path / "r.html.json"), "--json"])
    assert again.exit_code == 0 and json.loads(again.stdout)["rows"] == saved["rows"]
