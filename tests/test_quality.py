"""Quality on the labelled sets of ../shared/data (the core issue's must-show figures).

References (../shared/data/README.md): exact Jaccard of 5-word shingles over lower-cased
``\\w+`` tokens, best F1 over t = 0.3..0.9.
"""

from __future__ import annotations

from functools import cache

import pytest

from neardup.evaluate.metrics import Gold, score_pairs
from neardup.job.pipeline import DedupOptions, dedup
from shared_data import data_path, load_docs

REFERENCE = {
    "linux-doc-revisions": 0.928,
    "linux-doc-zh-revisions": 0.933,
    "progit-ru-revisions": 0.775,
}
THRESHOLDS = (0.2, 0.3, 0.4, 0.5, 0.6)


@cache
def _pairs(name: str, method: str, threshold: float) -> list[tuple[str, str, float]]:
    res = dedup(load_docs(name), method=method, options=DedupOptions(threshold=threshold))
    return [(p.a, p.b, p.resemblance) for p in res.pairs]


def _f1(name: str, method: str, threshold: float) -> float:
    gold = Gold.load(data_path(name, "gold.jsonl"))
    if method == "shingles-full":
        # exact: the pairs at t are the pairs at the lowest t with resemblance >= t
        rows = [r for r in _pairs(name, method, THRESHOLDS[0]) if r[2] >= threshold]
    else:
        rows = _pairs(name, method, threshold)
    return score_pairs([(a, b) for a, b, _ in rows], gold).f1


def _best(name: str, method: str) -> tuple[float, float]:
    return max((_f1(name, method, t), t) for t in THRESHOLDS)


def test_exact_pairs_at_a_threshold_are_the_filtered_lower_threshold_pairs() -> None:
    name = "progit-ru-revisions"
    direct = {(a, b) for a, b, _ in _pairs(name, "shingles-full", 0.5)}
    filtered = {(a, b) for a, b, r in _pairs(name, "shingles-full", 0.2) if r >= 0.5}
    assert direct == filtered


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_best_f1_reaches_the_exact_jaccard_reference(name: str) -> None:
    f1, _ = _best(name, "shingles-full")
    assert f1 >= REFERENCE[name]


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_minhash_lsh_within_001_of_shingles_full(name: str) -> None:
    full, t = _best(name, "shingles-full")
    assert abs(_f1(name, "minhash-lsh", t) - full) <= 0.01


def test_clough_stevenson_containment_reaches_095() -> None:
    name = "clough-stevenson"
    gold = Gold.load(data_path(name, "gold.jsonl"))
    res = dedup(
        load_docs(name),
        options=DedupOptions(measure="containment", threshold=0.4),
        shingle_size=1,
    )
    scores = score_pairs([(p.a, p.b) for p in res.pairs], gold, scope="labelled")
    assert scores.f1 >= 0.95
