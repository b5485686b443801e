"""TF-RIDF signatures (Romanov 2019 §3.2, §3.3 and §4.4, after Church & Gale's residual IDF).

Romanov 2019: words are stemmed, stop words and words shorter than three characters removed
(default canonical form: ``CanonicalForm(stop_words=True, morphology="stem",
min_token_length=3)``, and ``min_length`` is applied again to the stems). For each word of a
document, with ``N`` documents in the collection, ``df`` documents containing the word and
``cf`` occurrences of it in the collection::

    TF    = 0.5 + 0.5 · tf / tf_max        (tf / tf_max = count / largest count in the doc)
    IDF   = -log(df / N)
    PIDF  = -log(1 - exp(-cf / N))
    RIDF  = IDF - PIDF
    w     = TF · RIDF

"Из документа выбираются 6 слов с наибольшими значениями TF-RIDF; слова сортируются по
алфавиту в порядке возрастания; склеиваются в одну строку" (§4.4): the signature is
CRC-32 (zlib) of the ``top`` words of largest weight, sorted in code-point order and
concatenated **without a separator** (the seed names none), UTF-8 encoded.

Details the seed leaves open, fixed here:

* ties: weights are rounded to 12 decimals, then ordered by weight descending and word
  ascending (code points), so the choice is deterministic;
* a word the statistics have not seen (a new document checked against a collection) is
  counted as if that document were in it: ``df = max(df, 1)``, ``cf = max(cf, count)``;
* a document with fewer than ``top`` eligible words uses all of them; one with none gets
  signature 0, which matches nothing (CRC-32 of the empty string is 0; a real 0 CRC has
  probability 2**-32 and is then treated the same way).

Statistics are held by reference: :meth:`TFRIDF.fit` on a
:class:`~neardup.methods.corpus_stats.CorpusStatistics` that later grows with ``add`` makes the
next :meth:`TFRIDF.sign` use the updated statistics (Romanov's (2019) recomputation after
indexing). The signature key records a fingerprint of the statistics at signing time, so
signatures made against different statistics refuse comparison.
"""

from __future__ import annotations

import zlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from neardup._array import U64
from neardup.methods.base import (
    Capabilities,
    CorpusStats,
    Prepared,
    SignatureKey,
    Signatures,
    TermBags,
)
from neardup.methods.decision import DecisionRule, EqualSignature
from neardup.methods.imatch import (
    SingleKeyMethod,
    require_fitted,
    short_hash,
    vocabulary,
)
from neardup.methods.keys import GroupKeys
from neardup.methods.registry import register
from neardup.params import Constraint, Interval
from neardup.text.canonical import CanonicalForm


def _stemmed() -> CanonicalForm:
    return CanonicalForm(stop_words=True, morphology="stem", min_token_length=3)


def ridf(df: np.ndarray, cf: np.ndarray, n: int) -> np.ndarray:
    """Residual IDF (Romanov 2019 §3.2): ``-log(df/N) + log(1 - exp(-cf/N))``, float64.

    Args:
        df, cf: document and collection frequencies, arrays of one shape, ``1 <= df <= cf``.
        n: number of documents ``N >= 1``.
    """
    df = np.asarray(df, dtype=float)
    cf = np.asarray(cf, dtype=float)
    idf = -np.log(df / n)
    pidf = -np.log(-np.expm1(-cf / n))
    return idf - pidf


def top_words(counts: dict[str, int], weights: dict[str, float], top: int) -> list[str]:
    """The ``top`` words of largest ``TF · RIDF`` (ties: word order), sorted alphabetically.

    Args:
        counts: word -> count in the document (all > 0).
        weights: word -> RIDF.
        top: how many words to keep.
    """
    if not counts:
        return []
    cmax = max(counts.values())
    scored = [(-round((0.5 + 0.5 * c / cmax) * weights[t], 12), t) for t, c in counts.items()]
    return sorted(t for _, t in sorted(scored)[:top])


#: Absolute margin around the ``top``-th weight of a document inside which the 12-decimal
#: rounding of :func:`top_words` can reorder words (|round(w, 12) - w| <= 5e-13).
_TIE_MARGIN = 2e-12


def crc_signature(words: Sequence[str]) -> int:
    """CRC-32 of the words concatenated without separator (Romanov 2019 §4.4), UTF-8."""
    return zlib.crc32("".join(words).encode("utf-8", "surrogatepass")) & 0xFFFFFFFF


