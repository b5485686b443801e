"""Near-identical lines and paragraphs: one cluster for units that differ by a word.

Template paragraphs vary from page to page by a date, a name or a count ("Posted by Ann on
3 May", "Posted by Bob on 4 May"), so their exact keys (:mod:`.units`) differ on every
page. With ``near``, every *distinct* unit (one per exact key) becomes the set of the
character 5-grams of its normal form (:class:`neardup.methods.shingles.Shingling`, unit
``char``), sketched by one-permutation MinHash (:class:`neardup.methods.minhash.MinHasher`,
128 slots); LSH banding at the threshold (:func:`neardup.methods.lsh.optimal_params`,
weighted for recall,
:func:`neardup.methods.lsh.lsh_candidates`; Leskovec, Rajaraman & Ullman, *Mining of
Massive Datasets*, 3.4) puts units sharing a band in one bucket. The pairs of a bucket are
verified on the exact shingle sets (Jaccard ``>= threshold``, Broder 1997) and the verified
pairs joined into connected components (:func:`neardup.job.cluster.components`), in rounds
(:func:`_joined`): round ``d`` pairs each bucket member with the member ``d`` places before
it (first-seen order), for ``d`` up to :data:`_WINDOW`, and skips a pair already in one
component. A bucket of up to ``_WINDOW + 1`` units thus has each of its pairs joined or
verified (the components of all its pairs); a larger one, such as the thousands of lines of
a template that differ by a number, costs ``_WINDOW`` verifications a member at most instead
of all its pairs (20,000 such lines: 0.3 million pairs verified instead of 6.5 million).
Every key of a component maps to the key of its first-seen member, so counting and cutting
then proceed as for exact units: a cluster held by ``min_docs`` documents is one repeated
unit.

Memory: the normal form of every distinct unit (held between the passes), plus, per
distinct unit, one 8-byte key a band (16 bands at 0.8: 128 bytes) while the buckets are
found, and the shingle sets of the units in a bucket of two or more while they are joined;
the shingle sets and sketches are built ``_BATCH`` units at a time. So ``near`` suits
corpora whose distinct units fit in memory (millions, not billions).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from neardup._array import equal_groups, seg_arange, sorted_unique, unique_pairs
from neardup.errors import check_float
from neardup.job.cluster import components
from neardup.methods.lsh import band_keys, optimal_params
from neardup.methods.measures import intersection_sizes
from neardup.methods.minhash import MinHasher
from neardup.methods.sets import ShingleSets
from neardup.methods.shingles import Shingling

#: Character shingles of the normal form (a word change touches about its length + 4 of them).
SHINGLING = Shingling(size=5, unit="char")
NUM_PERM = 128
#: Bands and rows weighted for recall (at 0.8: 16 bands of 8 rows, a pair at the threshold
#: is a candidate with probability 0.95): every candidate is verified exactly anyway.
_FP_WEIGHT, _FN_WEIGHT = 0.03, 0.97
#: Places back a bucket member is paired with (:func:`_joined`): a bucket of up to 33 units
#: has all its pairs considered; a larger one (a template with a hundred thousand numbered
#: variants) 32 pairs a member at most, not 10^10 pairs.
_WINDOW = 32
#: Distinct units shingled at a time.
_BATCH = 50_000


@dataclass(frozen=True, slots=True)
class NearClusters:
    """Each distinct unit key and the key of its cluster.

    Attributes:
        key: uint64 array (n,), ascending: the distinct keys seen.
        cluster: uint64 array (n,): the key of the first-seen member of each one's cluster
            (the key itself when it has no near-identical partner).
        variants: int64 array (n,): members of each one's cluster (>= 1).
    """

    key: np.ndarray
    cluster: np.ndarray
    variants: np.ndarray

    def map(self, keys: np.ndarray) -> np.ndarray:
        """The cluster key of each of ``keys`` (uint64 array; unknown keys map to themselves)."""
        if len(self.key) == 0 or len(keys) == 0:
            return keys.astype(np.uint64, copy=True)
        at = np.minimum(np.searchsorted(self.key, keys), len(self.key) - 1)
        return np.where(self.key[at] == keys, self.cluster[at], keys).astype(np.uint64)

    def members(self, cluster_key: int) -> int:
        """Distinct units in the cluster whose key is ``cluster_key`` (1 for an unknown key)."""
        at = int(np.searchsorted(self.key, np.uint64(cluster_key)))
        if at < len(self.key) and int(self.key[at]) == cluster_key:
            return int(self.variants[at])
        return 1

    @property
    def merged(self) -> int:
        """Distinct units that joined another one's cluster."""
        return int(np.count_nonzero(self.cluster != self.key))


