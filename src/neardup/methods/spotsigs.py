"""SpotSigs: spot signatures anchored at stop words (Theobald, Siddharth & Paepcke 2008).

M. Theobald, J. Siddharth, A. Paepcke, "SpotSigs: robust and efficient near duplicate
detection in large web collections", SIGIR 2008. Feng 2015 (§1) summarises it: a stop word is
an *antecedent*, and the words after it form one spot signature.

**Spot signatures** (paper §3). For every occurrence of an antecedent ``a`` in the token
stream, the chain of the next ``chain`` *content* words taken every ``distance`` content
words (content words: tokens that are neither stop words nor antecedents; stop words in
between are skipped) gives the signature ``a:w_d:w_2d:...:w_cd``. With the paper's example
and ``distance=1, chain=2``, "at a rally to kick off a weeklong campaign for the South
Carolina primary" gives ``a:rally:kick``, ``a:weeklong:campaign``,
``the:south:carolina``. A chain cut short by the end of the document gives no signature.
Stop words are the Snowball English and Russian lists (:func:`neardup.text.stopwords.stop_words`),
so the canonical form must keep them: the default is ``CanonicalForm(stop_words=False)``.

**Antecedents** (:data:`DEFAULT_ANTECEDENTS`): the paper uses a handful of very frequent
English stop words (its example: ``a``, ``the``, ``is``); we take the articles and forms
of *be* plus ``there`` and ``said``, and for Russian (no articles) the copula forms
(``был``, ``была``, ``было``, ``были``, ``есть``, ``является``, ``это``) and the most frequent
prepositions and negation (``в``, ``на``, ``не``), which like articles precede the content
of running prose and are rare in navigation text. Configurable (lower-case canonical tokens).

**Similarity** (paper §4): multiset Jaccard of the signature bags::

    J(A, B) = sum_s min(A_s, B_s) / sum_s max(A_s, B_s)
            = m / (|A| + |B| - m),  m = sum_s min(A_s, B_s),

``A_s`` the count of signature ``s`` in A, ``|A|`` the bag size. Empty bags score 0.

**Corpus candidates** (paper §5): since ``J(A, B) <= min(|A|, |B|) / max(|A|, |B|)``, a pair
can reach ``threshold`` only if ``|A| / |B| >= t`` (``|A| <= |B|``). Documents are
partitioned by bag size into geometric ranges ``[t^-k, t^-(k+1))`` (``k = floor(log|A| /
-log t)``; exact sizes when ``t = 1``), so partners of a document lie in its own or an
adjacent partition. Within partitions an inverted index over the signatures finds the pairs
(each document is also indexed in the partition below its own); like the paper's
threshold-bounded traversal of the posting lists, only a bag's rarest
``|A| - ceil(t |A|) + 1`` signature copies are indexed (prefix filtering, Bayardo et al.
2007, on the bags as sets of (signature, copy number) items, :func:`expand_bag`), which
misses no pair with ``J >= t``; the exact length bound prunes the rest. Postings longer
than ``max_df`` give star candidates only.

**Payload** of :meth:`SpotSigs.signature`: uint64 ``(|A|,)``, the sorted XXH64 hashes (seed
``seed``) of the signature strings ``"a:w1:...:wc"``, repeats kept (the bag).
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import xxhash

from neardup._array import U64, fmix64, group_bounds, pairs_in_groups, seg_arange, unique_pairs
from neardup.errors import ParameterError
from neardup.methods.base import Capabilities, Layout, MethodBase, Prepared, Signature, Signatures
from neardup.methods.decision import DecisionRule, SimilarityAtLeast
from neardup.methods.keys import KeyRows
from neardup.methods.measures import intersection_sizes
from neardup.methods.prefix import prefix_lengths, rank_by_frequency
from neardup.methods.registry import register
from neardup.methods.sets import ShingleSets
from neardup.options import OPTIONS
from neardup.params import Constraint, Interval, Words
from neardup.text.canonical import CanonicalForm
from neardup.text.stopwords import stop_words

#: English (paper) and Russian (our equivalents) antecedents; see the module docstring.
DEFAULT_ANTECEDENTS: tuple[str, ...] = (
    "a", "an", "the", "is", "are", "was", "were", "be", "been", "there", "said",
    "был", "была", "было", "были", "есть", "является", "это", "в", "на", "не",
)  # fmt: skip
_P = np.uint64(0x9E3779B97F4A7C15)


def spot_signatures(
    tokens: Sequence[str], antecedents: frozenset[str], *, distance: int = 1, chain: int = 2
) -> list[str]:
    """Spot signatures of a token stream, in document order (paper §3).

    Args:
        tokens: canonical tokens with stop words kept.
        antecedents: antecedent words (canonical form).
        distance: spot distance ``d >= 1``: every d-th content word joins the chain.
        chain: chain length ``c >= 1``: content words per signature.

    Returns:
        ``"a:w_d:w_2d:...:w_cd"`` strings, one per antecedent occurrence with a full chain.
    """
    skip = stop_words() | antecedents
    content = [i for i, t in enumerate(tokens) if t not in skip]
    last = len(content)
    out: list[str] = []
    for pos, tok in enumerate(tokens):
        if tok not in antecedents:
            continue
        k = bisect_right(content, pos)  # first content word after the antecedent
        picks = [k + distance * (r + 1) - 1 for r in range(chain)]
        if picks[-1] < last:
            out.append(":".join([tok, *(tokens[content[p]] for p in picks)]))
    return out


def multiset_jaccard(a: np.ndarray, b: np.ndarray) -> float:
    """``sum min(A_s, B_s) / sum max(A_s, B_s)`` of two bags given as arrays (0 if empty)."""
    ua, ca = np.unique(a, return_counts=True)
    ub, cb = np.unique(b, return_counts=True)
    _, ia, ib = np.intersect1d(ua, ub, assume_unique=True, return_indices=True)
    m = int(np.minimum(ca[ia], cb[ib]).sum())
    union = a.shape[0] + b.shape[0] - m
    return m / union if union else 0.0


def expand_bag(values: np.ndarray, doc: np.ndarray, n: int) -> ShingleSets:
    """Bags as sets: the k-th copy of ``h`` in a document becomes ``fmix64(h ^ fmix64(k))``.

    Intersection sizes of the expanded sets are ``sum min`` of the bags (up to 64-bit hash
    collisions), so the set kernels of :mod:`neardup.methods.measures` apply.

    Args:
        values: uint64 (m,) signature hashes; doc: int64 (m,) document of each; n: documents.
    """
    order = np.lexsort((values, doc))
    v, d = values[order], doc[order]
    rank = _rank_in_runs(v, d)
    with np.errstate(over="ignore"):
        items = fmix64(v ^ fmix64(rank.astype(U64) * _P + np.uint64(1)))
    return ShingleSets.from_unsorted(items, d, n)


def _rank_in_runs(v: np.ndarray, d: np.ndarray) -> np.ndarray:
    """0, 1, 2, ... within each run of equal ``(d, v)`` (arrays sorted by ``d`` then ``v``)."""
    if v.size == 0:
        return np.zeros(0, np.int64)
    new = np.ones(v.size, bool)
    new[1:] = (v[1:] != v[:-1]) | (d[1:] != d[:-1])
    starts = np.flatnonzero(new)
    run_start = starts[np.cumsum(new) - 1]
    return np.arange(v.size, dtype=np.int64) - run_start


def size_partitions(sizes: np.ndarray, threshold: float) -> np.ndarray:
    """Partition of each bag size: ``floor(log s / -log t)`` (``s`` itself when ``t = 1``)."""
    s = np.maximum(sizes, 1).astype(np.float64)
    if threshold >= 1.0:
        return sizes.astype(np.int64)
    return np.floor(np.log(s) / -math.log(threshold) + 1e-9).astype(np.int64)


@dataclass(frozen=True, eq=False)
class SpotBags:
    """Spot-signature bags of a batch.

    Attributes:
        values: uint64 (total,), each document's sorted signature hashes (repeats kept).
        offsets: int64 (count + 1,); document ``i`` is ``values[offsets[i]:offsets[i+1]]``.
        expanded: the bags as sets (:func:`expand_bag`) for vectorised intersections.
    """

    values: np.ndarray
    offsets: np.ndarray
    expanded: ShingleSets

    @property
    def sizes(self) -> np.ndarray:
        """int64 (count,): bag sizes ``|A|``."""
        return np.diff(self.offsets)

    def get(self, i: int) -> np.ndarray:
        """Document ``i``'s bag, sorted uint64 (a view)."""
        return self.values[self.offsets[i] : self.offsets[i + 1]]


