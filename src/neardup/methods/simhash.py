"""SimHash: 64-bit random-hyperplane fingerprints with permuted-table search.

Charikar 2002 ("Similarity estimation techniques from rounding algorithms", STOC); Manku,
Jain & Das Sarma 2007 ("Detecting near-duplicates for web crawling", WWW).

**Fingerprint** (Manku et al. §2). A document is a bag of weighted features: its word
shingles of ``shingle_size`` canonical tokens (default 1: words, as in Manku et al.), each
hashed to 64 bits exactly as :class:`neardup.methods.shingles.Shingling` fingerprints them
(XXH64 of a token, combined ``h = fmix64(rotl(h, 31) * P ^ t_i)`` for longer shingles).
A feature's weight is its term frequency ``tf`` (``weighting="tf"``) or ``1 + ln tf``
(``weighting="log"``). For every bit ``k``::

    V_k = sum_f w_f * (+1 if bit k of h_f is 1 else -1),   fingerprint bit k = [V_k > 0],

computed for a whole batch at once with numpy (the bit matrix of the feature hashes times
their weights, summed per document). A document without features has fingerprint 0.

**Decision**: two fingerprints are near-duplicates when their Hamming distance is at most
``max_hamming = k`` (Manku et al. use k = 3 for 64-bit fingerprints). The method's score is
``similarity = 1 - hamming / 64``; since the job thresholds scores at its ``threshold``,
the job decides exactly ``hamming <= k`` when ``threshold = 1 - k / 64`` (k = 3:
0.953125); a lower job threshold reports every candidate (all have hamming <= k), a higher
one a smaller distance.

**Candidates** (Manku et al. §3, permuted tables): the 64 bits are split into ``k + 1``
contiguous blocks (widths differ by at most one); two fingerprints within distance ``k``
agree on at least one block (pigeonhole), so one table per block keyed on that block's bits
finds every such pair; pairs sharing a key are checked for ``hamming <= k``. Tables are
built with a sort per block, vectorised over the corpus. Keys shared by more than
``max_df`` documents give star candidates only.

**Payload** of :meth:`SimHash.signature`: uint64 ``(1,)``, the fingerprint.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import chain
from typing import Any, ClassVar, Literal

import numpy as np
import xxhash

from neardup._array import U64, fmix64, group_bounds, pairs_in_groups, seg_arange, unique_pairs
from neardup.methods.base import Capabilities, Layout, MethodBase, Prepared, Signatures, TermBags
from neardup.methods.decision import DecisionRule, HammingAtMost
from neardup.methods.registry import register
from neardup.options import OPTIONS
from neardup.params import Constraint, Interval, Options
from neardup.text.canonical import CanonicalForm
from neardup.text.xxh64 import token_fingerprints

Weighting = Literal["tf", "log"]
WEIGHTINGS: tuple[str, ...] = ("tf", "log")
BITS = 64
_P = np.uint64(0x9E3779B97F4A7C15)
_CHUNK = 1 << 16
_POPCOUNT8 = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1).sum(axis=1)


def shingle_hashes(
    token_lists: Sequence[Sequence[str]], size: int, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Every word-shingle occurrence of a batch, hashed as :class:`Shingling` does.

    A document with ``0 < n < size`` tokens has one shingle of all its tokens.

    Returns:
        ``(hashes, docs)``: uint64 and int64 arrays of equal length, in document order.
    """
    lengths = np.fromiter((len(t) for t in token_lists), np.int64, count=len(token_lists))
    tok = token_fingerprints(list(chain.from_iterable(token_lists)), seed)
    return shingle_hashes_of(tok, lengths, size)


