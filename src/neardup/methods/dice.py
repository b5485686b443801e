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

Difference from the paper: the script counts list elements with repeats (a shingle
occurring twice in text 1 is counted twice); here the sets are compared, which gives the
same value whenever neither text repeats a 10-word shingle (:func:`~neardup.methods.measures.
compaire` and :func:`~neardup.methods.measures.dice_multiset` give the list forms, shown by
``neardup compare``). Candidates come from prefix filtering at the equivalent resemblance
``J = t / (2 - t)`` (for sets, ``Dice >= t`` exactly when ``J >= t / (2 - t)``), so no pair
at or above the threshold is missed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from neardup.methods.base import Signatures
from neardup.methods.decision import DecisionRule, SimilarityAtLeast
from neardup.methods.measures import intersection_sizes
from neardup.methods.prefix import prefix_candidates, rank_by_frequency
from neardup.methods.registry import register
from neardup.methods.sets import ShingleSets
from neardup.methods.shingle_methods import ShingleMethod


def dice(shared: np.ndarray, size_a: np.ndarray, size_b: np.ndarray) -> np.ndarray:
    """Dice ``2 s / (a + b)`` elementwise (0 where both are empty): float64 of the shape."""
    shared = np.asarray(shared, dtype=float)
    total = np.asarray(size_a, dtype=float) + np.asarray(size_b, dtype=float)
    return np.divide(2 * shared, total, out=np.zeros(shared.shape, float), where=total > 0)


def resemblance_bound(threshold: float) -> float:
    """The resemblance ``t / (2 - t)`` equivalent to Dice ``t`` on sets, in (0, 1]."""
    return threshold / (2.0 - threshold)


@dataclass(frozen=True, kw_only=True)
class ShinglesDice(ShingleMethod):
    """Rodnenko's (2009) percent similarity: Dice of the shingle sets ``>= threshold``.

    Args:
        threshold: the Dice coefficient a duplicate needs, (0, 1] (Rodnenko 2009 prints it
            in percent: 0.5 is 50 %).
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

    def _reduce(self, sets: ShingleSets) -> ShingleSets:
        """The full sets, as another object over the same arrays (no copy): the dedup job
        takes signatures that *are* its sets for resemblance-scored ones (``shingles-full``)
        and would decide on resemblance instead of Dice."""
        return ShingleSets(sets.values, sets.offsets)

    def candidates(self, sigs: Signatures) -> np.ndarray:
        """Every pair whose Dice may reach ``threshold``: prefix filtering at the
        equivalent resemblance ``t / (2 - t)``; int64 (p, 2)."""
        ranked = rank_by_frequency(sigs.data)
        bound = resemblance_bound(self.threshold)
        return prefix_candidates(ranked, bound, max_group=self.max_df)

    def similarity(self, sigs: Signatures, pairs: np.ndarray) -> np.ndarray:
        """Dice of each pair's shingle sets: float64 (p,)."""
        sets: ShingleSets = sigs.data
        if pairs.size == 0:
            return np.zeros(0)
        shared = intersection_sizes(sets, pairs)
        return dice(shared, sets.sizes[pairs[:, 0]], sets.sizes[pairs[:, 1]])


register(ShinglesDice)
