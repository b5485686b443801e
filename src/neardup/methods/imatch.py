"""I-Match (Chowdhury, Frieder, Grossman & McCabe 2002) and its lexicon randomization
(Kołcz, Chowdhury & Alspector 2004), Zagorulko et al. 2013 ("I-Match ... слова со средним значением
IDF") and Romanov 2019 §1 (SHA-1 of the sorted lexicon terms; 30-35 % of the lexicon removed
in each extra lexicon; duplicates when any coordinate matches).

The lexicon is fitted on collection statistics: a term ``t`` with document frequency
``df(t)`` in a collection of ``N`` documents has ``idf = log(N / df)`` and *normalised*
idf ``nidf = idf / log(N)`` in [0, 1] (``nidf = 1`` for a term of one document, ``0`` for
a term of every document). The lexicon keeps the mid-range terms,
``min_nidf <= nidf <= max_nidf`` (absolute bounds on the normalised idf, not quantiles).

A document's I-Match signature is SHA-1 of its sorted unique lexicon terms joined by one
space (tokens never contain spaces), UTF-8 encoded. A document with fewer than
``min_terms`` lexicon terms has no signature: its 20 bytes are all zero (a value SHA-1
does not produce in practice), and a zero signature matches nothing.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import xxhash

from neardup._array import U64, group_bounds, pairs_in_groups, unique_pairs
from neardup.errors import ParameterError, UsageError
from neardup.methods.base import (
    Capabilities,
    CorpusStats,
    Layout,
    MethodBase,
    Prepared,
    SignatureKey,
    Signatures,
)
from neardup.methods.decision import DecisionRule, EqualSignature
from neardup.methods.keys import GroupKeys
from neardup.methods.registry import register
from neardup.params import Constraint, Interval
from neardup.text.canonical import CanonicalForm

DIGEST = 20  # bytes of a SHA-1 digest
_NONE = bytes(DIGEST)


# -- helpers shared by the exact-key lexical methods ---------------------------------------
def require_fitted(state: object, name: str) -> None:
    """Raise :class:`UsageError` when a lexical method is used before :meth:`fit`."""
    if state is None:
        raise UsageError(
            f"{name}: call fit(stats) on collection statistics before sign() "
            "(neardup.methods.corpus_stats.CorpusStatistics)"
        )


def vocabulary(stats: CorpusStats) -> list[str]:
    """The terms of ``stats`` (``stats.terms()``, sorted).

    Raises:
        UsageError: the statistics cannot list their terms.
    """
    terms = getattr(stats, "terms", None)
    if terms is None:
        raise UsageError("collection statistics must list their terms (CorpusStatistics)")
    return list(terms())


def short_hash(items: Iterable[str]) -> str:
    """16 hex digits of SHA-1 over ``items`` joined by newlines (fitted-state fingerprint)."""
    h = hashlib.sha1()
    for item in items:
        h.update(item.encode("utf-8", "surrogatepass") + b"\n")
    return h.hexdigest()[:16]


def key_pairs(keys: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """All pairs of rows with equal ``keys`` among ``valid`` rows: int64 (p, 2), a < b.

    Args:
        keys: 1-D array of any sortable dtype, shape (n,).
        valid: bool (n,); invalid rows (no signature) pair with nothing.
    """
    rows = np.flatnonzero(valid)
    order = rows[np.argsort(keys[rows], kind="stable")]
    starts, sizes = group_bounds(keys[order])
    return pairs_in_groups(order.astype(np.int64), starts, sizes)


def slot_candidates(keys: np.ndarray, valid: np.ndarray, n: int) -> np.ndarray:
    """Pairs equal in some column of ``keys`` (n, k) where ``valid`` (n, k): int64 (p, 2)."""
    parts = [key_pairs(keys[:, j], valid[:, j]) for j in range(keys.shape[1])]
    if not parts:
        return np.zeros((0, 2), np.int64)
    return unique_pairs(np.concatenate(parts), n)


def digest(terms: Sequence[str]) -> bytes:
    """SHA-1 of ``terms`` joined by one space, UTF-8 (20 bytes)."""
    return hashlib.sha1(" ".join(terms).encode("utf-8", "surrogatepass")).digest()


def prefix_keys(data: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Grouping keys (first 8 digest bytes) and validity of (n, k*20) uint8 digests."""
    n = data.shape[0]
    d = np.ascontiguousarray(data).reshape(n, -1, DIGEST)
    keys = np.ascontiguousarray(d[:, :, :8]).view("<u8")[:, :, 0]
    return keys, np.asarray(d.any(axis=2))


