"""Near-identical lines and paragraphs: one cluster for units that differ by a word.

Template paragraphs vary from page to page by a date, a name or a count ("Posted by Ann on
3 May", "Posted by Bob on 4 May"), so their exact keys (:mod:`.units`) differ on every
page. With ``near``, every *distinct* unit (one per exact key) becomes the set of the
character 5-grams of its normal form (:class:`neardup.methods.shingles.Shingling`, unit
``char``), sketched by one-permutation MinHash (:class:`neardup.methods.minhash.MinHasher`,
128 slots); LSH banding at the threshold (:func:`neardup.methods.lsh.optimal_params`,
weighted for recall,
:func:`neardup.methods.lsh.lsh_candidates`; Leskovec, Rajaraman & Ullman, *Mining of
Massive Datasets*, 3.4) gives candidate pairs, each verified on the exact shingle sets
(Jaccard ``>= threshold``, Broder 1997), and the verified pairs are joined into connected
components (:func:`neardup.job.cluster.components`). Every key of a component maps to the key
of its first-seen member, so counting and cutting then proceed as for exact units: a
cluster held by ``min_docs`` documents is one repeated unit.

Memory: the normal form of every distinct unit (held between the passes), plus, per
distinct unit, one 8-byte key a band (16 bands at 0.8: 128 bytes) while the candidates are
found; the shingle sets and sketches are built ``_BATCH`` units at a time. So ``near``
suits corpora whose distinct units fit in memory (millions, not billions).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from neardup._array import equal_groups, pairs_in_groups, unique_pairs
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
#: A bucket of more units than this pairs its first unit with each other one only (a star:
#: a template with a hundred thousand dated variants stays one cluster without 10^10 pairs).
_MAX_BUCKET = 1000
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
    for lo in range(0, n, _BATCH):
        sketches = hasher.sketches(_sets(texts[lo : lo + _BATCH]))
        keys_of[lo : lo + _BATCH] = band_keys(sketches, params)
    ids = np.arange(n, dtype=np.int64)
    found = [
        pairs_in_groups(
            *equal_groups(np.ascontiguousarray(keys_of[:, j]), ids), max_group=_MAX_BUCKET
        )
        for j in range(params.bands)
    ]
    del keys_of
    pairs = unique_pairs(np.concatenate(found), n)
    label = components(n, _verified(texts, pairs, threshold))
    variants = np.bincount(label, minlength=n)[label]
    order = np.argsort(first_seen)
    return NearClusters(
        first_seen[order], first_seen[label][order], variants[order].astype(np.int64)
    )


def _sets(texts: list[str]) -> ShingleSets:
    return SHINGLING.batch([t.split() for t in texts])


def _verified(texts: list[str], pairs: np.ndarray, threshold: float) -> np.ndarray:
    """The candidate pairs whose exact shingle sets reach ``threshold`` (int64 (e, 2))."""
    if len(pairs) == 0:
        return pairs
    involved, local = np.unique(pairs, return_inverse=True)
    local = local.reshape(pairs.shape)
    sets = _sets([texts[i] for i in involved.tolist()])
    shared = intersection_sizes(sets, local)
    size = sets.sizes
    union = size[local[:, 0]] + size[local[:, 1]] - shared
    ok = shared >= threshold * union
    return pairs[ok & (union > 0)]
