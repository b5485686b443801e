"""Prefix filtering is exact: every pair at or above the threshold is a candidate."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.methods.measures import overlap
from neardup.methods.prefix import containment_candidates, prefix_candidates, rank_by_frequency
from neardup.methods.sets import ShingleSets

sets_strategy = st.lists(
    st.lists(st.integers(0, 25), min_size=1, max_size=20).map(
        lambda v: np.unique(np.array(v, np.uint64))
    ),
    min_size=2,
    max_size=12,
)


@settings(derandomize=True, max_examples=120, deadline=None)
@given(sets_strategy, st.sampled_from([0.2, 0.35, 0.5, 0.8, 1.0]))
def test_no_pair_above_threshold_is_missed(arrays: list[np.ndarray], t: float) -> None:
    sets = ShingleSets.from_arrays(arrays)
    ranked = rank_by_frequency(sets)
    cand = {tuple(p) for p in prefix_candidates(ranked, t).tolist()}
    cont = {tuple(p) for p in containment_candidates(ranked, t).tolist()}
    for i, j in itertools.combinations(range(len(arrays)), 2):
        ov = overlap(arrays[i], arrays[j])
        if ov.resemblance >= t:
            assert (i, j) in cand
        if max(ov.containment_ab, ov.containment_ba) >= t:
            assert (i, j) in cont


def test_ranking_preserves_intersections() -> None:
    arrays = [np.array([5, 9, 11], np.uint64), np.array([9, 11, 40], np.uint64)]
    ranked = rank_by_frequency(ShingleSets.from_arrays(arrays))
    assert overlap(ranked.get(0), ranked.get(1)).shared == 2
    # rare values rank first: 5 and 40 (df 1) before 9 and 11 (df 2)
    assert ranked.get(0).tolist() == [0, 2, 3]


@settings(derandomize=True, max_examples=60, deadline=None)
@given(sets_strategy)
def test_ranks_are_positions_in_document_frequency_then_value_order(
    arrays: list[np.ndarray],
) -> None:
    sets = ShingleSets.from_arrays(arrays)
    values, df = np.unique(sets.values, return_counts=True)
    order = sorted(zip(df.tolist(), values.tolist(), strict=True))
    rank = {int(v): r for r, (_, v) in enumerate(order)}
    ranked = rank_by_frequency(sets)
    for i, a in enumerate(arrays):
        assert ranked.get(i).tolist() == sorted(rank[int(v)] for v in a)