@dataclass(kw_only=True)
class TFRIDF(SingleKeyMethod):
    """TF-RIDF signature (Romanov 2019): CRC-32 of the 6 words of largest TF·RIDF, sorted.

    Needs :meth:`fit` (collection statistics, held by reference). Signature payload:
    uint32 (1,); 0 = no signature, matches nothing. Duplicates: equal non-zero signatures.

    Args:
        top: words in the signature, 1-1000 (Romanov 2019: 6).
        min_length: shortest word kept (after stemming), 1-100 (Romanov 2019: 3).
        canonical: the canonical form (default: stop words out, Snowball stems, >= 3 chars).

    Raises:
        ParameterError: a parameter is out of range (the message names it).
    """

    name: ClassVar[str] = "tf-ridf"
    source: ClassVar[str] = (
        "Romanov 2019 §3.2/§4.4: w = (0.5 + 0.5·tf/tf_max)·(IDF - PIDF), IDF = -log(df/N), "
        "PIDF = -log(1 - exp(-cf/N)); CRC32 of the top 6 words sorted and concatenated"
    )
    capabilities: ClassVar[Capabilities] = Capabilities(
        needs_fit=True, exact_key=True, keys="groups"
    )
    decision_rule: ClassVar[DecisionRule] = EqualSignature(
        "equal TF-RIDF signature: CRC-32 of the top 6 words (Romanov 2019, §4.4)",
        label="TF-RIDF equal signature",
    )

    top: int = 6
    min_length: int = 3
    canonical: CanonicalForm = field(default_factory=_stemmed)
    _stats: CorpusStats | None = field(init=False, repr=False, compare=False, default=None)

    parameter_constraints: ClassVar[dict[str, Constraint]] = {
        "top": Interval("int", 1, 1000),
        "min_length": Interval("int", 1, 100),
    }

    def fit(self, stats: CorpusStats) -> None:
        """Use ``stats`` (by reference: later ``add`` calls are seen by :meth:`sign`).

        Raises:
            UsageError: the statistics cannot list their terms.
        """
        vocabulary(stats)  # fail early if the terms cannot be listed
        self._stats = stats

    def _fingerprint(self) -> str | None:
        stats = self._stats
        if stats is None:
            return None
        rows = (f"{t}\t{stats.df(t)}\t{stats.cf(t)}" for t in vocabulary(stats))
        return short_hash([str(stats.num_docs), *rows])

    def params(self) -> dict[str, Any]:
        """JSON-ready parameters with a fingerprint of the current statistics (or None)."""
        return {"top": self.top, "min_length": self.min_length, "stats": self._fingerprint()}

    def key(self) -> SignatureKey:
        """The :class:`SignatureKey` of signatures made now (current statistics included)."""
        return SignatureKey.make(self.name, self.params(), self.canonical.params())

    def words(self, tokens: Sequence[str]) -> list[str]:
        """The signature words of one document (sorted), from the current statistics.

        Raises:
            UsageError: :meth:`fit` has not run.
        """
        return self._words(tokens, self._weights([tokens]))

    def _weights(self, token_lists: Sequence[Sequence[str]]) -> dict[str, float]:
        """RIDF of every eligible word of a batch (unseen words: df = 1, cf = max count)."""
        require_fitted(self._stats, self.name)
        stats = self._stats
        assert stats is not None
        n = stats.num_docs
        most: Counter[str] = Counter()
        for tokens in token_lists:
            for t, c in Counter(self._eligible(tokens)).items():
                most[t] = max(most[t], c)
        words = list(most)
        df = np.array([max(stats.df(t), 1) for t in words], dtype=float)
        cf = np.array([max(stats.cf(t), most[t]) for t in words], dtype=float)
        return dict(zip(words, ridf(df, cf, max(n, 1)).tolist(), strict=True))

    def _eligible(self, tokens: Sequence[str]) -> list[str]:
        k = self.min_length
        return [t for t in tokens if len(t) >= k]

    def _words(self, tokens: Sequence[str], weights: dict[str, float]) -> list[str]:
        return top_words(Counter(self._eligible(tokens)), weights, self.top)

    def sign(self, docs: Sequence[Prepared]) -> Signatures:
        """Signatures of a batch: data uint32 (n,), 0 = no signature (:meth:`sign_counts`
        of the documents' token counts).

        Raises:
            UsageError: :meth:`fit` has not run.
        """
        return self.sign_counts(TermBags.from_token_lists([d.tokens for d in docs]))

    def sign_counts(self, bags: TermBags) -> Signatures:
        """Signatures of documents given as bags of words: data uint32 (n,), 0 = no
        signature; vectorised, the words of :func:`top_words` (unseen words: df = 1,
        cf = the largest count in the batch).

        Raises:
            UsageError: :meth:`fit` has not run.
        """
        require_fitted(self._stats, self.name)
        stats = self._stats
        assert stats is not None
        return Signatures(self.key(), _signatures(self, stats, bags), bags.count)

    def keys(self, sigs: Signatures) -> GroupKeys:
        """One slot, key = the CRC signature uint32 (n,) (non-zero ones), salted by slot
        number in a collection's rows (equal to :func:`~neardup.methods.keys.slot_keys` of
        the signature payloads)."""
        data = sigs.data
        n = data.shape[0]
        return GroupKeys(data.astype(U64).reshape(n, 1), (data != 0).reshape(n, 1), salted=True)