def shingle_hashes_of(
    tok: np.ndarray, lengths: np.ndarray, size: int
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`shingle_hashes` from the token fingerprints: uint64 (t,) of every document
    one after another, int64 (n,) tokens per document."""
    starts = np.cumsum(lengths) - lengths
    counts = np.where(lengths >= size, lengths - size + 1, (lengths > 0).astype(np.int64))
    first = np.repeat(starts, counts) + seg_arange(np.zeros_like(counts), counts)
    docs = np.repeat(np.arange(lengths.shape[0], dtype=np.int64), counts)
    width = np.minimum(np.repeat(lengths, counts), size)
    h = np.zeros(first.shape[0], dtype=U64)
    with np.errstate(over="ignore"):
        for i in range(size):
            idx = np.flatnonzero(width > i)
            hi = h[idx]
            h[idx] = fmix64(
                ((hi << np.uint64(31)) | (hi >> np.uint64(33))) * _P ^ tok[first[idx] + i]
            )
    return h, docs


def word_features(
    token_lists: Sequence[Sequence[str]], seed: int = 0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct words of each document with their tf (the ``shingle_size=1`` fast path).

    Each distinct word of the batch is hashed once; hashes equal :func:`shingle_hashes`
    with ``size=1`` (``fmix64`` of the word's XXH64).

    Returns:
        ``(features, docs, tf)``: uint64, int64, float64, grouped by document.
    """
    counters = [Counter(t) for t in token_lists]
    h = xxhash.xxh64_intdigest
    cache = {t: h(t.encode("utf-8", "surrogatepass"), seed) for t in set().union(*counters)}
    get = cache.__getitem__
    sizes = [len(c) for c in counters]
    feats = [np.fromiter(map(get, c), U64, n) for c, n in zip(counters, sizes, strict=True)]
    tfs = [np.fromiter(c.values(), np.float64, n) for c, n in zip(counters, sizes, strict=True)]
    docs = np.repeat(np.arange(len(counters), dtype=np.int64), sizes)
    if not feats:
        return np.zeros(0, U64), docs, np.zeros(0, np.float64)
    features = fmix64(np.concatenate(feats))
    return features, docs, np.concatenate(tfs)


def occurrence_features(
    tok: np.ndarray, offsets: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`word_features` from token fingerprints (uint64 (t,), offsets int64 (n + 1,)):
    each document's distinct token fingerprints in first-occurrence order (as
    :class:`collections.Counter` keeps its words), ``fmix64``-ed, with their tf.

    Returns:
        ``(features, docs, tf)``: uint64, int64, float64, grouped by document.
    """
    n = offsets.shape[0] - 1
    docs = np.repeat(np.arange(n, dtype=np.int64), np.diff(offsets))
    if tok.shape[0] == 0:
        return np.zeros(0, U64), docs, np.zeros(0, np.float64)
    order = np.lexsort((tok, docs))  # stable: equal (doc, token) in position order
    t, d = tok[order], docs[order]
    new = np.ones(t.shape[0], dtype=bool)
    new[1:] = (t[1:] != t[:-1]) | (d[1:] != d[:-1])
    starts = np.flatnonzero(new)
    tf = np.diff(np.append(starts, t.shape[0])).astype(np.float64)
    first = order[starts]  # each distinct token's first position
    back = np.argsort(first, kind="stable")
    return fmix64(t[starts][back]), d[starts][back], tf[back]


def weighted_features(
    hashes: np.ndarray, docs: np.ndarray, weighting: str = "tf"
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct ``(doc, feature)`` with weights ``tf`` or ``1 + ln tf``.

    Returns:
        ``(features, docs, weights)``: uint64, int64, float64, sorted by document.
    """
    order = np.lexsort((hashes, docs))
    h, d = hashes[order], docs[order]
    new = np.ones(h.shape[0], bool)
    new[1:] = (h[1:] != h[:-1]) | (d[1:] != d[:-1])
    starts = np.flatnonzero(new)
    tf = np.diff(np.append(starts, h.shape[0])).astype(np.float64)
    w = tf if weighting == "tf" else 1.0 + np.log(tf)
    return h[starts], d[starts], w


def fingerprints(features: np.ndarray, docs: np.ndarray, weights: np.ndarray, n: int) -> np.ndarray:
    """Charikar fingerprints of ``n`` documents from weighted features, vectorised.

    Args:
        features: uint64 (F,) feature hashes; docs: int64 (F,) sorted document indexes;
        weights: float64 (F,) positive weights; n: number of documents.

    Returns:
        uint64 (n,): bit k set when ``sum_f w_f * (2 * bit_k(h_f) - 1) > 0``.
    """
    plus = np.zeros((n, BITS), dtype=np.float64)  # sum of weights of features with bit k set
    for lo in range(0, features.shape[0], _CHUNK):
        f, d, w = features[lo : lo + _CHUNK], docs[lo : lo + _CHUNK], weights[lo : lo + _CHUNK]
        bits = np.unpackbits(
            f.astype("<u8").view(np.uint8).reshape(-1, 8), axis=1, bitorder="little"
        )
        seg, where = np.unique(d, return_index=True)
        plus[seg] += np.add.reduceat(bits * w[:, None], where, axis=0)
    total = np.bincount(docs, weights=weights, minlength=n)
    set_bits = (2.0 * plus > total[:, None]).astype(np.uint8)
    return np.packbits(set_bits, axis=1, bitorder="little").view("<u8").ravel().astype(U64)


def hamming(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hamming distances of uint64 arrays (broadcast): int64."""
    x = np.bitwise_xor(np.asarray(a, dtype=U64), np.asarray(b, dtype=U64))
    if hasattr(np, "bitwise_count"):  # numpy >= 2.0
        return np.bitwise_count(x).astype(np.int64)
    as_bytes = np.ascontiguousarray(x).astype("<u8").view(np.uint8).reshape(*x.shape, 8)
    return _POPCOUNT8[as_bytes].sum(axis=-1).astype(np.int64)


def block_masks(k: int) -> list[tuple[int, int]]:
    """``(shift, width)`` of the ``k + 1`` contiguous blocks the 64 bits are split into."""
    parts = k + 1
    widths = [BITS // parts + (1 if i < BITS % parts else 0) for i in range(parts)]
    shifts = np.concatenate([[0], np.cumsum(widths)[:-1]]).tolist()
    return list(zip(shifts, widths, strict=True))


def table_candidates(fps: np.ndarray, k: int, *, max_df: int | None = None) -> np.ndarray:
    """Pairs within Hamming distance ``k``, found with ``k + 1`` block tables (Manku et al.).

    Args:
        fps: uint64 (n,) fingerprints.
        k: largest Hamming distance, 0-31.
        max_df: table keys shared by more documents give star pairs only (None: all pairs).

    Returns:
        int64 (p, 2), ``a < b``, sorted unique, every pair with ``hamming <= k`` (when no
        key exceeds ``max_df``) and no other.
    """
    n = fps.shape[0]
    ids = np.arange(n, dtype=np.int64)
    found = []
    for shift, width in block_masks(k):
        key = (fps >> np.uint64(shift)) & np.uint64((1 << width) - 1)
        order = np.argsort(key, kind="stable")
        starts, sizes = group_bounds(key[order])
        found.append(pairs_in_groups(ids[order], starts, sizes, max_group=max_df))
    pairs = unique_pairs(np.concatenate(found), n) if found else np.zeros((0, 2), np.int64)
    return pairs[hamming(fps[pairs[:, 0]], fps[pairs[:, 1]]) <= k]


@dataclass(frozen=True, kw_only=True)
class SimHash(MethodBase):
    """SimHash (Charikar 2002; Manku et al. 2007): 64-bit fingerprints, Hamming <= k.

    Args:
        shingle_size: canonical tokens per feature, 1-8 (1: words).
        weighting: feature weight, ``tf`` or ``log`` (``1 + ln tf``).
        max_hamming: ``k``, largest Hamming distance of a candidate, 0-31 (default 3).
        seed: XXH64 seed of the feature hashes, ``0 <= seed < 2**32``.
        max_df: table keys shared by more documents give star candidates only, >= 2.
        canonical: how texts become tokens.

    Raises:
        ParameterError: a parameter is out of range (the message names it).
    """

    name: ClassVar[str] = "simhash"
    source: ClassVar[str] = (
        "Charikar 2002; Manku, Jain & Das Sarma 2007 (WWW): bit_k = [sum_f w_f (2 h_f,k - 1) > 0], "
        "hamming <= k via k+1 block tables; similarity = 1 - hamming/64"
    )
    # signs from the kernel's token fingerprints, no strings; no exact or LSH key: it
    # cannot back a collection (keys "none")
    capabilities: ClassVar[Capabilities] = Capabilities(signs_from_text=True)
    layout: ClassVar[Layout] = "values"
    decision_rule: ClassVar[DecisionRule] = HammingAtMost(
        "Hamming distance <= max_hamming (Charikar 2002; Manku et al. 2007)",
        label="SimHash Hamming distance <= {max_hamming}",
        parameter="max_hamming",
        bits=BITS,
    )

    shingle_size: int = 1
    weighting: Weighting = "tf"
    max_hamming: int = 3
    seed: int = 0
    max_df: int = OPTIONS["max_df"].default
    canonical: CanonicalForm = field(default_factory=CanonicalForm)

    parameter_constraints: ClassVar[dict[str, Constraint]] = {
        "shingle_size": Interval("int", 1, 8),
        "weighting": Options(WEIGHTINGS),
        "max_hamming": Interval("int", 0, 31),
        "seed": Interval("int", 0, 2**32 - 1),
        "max_df": OPTIONS["max_df"].constraint,
    }

    @property
    def matching_threshold(self) -> float:
        """The job threshold that decides exactly ``hamming <= max_hamming``: ``1 - k/64``."""
        return self.decision_rule.bar(self, 1.0)

    def params(self) -> dict[str, Any]:
        """JSON-ready parameters (recorded in signatures)."""
        return {
            "shingle_size": self.shingle_size,
            "weighting": self.weighting,
            "max_hamming": self.max_hamming,
            "seed": self.seed,
        }

    def fingerprint_batch(self, token_lists: Sequence[Sequence[str]]) -> np.ndarray:
        """Fingerprints of many token lists: uint64 (n,)."""
        if self.shingle_size == 1:
            f, d, w = word_features(token_lists, self.seed)
            if self.weighting == "log":
                w = 1.0 + np.log(w)
        else:
            hashes, docs = shingle_hashes(token_lists, self.shingle_size, self.seed)
            f, d, w = weighted_features(hashes, docs, self.weighting)
        return fingerprints(f, d, w, len(token_lists))

    def fingerprint_texts(self, texts: Sequence[str]) -> np.ndarray:
        """Fingerprints of clean texts: uint64 (n,), equal to :meth:`fingerprint_batch` of
        their canonical tokens. The features come from the token fingerprints of the
        prepare kernel (:func:`neardup.methods.kernel.text_fingerprints`: the compiled
        kernel for the canonical forms it covers), without a Python string per token."""
        from neardup.methods.kernel import text_fingerprints

        tok, offsets, _ = text_fingerprints(texts, canonical=self.canonical, seed=self.seed)
        if self.shingle_size == 1:
            f, d, w = occurrence_features(tok, offsets)
            if self.weighting == "log":
                w = 1.0 + np.log(w)
        else:
            hashes, docs = shingle_hashes_of(tok, np.diff(offsets), self.shingle_size)
            f, d, w = weighted_features(hashes, docs, self.weighting)
        return fingerprints(f, d, w, len(texts))

    def sign(self, docs: Sequence[Prepared]) -> Signatures:
        """Fingerprints of a batch, from each ``Prepared.text`` (:meth:`fingerprint_texts`:
        the tokens are the canonical form's): uint64 (n,)."""
        fps = self.fingerprint_texts([d.text for d in docs])
        return Signatures(self.key(), fps, len(docs))

    def sign_counts(self, bags: TermBags) -> Signatures:
        """Fingerprints of documents given as bags of words (:meth:`fingerprint_batch` of
        their tokens): uint64 (n,)."""
        return Signatures(self.key(), self.fingerprint_batch(bags.token_lists()), bags.count)

    def candidates(self, sigs: Signatures) -> np.ndarray:
        """Pairs with ``hamming <= max_hamming`` from the block tables: int64 (p, 2)."""
        return table_candidates(sigs.data, self.max_hamming, max_df=self.max_df)

    def similarity(self, sigs: Signatures, pairs: np.ndarray) -> np.ndarray:
        """``1 - hamming / 64`` of each pair: float64 (p,)."""
        fps: np.ndarray = sigs.data
        return 1.0 - hamming(fps[pairs[:, 0]], fps[pairs[:, 1]]) / BITS


register(SimHash)