def near_clusters(keys: list[int], texts: list[str], *, threshold: float) -> NearClusters:
    """Cluster the distinct units ``texts`` (normal forms, first-seen order; ``keys`` their
    exact keys) whose character 5-gram sets have a Jaccard of at least ``threshold``.

    Args:
        keys: the units' XXH64 keys, distinct, in the order the units were first seen.
        texts: their normal forms (same length).
        threshold: resemblance in (0, 1].

    Returns:
        A :class:`NearClusters`.

    Raises:
        ParameterError: ``threshold`` out of range.
    """
    check_float("threshold", threshold, low=0.0, high=1.0, low_open=True)
    n = len(keys)
    first_seen = np.asarray(keys, dtype=np.uint64)
    if n == 0:
        return NearClusters(first_seen, first_seen.copy(), np.empty(0, dtype=np.int64))
    hasher = MinHasher(num_perm=NUM_PERM)
    params = optimal_params(threshold, NUM_PERM, fp_weight=_FP_WEIGHT, fn_weight=_FN_WEIGHT)
    keys_of = np.empty((n, params.bands), dtype=np.uint64)  # one key a band, not the sketch
    whole = _sets(texts) if n <= _BATCH else None  # one batch: shingled once for both
    for lo in range(0, n, _BATCH):
        sets = whole if whole is not None else _sets(texts[lo : lo + _BATCH])
        keys_of[lo : lo + _BATCH] = band_keys(hasher.sketches(sets), params)
    del sets
    label = _joined(texts, whole, _buckets(keys_of), threshold)
    variants = np.bincount(label, minlength=n)[label]
    order = np.argsort(first_seen)
    return NearClusters(
        first_seen[order], first_seen[label][order], variants[order].astype(np.int64)
    )


def _buckets(keys_of: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The band buckets of two or more units, all bands after one another: ``(members,
    rank)``, the units (int64, in first-seen order within each bucket) and each one's place
    in its bucket (int64, 0 for the first); ``keys_of``: uint64 (n, bands), the band keys."""
    n, bands = keys_of.shape
    ids = np.arange(n, dtype=np.int64)
    members, rank = [], []
    for j in range(bands):
        m, _, sizes = equal_groups(np.ascontiguousarray(keys_of[:, j]), ids)
        members.append(m)
        rank.append(seg_arange(np.zeros_like(sizes), sizes))
    return np.concatenate(members), np.concatenate(rank)


def _joined(
    texts: list[str],
    whole: ShingleSets | None,
    buckets: tuple[np.ndarray, np.ndarray],
    threshold: float,
) -> np.ndarray:
    """Component label (smallest member) of each unit, joined over verified pairs of units
    sharing a band bucket.

    Round ``d`` (1, 2, ... :data:`_WINDOW`) pairs every bucket member with the member ``d``
    places before it; a pair already in one component is skipped, the others are verified
    exactly and joined. So a bucket of up to ``_WINDOW + 1`` units has every pair of it
    considered (the same components as all pairs), and a larger one (a template with
    thousands of variants) costs ``_WINDOW`` pairs a member at most, not its square.
    """
    n = len(texts)
    label = np.arange(n, dtype=np.int64)
    members, rank = buckets
    # the shingle sets of the units in a bucket, once: local[u] is unit u's row in them
    involved = sorted_unique(members)
    local = np.full(n, -1, dtype=np.int64)
    local[involved] = np.arange(len(involved))
    sets = _sets([texts[i] for i in involved.tolist()]) if whole is None else whole.take(involved)
    sets = sets.dense_labels()  # small labels: the fast intersection path, every round
    live = np.flatnonzero(rank >= 1)
    for d in range(1, _WINDOW + 1):
        live = live[rank[live] >= d]
        if len(live) == 0:
            break
        a, b = members[live - d], members[live]
        apart = label[a] != label[b]
        pairs = unique_pairs(np.stack([a[apart], b[apart]], axis=1), n)
        joined = pairs[_verified(sets, local[pairs], threshold)]
        if len(joined):
            roots = components(n, np.stack([label[joined[:, 0]], label[joined[:, 1]]], axis=1))
            label = roots[label]
    return label


def _sets(texts: list[str]) -> ShingleSets:
    return SHINGLING.batch([t.split() for t in texts])


def _verified(sets: ShingleSets, pairs: np.ndarray, threshold: float) -> np.ndarray:
    """Which pairs (rows of ``sets``, int64 (e, 2)) have a Jaccard of at least
    ``threshold`` (bool (e,))."""
    if len(pairs) == 0:
        return np.zeros(0, dtype=bool)
    shared = intersection_sizes(sets, pairs)
    union = sets.sizes[pairs[:, 0]] + sets.sizes[pairs[:, 1]] - shared
    return (shared >= threshold * union) & (union > 0)
