"""Zagorulko et al.'s (2013) Table 3 in form: type-II errors of the shingle methods at
t = 0.5 and 0.6 on a sample of judged texts, per collection and in total."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from neardup.cli.main import app
from neardup.evaluate.gold import GoldStandard
from neardup.evaluate.metrics import Gold
from neardup.evaluate.run import evaluate_corpus
from neardup.evaluate.table2 import TOTAL, table3_config, table3_rows, table3_sample
from neardup.text.types import Document
from shared_data import data_path, paragraphs

runner = CliRunner()


def _gold(pairs: set[tuple[str, str]], ids: set[str]) -> GoldStandard:
    keys = frozenset(tuple(sorted(p)) for p in pairs)
    return GoldStandard(Gold(keys, frozenset()), "pairs", frozenset(ids))  # type: ignore[arg-type]


def test_config_is_table_2s_shingle_methods_at_05_and_06() -> None:
    config = table3_config()
    assert config.methods == ("shingles-mod", "shingles-min", "shingles-full")
    assert config.thresholds == (0.5, 0.6)
    assert config.method_params["shingles-mod"] == {
        "shingle_size": 4,
        "m": 25,
        "fingerprint": "rabin32",
    }


def test_sample_keeps_only_the_judged_pairs_inside_it() -> None:
    docs = [Document(f"d{i}", f"text {i}") for i in range(10)]
    gold = _gold({("d0", "d1"), ("d2", "d3"), ("d4", "x")}, {"d0", "d1", "d2", "d3", "d4", "x"})
    chosen, inside = table3_sample(docs, gold, size=3, seed=1)
    ids = {d.id for d in chosen}
    assert len(ids) == 3 and ids <= {"d0", "d1", "d2", "d3", "d4"}  # judged documents only
    assert all(a in ids and b in ids for a, b in inside.positives)
    assert table3_sample(docs, gold, size=3, seed=1)[0] == chosen  # seeded


def test_rows_give_the_missed_share_per_collection_and_in_total() -> None:
    texts = paragraphs("progit-ru-revisions", 3, min_words=120)
    words = texts[0].split()
    light = " ".join(words[:40] + words[45:])  # a light edit: found at 0.5
    heavy = " ".join(words[: len(words) // 3])  # a third of it: resemblance < 0.5
    docs = [
        Document("a", texts[0]),
        Document("b", light),
        Document("c", heavy),
        Document("z", texts[1]),
    ]
    gold = _gold({("a", "b"), ("a", "c")}, {"a", "b", "c", "z"})
    config = table3_config(replicates=10, memory="off")
    ev = evaluate_corpus(docs, gold, config)
    rows = table3_rows([("one", ev)])
    first = rows[0]
    assert (first["t"], first["collection"], first["pairs"]) == (0.5, "one", 2)
    assert first["shingles-full"] == 50.0  # the heavy cut is missed: 1 of 2
    assert rows[1]["collection"] == TOTAL and rows[1]["shingles-full"] == 50.0


def test_cli_table3_over_two_sets() -> None:
    folders = [str(data_path("progit-ru-revisions")), str(data_path("clough-stevenson"))]
    res = runner.invoke(app, ["evaluate", "--table3", *folders, "--sample", "40", "--json",
                              "--bootstrap", "10", "--memory", "off"])  # fmt: skip
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)["table3"]
    assert [(r["t"], r["collection"]) for r in rows] == [
        (0.5, "progit-ru-revisions"), (0.5, "clough-stevenson"), (0.5, "total"),
        (0.6, "progit-ru-revisions"), (0.6, "clough-stevenson"), (0.6, "total"),
    ]  # fmt: skip
    for r in rows:
        for m in ("shingles-mod", "shingles-min", "shingles-full"):
            assert r[m] is None or 0.0 <= r[m] <= 100.0
    assert rows[2]["pairs"] == rows[0]["pairs"] + rows[1]["pairs"] > 0
    text = runner.invoke(app, ["evaluate", "--table3", *folders, "--sample", "40",
                               "--bootstrap", "10", "--memory", "off"]).output  # fmt: skip
    assert "Table 3 (Zagorulko et al. 2013): type-II error %" in text