@dataclass(frozen=True, kw_only=True)
class SpotSigs(MethodBase):
    """SpotSigs (Theobald et al. 2008): stop-word-anchored spot signatures, multiset Jaccard.

    Args:
        antecedents: antecedent words, a non-empty tuple of lower-case strings
            (default :data:`DEFAULT_ANTECEDENTS`).
        distance: spot distance ``d``, 1-16.
        chain: chain length ``c``, 1-16.
        seed: XXH64 seed of the signature hashes, ``0 <= seed < 2**32``.
        threshold: multiset Jaccard the corpus partitions and length bound are built for,
            (0, 1] (the job sets it from its own threshold).
        max_df: postings longer than this give star candidates only, >= 2.
        canonical: must keep stop words (``stop_words=False``, the default).

    Raises:
        ParameterError: a parameter is out of range (the message names it).
    """

    name: ClassVar[str] = "spotsigs"
    source: ClassVar[str] = (
        "Theobald, Siddharth & Paepcke 2008 (SIGIR), SpotSigs: antecedent + chain signatures, "
        "J = sum min / sum max, length partitions with |A|/|B| >= t"
    )
    capabilities: ClassVar[Capabilities] = Capabilities(keys="rows")
    layout: ClassVar[Layout] = "sets"
    decision_rule: ClassVar[DecisionRule] = SimilarityAtLeast(
        "multiset Jaccard of spot signatures >= threshold (Theobald et al. 2008)",
        label="SpotSigs Jaccard >= {bar}",
    )

    antecedents: tuple[str, ...] = DEFAULT_ANTECEDENTS
    distance: int = 1
    chain: int = 2
    seed: int = 0
    threshold: float = 0.5
    max_df: int = OPTIONS["max_df"].default
    canonical: CanonicalForm = field(default_factory=lambda: CanonicalForm(stop_words=False))

    parameter_constraints: ClassVar[dict[str, Constraint]] = {
        "antecedents": Words(),
        "distance": Interval("int", 1, 16),
        "chain": Interval("int", 1, 16),
        "seed": Interval("int", 0, 2**32 - 1),
        "threshold": Interval("float", 0.0, 1.0, low_open=True),
        "max_df": OPTIONS["max_df"].constraint,
    }

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "antecedents", tuple(self.antecedents))
        if self.canonical.stop_words:
            raise ParameterError("canonical", self.canonical, "a form with stop_words=False")

    def params(self) -> dict[str, Any]:
        """JSON-ready parameters (recorded in signatures)."""
        return {
            "antecedents": sorted(set(self.antecedents)),
            "distance": self.distance,
            "chain": self.chain,
            "seed": self.seed,
            "threshold": self.threshold,
        }

    def spots(self, tokens: Sequence[str]) -> list[str]:
        """Spot signature strings of one document's canonical tokens."""
        return spot_signatures(
            tokens, frozenset(self.antecedents), distance=self.distance, chain=self.chain
        )

    def bag(self, tokens: Sequence[str]) -> np.ndarray:
        """Sorted XXH64 hashes of :meth:`spots` (repeats kept): uint64 (|A|,)."""
        h, seed = xxhash.xxh64_intdigest, self.seed
        spots = self.spots(tokens)
        out = np.fromiter((h(s.encode("utf-8", "surrogatepass"), seed) for s in spots), U64)
        out.sort()
        return out

    def sign(self, docs: Sequence[Prepared]) -> Signatures:
        """Bags of a batch (from ``Prepared.tokens``): :class:`SpotBags`."""
        bags = [self.bag(d.tokens) for d in docs]
        sizes = np.fromiter((b.shape[0] for b in bags), np.int64, count=len(bags))
        offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        values = np.concatenate(bags).astype(U64) if bags else np.zeros(0, U64)
        doc = np.repeat(np.arange(len(bags), dtype=np.int64), sizes)
        data = SpotBags(values, offsets, expand_bag(values, doc, len(bags)))
        return Signatures(self.key(), data, len(docs))

    def candidates(self, sigs: Signatures) -> np.ndarray:
        """Pairs that may reach ``threshold``: int64 (p, 2), ``a < b``; none is missed.

        Partitions by bag size (same or adjacent partition only), the inverted index over
        each bag's rarest ``|A| - ceil(t |A|) + 1`` items (prefix filter on the expanded
        bags, exact for ``J >= t``), then the length bound ``min/max >= threshold``.
        """
        bags: SpotBags = sigs.data
        sizes = bags.sizes
        ranked = rank_by_frequency(bags.expanded)
        plen = prefix_lengths(sizes, self.threshold)
        items = ranked.values[seg_arange(ranked.offsets[:-1], plen)]
        doc = np.repeat(np.arange(sigs.count, dtype=np.int64), plen)
        home = size_partitions(sizes, self.threshold)[doc]
        keys = np.concatenate([_key(items, home), _key(items, home - 1)])  # own, one below
        docs = np.concatenate([doc, doc])
        order = np.lexsort((docs, keys))
        keys, docs = keys[order], docs[order]
        starts, counts = group_bounds(keys)
        pairs = pairs_in_groups(docs, starts, counts, max_group=self.max_df)
        pairs = unique_pairs(pairs, sigs.count)
        lo = np.minimum(sizes[pairs[:, 0]], sizes[pairs[:, 1]])
        hi = np.maximum(sizes[pairs[:, 0]], sizes[pairs[:, 1]])
        return pairs[lo >= self.threshold * hi - 1e-9]

    def keys(self, sigs: Signatures) -> KeyRows:
        """Index keys of each document on its own (a collection's ``nd_index`` rows): the
        size partitions and prefix filter of :meth:`candidates` with a fixed item order.

        A bag's expanded items (:func:`expand_bag`) are taken in hash order (any global
        order keeps prefix filtering exact, Bayardo et al. 2007; the corpus frequency order
        of :meth:`candidates` needs the whole corpus), its first ``|A| - ceil(t |A|) + 1``
        items each keyed in its own size partition and the one below (band 0 and 1), so
        two documents with ``J >= threshold`` always share a key (Theobald et al. 2008
        §5: partners lie in the same or the adjacent partition). Empty bags have no key.

        Returns:
            :class:`~neardup.methods.keys.KeyRows`, document then band order, no repeats.
        """
        bags: SpotBags = sigs.data
        expanded = bags.expanded
        sizes = expanded.sizes
        plen = prefix_lengths(sizes, self.threshold)
        items = expanded.values[seg_arange(expanded.offsets[:-1], plen)]
        doc = np.repeat(np.arange(sigs.count, dtype=np.int64), plen)
        home = size_partitions(sizes, self.threshold)[doc]
        keys = np.stack([_key(items, home), _key(items, home - 1)], axis=1)
        rows = np.repeat(doc, 2)
        bands = np.tile(np.array([0, 1], np.int64), doc.shape[0])
        return KeyRows(rows, bands, keys.reshape(-1).view(np.int64))

    def similarity(self, sigs: Signatures, pairs: np.ndarray) -> np.ndarray:
        """Multiset Jaccard of each pair: float64 (p,)."""
        bags: SpotBags = sigs.data
        m = intersection_sizes(bags.expanded, pairs).astype(np.float64)
        union = bags.sizes[pairs[:, 0]] + bags.sizes[pairs[:, 1]] - m
        return np.divide(m, union, out=np.zeros(m.shape, np.float64), where=union > 0)

    def compare(self, a: Signature, b: Signature) -> float:
        """Multiset Jaccard of two signatures, in [0, 1] (the pair's :meth:`similarity`,
        without expanding the bags).

        Raises:
            IncompatibleSignatureError: the signatures were made differently.
        """
        a.key.require_same(b.key)
        return multiset_jaccard(a.payload, b.payload)


def _key(values: np.ndarray, part: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return fmix64(values ^ fmix64(part.astype(np.int64).view(U64) * _P + np.uint64(7)))


register(SpotSigs)
