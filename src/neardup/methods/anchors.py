"""The anchor-words method ("метод опорных слов": Ilyinsky, Kuzmin, Melkov & Segalovich 2002,
"An efficient method to detect duplicates of Web documents with the use of inverted index",
WWW 2002 poster; Zagorulko et al. 2013 cites it as [1]).

The poster's exact selection rules could not be retrieved; this module follows the method
as later summarised in the Russian literature (an anchor dictionary chosen from the index
by collection statistics; a document is described by which anchors it contains with an
in-document frequency above a threshold; documents are duplicates when these descriptions
are equal). The concrete rule below is **our interpretation**:

1. Anchor dictionary (``fit``): terms ``t`` with ``min_df_share <= df(t)/N <= max_df_share`` and
   ``df(t) >= 2``; of these the ``max_anchors`` with the largest ``df`` (the anchors should
   cover as many documents as possible with as few words as possible), ties broken by the
   term in code-point order.
2. Document description: the anchors whose relative frequency ``count(t) / |tokens|`` is at
   least ``min_rel_freq``; of these the ``top`` most frequent (ties: term order).
3. Signature: the first 8 bytes (little-endian) of SHA-1 of the chosen anchors sorted and
   joined by one space, as uint64; a document with fewer than ``min_anchors`` chosen
   anchors gets 0, which matches nothing (a digest prefix of 0 is replaced by 1).
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from neardup.errors import ParameterError, UsageError
from neardup.methods.base import Capabilities, CorpusStats, Prepared, SignatureKey, Signatures
from neardup.methods.decision import DecisionRule, EqualSignature
from neardup.methods.imatch import (
    SingleKeyMethod,
    require_fitted,
    short_hash,
    vocabulary,
)
from neardup.methods.keys import KeyRows
from neardup.methods.registry import register
from neardup.params import Constraint, Interval
from neardup.text.canonical import CanonicalForm


def anchor_hash(anchors: Sequence[str]) -> int:
    """uint64 signature of a sorted anchor list: SHA-1 prefix, never 0 (0 = no signature)."""
    d = hashlib.sha1(" ".join(anchors).encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(d[:8], "little") or 1


@dataclass(kw_only=True)
class AnchorWords(SingleKeyMethod):
    """Anchor words (Ilyinsky et al. 2002, interpreted; see the module docstring): a SHA-1
    signature of which mid-frequency anchor words a document uses often.

    Needs :meth:`fit` (the anchor dictionary). Signature payload: uint64 (1,); 0 means no
    signature and matches nothing. Duplicates: equal non-zero signatures.

    Args:
        min_df_share: smallest share of documents an anchor occurs in, in [0, 1] (a share,
            where ``max_df`` elsewhere counts documents: :data:`neardup.options.OPTIONS`).
        max_df_share: largest share, in [min_df_share, 1].
        max_anchors: size limit of the dictionary, >= 1.
        min_rel_freq: relative in-document frequency an anchor needs, in [0, 1].
        top: most frequent qualifying anchors that form the signature, >= 1.
        min_anchors: anchors a document needs to get a signature, 1 <= min_anchors <= top.
        canonical: the canonical form tokens are made with.

    Raises:
        ParameterError: a parameter is out of range (the message names it).
    """

    name: ClassVar[str] = "anchor-words"
    source: ClassVar[str] = (
        "Ilyinsky, Kuzmin, Melkov & Segalovich 2002 (anchor words from the inverted index; "
        "rule interpreted, see neardup.methods.anchors); Zagorulko et al. 2013 [1]"
    )
    capabilities: ClassVar[Capabilities] = Capabilities(needs_fit=True, exact_key=True, keys="rows")
    decision_rule: ClassVar[DecisionRule] = EqualSignature(
        "equal anchor-word signature (Ilyinsky et al. 2002, interpreted)",
        label="anchor-word equal signature",
    )

    min_df_share: float = 0.005
    max_df_share: float = 0.2
    max_anchors: int = 5000
    min_rel_freq: float = 0.002
    top: int = 10
    min_anchors: int = 3
    canonical: CanonicalForm = field(default_factory=CanonicalForm)
    _anchors: frozenset[str] | None = field(init=False, repr=False, compare=False, default=None)
    _anchors_id: str | None = field(init=False, repr=False, compare=False, default=None)

    parameter_constraints: ClassVar[dict[str, Constraint]] = {
        "min_df_share": Interval("float", 0.0, 1.0),
        "max_df_share": Interval("float", 0.0, 1.0),
        "max_anchors": Interval("int", 1),
        "min_rel_freq": Interval("float", 0.0, 1.0),
        "top": Interval("int", 1, 10_000),
        "min_anchors": Interval("int", 1, "top"),
    }

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.max_df_share < self.min_df_share:
            allowed = f">= min_df_share={self.min_df_share}"
            raise ParameterError("max_df_share", self.max_df_share, allowed)

    @property
    def anchors(self) -> frozenset[str]:
        """The fitted anchor dictionary.

        Raises:
            UsageError: :meth:`fit` has not run.
        """
        require_fitted(self._anchors, self.name)
        assert self._anchors is not None
        return self._anchors

    def fit(self, stats: CorpusStats) -> None:
        """Choose the anchor dictionary (rule 1 of the module docstring).

        Raises:
            UsageError: no documents counted, or the statistics cannot list their terms.
        """
        n = stats.num_docs
        if n < 1:
            raise UsageError(f"{self.name}: fit needs statistics of >= 1 document")
        terms = vocabulary(stats)
        df = np.array([stats.df(t) for t in terms], dtype=np.int64)
        share = df / n
        ok = (share >= self.min_df_share) & (share <= self.max_df_share) & (df >= 2)
        idx = np.flatnonzero(ok)
        # largest df first; np.lexsort is stable and terms are sorted, so ties keep term order
        order = idx[np.lexsort((idx, -df[idx]))][: self.max_anchors]
        chosen = sorted(terms[i] for i in order.tolist())
        self._anchors = frozenset(chosen)
        self._anchors_id = short_hash(chosen)

    def params(self) -> dict[str, Any]:
        """JSON-ready parameters with the fitted dictionary's size and fingerprint (or None)."""
        return {
            "min_df_share": self.min_df_share,
            "max_df_share": self.max_df_share,
            "max_anchors": self.max_anchors,
            "min_rel_freq": self.min_rel_freq,
            "top": self.top,
            "min_anchors": self.min_anchors,
            "anchors": self._anchors_id,
            "anchors_size": None if self._anchors is None else len(self._anchors),
        }

    def lexicon_warning(self, num_docs: int) -> str | None:
        """A warning when the fitted dictionary has fewer than ``min_anchors`` words (no
        document can get a signature), with the collection size the rule needs; else None.

        An anchor needs ``df >= 2`` and ``df / N <= max_df_share``, so
        ``N >= ceil(2 / max_df_share)``.
        """
        size = 0 if self._anchors is None else len(self._anchors)
        if size >= self.min_anchors:
            return None
        need = math.ceil(2 / self.max_df_share) if self.max_df_share > 0 else None
        where = f"at least {need} documents" if need else "max_df_share > 0"
        return (
            f"{self.name}: the anchor dictionary has {size} words (< min_anchors="
            f"{self.min_anchors}) on {num_docs} documents, so no document gets a signature; "
            f"anchors need df >= 2 and df/N <= max_df_share={self.max_df_share}: {where} "
            "(or raise max_df_share); identical documents are still paired"
        )

    def key(self) -> SignatureKey:
        """The :class:`SignatureKey` of signatures this method makes (fitted state included)."""
        return SignatureKey.make(self.name, self.params(), self.canonical.params())

    def chosen_anchors(self, tokens: Sequence[str]) -> list[str]:
        """Rule 2: the anchors that describe a document, sorted.

        Raises:
            UsageError: :meth:`fit` has not run.
        """
        anchors = self.anchors
        if not tokens:
            return []
        counts = Counter(t for t in tokens if t in anchors)
        need = self.min_rel_freq * len(tokens)
        ok = [(-c, t) for t, c in counts.items() if c >= need]
        return sorted(t for _, t in sorted(ok)[: self.top])

    def sign(self, docs: Sequence[Prepared]) -> Signatures:
        """Signatures of a batch: data uint64 (n,), 0 = no signature.

        Raises:
            UsageError: :meth:`fit` has not run.
        """
        require_fitted(self._anchors, self.name)
        data = np.zeros(len(docs), dtype=np.uint64)
        for i, doc in enumerate(docs):
            chosen = self.chosen_anchors(doc.tokens)
            if len(chosen) >= self.min_anchors:
                data[i] = anchor_hash(chosen)
        return Signatures(self.key(), data, len(docs))

    def keys(self, sigs: Signatures) -> KeyRows:
        """Index keys: the non-zero signatures, one slot
        (:meth:`~neardup.methods.base.MethodBase.payload_keys`)."""
        return self.payload_keys(sigs)


register(AnchorWords)
