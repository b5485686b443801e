"""Pair-level quality against labelled pairs (Zagorulko et al.'s (2013) error types, precision,
recall, F1).

Gold rows are ``{a, b, label}``; a predicted pair is a true positive when gold labels it 1.
Two scopes: ``labelled`` scores only pairs that appear in the gold file (for sets such as
clough-stevenson where unlabelled pairs are unknown); ``all`` presumes unlisted pairs are
non-duplicates (the revision sets), so every predicted pair outside the gold positives is
a false positive.

Zagorulko et al. 2013: type-I error = share of reported pairs that are not duplicates (``1 -
precision``);
type-II error = share of duplicates missed (``1 - recall``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

PairKey = tuple[str, str]


def pair_key(a: str, b: str) -> PairKey:
    """Unordered pair key (sorted ids)."""
    return (a, b) if a <= b else (b, a)


@dataclass(frozen=True, slots=True)
class Gold:
    """Labelled pairs: ``positives`` and ``negatives`` as unordered keys."""

    positives: frozenset[PairKey]
    negatives: frozenset[PairKey]

    @classmethod
    def load(cls, path: str | Path) -> Gold:
        """Read a gold JSONL file of ``{a, b, label}`` rows."""
        pos: set[PairKey] = set()
        neg: set[PairKey] = set()
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    row = json.loads(line)
                    (pos if int(row["label"]) == 1 else neg).add(pair_key(row["a"], row["b"]))
        return cls(frozenset(pos), frozenset(neg))


@dataclass(frozen=True, slots=True)
class Scores:
    """Confusion counts and the measures derived from them (all in [0, 1])."""

    tp: int
    fp: int
    fn: int

    @property
    def precision(self) -> float:
        """``tp / (tp + fp)``; 1.0 when nothing was predicted."""
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        """``tp / (tp + fn)``; 1.0 when there is nothing to find."""
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    @property
    def f1(self) -> float:
        """Harmonic mean of precision and recall."""
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    @property
    def type_i(self) -> float:
        """Zagorulko et al.'s (2013) type-I error: share of reported pairs that are not
        duplicates."""
        return 1.0 - self.precision

    @property
    def type_ii(self) -> float:
        """Zagorulko et al.'s (2013) type-II error: share of duplicates missed."""
        return 1.0 - self.recall


def score_pairs(
    predicted: Iterable[tuple[str, str]],
    gold: Gold,
    *,
    scope: Literal["all", "labelled"] = "all",
) -> Scores:
    """Score predicted pairs against gold.

    Args:
        predicted: ``(a, b)`` id pairs (order and repeats do not matter).
        gold: labelled pairs.
        scope: ``all`` (unlisted pairs are negatives) or ``labelled`` (only gold pairs count).
    """
    pred = scoped_pairs(predicted, gold, scope=scope)
    tp = len(pred & gold.positives)
    return Scores(tp=tp, fp=len(pred) - tp, fn=len(gold.positives) - tp)


def scoped_pairs(
    predicted: Iterable[tuple[str, str]],
    gold: Gold,
    *,
    scope: Literal["all", "labelled"] = "all",
) -> set[PairKey]:
    """The predicted pairs that count in ``scope``, as unordered keys.

    Args:
        predicted: ``(a, b)`` id pairs (order and repeats do not matter).
        gold: labelled pairs.
        scope: ``all`` keeps every pair; ``labelled`` keeps only pairs listed in ``gold``.

    Returns:
        A set of :func:`pair_key` keys.
    """
    pred = {pair_key(a, b) for a, b in predicted}
    if scope == "labelled":
        pred &= gold.positives | gold.negatives
    return pred
