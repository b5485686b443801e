"""Fetterly's mega-shingles (Fetterly, Manasse & Najork 2003, as described in Zagorulko et al.
2013).

Zagorulko et al. 2013, "Метод мегашинглов" (Fig. 2): a document is cut into 5-word shingles with
64-bit
fingerprints (the "прообразы"); 84 fixed, randomly chosen injective maps are applied to the
set and each keeps the fingerprint of smallest image, giving a sketch ``S_i`` of length 84
(:class:`~neardup.methods.minhash.MinHasher`, ``scheme="perm"``). The sketch is cut into 6
*super-shingles* of 14 consecutive values (``SS_i``; here a 64-bit hash of the 14 values);
the 15 *mega-shingles* ``MS_i`` are hashes of every pair of super-shingles. Two documents
are near-duplicates when at least one mega-shingle matches, i.e. when at least two
super-shingles match. If each sketch slot matches with probability ``p`` (the resemblance),
the probability of that is Zagorulko et al.'s (2013) formula (3)::

    P(p) = 1 - (1 - p^14)^6 - 6 · p^14 · (1 - p^14)^5           (3)

(:func:`recall_curve`), about 0.88 at ``p = 0.95`` ("около 90 %").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any, ClassVar, Literal

import numpy as np

from neardup._array import U64, fmix64, group_bounds, pairs_in_groups, unique_pairs
from neardup.errors import ParameterError
from neardup.methods.base import Capabilities, MethodBase, Prepared, Signatures
from neardup.methods.decision import DecisionRule, SharedMegaShingle
from neardup.methods.keys import GroupKeys
from neardup.methods.minhash import EMPTY, MinHasher
from neardup.methods.registry import register
from neardup.methods.sets import ShingleSets
from neardup.methods.shingles import Shingling
from neardup.params import Constraint, Interval, Options
from neardup.text.canonical import CanonicalForm

_P = np.uint64(0x9E3779B97F4A7C15)
_R = np.uint64(31)
_L = np.uint64(33)
_SUPER_TAG = np.uint64(0x5355504552)  # "SUPER": domain of super-shingle hashes
_MEGA_TAG = np.uint64(0x4D454741)  # "MEGA": domain of mega-shingle hashes


def recall_curve(p: float | np.ndarray, r: int = 14, s: int = 6) -> float | np.ndarray:
    """Zagorulko et al. 2013 formula (3): probability that at least two of ``s`` super-shingles
    match.

    With ``q = p^r`` (a super-shingle of ``r`` slots matches when all its slots do)::

        P = 1 - (1 - q)^s - s · q · (1 - q)^(s - 1)

    which for ``r=14, s=6`` is ``1 - (1 - p^14)^6 - 6·p^14·(1 - p^14)^5``: the chance that
    at least one of the ``s(s-1)/2`` mega-shingles matches.

    Args:
        p: resemblance (probability a sketch slot matches), scalar or array in [0, 1].
        r: slots per super-shingle, >= 1.
        s: super-shingles per document, >= 2.

    Returns:
        The probability (clipped to [0, 1] against rounding), a float for a scalar ``p``
        or an array of ``p``'s shape.
    """
    q = np.asarray(p, dtype=float) ** r
    out = np.clip(1.0 - (1.0 - q) ** s - s * q * (1.0 - q) ** (s - 1), 0.0, 1.0)
    return float(out) if np.ndim(out) == 0 else out


def _chain(columns: Sequence[np.ndarray], tag: np.uint64) -> np.ndarray:
    """Order-sensitive 64-bit hash of rows: ``h = fmix64(rotl(h, 31) · P ^ c_i)``."""
    h = np.full(columns[0].shape, tag, dtype=U64)
    with np.errstate(over="ignore"):
        for col in columns:
            h = fmix64(((h << _R) | (h >> _L)) * _P ^ col)
    return h


def supershingles(sketches: np.ndarray, count: int) -> np.ndarray:
    """Super-shingles of MinHash sketches: a hash of each run of ``k / count`` slots.

    Args:
        sketches: uint64 (n, k) with ``k`` divisible by ``count``.
        count: super-shingles per document.

    Returns:
        uint64 (n, count); rows of empty sketches (all ``EMPTY``) are all ``EMPTY``.
    """
    n, k = sketches.shape
    r = k // count
    blocks = sketches.reshape(n, count, r)
    out = _chain([blocks[:, :, i] for i in range(r)], _SUPER_TAG)
    out[(sketches == EMPTY).all(axis=1)] = EMPTY
    return out


def megashingles(supers: np.ndarray) -> np.ndarray:
    """Mega-shingles: a hash of every pair ``(i, j), i < j`` of super-shingles.

    Args:
        supers: uint64 (n, s).

    Returns:
        uint64 (n, s(s-1)/2), pairs in lexicographic order; ``EMPTY`` rows stay ``EMPTY``.
    """
    pairs = list(combinations(range(supers.shape[1]), 2))
    cols = [_chain([supers[:, i], supers[:, j]], _MEGA_TAG) for i, j in pairs]
    out = np.stack(cols, axis=1) if cols else np.zeros((supers.shape[0], 0), U64)
    out[(supers == EMPTY).all(axis=1)] = EMPTY
    return out


#: The 64-bit shingle fingerprints mega-shingles accept.
FINGERPRINTS_64: tuple[str, ...] = ("xxh64", "rabin64")


@dataclass(frozen=True, kw_only=True)
class Megashingles(MethodBase):
    """Fetterly's mega-shingles (Zagorulko et al. 2013, Fig. 2, formula (3)): exact-key
    mega-shingle match.

    Signature payload: uint64 array of shape ``(s + s(s-1)/2,)``: the ``s`` super-shingles
    followed by the mega-shingles (21 values with the defaults). A document with no
    shingle gets all ``EMPTY`` (2**64 - 1) and matches nothing.

    Args:
        shingle_size: words per shingle, 1-64 (Zagorulko et al. 2013: 5).
        num_maps: injective maps, i.e. sketch length, 2-4096 (Zagorulko et al. 2013: 84).
        supershingles: super-shingles per document, >= 2, dividing ``num_maps`` (Zagorulko et al.
        2013: 6).
        seed: seed of the shingle fingerprints (``0 <= seed < 2**32``) and of the maps.
        fingerprint: the 64-bit shingle fingerprint: ``xxh64`` (default, fastest) or
            ``rabin64``, the Karp-Rabin fingerprints Zagorulko et al. 2013 and Romanov 2019
            build mega-shingles from (:mod:`neardup.methods.rabin`).
        canonical: the canonical form tokens are made with.

    Raises:
        ParameterError: a parameter is out of range (the message names it).
    """

    name: ClassVar[str] = "megashingles"
    source: ClassVar[str] = (
        "Fetterly, Manasse & Najork 2003; Zagorulko et al. 2013 (84 maps, 6 super-shingles, "
        "15 mega-shingles), formula (3)"
    )
    capabilities: ClassVar[Capabilities] = Capabilities(
        exact_key=True, signs_from_sets=True, keys="groups"
    )
    decision_rule: ClassVar[DecisionRule] = SharedMegaShingle(
        "one shared mega-shingle (Fetterly, Manasse & Najork 2003)",
        label="one shared mega-shingle",
    )

    shingle_size: int = 5
    num_maps: int = 84
    supershingles: int = 6
    seed: int = 0
    fingerprint: Literal["xxh64", "rabin64"] = "xxh64"
    canonical: CanonicalForm = field(default_factory=CanonicalForm)

    parameter_constraints: ClassVar[dict[str, Constraint]] = {
        "shingle_size": Interval("int", 1, 64),
        "fingerprint": Options(FINGERPRINTS_64),
        "num_maps": Interval("int", 2, 4096),
        "supershingles": Interval("int", 2, "num_maps"),
        "seed": Interval("int", 0, 2**32 - 1),
    }

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.num_maps % self.supershingles:
            raise ParameterError(
                "supershingles", self.supershingles, f"a divisor of num_maps={self.num_maps}"
            )

    @property
    def shingling(self) -> Shingling:
        """Word shingles of ``shingle_size`` with 64-bit ``fingerprint`` fingerprints."""
        return Shingling(size=self.shingle_size, seed=self.seed, fingerprint=self.fingerprint)

    @property
    def hasher(self) -> MinHasher:
        """The ``num_maps`` injective maps (``MinHasher(scheme="perm")``)."""
        return MinHasher(num_perm=self.num_maps, seed=self.seed + 1, scheme="perm")

    def params(self) -> dict[str, Any]:
        """JSON-ready parameters (recorded in signatures)."""
        return {
            "shingle_size": self.shingle_size,
            "num_maps": self.num_maps,
            "supershingles": self.supershingles,
            "seed": self.seed,
            "fingerprint": self.fingerprint,
            "maps": self.hasher.params(),
        }

    def sign(self, docs: Sequence[Prepared]) -> Signatures:
        """Signatures of a batch: shingle sets, then :meth:`from_sets`."""
        return self.from_sets(self.shingling.batch([d.tokens for d in docs]))

    def from_sets(self, sets: ShingleSets) -> Signatures:
        """Signatures from the full fingerprint sets: data uint64 (n, s + s(s-1)/2)."""
        return Signatures(self.key(), self.from_sketches(self.hasher.sketches(sets)), len(sets))

    def from_sketches(self, sketches: np.ndarray) -> np.ndarray:
        """Super- and mega-shingles of sketches uint64 (n, num_maps): uint64 (n, s + m)."""
        supers = supershingles(sketches, self.supershingles)
        return np.concatenate([supers, megashingles(supers)], axis=1)

    def candidates(self, sigs: Signatures) -> np.ndarray:
        """Pairs sharing a mega-shingle (grouped by each of the slots): int64 (p, 2), a < b."""
        mega = sigs.data[:, self.supershingles :]
        parts = [_equal_pairs(mega[:, j]) for j in range(mega.shape[1])]
        if not parts:
            return np.zeros((0, 2), np.int64)
        return unique_pairs(np.concatenate(parts), sigs.count)

    def keys(self, sigs: Signatures) -> GroupKeys:
        """One slot per mega-shingle (the non-``EMPTY`` ones) of data uint64 (n, s + m);
        a collection's rows salt each by its payload slot (``s + j``), as
        :func:`~neardup.methods.keys.slot_keys` of the payloads does for those slots."""
        mega = np.ascontiguousarray(sigs.data[:, self.supershingles :])
        return GroupKeys(mega, mega != EMPTY, salted=True, first_slot=self.supershingles)

    def similarity(self, sigs: Signatures, pairs: np.ndarray) -> np.ndarray:
        """1.0 when a pair shares a mega-shingle (the method's decision), else 0.0: (p,)."""
        if pairs.size == 0:
            return np.zeros(0)
        mega = sigs.data[:, self.supershingles :]
        return _any_equal(mega[pairs[:, 0]], mega[pairs[:, 1]]).astype(float)


def _any_equal(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Rows of ``a`` and ``b`` (uint64 (p, m)) that share a non-EMPTY value in some slot."""
    return ((a == b) & (a != EMPTY)).any(axis=1)


def _equal_pairs(keys: np.ndarray) -> np.ndarray:
    """All pairs of rows with equal non-EMPTY ``keys`` (uint64 (n,)): int64 (p, 2)."""
    rows = np.flatnonzero(keys != EMPTY)
    order = rows[np.argsort(keys[rows], kind="stable")]
    starts, sizes = group_bounds(keys[order])
    return pairs_in_groups(order.astype(np.int64), starts, sizes)


register(Megashingles)
