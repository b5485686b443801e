"""Cluster-level quality: adjusted Rand index and B-cubed against gold clusters.

Both compare two partitions of the same items. Gold clusters are the given clusters (cluster
gold) or the connected components of the positive pairs (pair gold); predicted clusters are
the connected components of the predicted pairs, as ``dedup`` clusters them.

The items are the documents named in the gold file or in a counted predicted pair. Every
other document is a singleton in both partitions and would only push both scores towards 1,
so scores do not depend on how many untouched documents a corpus has, and scoring a
``dedup --out`` directory (which lists no untouched documents) gives the same numbers as a run.

Sources: Hubert & Arabie 1985 (adjusted Rand index, "Comparing partitions", J. Classif. 2);
Bagga & Baldwin 1998 (B-cubed, "Algorithms for scoring coreference chains"; here with
Amigó et al. 2009's per-item precision and recall, averaged over items).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from math import comb

Partition = Mapping[str, object]


@dataclass(frozen=True, slots=True)
class ClusterScores:
    """Cluster agreement, all in [0, 1] except ``ari`` in [-1, 1].

    Attributes:
        bcubed_precision, bcubed_recall, bcubed_f1: B-cubed, averaged over items.
        ari: adjusted Rand index (1 = identical partitions, about 0 = chance).
        items: number of items compared.
    """

    bcubed_precision: float
    bcubed_recall: float
    bcubed_f1: float
    ari: float
    items: int


def components(items: Iterable[str], pairs: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Connected components of ``pairs`` over ``items`` (union-find).

    Args:
        items: the ids to partition; ids of ``pairs`` not among them are added.
        pairs: undirected edges ``(a, b)``.

    Returns:
        ``{id: label}``, the label being the smallest id of the component.
    """
    parent: dict[str, str] = {i: i for i in items}

    def find(x: str) -> str:
        root = parent.setdefault(x, x)
        while parent[root] != root:
            root = parent[root]
        while parent[x] != root:
            parent[x], x = root, parent[x]
        return root

    for a, b in pairs:
        ra, rb = find(a), find(b)
        if ra != rb:
            lo, hi = (ra, rb) if ra < rb else (rb, ra)
            parent[hi] = lo
    return {i: find(i) for i in parent}


def bcubed(gold: Partition, pred: Partition) -> tuple[float, float, float]:
    """B-cubed precision, recall and F1 of ``pred`` against ``gold`` (same item keys).

    Per item: precision = share of its predicted cluster in its gold cluster; recall = share
    of its gold cluster in its predicted cluster. Both averaged over items; F1 their harmonic
    mean. Empty partitions give ``(1, 1, 1)``.

    Raises:
        ValueError: the partitions do not cover the same items.
    """
    items = _same_items(gold, pred)
    if not items:
        return 1.0, 1.0, 1.0
    both = Counter((gold[i], pred[i]) for i in items)
    g_size = Counter(gold[i] for i in items)
    p_size = Counter(pred[i] for i in items)
    prec = sum(both[(gold[i], pred[i])] / p_size[pred[i]] for i in items) / len(items)
    rec = sum(both[(gold[i], pred[i])] / g_size[gold[i]] for i in items) / len(items)
    f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
    return prec, rec, f1


def adjusted_rand_index(gold: Partition, pred: Partition) -> float:
    """Adjusted Rand index of two partitions of the same items (Hubert & Arabie 1985).

    ``ARI = (index - expected) / (max - expected)`` over the pair-count contingency table.
    When ``max == expected`` (both partitions all singletons, or both one cluster) it is 1.0
    if the partitions are equal and 0.0 otherwise.

    Raises:
        ValueError: the partitions do not cover the same items.
    """
    items = _same_items(gold, pred)
    n = len(items)
    index = sum(comb(c, 2) for c in Counter((gold[i], pred[i]) for i in items).values())
    sum_g = sum(comb(c, 2) for c in Counter(gold[i] for i in items).values())
    sum_p = sum(comb(c, 2) for c in Counter(pred[i] for i in items).values())
    total = comb(n, 2)
    expected = sum_g * sum_p / total if total else 0.0
    top = (sum_g + sum_p) / 2
    if top == expected:
        return 1.0 if index == sum_g == sum_p else 0.0
    return (index - expected) / (top - expected)


def cluster_scores(
    gold: Partition, predicted: Iterable[tuple[str, str]], extra_items: Iterable[str] = ()
) -> ClusterScores:
    """Score predicted pairs as clusters against gold clusters.

    Args:
        gold: ``{id: gold cluster}`` for the gold ids (ids absent are gold singletons).
        predicted: counted predicted pairs ``(a, b)``.
        extra_items: further ids to include (see the module docstring for the item set).

    Returns:
        :class:`ClusterScores` over the gold ids, the predicted ids and ``extra_items``.
    """
    pairs = list(predicted)
    items = set(gold) | {i for p in pairs for i in p} | set(extra_items)
    pred = components(items, pairs)
    full_gold = {i: gold.get(i, ("singleton", i)) for i in items}
    p, r, f = bcubed(full_gold, pred)
    return ClusterScores(p, r, f, adjusted_rand_index(full_gold, pred), len(items))


def _same_items(gold: Partition, pred: Partition) -> Sequence[str]:
    if gold.keys() != pred.keys():
        raise ValueError("the two partitions must cover the same items")
    return list(gold)
