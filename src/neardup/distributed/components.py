"""Connected components of the verified-pair graph on the cluster (large-star / small-star).

The edge table stays partitioned across the workers; every step is one shuffle by node.
Kiveris, Lattanzi, Mirrokni, Rastogi & Vassilvitskii 2014, "Connected Components in
MapReduce and Beyond" (SoCC), alternating:

* large-star: for every node ``u`` with neighbours ``Γ(u)`` and ``m(u) = min(Γ(u) ∪ {u})``,
  emit ``(v, m(u))`` for every neighbour ``v > u``;
* small-star: for every node ``u`` with smaller neighbours ``N(u)`` and ``m = min(N(u))``,
  emit ``(v, m)`` for every ``v ∈ N(u) ∪ {u}``, ``v != m``.

Both keep the components and end in one star per component whose centre is its smallest
node; the job stops when a round leaves the edge set unchanged (checked with an
order-free 64-bit fingerprint and the edge count of each large-star's input, two numbers
per partition sent to the client). O(log n) rounds in practice, each a shuffle of the
edge table; no task holds more than one partition of edges.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from neardup._array import U64, fmix64, group_bounds
from neardup.distributed.tables import Table, concat, hash_dest, split

if TYPE_CHECKING:
    from neardup.distributed.tasks import TaskRunner

_EDGE = {"u": np.int64, "v": np.int64}
_MAX_ROUNDS = 200


def _empty_edges() -> Table:
    return {k: np.zeros(0, dtype=v) for k, v in _EDGE.items()}


def _unique_sorted(key: np.ndarray, nbr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unique ``(key, nbr)`` rows sorted by key then neighbour."""
    order = np.lexsort((nbr, key))
    k, n = key[order], nbr[order]
    if k.size:
        keep = np.ones(k.size, dtype=bool)
        keep[1:] = (k[1:] != k[:-1]) | (n[1:] != n[:-1])
        k, n = k[keep], n[keep]
    return k, n


def split_large(edges: Table, n_out: int) -> list[Table]:
    """Large-star map: both orientations of every edge, keyed by the first node."""
    u = edges.get("u", np.zeros(0, np.int64))
    v = edges.get("v", np.zeros(0, np.int64))
    k, n = np.concatenate([u, v]), np.concatenate([v, u])
    return split({"k": k, "n": n}, hash_dest(k, n_out), n_out)


def combine_large(j: int, *pieces: Table) -> dict[str, Any]:
    """Large-star reduce.

    Returns:
        ``{"edges": {u, v}, "labels": {node, label}, "fp": int, "count": int}``: the new
        edges; each key node's ``min(Γ(u) ∪ {u})`` (its component label at the fixpoint);
        fingerprint and count of the input's distinct undirected edges.
    """
    t = concat(pieces)
    if not t or t["k"].size == 0:
        return {
            "edges": _empty_edges(),
            "labels": {"node": np.zeros(0, np.int64), "label": np.zeros(0, np.int64)},
            "fp": 0,
            "count": 0,
        }
    k, n = _unique_sorted(t["k"], t["n"])
    k, n = k[k != n], n[k != n]
    starts, sizes = group_bounds(k)
    m_group = np.minimum(k[starts], n[starts])  # neighbours sorted: first is the smallest
    m = np.repeat(m_group, sizes)
    up = n > k
    with np.errstate(over="ignore"):
        code = fmix64(fmix64(k[up].astype(U64)) ^ n[up].astype(U64))
    return {
        "edges": {"u": n[up], "v": m[up]},
        "labels": {"node": k[starts], "label": m_group},
        "fp": int(code.sum(dtype=U64)),
        "count": int(up.sum()),
    }


def split_small(large_out: dict[str, Any], n_out: int) -> list[Table]:
    """Small-star map: every edge oriented (larger, smaller), keyed by the larger node."""
    e = large_out["edges"]
    hi, lo = np.maximum(e["u"], e["v"]), np.minimum(e["u"], e["v"])
    ok = hi != lo
    return split({"k": hi[ok], "n": lo[ok]}, hash_dest(hi[ok], n_out), n_out)


def combine_small(j: int, *pieces: Table) -> Table:
    """Small-star reduce: ``(v, m)`` for ``v`` in each key's smaller neighbours and itself."""
    t = concat(pieces)
    if not t or t["k"].size == 0:
        return _empty_edges()
    k, n = _unique_sorted(t["k"], t["n"])
    starts, sizes = group_bounds(k)
    m = np.repeat(n[starts], sizes)
    keep = n != m
    u = np.concatenate([n[keep], k[starts]])
    v = np.concatenate([m[keep], n[starts]])
    return {"u": u, "v": v}


def _fingerprint(out: dict[str, Any]) -> tuple[int, int]:
    return out["fp"], out["count"]


def component_labels(
    tasks: TaskRunner, edges: Sequence[Any], n_out: int, *, max_rounds: int = _MAX_ROUNDS
) -> tuple[list[Any], int]:
    """Component label (smallest member) of every node that has an edge.

    Args:
        tasks: the executor's tasks.
        edges: handles of edge tables ``{u, v}`` (int64 global document indexes).
        n_out: partitions of the edge and label tables.
        max_rounds: safety bound on large-star/small-star rounds.

    Returns:
        ``(labels, rounds)``: ``n_out`` handles of ``{node, label}`` tables (each node once,
        hash-partitioned by node) and the number of rounds run.

    Raises:
        RuntimeError: no fixpoint after ``max_rounds`` rounds.
    """
    previous: tuple[int, int] | None = None
    current = list(edges)
    for rounds in range(1, max_rounds + 1):
        large = tasks.shuffle(
            current, split_large, n_out, combine_large, split_args=(n_out,), name="cc-large"
        )
        prints = tasks.gather([tasks.submit(_fingerprint, x) for x in large])
        total = (sum(p[0] for p in prints) % 2**64, sum(p[1] for p in prints))
        if total == previous:
            labels = [tasks.submit(operator.getitem, x, "labels") for x in large]
            return labels, rounds
        previous = total
        current = tasks.shuffle(
            large, split_small, n_out, combine_small, split_args=(n_out,), name="cc-small"
        )
    raise RuntimeError(f"connected components: no fixpoint after {max_rounds} rounds")
