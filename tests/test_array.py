"""neardup._array: sorted_unique (np.unique's values, without loading numpy.ma), pair codes."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup._array import sorted_unique


@settings(derandomize=True, max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 2**64 - 1), max_size=60), st.sampled_from(["u8", "u4", "i8"]))
def test_sorted_unique_equals_np_unique(values: list[int], dtype: str) -> None:
    info = np.iinfo(dtype)
    arr = np.array([v % (int(info.max) + 1) + int(info.min) for v in values], dtype=dtype)
    got = sorted_unique(arr)
    want = np.unique(arr)
    assert got.dtype == arr.dtype and np.array_equal(got, want)
    runs = np.concatenate([np.sort(arr[: len(arr) // 2]), np.sort(arr[len(arr) // 2 :])])
    assert np.array_equal(sorted_unique(runs, runs=True), want)  # sorted runs, merged
    assert np.array_equal(sorted_unique(arr, runs=True), want)  # or any order at all


@settings(derandomize=True, max_examples=100, deadline=None)
@given(st.integers(1, 40), st.lists(st.tuples(st.integers(0, 39), st.integers(0, 39))))
def test_unique_pairs_are_the_sorted_distinct_rows_and_codes_round_trip(
    n: int, rows: list[tuple[int, int]]
) -> None:
    from neardup._array import column_codes, pair_codes, pairs_of_codes, unique_pairs

    pairs = np.array([(a % n, b % n) for a, b in rows], dtype=np.int64).reshape(-1, 2)
    want = sorted(set(map(tuple, pairs.tolist())))
    assert [tuple(r) for r in unique_pairs(pairs, n).tolist()] == want
    assert [tuple(r) for r in unique_pairs(pairs, n, runs=True).tolist()] == want
    assert pairs_of_codes(pair_codes(pairs, n), n).tolist() == pairs.tolist()
    assert np.array_equal(column_codes(pairs[:, 0], pairs[:, 1], n), pair_codes(pairs, n))
    assert [int(c) for c in pair_codes(pairs, n)] == [a * n + b for a, b in pairs.tolist()]


def test_sorted_unique_known_values_and_input_untouched() -> None:
    arr = np.array([[5, 1], [5, 3]], dtype=np.uint64)
    assert sorted_unique(arr).tolist() == [1, 3, 5]
    assert arr.tolist() == [[5, 1], [5, 3]]
    assert sorted_unique(np.array([], dtype=np.uint32)).tolist() == []
    assert sorted_unique(np.array([7], dtype=np.uint32)).tolist() == [7]


@settings(derandomize=True, max_examples=150, deadline=None)
@given(st.integers(1, 30), st.data())
def test_sort_by_owner_equals_a_lexsort(n: int, data: st.DataObject) -> None:
    """Values equal in their top bits (the packed key drops the low ones) and near 2**64
    alike: the result is the (owner, value) order of a lexsort."""
    from neardup._array import sort_by_owner

    m = data.draw(st.integers(0, 50))
    values = data.draw(
        st.lists(
            st.one_of(st.integers(0, 2**64 - 1), st.integers(0, 7).map(lambda k: (5 << 60) | k)),
            min_size=m,
            max_size=m,
        )
    )
    owner = data.draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m))
    v, o = np.array(values, dtype=np.uint64), np.array(owner, dtype=np.int64)
    got_v, got_o = sort_by_owner(v, o, n)
    order = np.lexsort((v, o))
    assert got_v.tolist() == v[order].tolist() and got_o.tolist() == o[order].tolist()


@settings(derandomize=True, max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 20), max_size=40), st.integers(1, 30))
def test_cost_ranges_cover_every_item_in_order_each_as_long_as_the_step_allows(
    costs: list[int], step: int
) -> None:
    """Ranges one after another from 0 to n, none empty; a range of two or more items
    costs at most ``step``, and the next item would take it past ``step``."""
    from neardup._array import cost_ranges

    cumulative = np.concatenate([[0], np.cumsum(costs, dtype=np.int64)]).astype(np.int64)
    ranges = cost_ranges(cumulative, step)
    starts = [0, *(hi for _, hi in ranges[:-1])] if ranges else []
    assert [lo for lo, _ in ranges] == starts
    assert (ranges[-1][1] if ranges else 0) == len(costs)
    for lo, hi in ranges:
        cost = sum(costs[lo:hi])
        assert hi > lo and (hi - lo == 1 or cost <= step)
        assert hi == len(costs) or cost + costs[hi] > step


@settings(derandomize=True, max_examples=200, deadline=None)
@given(
    st.integers(2, 30),
    st.lists(st.tuples(st.integers(0, 29), st.integers(0, 29)), max_size=80),
    st.lists(st.tuples(st.integers(0, 29), st.integers(0, 29)), min_size=1, max_size=20),
)
def test_with_pairs_is_unique_pairs_of_both(
    n: int, rows: list[tuple[int, int]], more: list[tuple[int, int]]
) -> None:
    """The candidates a band index found (sorted, unique) with the identical documents'
    pairs put in their places: the sorted distinct rows of both, ``pairs`` itself when it
    has them all."""
    from neardup._array import pair_codes, unique_pairs, with_pairs

    def array(x: list[tuple[int, int]]) -> np.ndarray:
        return np.array([(a % n, b % n) for a, b in x], dtype=np.int64).reshape(-1, 2)

    pairs = unique_pairs(array(rows), n)
    got = with_pairs(pairs, pair_codes(pairs, n), array(more), n)
    want = unique_pairs(np.concatenate([pairs, array(more)]), n)
    assert got.dtype == np.int64 and np.array_equal(got, want)
    inside = pairs[: len(pairs) // 2 + 1]  # rows it holds already: the same array back
    assert with_pairs(pairs, pair_codes(pairs, n), inside[::-1], n) is pairs or not len(pairs)


def test_with_pairs_puts_a_pair_before_after_and_between_the_known() -> None:
    from neardup._array import pair_codes, with_pairs

    pairs = np.array([[1, 2], [1, 5], [3, 4]], dtype=np.int64)
    more = np.array([[3, 4], [4, 5], [0, 1], [1, 3], [0, 1]], dtype=np.int64)
    got = with_pairs(pairs, pair_codes(pairs, 6), more, 6)
    assert got.tolist() == [[0, 1], [1, 2], [1, 3], [1, 5], [3, 4], [4, 5]]