def _signatures(meth: TFRIDF, stats: CorpusStats, counts: TermBags) -> np.ndarray:
    """TF-RIDF signatures of every document of ``counts``: uint32 (n,).

    Weights ``(0.5 + 0.5 · count / max count) · RIDF`` in float64, the ``top`` words of
    largest weight chosen per document with numpy; only where the 12-decimal rounding of
    :func:`top_words` could change the choice (weights within ``2e-12`` of the ``top``-th
    one) is the order decided in Python, as ``top_words`` does (rounded weight descending,
    then word), so the words are those of :func:`top_words`. Then CRC-32 of the chosen
    words sorted and concatenated (0: no eligible word).
    """
    n = counts.count
    data = np.zeros(n, dtype=np.uint32)
    names = counts.names
    if not names or counts.row_term.size == 0:
        return data
    lengths = np.fromiter((len(t) for t in names), dtype=np.int64, count=len(names))
    keep = counts.row_term >= 0
    keep[keep] = lengths[counts.row_term[keep]] >= meth.min_length
    d = counts.row_doc[keep]
    t = counts.row_term[keep]
    c = counts.row_count[keep]
    if d.size == 0:
        return data
    used = np.flatnonzero(np.bincount(t, minlength=len(names)))
    df = np.array([max(stats.df(names[i]), 1) for i in used.tolist()], dtype=float)
    cf = np.array([max(stats.cf(names[i]), 1) for i in used.tolist()], dtype=float)
    most = np.zeros(len(names), dtype=np.int64)
    np.maximum.at(most, t, c)
    cf = np.maximum(cf, most[used].astype(float))
    weight_of = np.zeros(len(names), dtype=float)
    weight_of[used] = ridf(df, cf, max(stats.num_docs, 1))
    # groups: rows are grouped by document (non-decreasing d)
    new = np.empty(d.size, dtype=bool)
    new[0] = True
    np.not_equal(d[1:], d[:-1], out=new[1:])
    starts = np.flatnonzero(new)
    sizes = np.diff(np.append(starts, d.size))
    group = np.cumsum(new) - 1
    cmax = np.maximum.reduceat(c, starts)
    w = (0.5 + 0.5 * c / cmax[group]) * weight_of[t]
    need = np.minimum(sizes, meth.top)
    cand = w >= _kth_largest(w, group, starts, need)[group] - _TIE_MARGIN
    t, w = t[cand], w[cand]
    n_cand = np.bincount(group[cand], minlength=starts.size)
    exact = n_cand == need
    cw, ct = w.tolist(), t.tolist()
    bounds = np.append(0, np.cumsum(n_cand)).tolist()
    docs = d[starts].tolist()
    top = meth.top
    for g, doc in enumerate(docs):
        a, b = bounds[g], bounds[g + 1]
        if exact[g]:
            words = sorted(names[i] for i in ct[a:b])
        else:  # near-ties: top_words' rule on the candidates (rounded weight, then word)
            scored = sorted((-round(cw[j], 12), names[ct[j]]) for j in range(a, b))
            words = sorted(word for _, word in scored[:top])
        data[doc] = crc_signature(words) if words else 0
    return data


def _kth_largest(
    w: np.ndarray, group: np.ndarray, starts: np.ndarray, need: np.ndarray
) -> np.ndarray:
    """Per group (contiguous rows), the ``need[g]``-th largest value of ``w`` (ties counted)."""
    if int(need.max()) > 16:  # many words: sort
        order = np.lexsort((-w, group))
        return w[order][starts + need - 1]
    kth = np.full(starts.size, -np.inf)
    taken = np.zeros(starts.size, dtype=np.int64)
    done = np.zeros(starts.size, dtype=bool)
    rest = w.copy()
    for _ in range(int(need.max())):
        top = np.maximum.reduceat(rest, starts)
        hit = rest == top[group]
        taken += np.bincount(group[hit], minlength=starts.size)
        now = ~done & (taken >= need)
        kth[now] = top[now]
        done |= now
        if done.all():
            break
        rest[hit] = -np.inf
    return kth


register(TFRIDF)
