"""Bootstrap confidence intervals for pair precision, recall and F1 (percentile method).

Precision is a share of the counted predicted pairs (those that are true duplicates), recall
a share of the gold positives (those that were found). Each replicate resamples, with
replacement and independently, the predicted pairs (for precision) and the gold positives
(for recall); F1 of a replicate is the harmonic mean of its two values. Resampling ``n``
items with replacement from a 0/1 vector with ``k`` ones gives a Binomial(n, k/n) count, so
replicates draw that count directly: the same distribution, in O(replicates) memory.

Source: Efron & Tibshirani 1993, *An Introduction to the Bootstrap*, ch. 13 (percentile
intervals). Deterministic for a given ``seed`` (numpy ``default_rng``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from neardup.errors import check_float, check_int


@dataclass(frozen=True, slots=True)
class Interval:
    """A two-sided interval ``[low, high]`` (both in [0, 1])."""

    low: float
    high: float

    def as_list(self) -> list[float]:
        """``[low, high]`` rounded to 4 decimals (JSON-ready)."""
        return [round(self.low, 4), round(self.high, 4)]


@dataclass(frozen=True, slots=True)
class PairIntervals:
    """Bootstrap intervals; ``None`` where the sample is empty (no prediction / no positive).

    Attributes:
        precision, recall, f1: :class:`Interval` or ``None``.
        level: coverage, e.g. 0.95; replicates: number of bootstrap replicates; seed: RNG seed.
    """

    precision: Interval | None
    recall: Interval | None
    f1: Interval | None
    level: float
    replicates: int
    seed: int


def bootstrap_pairs(
    tp: int,
    predicted: int,
    found: int,
    positives: int,
    *,
    replicates: int = 1000,
    level: float = 0.95,
    seed: int = 0,
) -> PairIntervals:
    """Percentile bootstrap intervals for precision, recall and F1.

    Args:
        tp: counted predicted pairs that are gold positives; predicted: counted predicted pairs.
        found: gold positives that were predicted (equals ``tp``); positives: gold positives.
        replicates: bootstrap replicates (>= 1); level: coverage in (0, 1); seed: RNG seed.

    Returns:
        :class:`PairIntervals` (intervals for an empty sample are ``None``; F1 needs both).

    Raises:
        ParameterError: ``replicates`` < 1, ``level`` outside (0, 1), or counts out of range.
    """
    check_int("replicates", replicates, low=1)
    check_float("level", level, low=0.0, high=1.0, low_open=True)
    check_int("predicted", predicted, low=0)
    check_int("tp", tp, low=0, high=predicted)
    check_int("positives", positives, low=0)
    check_int("found", found, low=0, high=positives)
    rng = np.random.default_rng(seed)
    prec = _shares(rng, tp, predicted, replicates)
    rec = _shares(rng, found, positives, replicates)
    f1 = None
    if prec is not None and rec is not None:
        total = prec + rec
        f1 = np.divide(2 * prec * rec, total, out=np.zeros_like(total), where=total > 0)
    return PairIntervals(
        _interval(prec, level), _interval(rec, level), _interval(f1, level), level, replicates, seed
    )


def _shares(rng: np.random.Generator, k: int, n: int, replicates: int) -> np.ndarray | None:
    """Replicate shares of ones when resampling ``n`` items of which ``k`` are ones."""
    if n == 0:
        return None
    return rng.binomial(n, k / n, size=replicates) / n


def _interval(values: np.ndarray | None, level: float) -> Interval | None:
    if values is None:
        return None
    tail = (1.0 - level) / 2 * 100
    low, high = np.percentile(values, [tail, 100 - tail])
    return Interval(float(low), float(high))
