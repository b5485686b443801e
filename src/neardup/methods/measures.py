"""Measures on shingle sets (Zagorulko et al. 2013 eqs. 1-2, Rodnenko 2009), one pair or many pairs
at once.

* resemblance ``res(A, B) = |A ∩ B| / |A ∪ B|`` (Jaccard; Zagorulko et al. 2013, eq. 1);
* containment ``cont(A, B) = |A ∩ B| / |A|``: how much of A lies in B (Zagorulko et al. 2013, eq.
  2);
* ``dice(A, B) = 2 |A ∩ B| / (|A| + |B|)``: Dice on the sets;
* over *lists* of fingerprints (repeats kept, a shingle that occurs twice counts twice):
  :func:`compaire`, Rodnenko's (2009) script exactly, and :func:`dice_multiset`, its
  symmetric multiset form ``2 sum_x min(a_x, b_x) / (|A| + |B|)``.

Two empty sets have resemblance 0 (nothing is shared), so empty documents never match.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from neardup._array import cost_ranges, seg_arange, sort_by_owner
from neardup.methods.sets import ShingleSets
from neardup.options import MEASURES as MEASURES


@dataclass(frozen=True, slots=True)
class Overlap:
    """Set sizes and intersection of a pair, with the papers' measures derived from them.

    Attributes:
        size_a, size_b: ``|A|``, ``|B|``; shared: ``|A ∩ B|``.
    """

    size_a: int
    size_b: int
    shared: int

    @property
    def union(self) -> int:
        """``|A ∪ B|``."""
        return self.size_a + self.size_b - self.shared

    @property
    def resemblance(self) -> float:
        """Jaccard ``|A ∩ B| / |A ∪ B|`` in [0, 1] (Zagorulko et al. 2013, eq. 1)."""
        return self.shared / self.union if self.union else 0.0

    @property
    def containment_ab(self) -> float:
        """``|A ∩ B| / |A|`` in [0, 1]: share of A found in B (Zagorulko et al. 2013, eq. 2)."""
        return self.shared / self.size_a if self.size_a else 0.0

    @property
    def containment_ba(self) -> float:
        """``|A ∩ B| / |B|`` in [0, 1]: share of B found in A."""
        return self.shared / self.size_b if self.size_b else 0.0

    @property
    def dice(self) -> float:
        """``2 |A ∩ B| / (|A| + |B|)`` in [0, 1] (Rodnenko 2009)."""
        total = self.size_a + self.size_b
        return 2 * self.shared / total if total else 0.0

    def as_dict(self) -> dict[str, float | int]:
        """JSON-ready values, measures rounded to 6 decimals."""
        return {
            "resemblance": round(self.resemblance, 6),
            "containment_ab": round(self.containment_ab, 6),
            "containment_ba": round(self.containment_ba, 6),
            "dice": round(self.dice, 6),
            "shared": self.shared,
            "size_a": self.size_a,
            "size_b": self.size_b,
        }


def overlap(a: np.ndarray, b: np.ndarray) -> Overlap:
    """Overlap of two sorted unique fingerprint arrays (uint64, any lengths)."""
    shared = int(np.intersect1d(a, b, assume_unique=True).shape[0])
    return Overlap(int(a.shape[0]), int(b.shape[0]), shared)


def dice_multiset(a: np.ndarray, b: np.ndarray) -> float:
    """Dice over multisets: ``2 sum_x min(count_A(x), count_B(x)) / (|A| + |B|)``.

    Args:
        a, b: fingerprint lists (any order, repeats kept), e.g. the first array of
            :meth:`neardup.methods.shingles.Shingling.occurrences`.

    Returns:
        A value in [0, 1]; 0 when both lists are empty. Equal to :func:`compaire` when
        neither list has repeats.
    """
    total = a.shape[0] + b.shape[0]
    if total == 0:
        return 0.0
    ua, ca = np.unique(a, return_counts=True)
    ub, cb = np.unique(b, return_counts=True)
    _, ia, ib = np.intersect1d(ua, ub, assume_unique=True, return_indices=True)
    return float(2 * np.minimum(ca[ia], cb[ib]).sum() / total)


def compaire(a: np.ndarray, b: np.ndarray) -> float:
    """Rodnenko's (2009) ``compaire`` as a fraction (the script prints it times 100):
    every element of list ``a`` (repeats counted) found anywhere in ``b``, times 2, over
    ``len(a) + len(b)``.

    Not symmetric, and above 1 when ``a`` repeats a shingle that ``b`` has fewer times
    (``compaire([x, x], [x]) = 4/3``); :func:`dice_multiset` is the symmetric form. The
    script divides by zero on two empty lists; here that is 0.
    """
    total = a.shape[0] + b.shape[0]
    if total == 0:
        return 0.0
    return float(2 * np.isin(a, b).sum() / total)


#: Gathered values (the pairs' set sizes summed) per value of ``sets`` above which
#: :func:`intersection_sizes` labels the values densely first: the labelling is a stable
#: argsort of every value (about 90 ns a value), the plain path a sort of the gather (about
#: 32 ns a gathered value); on the documents a Dask verify task fetched (each named by 1.3
#: pairs) the plain path took 0.096 s and the labelled one 0.285 s. At a million planted
#: documents the labelling took 36.2 s and saved nothing (verify 3.43 s labelled, 3.75 s
#: plain, 585,816 candidate pairs gathering about 1.2 values a value).
_DENSE_GATHER = 4


def dense_labels_pay(sets: ShingleSets, gather: int) -> bool:
    """Whether verifying pairs that gather ``gather`` fingerprints of ``sets`` is cheaper on
    :meth:`ShingleSets.dense_labels` (more than :data:`_DENSE_GATHER` gathered values per
    value; never for sets on disk or values below 2**32 already): the one rule of
    :func:`intersection_sizes` and the dedup job's verify stage."""
    return gather > _DENSE_GATHER * sets.values.shape[0] and not sets.on_disk and not _small(sets)


