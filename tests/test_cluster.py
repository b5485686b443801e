"""Connected components and the keep rule."""

from __future__ import annotations

from typing import Literal

import networkx as nx
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.job.cluster import components, keepers, make_clusters


@settings(derandomize=True, max_examples=80, deadline=None)
@given(st.integers(1, 30), st.lists(st.tuples(st.integers(0, 29), st.integers(0, 29)), max_size=40))
def test_components_match_networkx(n: int, raw: list[tuple[int, int]]) -> None:
    edges = np.array([(a, b) for a, b in raw if a < n and b < n] or np.zeros((0, 2)), np.int64)
    labels = components(n, edges.reshape(-1, 2))
    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_edges_from(edges.tolist())
    for comp in nx.connected_components(g):
        assert {int(labels[i]) for i in comp} == {min(comp)}


IDS = ["a", "b", "c", "d", "e"]


def test_keep_longest_then_first_and_container_wins() -> None:
    edges = np.array([[0, 1], [1, 2], [3, 4]], np.int64)
    lengths = np.array([10, 50, 50, 7, 7])
    longest = make_clusters(IDS, edges, lengths, keep="longest")
    assert [(c.member_indexes, c.keep_index) for c in longest] == [((0, 1, 2), 1), ((3, 4), 3)]
    first = make_clusters(IDS, edges, lengths, keep="first", contained_in={0: 2})
    assert [(c.member_indexes, c.keep_index) for c in first] == [((0, 1, 2), 2), ((3, 4), 3)]


def test_clusters_name_documents_by_id() -> None:
    edges = np.array([[3, 4], [0, 1]], np.int64)
    clusters = make_clusters(IDS, edges, np.array([5, 9, 1, 1, 8]), keep="longest")
    assert [(c.cluster, c.members, c.keep) for c in clusters] == [
        (0, ("a", "b"), "b"),
        (1, ("d", "e"), "e"),
    ]
    assert clusters[1].as_dict() == {"cluster": 1, "members": ["d", "e"], "keep": "e"}


def _clusters_one_group_at_a_time(
    ids: list[str],
    edges: np.ndarray,
    lengths: np.ndarray,
    keep: Literal["longest", "first"],
    contained_in: dict[int, int],
) -> list[tuple[int, tuple[int, ...]]]:
    """The earlier loop over groups (np.split, a sort and a lexsort per group): the
    reference the vectorised grouping must equal."""
    from neardup.job.cluster import components, follow_container

    labels = components(len(ids), edges)
    inside = np.flatnonzero(np.bincount(labels)[labels] >= 2)
    order = inside[np.argsort(labels[inside], kind="stable")]
    cut = np.flatnonzero(np.diff(labels[order])) + 1
    found = []
    for group in np.split(order, cut):
        if group.size < 2:
            continue
        members = np.sort(group)
        if keep == "first":
            chosen = int(members[0])
        else:
            chosen = int(members[np.lexsort((members, -lengths[members]))[0]])
        chosen = follow_container(chosen, contained_in or {}, set(members.tolist()))
        found.append((chosen, tuple(members.tolist())))
    found.sort(key=lambda c: c[0])
    return [(chosen, members) for chosen, members in found]


@settings(max_examples=200, deadline=None)
@given(
    st.integers(0, 40).flatmap(
        lambda n: st.tuples(
            st.just(n),
            st.lists(st.tuples(st.integers(0, max(n - 1, 0)), st.integers(0, max(n - 1, 0))),
                     max_size=60 if n else 0),
            st.lists(st.integers(0, 5), min_size=n, max_size=n),
            st.dictionaries(st.integers(0, max(n - 1, 0)), st.integers(0, max(n - 1, 0)),
                            max_size=8 if n else 0),
        )
    ),
    st.sampled_from(["longest", "first"]),
)  # fmt: skip
def test_all_groups_at_once_equal_one_group_at_a_time(
    case: tuple[int, list[tuple[int, int]], list[int], dict[int, int]],
    keep: Literal["longest", "first"],
) -> None:

    n, pairs, lengths, contained = case
    ids = [f"d{i}" for i in range(n)]
    edges = np.array([(a, b) for a, b in pairs if a != b], dtype=np.int64).reshape(-1, 2)
    lens = np.array(lengths, dtype=np.int64)
    got = make_clusters(ids, edges, lens, keep=keep, contained_in=contained)
    want = _clusters_one_group_at_a_time(ids, edges, lens, keep, contained)
    assert [(c.keep_index, c.member_indexes) for c in got] == want
    assert [c.cluster for c in got] == list(range(len(want)))


def test_one_keep_rule_for_every_executor() -> None:
    """``keepers`` (the local job's clusters and the Dask engine's groups): two clusters,
    labels 0 and 5, in no order; the longest (ties to the earlier), the first, a keeper
    that gives way to its container, a keep-by rank deciding alone."""
    group = np.array([5, 0, 5, 0, 0, 5], np.int64)
    node = np.array([7, 3, 2, 1, 4, 9], np.int64)
    lengths = np.array([50, 10, 50, 10, 30, 20], np.int64)
    assert keepers(group, node, keep="longest", lengths=lengths).tolist() == [4, 2]
    assert keepers(group, node, keep="first").tolist() == [1, 2]
    contained = {4: 3, 2: 9}  # 4 inside 3; 2 inside 9, a member too
    boxed = keepers(group, node, keep="longest", lengths=lengths, contained_in=contained)
    assert boxed.tolist() == [3, 9]
    ranks = np.array([0, 2, 1, 2, 0, 0], np.int64)
    got = keepers(group, node, keep="longest", lengths=lengths, contained_in=contained, ranks=ranks)
    assert got.tolist() == [1, 2]  # rank 2 in both of 0's; 1 < 3: the earlier
