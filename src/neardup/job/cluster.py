"""Clusters of duplicates (connected components) and the keep/drop decision.

Components are found by vectorised min-label propagation with pointer jumping (the
union-find of the job, without a Python loop per edge). In every cluster one document is
kept: the longest (most canonical tokens; ties to the earlier document), the first in
input order, or the one with the largest (or smallest) value of a record field
(``keep_by``, :func:`neardup.job.keep.field_ranks`). Under the first two rules a kept document
that is contained in another member (containment >= threshold) gives way to its container,
so a quotation never survives its source.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np


def components(n: int, edges: np.ndarray) -> np.ndarray:
    """Connected-component label of each of ``n`` nodes.

    Hook-and-compress (Shiloach-Vishkin style, vectorised): every round, each edge whose
    ends lie in different trees hooks the larger root under the smaller one, then pointer
    jumping flattens every tree; edges inside one tree are dropped for good, so later
    rounds touch fewer edges. A root only ever points to a smaller index, so no cycle can
    form and each component ends labelled with its smallest member.

    Args:
        n: number of nodes; edges: int64 (e, 2) node pairs.

    Returns:
        int64 array, shape (n,): the smallest node index of each node's component.
    """
    labels = np.arange(n, dtype=np.int64)
    if edges.size == 0:
        return labels
    a, b = edges[:, 0].astype(np.int64), edges[:, 1].astype(np.int64)
    while a.size:
        la, lb = labels[a], labels[b]
        live = la != lb
        a, b, la, lb = a[live], b[live], la[live], lb[live]
        if not a.size:
            break
        np.minimum.at(labels, np.maximum(la, lb), np.minimum(la, lb))
        while True:  # pointer jumping: labels[i] <- labels[labels[i]] until stable
            jumped = labels[labels]
            if np.array_equal(jumped, labels):
                break
            labels = jumped
    return labels


@dataclass(frozen=True, slots=True)
class Cluster:
    """A group of near-duplicates (a ``clusters.jsonl`` row).

    Attributes:
        cluster: cluster number (0-based, in order of the kept document's input position).
        members: the members' document ids, in input order; keep: the kept member's id.
        member_indexes: the members' positions in the job's input (``DedupResult.ids``),
            ascending; keep_index: the kept member's position.
    """

    cluster: int
    members: tuple[str, ...]
    keep: str
    member_indexes: tuple[int, ...]
    keep_index: int

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready row ``{cluster, members, keep}`` (ids): :func:`cluster_row`."""
        return cluster_row(self.cluster, list(self.members), self.keep)


def cluster_row(cluster: int, members: list[str], keep: str) -> dict[str, Any]:
    """A ``clusters.jsonl`` row, on every executor: ``{cluster, members, keep}`` (ids)."""
    return {"cluster": cluster, "members": members, "keep": keep}


def make_clusters(
    ids: Sequence[str],
    edges: np.ndarray,
    lengths: np.ndarray,
    *,
    keep: Literal["longest", "first"] = "longest",
    contained_in: dict[int, int] | None = None,
    ranks: np.ndarray | None = None,
) -> list[Cluster]:
    """Clusters of size >= 2 with their kept member.

    Args:
        ids: document ids; document ``i`` (an index in ``edges``) is ``ids[i]``.
        edges: int64 (e, 2) matched pairs of document indexes.
        lengths: int (n,), document lengths in canonical tokens.
        keep: ``longest`` or ``first``.
        contained_in: ``{doc: container}`` for documents contained in another one; a
            chosen keeper found here is replaced by its container (followed to the end).
        ranks: int (n,), a keep-by field's rank per document
            (:func:`neardup.job.keep.field_ranks`); given, it decides alone: the member of
            highest rank is kept, ties to the earlier document, ``keep`` and
            ``contained_in`` unused (the field is the user's rule, even for a contained
            document).

    Returns:
        Clusters sorted by their kept document's index.
    """
    labels = components(len(ids), edges)
    inside = np.flatnonzero(np.bincount(labels)[labels] >= 2)  # singletons never split out
    if inside.size == 0:
        return []
    group = labels[inside]
    order = inside[np.lexsort((inside, group))]  # members by (group, position)
    starts = np.flatnonzero(np.r_[True, np.diff(labels[order]) != 0])
    chosen = keepers(
        group,
        inside,
        keep=keep,
        lengths=np.asarray(lengths)[inside],
        contained_in=contained_in,
        ranks=None if ranks is None else np.asarray(ranks)[inside],
    )
    bounds = np.r_[starts, order.shape[0]].tolist()
    member_lists = order.tolist()
    found: list[tuple[int, tuple[int, ...]]] = []
    for g, first in enumerate(chosen.tolist()):
        found.append((first, tuple(member_lists[bounds[g] : bounds[g + 1]])))
    found.sort(key=lambda c: c[0])
    return [
        Cluster(i, tuple(ids[m] for m in members), ids[chosen], members, chosen)
        for i, (chosen, members) in enumerate(found)
    ]


def keepers(
    group: np.ndarray,
    node: np.ndarray,
    *,
    keep: str,
    lengths: np.ndarray | None = None,
    contained_in: dict[int, int] | None = None,
    ranks: np.ndarray | None = None,
) -> np.ndarray:
    """The keep rule, written once (the local job's :func:`make_clusters`, the Dask
    engine's :func:`neardup.distributed.clusters.make_groups`): the kept member of each
    group of cluster members.

    The first member by (``-ranks``, node) when ``ranks`` is given (a keep-by field: it
    decides alone), by node for ``keep="first"``, by (``-lengths``, node) for
    ``longest``; under the last two a keeper found in ``contained_in`` gives way to its
    container among the group's members, followed to the end (:func:`follow_container`).

    Args:
        group: int64 (m,) each member's cluster label; node: int64 (m,) its document
            number (unique); lengths, ranks: (m,) its canonical tokens, its keep-by rank.

    Returns:
        int64 (g,): the kept document of each distinct label, labels ascending.
    """
    if ranks is not None:
        order = np.lexsort((node, -ranks, group))
    elif keep == "first":
        order = np.lexsort((node, group))
    else:
        assert lengths is not None, "keep='longest' needs the lengths"
        order = np.lexsort((node, -lengths, group))
    members, labels = node[order], group[order]
    starts = np.flatnonzero(np.r_[True, labels[1:] != labels[:-1]])
    chosen = members[starts].astype(np.int64)
    if contained_in and ranks is None:
        bounds = np.r_[starts, members.shape[0]]
        for g, doc in enumerate(chosen.tolist()):
            if doc in contained_in:
                inside = set(members[bounds[g] : bounds[g + 1]].tolist())
                chosen[g] = follow_container(doc, contained_in, inside)
    return chosen


def follow_container(doc: int, contained_in: dict[int, int], members: set[int]) -> int:
    """The document a cluster keeps instead of ``doc``: its container in ``contained_in``
    (``{doc: container}``), followed while the container is a member not yet seen
    (:func:`keepers`)."""
    seen = {doc}
    while doc in contained_in and contained_in[doc] in members and contained_in[doc] not in seen:
        doc = contained_in[doc]
        seen.add(doc)
    return doc