def intersection_sizes(
    sets: ShingleSets, pairs: np.ndarray, *, chunk: int = 2_000_000
) -> np.ndarray:
    """``|A ∩ B|`` for many pairs of documents of ``sets``, exactly, vectorised.

    Args:
        sets: the documents' sorted unique fingerprint sets.
        pairs: int64 array, shape (p, 2), document indexes.
        chunk: approximate number of fingerprints gathered per step (bounds memory).

    Returns:
        int64 array, shape (p,).
    """
    out = np.zeros(pairs.shape[0], dtype=np.int64)
    if pairs.shape[0] == 0:
        return out
    if sets.on_disk:
        sets, pairs = _in_memory(sets, pairs, chunk)
    cost = sets.sizes[pairs[:, 0]] + sets.sizes[pairs[:, 1]]
    if dense_labels_pay(sets, int(cost.sum())):
        sets = sets.dense_labels()  # one pass over all sets beats a lexsort of the gather
    small = _small(sets)
    cumulative = np.zeros(cost.shape[0] + 1, dtype=np.int64)
    np.cumsum(cost, out=cumulative[1:])
    for lo, hi in cost_ranges(cumulative, chunk):
        out[lo:hi] = _intersections(sets, pairs[lo:hi], small=small)
    return out


def _in_memory(sets: ShingleSets, pairs: np.ndarray, chunk: int) -> tuple[ShingleSets, np.ndarray]:
    """The sets of the documents that ``pairs`` names, read from a memory-mapped file in
    file order into memory (about ``chunk`` values a read), and the pairs renumbered into
    them: 8 bytes of memory a value of the named sets (about 1 GB for the 583,091 verified
    pairs of ten million planted documents). Gathered in pair order, the reads jumped back
    and forth across the file, and each page fault read the pages around it as well."""
    docs = np.unique(pairs)
    return sets.take(docs, chunk=chunk), np.searchsorted(docs, pairs)


def _small(sets: ShingleSets) -> bool:
    """All values below 2**32 (labels, ranks, CRC-32); False for sets on disk without
    reading them (the general path is exact for any values)."""
    if sets.on_disk:
        return False
    return not sets.values.size or int(sets.values.max()) < 2**32


def _intersections(sets: ShingleSets, pairs: np.ndarray, *, small: bool) -> np.ndarray:
    """Both sets of every pair laid out side by side (``A_0 B_0 A_1 B_1 ...``), sorted by
    (pair, value); a value seen twice in a row within one pair is shared."""
    sizes = sets.sizes
    a, b = pairs[:, 0], pairs[:, 1]
    starts = np.column_stack([sets.offsets[a], sets.offsets[b]]).reshape(-1)
    lengths = np.column_stack([sizes[a], sizes[b]]).reshape(-1)
    vals = sets.values[seg_arange(starts, lengths)]
    owner = np.repeat(np.arange(2 * pairs.shape[0], dtype=np.int64) >> 1, lengths)
    if small and pairs.shape[0] < 2**31:
        # small values (dense labels, frequency ranks, CRC-32): one int64 key; each pair's
        # keys are two sorted runs, which the stable (merge) sort only has to merge
        key = np.sort((owner << 32) | vals.astype(np.int64), kind="stable")
        dup = key[1:] == key[:-1]
        return np.bincount(key[1:][dup] >> 32, minlength=pairs.shape[0]).astype(np.int64)
    v, o = sort_by_owner(vals, owner, pairs.shape[0])  # each set's run is ascending already
    dup = (v[1:] == v[:-1]) & (o[1:] == o[:-1])
    return np.bincount(o[1:][dup], minlength=pairs.shape[0]).astype(np.int64)
