"""Rodnenko's (2009) percent similarity as a decision (``shingles-dice``), under the preset
``rodnenko-2009``: the value is the article's ``compaire`` and it decides in ``dedup``,
collections and ``evaluate``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.evaluate.gold import GoldStandard
from neardup.evaluate.metrics import Gold
from neardup.evaluate.run import EvalConfig, evaluate_corpus
from neardup.job.pipeline import DedupOptions, dedup
from neardup.methods.dice import dice, resemblance_bound
from neardup.methods.measures import compaire
from neardup.methods.presets import preset
from neardup.methods.registry import make_method
from neardup.store import Store
from neardup.text.types import Document

CORPUS = Path(__file__).resolve().parents[2] / "examples" / "corpus"
FULL = (CORPUS / "chekhov" / "Хамелеон.txt").read_text(encoding="utf-8")
EXCERPT = (CORPUS / "excerpts" / "Хамелеон (начало).txt").read_text(encoding="utf-8")
PARAMS = preset("rodnenko-2009").params_for("shingles-dice")


def test_the_preset_decides_with_shingles_dice() -> None:
    assert preset("rodnenko-2009").method == "shingles-dice"
    assert PARAMS["shingle_size"] == 10 and PARAMS["fingerprint"] == "crc32"


def test_score_is_rodnenkos_compaire_on_the_chekhov_excerpt() -> None:
    meth = make_method("shingles-dice", **PARAMS)
    lists = [meth.shingling.occurrences(meth.canonical.tokens(t))[0] for t in (FULL, EXCERPT)]
    script = compaire(lists[0], lists[1])  # the article's function, as a fraction
    from neardup.job.compare import compare

    got = compare(FULL, EXCERPT, method=meth)
    assert round(got.score, 6) == round(script, 6) == 0.753769
    assert round(got.resemblance, 6) == 0.604839  # resemblance alone would reject at 0.7


def test_dedup_decides_on_dice_where_resemblance_would_not() -> None:
    docs = [Document("full", FULL), Document("excerpt", EXCERPT)]
    opts = DedupOptions(threshold=0.7)
    found = dedup(docs, method="shingles-dice", options=opts, **PARAMS)
    assert [(p.a, p.b) for p in found.pairs] == [("full", "excerpt")]
    assert found.summary["options"]["decision"] == "own"
    full = dedup(docs, method="shingles-full", options=opts, **{**PARAMS})
    assert full.pairs == []
    assert (
        dedup(docs, method="shingles-dice", options=DedupOptions(threshold=0.76), **PARAMS).pairs
        == []
    )


def test_a_collection_checks_by_percent_similarity(tmp_path: Path) -> None:
    with Store(f"sqlite:///{tmp_path / 'd.db'}") as store:
        store.create_collection("r", method="shingles-dice", params=PARAMS, threshold=0.7)
        store.add("r", [Document("full", FULL)])
        result = store.check("r", EXCERPT)
        (match,) = result.matches
        assert match.doc_id == "full" and match.evidence["decision"] == "own"
        assert match.evidence["score"] == 0.753769


def test_evaluate_runs_shingles_dice_under_the_preset() -> None:
    docs = [Document("full", FULL), Document("excerpt", EXCERPT), Document("other", FULL[:300])]
    positives = frozenset({("excerpt", "full")})
    gold = GoldStandard(Gold(positives, frozenset()), "pairs", frozenset({"full", "excerpt"}))
    config = EvalConfig(
        methods=("shingles-dice",),
        thresholds=(0.7, 0.8),
        method_params={"shingles-dice": PARAMS},
        replicates=10,
        memory="off",
    )
    ev = evaluate_corpus(docs, gold, config)
    recall = {r.threshold: r.scores.recall for r in ev.rows}
    assert recall == {0.7: 1.0, 0.8: 0.0}


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sets(st.integers(0, 40), max_size=25), min_size=2, max_size=8),
       st.floats(0.05, 1.0))  # fmt: skip
def test_candidates_hold_every_pair_at_or_above_the_dice_threshold(
    raw: list[set[int]], t: float
) -> None:
    from neardup.methods.sets import ShingleSets

    arrays = [np.array(sorted(s), np.uint64) for s in raw]
    meth = make_method("shingles-dice", threshold=t)
    sigs = meth.from_sets(ShingleSets.from_arrays(arrays))
    cands = {tuple(p) for p in meth.candidates(sigs).tolist()}
    for i in range(len(raw)):
        for j in range(i + 1, len(raw)):
            a, b = raw[i], raw[j]
            d = float(dice(np.array(len(a & b)), np.array(len(a)), np.array(len(b))))
            if a and b and d >= t:
                assert (i, j) in cands, (a, b, d, t)
    assert resemblance_bound(1.0) == 1.0 and resemblance_bound(0.5) == 1 / 3
