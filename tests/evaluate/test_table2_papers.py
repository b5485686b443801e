"""Issue 29 items 4 and 6: Table 2's mega-shingle column on 5-word rabin64 shingles with
formula (3)'s expected recall beside the measured one, and the scope stated in the table."""

from __future__ import annotations

import json
from typing import cast

import numpy as np
import pytest
from typer.testing import CliRunner

from neardup.cli.main import app
from neardup.evaluate.gold import GoldStandard
from neardup.evaluate.metrics import Gold
from neardup.evaluate.run import EvalConfig, evaluate_corpus
from neardup.evaluate.table2 import (
    FORMULA3,
    MEGASHINGLES_PARAMS,
    formula3_note,
    megashingle_expected_recall,
    scope_note,
    table2_config,
    with_expected_recall,
)
from neardup.methods.megashingles import recall_curve
from neardup.methods.registry import make_method
from neardup.methods.shingles import Shingling
from neardup.text.types import Document
from shared_data import data_path, paragraphs

runner = CliRunner()


def _gold(*pairs: tuple[str, str]) -> GoldStandard:
    keys = frozenset(cast(tuple[str, str], tuple(sorted(p))) for p in pairs)
    return GoldStandard(Gold(keys, frozenset()), "pairs", frozenset(i for p in pairs for i in p))


def test_table2_runs_megashingles_on_five_word_rabin64_shingles() -> None:
    config = table2_config()
    assert config.method_params["megashingles"]["shingle_size"] == 5
    assert config.method_params["megashingles"]["fingerprint"] == "rabin64"
    assert config.method_params["shingles-full"]["shingle_size"] == 4  # the paper's w = 4
    meth = make_method("megashingles", **MEGASHINGLES_PARAMS)
    tokens = ["один", "два", "три", "четыре", "пять", "шесть", "семь", "восемь"]
    ours = meth.shingling.batch([tokens]).get(0)
    rabin = Shingling(size=5, fingerprint="rabin64").batch([tokens]).get(0)
    np.testing.assert_array_equal(ours, rabin)


def test_expected_recall_is_formula_3_over_the_gold_pairs() -> None:
    base = paragraphs("progit-ru-revisions", 1, min_words=120)[0]
    words = base.split()
    edited = " ".join([*words[:60], "вставка", *words[60:]])
    docs = [Document("a", base), Document("b", base), Document("c", edited), Document("x", "z")]
    found = megashingle_expected_recall(
        docs, _gold(("a", "b"), ("a", "c"), ("a", "gone")), MEGASHINGLES_PARAMS
    )
    assert found is not None and found["pairs"] == 2  # ("a", "gone") is not in the corpus
    meth = make_method("megashingles", **MEGASHINGLES_PARAMS)
    sets = meth.shingling.batch([meth.canonical.tokens(t) for t in (base, edited)])
    inter = np.intersect1d(sets.get(0), sets.get(1)).size
    p = inter / np.union1d(sets.get(0), sets.get(1)).size
    assert 0.9 < p < 1.0
    expected = (1.0 + float(recall_curve(p, r=14, s=6))) / 2
    assert found["expected_recall"] == round(expected, 4)
    assert (found["r"], found["s"], found["fingerprint"]) == (14, 6, "rabin64")


def test_evaluation_reports_formula_3_beside_the_measured_recall() -> None:
    base = paragraphs("progit-ru-revisions", 3, min_words=120)
    docs = [Document("a", base[0]), Document("b", base[0]), Document("c", base[1])]
    gold = _gold(("a", "b"), ("a", "c"))
    config = EvalConfig(
        methods=("megashingles",),
        thresholds=(0.95,),
        method_params={"megashingles": MEGASHINGLES_PARAMS},
        replicates=10,
        memory="off",
    )
    ev = with_expected_recall(evaluate_corpus(docs, gold, config), docs, gold, config)
    assert ev.meta[FORMULA3]["expected_recall"] == 0.5  # P(1) = 1, P(resemblance 0) = 0
    note = formula3_note(ev)
    assert (
        "recall measured 0.500, formula (3) expects 0.500 over the 2 gold duplicate pairs" in note
    )


def test_scope_note_says_unlabelled_pairs_count_as_errors() -> None:
    assert "gold does not list counts as a type-I error" in scope_note("all")
    assert "only the pairs the gold judges" in scope_note("labelled")


@pytest.mark.data
@pytest.mark.slow
def test_cli_table2_prints_formula_3_and_the_scope() -> None:
    folder = data_path("clough-stevenson")
    res = runner.invoke(app, ["evaluate", "--table2", str(folder), "--bootstrap", "10",
                              "--memory", "off", "-q"])  # fmt: skip
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.split())
    assert "scope all: a found pair the gold does not list counts as a type-I error" in text
    assert "mega-shingles (5-word rabin64 shingles, r = 14, s = 6): recall measured" in text
    assert "formula (3) expects" in text
    res = runner.invoke(app, ["evaluate", "--table2", str(folder), "--bootstrap", "10",
                              "--memory", "off", "--json"])  # fmt: skip
    data = json.loads(res.stdout)
    meta = data["collections"]["clough-stevenson"]["meta"]
    assert meta[FORMULA3]["fingerprint"] == "rabin64"