def _matching_slots(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per row: some 20-byte slot is equal in ``a`` and ``b`` and non-zero. bool (p,)."""
    p = a.shape[0]
    da, db = a.reshape(p, -1, DIGEST), b.reshape(p, -1, DIGEST)
    same = (da == db).all(axis=2) & da.any(axis=2)
    return same.any(axis=1)


class SingleKeyMethod(MethodBase):
    """Shared behaviour of methods whose signature is one integer key per document
    (anchor words, TF-RIDF): 0 means "no signature" and matches nothing; equal non-zero
    keys are duplicates. ``sigs.data`` is a 1-D unsigned integer array (n,)."""

    layout: ClassVar[Layout] = "values"

    def candidates(self, sigs: Signatures) -> np.ndarray:
        """Pairs with equal non-zero signatures: int64 (p, 2), a < b."""
        return key_pairs(sigs.data, sigs.data != 0)

    def similarity(self, sigs: Signatures, pairs: np.ndarray) -> np.ndarray:
        """1.0 for equal non-zero signatures, else 0.0: float64 (p,)."""
        if pairs.size == 0:
            return np.zeros(0)
        a, b = sigs.data[pairs[:, 0]], sigs.data[pairs[:, 1]]
        return ((a == b) & (a != 0)).astype(float)


@dataclass(kw_only=True)
class IMatch(MethodBase):
    """I-Match (Chowdhury et al. 2002, ACM TOIS 20(2)): SHA-1 of a document's lexicon terms.

    Needs :meth:`fit` on collection statistics (the lexicon). Signature payload: uint8
    (20,), SHA-1 digest; all zeros = no signature (fewer than ``min_terms`` lexicon terms),
    which matches nothing. Duplicates: equal signatures.

    Args:
        min_nidf: lower bound of the normalised idf ``log(N/df) / log(N)``, in [0, 1]
            (drops terms found in more than ``N^(1 - min_nidf)`` documents).
        max_nidf: upper bound, in [min_nidf, 1] (``< 1`` drops terms of one document).
        min_terms: lexicon terms a document needs to get a signature, >= 1 (Romanov 2019:
            "если размер этого пересечения больше некоторого минимального порога").
        canonical: the canonical form tokens are made with.

    Raises:
        ParameterError: a parameter is out of range (the message names it).
    """

    name: ClassVar[str] = "imatch"
    source: ClassVar[str] = (
        "Chowdhury, Frieder, Grossman & McCabe 2002 (I-Match: SHA-1 of the terms with "
        "mid-range idf = log(N/df)); Zagorulko et al. 2013 and Romanov 2019"
    )
    capabilities: ClassVar[Capabilities] = Capabilities(
        needs_fit=True, exact_key=True, keys="groups"
    )
    decision_rule: ClassVar[DecisionRule] = EqualSignature(
        "equal I-Match signature (Chowdhury et al. 2002)",
        label="I-Match equal signature",
    )

    min_nidf: float = 0.2
    max_nidf: float = 0.95
    min_terms: int = 1
    canonical: CanonicalForm = field(default_factory=CanonicalForm)
    _lexicon: frozenset[str] | None = field(init=False, repr=False, compare=False, default=None)
    _lexicon_id: str | None = field(init=False, repr=False, compare=False, default=None)

    parameter_constraints: ClassVar[dict[str, Constraint]] = {
        "min_nidf": Interval("float", 0.0, 1.0),
        "max_nidf": Interval("float", 0.0, 1.0),
        "min_terms": Interval("int", 1, 1_000_000),
    }

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.max_nidf < self.min_nidf:
            raise ParameterError("max_nidf", self.max_nidf, f">= min_nidf={self.min_nidf}")

    # -- fitted state -----------------------------------------------------------------------
    @property
    def lexicon(self) -> frozenset[str]:
        """The fitted lexicon.

        Raises:
            UsageError: :meth:`fit` has not run.
        """
        require_fitted(self._lexicon, self.name)
        assert self._lexicon is not None
        return self._lexicon

    def fit(self, stats: CorpusStats) -> None:
        """Choose the lexicon: terms with ``min_nidf <= log(N/df)/log(N) <= max_nidf``.

        Args:
            stats: collection statistics listing their terms (``CorpusStatistics``).

        Raises:
            UsageError: fewer than 2 documents counted, or the terms cannot be listed.
        """
        n = stats.num_docs
        if n < 2:
            raise UsageError(f"{self.name}: fit needs statistics of >= 2 documents, got {n}")
        terms = vocabulary(stats)
        df = np.array([stats.df(t) for t in terms], dtype=float)
        nidf = np.log(n / np.maximum(df, 1.0)) / math.log(n)
        eps = 1e-12
        keep = (nidf >= self.min_nidf - eps) & (nidf <= self.max_nidf + eps) & (df > 0)
        lexicon = sorted(t for t, k in zip(terms, keep.tolist(), strict=True) if k)
        self._set_lexicon(lexicon)

    def _set_lexicon(self, lexicon: list[str]) -> None:
        self._lexicon = frozenset(lexicon)
        self._lexicon_id = short_hash(lexicon)

    # -- protocol -------------------------------------------------------------------------
    def params(self) -> dict[str, Any]:
        """JSON-ready parameters with the fitted lexicon's size and fingerprint (or None)."""
        return {
            "min_nidf": self.min_nidf,
            "max_nidf": self.max_nidf,
            "min_terms": self.min_terms,
            "lexicon": self._lexicon_id,
            "lexicon_size": None if self._lexicon is None else len(self._lexicon),
        }

    def lexicon_warning(self, num_docs: int) -> str | None:
        """A warning when the fitted lexicon has fewer than ``min_terms`` terms (no document
        can get a signature), with the collection size the rule needs; else None.

        A lexicon term has ``df >= 2`` (``max_nidf < 1``) and ``log(N/df)/log(N) >=
        min_nidf``, so ``N >= 2^(1 / (1 - min_nidf))``.
        """
        size = 0 if self._lexicon is None else len(self._lexicon)
        if size >= self.min_terms:
            return None
        need = math.ceil(2 ** (1 / (1 - self.min_nidf))) if self.min_nidf < 1 else None
        where = f"at least {need} documents sharing terms" if need else "min_nidf < 1"
        return (
            f"{self.name}: the lexicon has {size} terms (< min_terms={self.min_terms}) on "
            f"{num_docs} documents, so no document gets a signature; lexicon terms need "
            f"df >= 2 and nidf in [{self.min_nidf}, {self.max_nidf}]: {where}; identical "
            "documents are still paired"
        )

    def key(self) -> SignatureKey:
        """The :class:`SignatureKey` of signatures this method makes (fitted state included)."""
        return SignatureKey.make(self.name, self.params(), self.canonical.params())

    def sign(self, docs: Sequence[Prepared]) -> Signatures:
        """Signatures of a batch: data uint8 (n, 20 · slots).

        Raises:
            UsageError: :meth:`fit` has not run.
        """
        lexicons = self._lexicons()
        width = DIGEST * len(lexicons)
        data = np.zeros((len(docs), width), dtype=np.uint8)
        for i, doc in enumerate(docs):
            data[i] = np.frombuffer(self._digests(doc.tokens, lexicons), dtype=np.uint8)
        return Signatures(self.key(), data, len(docs))

    def _lexicons(self) -> list[frozenset[str]]:
        return [self.lexicon]

    def _digests(self, tokens: Sequence[str], lexicons: list[frozenset[str]]) -> bytes:
        terms = sorted(set(tokens) & lexicons[0])
        out = []
        for lex in lexicons:
            sub = terms if lex is lexicons[0] else [t for t in terms if t in lex]
            out.append(digest(sub) if len(sub) >= self.min_terms else _NONE)
        return b"".join(out)

    def keys(self, sigs: Signatures) -> GroupKeys:
        """One slot per lexicon of the (n, k*20) uint8 digests, key = the digest's first 8
        bytes (non-empty digests; the full 20-byte equality is checked when pairs are
        scored), salted by slot number in a collection's rows (equal to
        :func:`~neardup.methods.keys.slot_keys` of the signature payloads)."""
        if sigs.count == 0:
            return GroupKeys(np.zeros((0, 0), U64), np.zeros((0, 0), bool), salted=True)
        keys, valid = prefix_keys(sigs.data)
        return GroupKeys(keys.astype(U64), valid, salted=True)

    def candidates(self, sigs: Signatures) -> np.ndarray:
        """Pairs with an equal non-empty signature in some slot: int64 (p, 2), a < b."""
        keys, valid = prefix_keys(sigs.data)
        cand = slot_candidates(keys, valid, sigs.count)
        if cand.size == 0:
            return cand
        return cand[_matching_slots(sigs.data[cand[:, 0]], sigs.data[cand[:, 1]])]

    def similarity(self, sigs: Signatures, pairs: np.ndarray) -> np.ndarray:
        """1.0 when a pair has an equal non-empty signature (in some slot), else 0.0: (p,)."""
        if pairs.size == 0:
            return np.zeros(0)
        return _matching_slots(sigs.data[pairs[:, 0]], sigs.data[pairs[:, 1]]).astype(float)


@dataclass(kw_only=True)
class IMatchRandom(IMatch):
    """I-Match with lexicon randomization (Kołcz, Chowdhury & Alspector 2004, KDD).

    Besides the main lexicon ``L``, ``K`` extra lexicons each drop ``round(drop · |L|)``
    terms of ``L`` chosen at random (the terms with the smallest seeded XXH64 of
    ``"k:term"``); a document gets ``K + 1`` I-Match signatures, slot 0 from ``L``.
    Duplicates: any slot equal (and non-empty). Signature payload: uint8 (20 · (K + 1),).

    Args:
        K: extra lexicons, 1-256 (default 10).
        drop: fraction of ``L`` removed in each extra lexicon, in [0, 1) (Romanov 2019: 30-35 %).
        seed: seed of the random removals, ``0 <= seed < 2**63``.
        min_nidf, max_nidf, min_terms, canonical: as :class:`IMatch`.

    Raises:
        ParameterError: a parameter is out of range (the message names it).
    """

    name: ClassVar[str] = "imatch-random"
    source: ClassVar[str] = (
        "Kołcz, Chowdhury & Alspector 2004 (K randomized lexicons, match on any I-Match "
        "signature); Chowdhury et al. 2002; Romanov 2019"
    )
    decision_rule: ClassVar[DecisionRule] = EqualSignature(
        "an equal I-Match signature under some lexicon (Kołcz, Chowdhury & Alspector 2004)",
        label="I-Match equal signature under one of {K} lexicons",
    )

    K: int = 10
    drop: float = 0.33
    seed: int = 0
    _extra: list[frozenset[str]] = field(
        init=False, repr=False, compare=False, default_factory=list
    )

    parameter_constraints: ClassVar[dict[str, Constraint]] = {
        **IMatch.parameter_constraints,
        "K": Interval("int", 1, 256),
        "drop": Interval("float", 0.0, 1.0),  # and < 1 (below)
        "seed": Interval("int", 0, 2**63 - 1),
    }

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.drop >= 1.0:
            raise ParameterError("drop", self.drop, "a number in [0, 1)")

    def params(self) -> dict[str, Any]:
        """JSON-ready parameters (K, drop, seed and the fitted lexicon included)."""
        return {**super().params(), "K": self.K, "drop": self.drop, "seed": self.seed}

    def _set_lexicon(self, lexicon: list[str]) -> None:
        super()._set_lexicon(lexicon)
        self._extra = [self._randomized(lexicon, k) for k in range(1, self.K + 1)]

    def _randomized(self, lexicon: list[str], k: int) -> frozenset[str]:
        """``lexicon`` without its ``round(drop · |L|)`` terms of smallest seeded hash."""
        h = xxhash.xxh64_intdigest
        seed = self.seed % 2**64
        ranks = sorted(lexicon, key=lambda t: (h(f"{k}:{t}".encode(), seed), t))
        return frozenset(ranks[round(self.drop * len(lexicon)) :])

    def _lexicons(self) -> list[frozenset[str]]:
        return [self.lexicon, *self._extra]


register(IMatch)
register(IMatchRandom)
