"""Rodnenko's (2009) percent similarity as a decision: ``shingles-dice``.

Rodnenko 2009 ("Алгоритм Шинглов — поиск нечетких дубликатов текста") compares two texts
by ``compaire``: the shingle checksums of text 1 found in text 2, times 2, over the sizes of
both lists, times 100 ("процент схожести двух текстов")::

    similarity = 2 · |{x in A : x in B}| / (|A| + |B|)          (Dice)

``shingles-dice`` decides on that value, as a fraction: a pair is a duplicate when its
Dice coefficient of the shingle sets is ``>= threshold`` (``--threshold 0.5`` is the
paper's 50 %). With ``--preset rodnenko-2009`` it runs on the paper's canonical form and
10-word CRC-32 shingles (:mod:`neardup.methods.presets`), so ``dedup``, collections and
``evaluate`` decide as the article's script does.

Sets or lists (``counting``): the script counts list elements with repeats (a shingle
occurring twice in text 1 is counted twice). ``counting="sets"`` (the default) compares the
shingle sets, which gives the script's value whenever neither text repeats a shingle;
``counting="lists"`` (``--param counting=lists``) is the script's ``compaire`` itself
(:func:`~neardup.methods.measures.compaire`)::

    compaire(A, B) = 2 · #{occurrences of A whose shingle occurs in B} / (len A + len B)

with A the pair's first document (the earlier in input order; in ``compare``, A). It is
not symmetric and exceeds 1 when A repeats a shingle B has fewer times (``[x, x]`` against
``[x]``: 4/3), as the script's percentages exceed 100. The two differ only when shingles
repeat: the Belinsky sentence twice against once gives 8/17 on sets and 16/21 on lists.

Candidates: on sets, prefix filtering at the equivalent resemblance ``J = t / (2 - t)``
(for sets, ``Dice >= t`` exactly when ``J >= t / (2 - t)``); on lists, every pair sharing a
shingle (``compaire > 0`` needs one). Either way no pair at or above the threshold is
missed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

import numpy as np

from neardup._array import U64
from neardup.methods.base import Capabilities, Prepared, Signatures
from neardup.methods.decision import DecisionRule, SimilarityAtLeast
from neardup.methods.measures import intersection_sizes
from neardup.methods.postings import posting_candidates
from neardup.methods.prefix import prefix_candidates, rank_by_frequency
from neardup.methods.registry import register
from neardup.methods.sets import ShingleSets
from neardup.methods.shingle_methods import ShingleMethod
from neardup.params import Constraint, Options


def dice(shared: np.ndarray, size_a: np.ndarray, size_b: np.ndarray) -> np.ndarray:
    """Dice ``2 s / (a + b)`` elementwise (0 where both are empty): float64 of the shape."""
    shared = np.asarray(shared, dtype=float)
    total = np.asarray(size_a, dtype=float) + np.asarray(size_b, dtype=float)
    return np.divide(2 * shared, total, out=np.zeros(shared.shape, float), where=total > 0)


#: ``counting``: Dice of the shingle sets, or Rodnenko's (2009) ``compaire`` of the lists.
COUNTINGS: tuple[str, ...] = ("sets", "lists")
#: The 32-bit fingerprints, which ``counting="lists"`` keeps whole; of a 64-bit one it
#: keeps the high 32 bits, so that an occurrence's rank among its shingle's repeats fits the
#: high 32 bits of the stored value (stored collections verify on those bits too).
FINGERPRINTS_32: tuple[str, ...] = ("crc32", "rabin32")
_LOW = np.uint64(0xFFFFFFFF)
#: ``counting="lists"`` signs from each document's tokens (the sets have lost the repeats).
_LIST_CAPABILITIES = Capabilities(keys="rows")


def occurrence_set(fingerprints: np.ndarray) -> np.ndarray:
    """A list of 32-bit fingerprints (repeats kept) as a set that keeps the repeats: the
    ``k``-th repeat of ``x`` (``k = 0, 1, ...``) becomes ``k · 2**32 + x``.

    Args:
        fingerprints: uint64 (s,), every value < 2**32, any order.

    Returns:
        uint64 (s,), sorted and unique: the values ``< 2**32`` are the list's distinct
        shingles, the low 32 bits of all of them the list itself (in sorted order).
    """
    values = np.sort(np.asarray(fingerprints, dtype=U64))
    if values.size == 0:
        return values
    starts = np.flatnonzero(np.r_[True, values[1:] != values[:-1]])
    rank = np.arange(values.size) - np.repeat(starts, np.diff(np.r_[starts, values.size]))
    return np.sort(values | (rank.astype(U64) << np.uint64(32)))


def compaire_of_sets(a: np.ndarray, b: np.ndarray) -> float:
    """Rodnenko's (2009) ``compaire`` of two :func:`occurrence_set` s: every occurrence of
    A whose shingle occurs in B, times 2, over ``len A + len B`` (0 for two empty lists);
    equal to :func:`~neardup.methods.measures.compaire` of the lists."""
    total = a.shape[0] + b.shape[0]
    if total == 0:
        return 0.0
    distinct_b = b[b <= _LOW]
    return float(2 * np.isin(a & _LOW, distinct_b).sum() / total)


def resemblance_bound(threshold: float) -> float:
    """The resemblance ``t / (2 - t)`` equivalent to Dice ``t`` on sets, in (0, 1]."""
    return threshold / (2.0 - threshold)


@dataclass(frozen=True, kw_only=True)
class ShinglesDice(ShingleMethod):
    """Rodnenko's (2009) percent similarity: Dice of the shingle sets ``>= threshold``.

    Args:
        threshold: the Dice coefficient a duplicate needs, (0, 1] (Rodnenko 2009 prints it
            in percent: 0.5 is 50 %).
        counting: ``sets`` (Dice of the shingle sets, default) or ``lists`` (the
            script's ``compaire`` over the lists with repeats, A the pair's first document;
            a 64-bit ``fingerprint`` is compared on its high 32 bits, as stored collections
            verify: a collision among a pair's shingles moves the value by one occurrence).
        shingle_size, step, unit, fingerprint, seed, canonical, max_df: as for
            ``shingles-full``; ``--preset rodnenko-2009`` sets the paper's (10 words,
            CRC-32, its stop words and stop symbols).

    Raises:
        ParameterError: a parameter is out of range (the message names it).
    """

    name: ClassVar[str] = "shingles-dice"
    source: ClassVar[str] = (
        "Rodnenko 2009: compaire, 2·same/(len1 + len2)·100 %, the percent similarity of the "
        "shingle checksums (Dice)"
    )
    decision_rule: ClassVar[DecisionRule] = SimilarityAtLeast(
        "Dice of the shingle sets (Rodnenko 2009's percent similarity) >= threshold",
        "own",
        ("resemblance",),
    )
    counting: Literal["sets", "lists"] = "sets"

    parameter_constraints: ClassVar[dict[str, Constraint]] = {
        **ShingleMethod.parameter_constraints,
        "counting": Options(COUNTINGS),
    }

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.counting == "lists":
            # the lists are signed from tokens: this instance's capabilities say so (the
            # class declares the sets' ones, which the registry lists)
            object.__setattr__(self, "capabilities", _LIST_CAPABILITIES)

    def _extra_params(self) -> dict[str, Any]:
        # recorded only for lists, so keys made before the option existed stay equal
        return {"counting": self.counting} if self.counting == "lists" else {}

    def sign(self, docs: Sequence[Prepared]) -> Signatures:
        """Signatures of a batch; with ``counting="lists"`` each document's
        :func:`occurrence_set` (its shingle list, repeats kept)."""
        if self.counting == "sets":
            return super().sign(docs)
        shingling = self.shingling
        shift = np.uint64(0 if self.fingerprint in FINGERPRINTS_32 else 32)
        sets = ShingleSets.from_arrays(
            [occurrence_set(shingling.occurrences(d.tokens)[0] >> shift) for d in docs]
        )
        return Signatures(self.key(), sets, len(sets))

    def _reduce(self, sets: ShingleSets) -> ShingleSets:
        """The full sets, as another object over the same arrays (no copy): the dedup job
        takes signatures that *are* its sets for resemblance-scored ones (``shingles-full``)
        and would decide on resemblance instead of Dice."""
        return ShingleSets(sets.values, sets.offsets)

    def candidates(self, sigs: Signatures) -> np.ndarray:
        """Every pair whose Dice may reach ``threshold``: prefix filtering at the
        equivalent resemblance ``t / (2 - t)``; with ``counting="lists"`` every pair
        sharing a shingle; int64 (p, 2)."""
        if self.counting == "lists":
            sets: ShingleSets = sigs.data
            distinct = [s[s <= _LOW] for s in sets]
            return posting_candidates(ShingleSets.from_arrays(distinct), max_df=self.max_df)
        ranked = rank_by_frequency(sigs.data)
        bound = resemblance_bound(self.threshold)
        return prefix_candidates(ranked, bound, max_group=self.max_df)

    def similarity(self, sigs: Signatures, pairs: np.ndarray) -> np.ndarray:
        """Dice of each pair's shingle sets, or with ``counting="lists"`` the script's
        ``compaire(A, B)`` of each pair ``(A, B)``: float64 (p,)."""
        sets: ShingleSets = sigs.data
        if pairs.size == 0:
            return np.zeros(0)
        if self.counting == "lists":
            return np.array([compaire_of_sets(sets.get(a), sets.get(b)) for a, b in pairs])
        shared = intersection_sizes(sets, pairs)
        return dice(shared, sets.sizes[pairs[:, 0]], sets.sizes[pairs[:, 1]])


register(ShinglesDice)
