"""Inverted index of fingerprints: every pair of documents that share a fingerprint.

This is the exact candidate generator behind ``shingles-full``, ``shingles-mod`` and
``shingles-min`` and behind containment search: any pair with a non-zero resemblance or
containment shares at least one (sampled) fingerprint, so it is never missed. The cost is
``sum_f df(f)^2 / 2`` for document frequencies ``df``; a fingerprint held by more than
``max_df`` documents contributes a star (its first holder paired with the others) instead,
which keeps boilerplate shingles from exploding the pair count while every holder stays a
candidate of one representative.
"""

from __future__ import annotations

import numpy as np

from neardup._array import group_bounds, pairs_in_groups, unique_pairs
from neardup.methods.sets import ShingleSets


def posting_candidates(sets: ShingleSets, *, max_df: int | None = 2000) -> np.ndarray:
    """Pairs of documents sharing at least one fingerprint.

    Args:
        sets: fingerprint sets (full or sampled).
        max_df: postings longer than this give star pairs only; ``None`` for all pairs.

    Returns:
        int64 array, shape (p, 2), unique, ``a < b``.
    """
    doc = sets.doc_ids()
    order = np.lexsort((doc, sets.values))
    starts, sizes = group_bounds(sets.values[order])
    pairs = pairs_in_groups(doc[order], starts, sizes, max_group=max_df)
    return unique_pairs(pairs, len(sets))
