"""Exact candidate generation by prefix filtering (all-pairs similarity join).

Fingerprints are renumbered by document frequency, rarest first (:func:`rank_by_frequency`),
so every document's set is a sorted list of ranks. For a resemblance threshold ``t`` a
document's *prefix* is its first ``p(A) = |A| - ceil(t·|A|) + 1`` ranks; two sets with
``J(A, B) >= t`` always share a rank that lies in both prefixes (Chaudhuri, Ganti & Kaushik
2006; Bayardo, Ma & Srikant 2007, "Scaling up all pairs similarity search"). For
containment ``|A ∩ B| >= t·|A|``, A's prefix meets B's whole set. Only the rare ranks are
indexed, so boilerplate shingles shared by thousands of documents cost nothing, and no
pair above the threshold is ever missed.
"""

from __future__ import annotations

import numpy as np

from neardup._array import (
    U64,
    distinct_order,
    group_bounds,
    pairs_in_groups,
    seg_arange,
    unique_pairs,
)
from neardup.errors import NeardupError, check_float
from neardup.methods.sets import ShingleSets

_EPS = 1e-9


def rank_by_frequency(sets: ShingleSets) -> ShingleSets:
    """The same sets with each fingerprint replaced by its frequency rank (rarest = 0).

    Ties in document frequency are broken by fingerprint value, so the ranking is
    deterministic. Intersection sizes are unchanged (the map is a bijection).

    Returns:
        :class:`ShingleSets` of uint64 ranks, each set sorted ascending.
    """
    order, uid, starts = distinct_order(sets.values)
    if starts.shape[0] >= 2**32 or len(sets) >= 2**31:  # pragma: no cover - > 4e9 shingles
        raise NeardupError("more than 2**32 distinct fingerprints or 2**31 documents")
    df = np.diff(np.append(starts, sets.values.shape[0]))
    by_df = np.argsort(df, kind="stable")  # distinct values ascend, so ties go by value
    rank_of = np.empty(starts.shape[0], dtype=np.int64)
    rank_of[by_df] = np.arange(starts.shape[0], dtype=np.int64)
    ranks = np.empty(sets.values.shape[0], dtype=np.int64)
    ranks[order] = rank_of[uid]
    key = np.sort((sets.doc_ids() << 32) | ranks)  # each document's ranks ascending
    return ShingleSets((key & 0xFFFFFFFF).astype(U64), sets.offsets.copy())


def prefix_lengths(sizes: np.ndarray, threshold: float) -> np.ndarray:
    """``p = |A| - ceil(t·|A|) + 1`` clipped to ``[0, |A|]``: int64 (n,)."""
    p = sizes - np.ceil(threshold * sizes - _EPS).astype(np.int64) + 1
    return np.clip(p, 0, sizes)


def prefix_candidates(
    ranked: ShingleSets, threshold: float, *, max_group: int | None = 5000
) -> np.ndarray:
    """Pairs that may have resemblance >= ``threshold`` (none with it is missed).

    Args:
        ranked: sets from :func:`rank_by_frequency`.
        threshold: resemblance threshold in (0, 1].
        max_group: a prefix rank held by more documents than this gives a star only.

    Returns:
        int64 (p, 2), unique, ``a < b``.
    """
    t = check_float("threshold", threshold, low=0.0, high=1.0, low_open=True)
    values, doc = _prefix(ranked, t)
    sorted_vals, sorted_doc = _by_value_then_doc(values, doc)
    starts, sizes = group_bounds(sorted_vals)
    return unique_pairs(
        pairs_in_groups(sorted_doc, starts, sizes, max_group=max_group), len(ranked)
    )


def containment_candidates(ranked: ShingleSets, threshold: float) -> np.ndarray:
    """Pairs ``(a, b)`` where ``a`` may be contained in ``b`` (or ``b`` in ``a``) at ``t``.

    A's prefix for ``|A ∩ B| >= t·|A|`` is probed against every set holding the rank.

    Returns:
        int64 (p, 2), unique, ``a < b`` (verification checks both directions).
    """
    t = check_float("threshold", threshold, low=0.0, high=1.0, low_open=True)
    pv, pd = _prefix(ranked, t)
    sorted_vals, sorted_doc = _by_value_then_doc(ranked.values, ranked.doc_ids())
    starts, sizes = group_bounds(sorted_vals)
    group_of = np.searchsorted(sorted_vals[starts], pv)
    g_start, g_size = starts[group_of], sizes[group_of]
    first = np.repeat(pd, g_size)
    second = sorted_doc[seg_arange(g_start, g_size)]
    pairs = np.stack([first, second], axis=1)
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    lo, hi = np.minimum(pairs[:, 0], pairs[:, 1]), np.maximum(pairs[:, 0], pairs[:, 1])
    return unique_pairs(np.stack([lo, hi], axis=1), len(ranked))


def _by_value_then_doc(values: np.ndarray, doc: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(values, doc)`` sorted by value, then document: ranks (< 2**32) and document
    indexes (< 2**31) packed in one int64 key, one sort instead of a lexsort."""
    key = np.sort((values.astype(np.int64) << 31) | doc)
    return (key >> 31).astype(U64), key & ((1 << 31) - 1)


def _prefix(ranked: ShingleSets, t: float) -> tuple[np.ndarray, np.ndarray]:
    p = prefix_lengths(ranked.sizes, t)
    idx = seg_arange(ranked.offsets[:-1], p)
    doc = np.repeat(np.arange(len(ranked), dtype=np.int64), p)
    return ranked.values[idx], doc
