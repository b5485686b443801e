"""Runs on clough-stevenson and a tiny corpus, the reuse shortcut, the HTML report, the CLI."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from neardup.cli.main import app
from neardup.evaluate.gold import GoldStandard, load_gold
from neardup.evaluate.run import EvalConfig, Evaluation, evaluate_corpus
from neardup.text.types import Document
from shared_data import data_path, load_docs, require

runner = CliRunner()
BASE = (
    "the quick brown fox jumps over the lazy dog while the farmer watches from the old red barn "
    "and the children laugh in the field near the river where the boats sail slowly past"
)
DOCS = [
    Document("a", BASE),
    Document("b", BASE.replace("lazy", "sleepy")),
    Document("c", BASE.replace("children", "kids").replace("boats", "ships")),
    Document(
        "d",
        "an entirely different text about compilers parsers and register allocation "
        "in optimising compilers for small embedded targets with little memory",
    ),
]
GOLD = GoldStandard.from_pairs([("a", "b", 1), ("a", "c", 1), ("b", "c", 1), ("a", "d", 0)])


def _run(*args: str) -> Result:
    return runner.invoke(app, list(args), catch_exceptions=False)


@pytest.fixture(scope="module")
def tiny() -> Evaluation:
    config = EvalConfig(
        methods=("shingles-full", "imatch"),
        thresholds=(0.3, 0.6, 0.9),
        method_params={"shingles-full": {"shingle_size": 2}},
        replicates=100,
    )
    return evaluate_corpus(DOCS, GOLD, config)


def test_tiny_corpus_rows(tiny: Evaluation) -> None:
    assert [(r.method, r.threshold) for r in tiny.rows] == [
        ("shingles-full", 0.3), ("shingles-full", 0.6), ("shingles-full", 0.9),
        ("imatch", 0.3),
    ]  # fmt: skip
    full = {r.threshold: r for r in tiny.rows if r.method == "shingles-full"}
    assert full[0.3].scores.tp == 3 and full[0.3].scores.fp == 0
    assert all(r.error is None and r.usage is not None and r.usage.seconds >= 0 for r in tiny.rows)
    # imatch decides by equal signatures (no threshold): one run, one row for every t
    assert [r.threshold_free for r in tiny.rows] == [False, False, False, True]
    assert tiny.best()["shingles-full"].scores.f1 == 1.0


@pytest.mark.slow
def test_html_report_contains_the_plots(tiny: Evaluation, tmp_path: Path) -> None:
    require("matplotlib")
    from neardup.evaluate.report import FIGURE_TITLES, FIGURES, write_html

    path = write_html(tiny, tmp_path / "r" / "report.html", title="tiny")
    text = path.read_text(encoding="utf-8")
    imgs = re.findall(r'<img alt="([^"]+)" src="data:image/png;base64,([^"]+)"', text)
    assert [name for name, _ in imgs] == [FIGURE_TITLES[f] for f in FIGURES]
    for _, data in imgs:
        png = base64.b64decode(data)
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 5000
    assert "Best F1 per method" in text and "shingles-full" in text


@pytest.mark.data
def test_clough_containment_reaches_the_readme_figure() -> None:
    # README: containment of word 2-shingles, lower-cased tokens, labelled scope: F1 0.964.
    name = "clough-stevenson"
    gold = load_gold(data_path(name, "gold.jsonl"))
    from neardup.text.canonical import CanonicalForm

    config = EvalConfig(
        methods=("shingles-full",),
        thresholds=(0.2,),
        measure="containment",
        scope="labelled",
        method_params={
            "shingles-full": {"shingle_size": 2, "canonical": CanonicalForm(stop_words=False)}
        },
        replicates=100,
    )
    row = evaluate_corpus(load_docs(name), gold, config).rows[0]
    assert row.scores.f1 >= 0.95


@pytest.mark.data
@pytest.mark.parametrize("method", ["simhash", "megashingles"])
def test_reuse_equals_direct_runs(method: str) -> None:
    name = "clough-stevenson"
    gold = load_gold(data_path(name, "gold.jsonl"))
    docs = load_docs(name)
    kw: dict[str, Any] = {
        "methods": (method,),
        "thresholds": (0.5, 0.9, 0.97),
        "decision": "verified",  # by their own rules they run once: one row (no reuse)
        "replicates": 10,
    }
    reused = evaluate_corpus(docs, gold, EvalConfig(**kw))
    direct = evaluate_corpus(docs, gold, EvalConfig(**kw, reuse=False))
    assert [r.reused for r in reused.rows] == [False, True, True]
    assert [r.scores for r in reused.rows] == [r.scores for r in direct.rows]


@pytest.mark.data
def test_cli_table2_json_on_clough() -> None:
    d = data_path("clough-stevenson")
    res = _run("evaluate", str(d / "docs.jsonl"), "--gold", str(d / "gold.jsonl"), "--table2",
               "--json", "--bootstrap", "20", "--memory", "off")  # fmt: skip
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    ts = [row["t"] for row in data["table2"]]
    assert ts == [0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1.0]  # megashingles at 0.95 only
    assert data["table2"][5]["shingles-full"] is None
    assert set(data["table2"][5]["megashingles"]) == {"found", "type_i_pct", "recall"}
    first = data["table2"][0]
    for m in ("shingles-mod", "shingles-min", "shingles-full"):
        assert set(first[m]) == {"found", "type_i_pct", "recall"}
    assert data["meta"]["decision"] == "own"
    assert "verify" not in data["meta"]
    params = {r["method"]: r["params"]["method"] for r in data["rows"]}
    assert params["shingles-mod"]["m"] == 25 and params["shingles-min"]["n"] == 160
    assert params["shingles-full"]["size"] == 4
    # mega-shingles as Zagorulko et al. 2013 built them: 5-word Karp-Rabin 64-bit shingles
    assert params["megashingles"]["shingle_size"] == 5
    assert params["megashingles"]["fingerprint"] == "rabin64"
    formula3 = data["meta"]["megashingles_formula3"]
    assert formula3["r"] == 14 and formula3["s"] == 6 and formula3["pairs"] > 0
    assert 0.0 <= formula3["expected_recall"] <= 1.0


def test_cli_table2_over_several_collections_has_the_total_row(tmp_path: Path) -> None:
    folders = []
    for name, docs in (("one", DOCS), ("two", [*DOCS[:2], DOCS[3]])):
        folder = tmp_path / name
        folder.mkdir()
        rows = [json.dumps({"id": d.id, "text": d.text}) for d in docs]
        (folder / "docs.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")
        gold = [{"a": "a", "b": "c", "label": 1}, {"a": "a", "b": "d", "label": 0}]
        text = "\n".join(json.dumps(g) for g in gold) + "\n"
        (folder / "gold.jsonl").write_text(text, encoding="utf-8")
        folders.append(str(folder))
    res = _run("evaluate", "--table2", *folders, "-w", "2", "--json", "--bootstrap", "10",
               "--memory", "off", "--min-tokens", "1")  # fmt: skip
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert list(data["collections"]) == ["one", "two"]
    at = {(r["t"], r["collection"]): r for r in data["table2"]}
    assert [r["collection"] for r in data["table2"][:3]] == ["one", "two", "total"]
    # t = 0.5, 2-word shingles: "one" finds a-b, a-c, b-c (a-b and b-c unlabelled: false in
    # scope all), "two" finds a-b (unlabelled, false): 4 pairs, 3 of them false
    one, two, total = (at[(0.5, c)]["shingles-full"] for c in ("one", "two", "total"))
    assert (one["found"], two["found"]) == (3, 1)
    assert total == {"found": 4, "type_i_pct": 75.0}
    assert at[(0.95, "total")]["shingles-full"] is None
    params = data["collections"]["one"]["rows"][0]["params"]["method"]
    assert params["fingerprint"] == "rabin32"
    res = _run("evaluate", "--table2", str(tmp_path))
    assert res.exit_code == 2 and "docs.jsonl" in res.output


def test_cli_exit_codes(tmp_path: Path) -> None:
    gold = tmp_path / "gold.jsonl"
    gold.write_text('{"a": "a", "b": "b", "label": 1}\n', encoding="utf-8")
    corpus = tmp_path / "docs.jsonl"
    corpus.write_text(
        "".join(json.dumps({"id": d.id, "text": d.text}) + "\n" for d in DOCS), encoding="utf-8"
    )
    base = ["evaluate", str(corpus), "--gold", str(gold), "--memory", "off", "-q"]
    for bad in ("0.5:0.1:0.1", "abc", "0:1:0.1", "2"):
        res = _run(*base, "--thresholds", bad)
        assert res.exit_code == 2, (bad, res.output)
    assert _run(*base, "--methods", "no-such-method").exit_code == 2
    for opt in ("--memory", "--scope", "--measure"):
        assert _run(*base, opt, "nonsense").exit_code == 2, opt
    assert _run(*base, "--param", "nonsense=1", "--methods", "imatch").exit_code == 2
    assert _run("evaluate", "--gold", str(gold)).exit_code == 2  # neither inputs nor --pairs
    assert _run(*base[:2], "--gold", str(tmp_path / "missing.jsonl")).exit_code == 1
    ok = _run(*base, "--methods", "shingles-full", "--thresholds", "0.5,0.9", "--json",
              "--bootstrap", "10")  # fmt: skip
    assert ok.exit_code == 0, ok.output
    rows = json.loads(ok.stdout)["rows"]
    assert [r["threshold"] for r in rows] == [0.5, 0.9]


def test_cli_gold_ids_not_in_the_corpus(tmp_path: Path) -> None:
    # issue 41, item 10: clough-stevenson's gold with 2 of its 95 pairs naming documents of
    # another corpus: a warning naming the count (and the ids); a gold of another corpus
    # altogether (no id found) exits 1 instead of printing F1 0
    d = data_path("clough-stevenson")
    rows = [json.loads(line) for line in (d / "gold.jsonl").read_text("utf-8").splitlines()]
    names = {r[k] for r in rows for k in ("a", "b")}
    rows[0] = {**rows[0], "a": "elsewhere-1.txt"}
    rows[1] = {**rows[1], "b": "elsewhere-2.txt"}
    gone = names - {r[k] for r in rows for k in ("a", "b")}  # ids named in those rows only
    partial = tmp_path / "partial.jsonl"
    partial.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    base = ["evaluate", str(d / "docs.jsonl"), "--memory", "off", "-q", "--bootstrap", "10"]
    base += ["--methods", "shingles-full", "--thresholds", "0.5"]
    res = runner.invoke(app, [*base, "--gold", str(partial)])
    assert res.exit_code == 0, res.output
    total = len(names - gone) + 2
    assert f"2 of the {total} document ids of the gold standard are not in the corpus" in (
        " ".join(res.stderr.split())
    )
    assert "elsewhere-1.txt, elsewhere-2.txt" in res.stderr
    foreign = tmp_path / "foreign.jsonl"
    foreign.write_text('{"a": "x.txt", "b": "y.txt", "label": 1}\n', encoding="utf-8")
    res = runner.invoke(app, [*base, "--gold", str(foreign)])
    assert res.exit_code == 1, res.output
    assert "none of the 2 document ids of the gold standard is in the corpus" in res.stderr
    assert "F1" not in res.stdout


def test_cli_names_the_inputs_it_skipped(tmp_path: Path) -> None:
    # issue 41, item 14: "skipped 2 unreadable inputs" named neither
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.txt").write_text(BASE, encoding="utf-8")
    (corpus / "b.txt").write_text(BASE.replace("lazy", "sleepy"), encoding="utf-8")
    (corpus / "empty.txt").write_bytes(b"")
    (corpus / "binary.txt").write_bytes(b"\x00\x01\x02" * 100)
    gold = tmp_path / "gold.jsonl"
    gold.write_text('{"a": "a.txt", "b": "b.txt", "label": 1}\n', encoding="utf-8")
    args = ["evaluate", str(corpus), "--gold", str(gold), "--methods", "shingles-full"]
    res = runner.invoke(app, [*args, "--memory", "off", "-q", "--bootstrap", "10"])
    assert res.exit_code == 0, res.output
    lines = res.stderr.splitlines()
    assert lines[0] == "skipped 2 input(s) not read:"
    assert lines[1].startswith("  binary.txt: binary (")
    assert lines[2] == "  empty.txt: empty (0 bytes)"


def test_cli_scores_a_dedup_output(tmp_path: Path) -> None:
    corpus = tmp_path / "docs.jsonl"
    corpus.write_text(
        "".join(json.dumps({"id": d.id, "text": d.text}) + "\n" for d in DOCS), encoding="utf-8"
    )
    gold = tmp_path / "gold.jsonl"
    gold.write_text(
        "".join(json.dumps({"a": a, "b": b, "label": 1}) + "\n" for a, b in GOLD.positives),
        encoding="utf-8",
    )
    out = tmp_path / "out"
    assert _run("dedup", str(corpus), "-w", "2", "-t", "0.3", "-o", str(out), "-q").exit_code == 0
    res = _run("evaluate", "--pairs", str(out), "--gold", str(gold), "--json",
               "--thresholds", "0.3,0.95", "--bootstrap", "10")  # fmt: skip
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)["rows"]
    assert rows[0]["tp"] == 3 and rows[0]["f1"] == 1.0
    assert rows[1]["found"] <= rows[0]["found"]
    low = _run("evaluate", "--pairs", str(out), "--gold", str(gold), "--thresholds", "0.1")
    assert low.exit_code == 2


def test_json_report_round_trips(tiny: Evaluation, tmp_path: Path) -> None:
    from neardup.evaluate.run import evaluation_from_dict

    data = tiny.as_dict()
    again = evaluation_from_dict(json.loads(json.dumps(data))).as_dict()
    assert again["rows"] == data["rows"] and again["best"] == data["best"]
    saved = tmp_path / "saved.json"
    saved.write_text(json.dumps(data), encoding="utf-8")
    res = _run("evaluate", "--from-json", str(saved), "--json")
    assert res.exit_code == 0 and json.loads(res.stdout)["rows"] == data["rows"]
