"""MinHash sketches of shingle sets, vectorised over whole batches of documents.

Two schemes, both with ``num_perm`` slots and a ``seed``:

* ``oph`` (default): one-permutation hashing with optimal densification (Li, Owen & Zhang
  2012; Shrivastava 2017, "Optimal densification for fast and accurate minwise hashing",
  Algorithm 2). Each fingerprint ``x`` is remixed once, ``g = fmix64(x ^ s)``; its slot is
  ``(g >> 32) * k >> 32`` and the slot keeps the smallest ``g``. An empty slot ``i`` copies
  the value of the first non-empty slot among ``h(i, 1), h(i, 2), ...`` (a seeded
  hash of slot and attempt). ``P[slot_i(A) == slot_i(B)] = J(A, B)``; the cost is O(|A|)
  instead of O(k·|A|).
* ``perm``: ``k`` independent injective maps ``π_j(x) = fmix64(x ^ s_j)`` (a bijection on
  64-bit words) and the minimum image under each (Broder 1997; Zagorulko et al.'s (2013) 84 maps).
  O(k·|A|); used by the mega-shingle method.

For both, ``P[sig_j(A) == sig_j(B)] = J(A, B)`` and the estimate
``Ĵ = mean_j [sig_j(A) == sig_j(B)]`` has standard deviation about ``sqrt(J(1-J)/k)``.
An empty set's sketch is all ``EMPTY`` (2**64 - 1) and matches nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from neardup._array import U64, fmix64, sorted_unique
from neardup.errors import IncompatibleSignatureError, check_choice, check_int
from neardup.methods.sets import ShingleSets

EMPTY = np.uint64(2**64 - 1)
SCHEMES: tuple[str, ...] = ("oph", "perm")
_MAX_ROUNDS = 256


#: Documents sketched at once by :meth:`MinHasher.sketches` (their cells fit in cache).
_CHUNK_DOCS = 1024


@dataclass(frozen=True, slots=True)
class MinHasher:
    """Makes MinHash sketches of fingerprint sets.

    Args:
        num_perm: sketch length ``k`` (slots), 1-4096.
        seed: seed of the hash family, ``0 <= seed < 2**63``.
        scheme: ``oph`` (one permutation + densification) or ``perm`` (k permutations).

    Raises:
        ParameterError: a parameter is out of range.
    """

    num_perm: int = 128
    seed: int = 1
    scheme: Literal["oph", "perm"] = "oph"

    def __post_init__(self) -> None:
        check_int("num_perm", self.num_perm, low=1, high=4096)
        check_int("seed", self.seed, low=0, high=2**63 - 1)
        check_choice("scheme", self.scheme, SCHEMES)

    def params(self) -> dict[str, object]:
        """JSON-ready parameters (recorded in signatures)."""
        return {"num_perm": self.num_perm, "seed": self.seed, "scheme": self.scheme}

    def sketch(self, fingerprints: np.ndarray) -> np.ndarray:
        """MinHash sketch of one set: uint64 array of shape (num_perm,)."""
        return self.sketches(ShingleSets.from_arrays([sorted_unique(fingerprints)]))[0]

    def sketches(self, sets: ShingleSets) -> np.ndarray:
        """MinHash sketches of every set: uint64 array of shape (len(sets), num_perm)."""
        if self.scheme == "perm":
            return self._perm(sets)
        n, sizes = len(sets), sets.sizes
        out = np.empty((n, self.num_perm), dtype=U64)
        for lo in range(0, n, _CHUNK_DOCS):  # a chunk's sketches stay in cache
            hi = min(n, lo + _CHUNK_DOCS)
            values = sets.values[sets.offsets[lo] : sets.offsets[hi]]
            doc = np.repeat(np.arange(hi - lo, dtype=np.int64), sizes[lo:hi])
            out[lo:hi] = self.sketch_occurrences(values, doc, hi - lo)
        return out

    def sketch_occurrences(self, values: np.ndarray, doc: np.ndarray, n: int) -> np.ndarray:
        """Sketches from fingerprint occurrences in any order, repeats allowed.

        A minimum does not care about repeats or order, so the sets need not be built.

        Args:
            values: uint64 (m,) fingerprints; doc: int64 (m,) document of each, in [0, n).
            n: number of documents.

        Returns:
            uint64 array of shape (n, num_perm); equal to :meth:`sketches` of the sets.
        """
        if self.scheme == "perm":
            return self._perm(ShingleSets.from_unsorted(values, doc, n))
        k = self.num_perm
        salt = fmix64(np.array([self.seed], dtype=U64))[0]
        g = fmix64(values ^ salt)
        slot = ((g >> np.uint64(32)) * np.uint64(k)) >> np.uint64(32)
        cell = doc * k + slot.astype(np.int64)
        flat = np.full(n * k, EMPTY, dtype=U64)
        np.minimum.at(flat, cell, g)
        sig = flat.reshape(n, k)
        self._densify(sig, np.bincount(doc, minlength=n)[:n] > 0)
        return sig

    # -- one permutation + densification --------------------------------------------------

    def _densify(self, sig: np.ndarray, nonempty: np.ndarray) -> None:
        k = sig.shape[1]
        rows, cols = np.nonzero((sig == EMPTY) & nonempty[:, None])
        base = fmix64(cols.astype(U64) ^ np.uint64((self.seed * 0x9E3779B9 + 1) % 2**64))
        source = sig.copy()  # only slots filled by hashing are sources (Algorithm 2)
        attempt = 1
        while rows.size and attempt <= _MAX_ROUNDS * k:
            probe = fmix64(base + np.uint64(attempt)) % np.uint64(k)
            got = source[rows, probe.astype(np.int64)]
            ok = got != EMPTY
            sig[rows[ok], cols[ok]] = got[ok]
            rows, cols, base = rows[~ok], cols[~ok], base[~ok]
            attempt += 1

    # -- k permutations -----------------------------------------------------------------
    def _perm(self, sets: ShingleSets, *, chunk: int = 1 << 22) -> np.ndarray:
        n, k = len(sets), self.num_perm
        salts = fmix64(np.arange(1, k + 1, dtype=U64) + np.uint64(self.seed) * np.uint64(k + 1))
        sig = np.full((n, k), EMPTY, dtype=U64)
        doc = sets.doc_ids()
        step = max(1, chunk // k)
        for lo in range(0, sets.values.shape[0], step):
            v = sets.values[lo : lo + step]
            images = fmix64(v[:, None] ^ salts[None, :])
            np.minimum.at(sig, doc[lo : lo + step], images)
        return sig


def estimate_jaccard(a: np.ndarray, b: np.ndarray) -> float:
    """Estimated Jaccard of two sketches: the share of equal, non-empty slots.

    Args:
        a, b: uint64 arrays of equal shape (k,).

    Raises:
        IncompatibleSignatureError: the shapes differ.
    """
    if a.shape != b.shape:
        raise IncompatibleSignatureError(
            f"sketches of different lengths cannot be compared: {a.shape} vs {b.shape}"
        )
    return float(np.mean((a == b) & (a != EMPTY)))
