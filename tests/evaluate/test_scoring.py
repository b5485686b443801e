"""Hand-checked numbers: pair scores, scopes, cluster metrics, thresholds, bootstrap, gold files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from neardup.errors import FormatError, InputError, ParameterError
from neardup.evaluate.bootstrap import bootstrap_pairs
from neardup.evaluate.cluster_metrics import adjusted_rand_index, bcubed, cluster_scores, components
from neardup.evaluate.gold import GoldStandard, load_gold
from neardup.evaluate.metrics import Gold, score_pairs
from neardup.evaluate.run import evaluate_pairs_dir
from neardup.evaluate.thresholds import parse_thresholds

# Gold: 4 positives, 2 negatives.
GOLD_ROWS = [
    {"a": "d1", "b": "d2", "label": 1},
    {"a": "d3", "b": "d4", "label": 1},
    {"a": "d5", "b": "d6", "label": 1},
    {"a": "d7", "b": "d8", "label": 1},
    {"a": "d1", "b": "d3", "label": 0},
    {"a": "d2", "b": "d9", "label": 0},
]
# Predicted (a dedup --out pairs.jsonl): (d2, d1) is (d1, d2) reversed and repeated.
PRED_ROWS: list[dict[str, Any]] = [
    {"a": "d2", "b": "d1", "resemblance": 0.90, "score": 0.90},  # TP
    {"a": "d3", "b": "d4", "resemblance": 0.60, "score": 0.60},  # TP
    {"a": "d1", "b": "d3", "resemblance": 0.55, "score": 0.55},  # FP, labelled negative
    {"a": "d5", "b": "d9", "resemblance": 0.85, "score": 0.85},  # FP, unlabelled
    {"a": "d1", "b": "d2", "resemblance": 0.90, "score": 0.90},  # repeat of the first
]


def _jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def gold(tmp_path: Path) -> GoldStandard:
    return load_gold(_jsonl(tmp_path / "gold.jsonl", GOLD_ROWS))


@pytest.fixture
def out_dir(tmp_path: Path) -> Path:
    d = tmp_path / "out"
    d.mkdir()
    rows = [{**r, "containment_ab": 0.0, "containment_ba": 0.0, "method": "x"} for r in PRED_ROWS]
    _jsonl(d / "pairs.jsonl", rows)
    summary = {
        "method": "shingles-full",
        "options": {"threshold": 0.5, "measure": "resemblance", "decision": "verified"},
        "seconds": {"total": 1.25},
        "peak_memory_mib": 42.0,
    }
    (d / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    return d


def test_scope_all_by_hand(gold: GoldStandard, out_dir: Path) -> None:
    # Counted: {d1-d2, d3-d4, d1-d3, d5-d9} -> TP 2, FP 2; FN = 4 positives - 2 = 2.
    # P = 2/4 = 0.5, R = 2/4 = 0.5, F1 = 0.5; type-I 50 %, type-II 50 %.
    row = evaluate_pairs_dir(out_dir, gold, scope="all", replicates=50).rows[0]
    assert (row.reported, row.found, row.scores.tp, row.scores.fp, row.scores.fn) == (5, 4, 2, 2, 2)
    assert row.scores.precision == 0.5
    assert row.scores.recall == 0.5
    assert row.scores.f1 == 0.5
    d = row.as_dict()
    assert (d["type_i_pct"], d["type_ii_pct"]) == (50.0, 50.0)
    assert (d["seconds"], d["peak_mib"]) == (1.25, 42.0)


def test_scope_labelled_by_hand(gold: GoldStandard, out_dir: Path) -> None:
    # d5-d9 is not labelled: counted {d1-d2, d3-d4, d1-d3} -> TP 2, FP 1, FN 2.
    # P = 2/3, R = 2/4 = 1/2, F1 = 2 (2/3)(1/2) / (2/3 + 1/2) = (2/3) / (7/6) = 4/7.
    row = evaluate_pairs_dir(out_dir, gold, scope="labelled", replicates=50).rows[0]
    assert (row.found, row.scores.tp, row.scores.fp, row.scores.fn) == (3, 2, 1, 2)
    assert row.scores.precision == pytest.approx(2 / 3)
    assert row.scores.recall == pytest.approx(1 / 2)
    assert row.scores.f1 == pytest.approx(4 / 7)
    # The metrics.score_pairs API gives the same numbers.
    assert score_pairs([(r["a"], r["b"]) for r in PRED_ROWS], gold.pairs, scope="labelled") == (
        row.scores
    )


def test_pairs_dir_redecides_at_higher_thresholds(gold: GoldStandard, out_dir: Path) -> None:
    # t = 0.8 keeps resemblance >= 0.8: d1-d2 (TP) and d5-d9 (FP) -> P = 1/2, R = 1/4.
    ev = evaluate_pairs_dir(out_dir, gold, thresholds=[0.5, 0.8], replicates=50)
    high = ev.rows[1]
    assert (high.threshold, high.scores.tp, high.scores.fp) == (0.8, 1, 1)
    assert high.scores.recall == 0.25
    with pytest.raises(ParameterError):
        evaluate_pairs_dir(out_dir, gold, thresholds=[0.4])


def test_bcubed_and_ari_by_hand() -> None:
    # Gold {a,b,c} {d}; predicted {a,b} {c,d}.
    # B³ precision per item: a 2/2, b 2/2, c 1/2, d 1/2 -> 3/4.
    # B³ recall per item: a 2/3, b 2/3, c 1/3, d 1/1 -> (8/3)/4 = 2/3.  F1 = 12/17.
    # ARI: index = C(2,2) = 1; gold sum = C(3,2) = 3; pred sum = 1 + 1 = 2; C(4,2) = 6;
    # expected = 3*2/6 = 1; max = (3+2)/2 = 2.5 -> ARI = (1-1)/(2.5-1) = 0.
    gold = {"a": "g1", "b": "g1", "c": "g1", "d": "g2"}
    pred = {"a": "p1", "b": "p1", "c": "p2", "d": "p2"}
    p, r, f = bcubed(gold, pred)
    assert (p, r, f) == pytest.approx((3 / 4, 2 / 3, 12 / 17))
    assert adjusted_rand_index(gold, pred) == pytest.approx(0.0)
    # gold [0,0,1,1] vs pred [0,0,1,2]: index 1, sums 2 and 1, expected 1/3, max 1.5
    # -> (1 - 1/3) / (1.5 - 1/3) = 4/7.
    g2 = {"w": 0, "x": 0, "y": 1, "z": 1}
    p2 = {"w": 0, "x": 0, "y": 1, "z": 2}
    assert adjusted_rand_index(g2, p2) == pytest.approx(4 / 7)
    assert adjusted_rand_index(g2, g2) == 1.0
    singles = {i: i for i in "abc"}
    assert adjusted_rand_index(singles, singles) == 1.0
    with pytest.raises(ValueError):
        bcubed(gold, {"a": 1})


def test_cluster_scores_from_pairs() -> None:
    # Predicted pairs a-b, c-d give the partition of the hand example above.
    gold = {"a": "g1", "b": "g1", "c": "g1", "d": "g2"}
    cs = cluster_scores(gold, [("a", "b"), ("c", "d")])
    assert cs.items == 4
    assert cs.bcubed_f1 == pytest.approx(12 / 17)
    assert components(["x"], [("a", "b"), ("b", "c")]) == {"x": "x", "a": "a", "b": "a", "c": "a"}


def test_parse_thresholds() -> None:
    assert parse_thresholds("0.5:1.0:0.1") == (0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
    assert parse_thresholds("0.2:0.4:0.1") == (0.2, 0.3, 0.4)
    assert parse_thresholds("0.9, 0.5,0.5") == (0.5, 0.9)
    assert parse_thresholds("1") == (1.0,)
    for bad in ("", "a", "0.5:0.1:0.1", "0.1:0.5:0", "0:1:0.5", "1.5", "0.1:0.5", "nan"):
        with pytest.raises(ParameterError):
            parse_thresholds(bad)


def test_bootstrap_is_deterministic_with_a_seed() -> None:
    a = bootstrap_pairs(40, 50, 40, 60, replicates=500, seed=7)
    b = bootstrap_pairs(40, 50, 40, 60, replicates=500, seed=7)
    c = bootstrap_pairs(40, 50, 40, 60, replicates=500, seed=8)
    assert a == b
    assert a != c
    assert a.precision is not None and a.recall is not None
    assert a.precision.low < 40 / 50 < a.precision.high
    assert a.recall.low < 40 / 60 < a.recall.high
    empty = bootstrap_pairs(0, 0, 0, 5, replicates=10)
    assert empty.precision is None and empty.f1 is None and empty.recall is not None
    with pytest.raises(ParameterError):
        bootstrap_pairs(3, 2, 0, 0)


def test_gold_formats(tmp_path: Path) -> None:
    csv_pairs = tmp_path / "g.csv"
    csv_pairs.write_text("a,b,label\nx,y,1\ny,z,0\nu,v,\n", encoding="utf-8")
    g = load_gold(csv_pairs)
    assert g.kind == "pairs"
    assert g.positives == {("x", "y"), ("u", "v")}
    assert g.pairs.negatives == {("y", "z")}
    clusters = _jsonl(
        tmp_path / "c.jsonl",
        [{"id": "a", "cluster": 1}, {"id": "b", "cluster": 1}, {"id": "c", "cluster": 2}],
    )
    gc = load_gold(clusters)
    assert gc.kind == "clusters"
    assert gc.positives == {("a", "b")}
    # Labelled scope for clusters: both ids listed.
    assert gc.scoped([("a", "c"), ("a", "zz")], "labelled") == {("a", "c")}
    csv_clusters = tmp_path / "c.csv"
    csv_clusters.write_text("id,cluster\na,1\nb,1\n", encoding="utf-8")
    assert load_gold(csv_clusters).positives == {("a", "b")}


@pytest.mark.parametrize(
    "rows",
    [
        [{"a": "x", "b": "y", "label": 1}, {"a": "y", "b": "x", "label": 0}],
        [{"a": "x", "b": "y", "label": 1}, {"id": "x", "cluster": 1}],
        [{"a": "x", "b": "x", "label": 1}],
        [{"a": "x", "b": "y", "label": 2}],
        [{"id": "x", "cluster": 1}, {"id": "x", "cluster": 2}],
        [{"foo": 1}],
    ],
)
def test_gold_errors(tmp_path: Path, rows: list[dict[str, Any]]) -> None:
    with pytest.raises(FormatError):
        load_gold(_jsonl(tmp_path / "bad.jsonl", rows))


def test_gold_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError):
        load_gold(tmp_path / "nope.jsonl")
    assert Gold.load  # type: ignore[truthy-function]  # the metrics API is still there
