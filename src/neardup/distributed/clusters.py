"""Clusters, keep decisions and the dropped list from component labels, on the cluster.

Labels ``{node, label}`` go to the nodes' document partitions to pick up lengths and ids,
then by label to one task per group of clusters, which applies the single-process keep
rule (:func:`neardup.job.cluster.make_clusters`: longest, ties to the earlier document, or the
first). Dropped members go to the partition of their pair's earlier document to find
the verified pair's resemblance (the ``reason``), then everything goes to the kept
document's partition, so the concatenated part files are in cluster order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from neardup._array import column_codes, group_bounds, sorted_unique
from neardup.distributed.tables import Table, concat, hash_dest, range_dest, split, take
from neardup.job.cluster import cluster_row, keepers
from neardup.job.pipeline import Dropped
from neardup.output import table_lines, write_table

if TYPE_CHECKING:
    from neardup.distributed.partition import Partition


def split_to_docs(labels: Table, offsets: np.ndarray) -> list[Table]:
    """Label rows by the node's document partition."""
    return split(labels, range_dest(labels["node"], offsets), offsets.shape[0] - 1)


def attach(p: int, part: Partition, offsets: np.ndarray, *pieces: Table) -> Table:
    """Label rows with each node's length and id: ``{label, node, length, id}``."""
    offset = int(offsets[p])
    t = concat(pieces)
    if not t:
        return {
            "label": np.zeros(0, np.int64),
            "node": np.zeros(0, np.int64),
            "length": np.zeros(0, np.int64),
            "id": np.zeros(0, dtype=object),
        }
    local = t["node"] - offset
    return {
        "label": t["label"],
        "node": t["node"],
        "length": part.lengths[local],
        "id": part.ids[local],
    }


def split_by_label(rows: Table, n_out: int) -> list[Table]:
    """Member rows by hash of their cluster label."""
    return split(rows, hash_dest(rows["label"], n_out), n_out)


def make_groups(j: int, keep: str, contained: dict[int, int], *pieces: Table) -> Table:
    """Members with their cluster's kept document: ``{keep, node, id, keep_id}``.

    The keep rule is the local job's, :func:`neardup.job.cluster.keepers`: ``longest`` (most
    canonical tokens, ties to the smaller global index) or ``first`` (the smallest global
    index); a chosen document ``contained`` (``{doc: container}``, containment jobs) in
    another member gives way to its container, followed to the end.
    """
    t = concat(pieces)
    if not t or t["node"].size == 0:
        return {
            "keep": np.zeros(0, np.int64),
            "node": np.zeros(0, np.int64),
            "id": np.zeros(0, dtype=object),
            "keep_id": np.zeros(0, dtype=object),
        }
    if keep == "first":
        order = np.lexsort((t["node"], t["label"]))
    else:
        order = np.lexsort((t["node"], -t["length"], t["label"]))
    t = take(t, order)
    _, sizes = group_bounds(t["label"])
    chosen = keepers(t["label"], t["node"], keep=keep, lengths=t["length"], contained_in=contained)
    kept = np.repeat(chosen, sizes)
    kept_id = np.repeat(t["id"][np.flatnonzero(t["node"] == kept)], sizes)
    return {"keep": kept, "node": t["node"], "id": t["id"], "keep_id": kept_id}


def split_dropped(groups: Table, offsets: np.ndarray) -> list[Table]:
    """Dropped members by the partition of ``min(member, kept)`` (where their pair lives)."""
    d = take(groups, groups["node"] != groups["keep"])
    lo = np.minimum(d["node"], d["keep"])
    return split(d, range_dest(lo, offsets), offsets.shape[0] - 1)


def add_reasons(
    p: int, verified: dict[str, Any], threshold: float, contained: dict[int, int], *pieces: Table
) -> Table:
    """Dropped rows with the single-process ``reason`` (direct pair's resemblance, or
    containment in the kept document, or neither: :func:`neardup.job.keep.drop_reason`)."""
    from neardup.job.keep import drop_reason

    t = concat(pieces)
    if not t or t["node"].size == 0:
        return {}
    rows = verified["rows"]
    lo, hi = np.minimum(t["node"], t["keep"]), np.maximum(t["node"], t["keep"])
    n = int(max(hi.max(), rows["b"].max() if rows["b"].size else 0)) + 1
    code = column_codes(rows["a"], rows["b"], n)  # rows are sorted by (a, b)
    want = column_codes(lo, hi, n)
    at = np.searchsorted(code, want)
    found = (at < code.size) & (code[np.minimum(at, max(code.size - 1, 0))] == want)
    reasons = np.empty(t["node"].size, dtype=object)
    for i in range(t["node"].size):
        row = None
        if found[i]:
            k = int(at[i])
            row = np.array([rows[c][k] for c in ("a", "b", "res", "cab", "cba", "score")])
        reasons[i] = drop_reason(int(t["node"][i]), int(t["keep"][i]), row, contained, threshold)
    return {**t, "reason": reasons}


def split_to_keep(rows: Table, offsets: np.ndarray) -> list[Table]:
    """Rows by the kept document's partition."""
    if not rows:
        return [{} for _ in range(offsets.shape[0] - 1)]
    return split(rows, range_dest(rows["keep"], offsets), offsets.shape[0] - 1)


def gather_final(p: int, n_members: int, *pieces: Any) -> dict[str, Table]:
    """A partition's members and dropped rows (the first ``n_members`` pieces are members)."""
    return {
        "members": _sorted(concat(pieces[:n_members])),
        "dropped": _sorted(concat(pieces[n_members:])),
    }


def _sorted(t: Table) -> Table:
    if not t or t["node"].size == 0:
        return t
    return take(t, np.lexsort((t["node"], t["keep"])))


def cluster_count(final: dict[str, Table]) -> int:
    """Number of clusters (distinct kept documents) of a final partition."""
    m = final["members"]
    return 0 if not m else int(sorted_unique(m["keep"]).size)


def write_clusters(final: dict[str, Table], first: int, out_dir: str, p: int) -> int:
    """Write ``clusters.jsonl`` and ``dropped.jsonl`` parts; clusters numbered from ``first``.

    Returns:
        Number of dropped rows written.
    """
    m, d = final["members"], final["dropped"]
    if not m or m["node"].size == 0:
        write_table(out_dir, "clusters.jsonl", [], part=p)
        write_table(out_dir, "dropped.jsonl", [], part=p)
        return 0
    starts, sizes = group_bounds(m["keep"])
    number = {int(k): first + i for i, k in enumerate(m["keep"][starts].tolist())}
    rows = (
        cluster_row(first + i, m["id"][s : s + z].tolist(), m["keep_id"][s])
        for i, (s, z) in enumerate(zip(starts.tolist(), sizes.tolist(), strict=True))
    )
    write_table(out_dir, "clusters.jsonl", table_lines(rows), part=p)
    dropped = (
        Dropped(d["id"][i], d["keep_id"][i], number[int(d["keep"][i])], d["reason"][i]).as_dict()
        for i in range(d["node"].size if d else 0)
    )
    return write_table(out_dir, "dropped.jsonl", table_lines(dropped), part=p)
