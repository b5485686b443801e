"""Connected components and the keep rule."""

from __future__ import annotations

import networkx as nx
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.cluster import components, make_clusters


@settings(derandomize=True, max_examples=80, deadline=None)
@given(st.integers(1, 30), st.lists(st.tuples(st.integers(0, 29), st.integers(0, 29)), max_size=40))
def test_components_match_networkx(n, raw):
    edges = np.array([(a, b) for a, b in raw if a < n and b < n] or np.zeros((0, 2)), np.int64)
    labels = components(n, edges.reshape(-1, 2))
    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_edges_from(edges.tolist())
    for comp in nx.connected_components(g):
        assert {int(labels[i]) for i in comp} == {min(comp)}


IDS = ["a", "b", "c", "d", "e"]


def test_keep_longest_then_first_and_container_wins():
    edges = np.array([[0, 1], [1, 2], [3, 4]], np.int64)
    lengths = np.array([10, 50, 50, 7, 7])
    longest = make_clusters(IDS, edges, lengths, keep="longest")
    assert [(c.member_indexes, c.keep_index) for c in longest] == [((0, 1, 2), 1), ((3, 4), 3)]
    first = make_clusters(IDS, edges, lengths, keep="first", contained_in={0: 2})
    assert [(c.member_indexes, c.keep_index) for c in first] == [((0, 1, 2), 2), ((3, 4), 3)]


def test_clusters_name_documents_by_id():
    edges = np.array([[3, 4], [0, 1]], np.int64)
    clusters = make_clusters(IDS, edges, np.array([5, 9, 1, 1, 8]), keep="longest")
    assert [(c.cluster, c.members, c.keep) for c in clusters] == [
        (0, ("a", "b"), "b"),
        (1, ("d", "e"), "e"),
    ]
    assert clusters[1].as_dict() == {"cluster": 1, "members": ["d", "e"], "keep": "e"}
