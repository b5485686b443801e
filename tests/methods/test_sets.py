"""ShingleSets built from unsorted occurrences: per document, the sorted distinct values."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.methods.sets import ShingleSets


def _expected(values: list[int], doc: list[int], n: int) -> list[list[int]]:
    sets: list[set[int]] = [set() for _ in range(n)]
    for v, d in zip(values, doc, strict=True):
        sets[d].add(v)
    return [sorted(s) for s in sets]


def _built(values: list[int], doc: list[int], n: int) -> list[list[int]]:
    built = ShingleSets.from_unsorted(
        np.array(values, dtype=np.uint64), np.array(doc, dtype=np.int64), n
    )
    return [built.values[built.offsets[i] : built.offsets[i + 1]].tolist() for i in range(n)]


# values that differ only in their low bits (the packed sort key drops them), small and
# near 2**64, so both the one-sort order and its exact fallback are exercised
_VALUES = st.one_of(
    st.integers(0, 2**64 - 1),
    st.integers(0, 15),
    st.integers(2**64 - 16, 2**64 - 1),
    st.integers(0, 15).map(lambda k: (0xABCDEF << 40) | k),
)


@settings(derandomize=True, max_examples=200, deadline=None)
@given(st.integers(1, 40), st.data())
def test_from_unsorted_gives_each_documents_sorted_distinct_values(
    n: int, data: st.DataObject
) -> None:
    m = data.draw(st.integers(0, 60))
    values = data.draw(st.lists(_VALUES, min_size=m, max_size=m))
    doc = data.draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m))
    assert _built(values, doc, n) == _expected(values, doc, n)


def test_values_equal_in_the_key_bits_are_still_ordered() -> None:
    """Two values of one document equal but for their lowest bits, given high one first."""
    high, low = (7 << 50) | 3, (7 << 50) | 1
    assert _built([high, low, 5], [0, 0, 1], 2) == [[low, high], [5]]


@settings(derandomize=True, max_examples=100, deadline=None)
@given(
    st.lists(st.lists(_VALUES, max_size=12), min_size=1, max_size=10),
    st.data(),
)
def test_take_gives_the_named_sets_in_order_whatever_the_chunk(
    lists: list[list[int]], data: st.DataObject
) -> None:
    """Documents named in any order, repeated or not at all: each one's set, in that order,
    gathered at once or a few values a step."""
    arrays = [np.unique(np.array(v, dtype=np.uint64)) for v in lists]
    sets = ShingleSets.from_arrays(arrays)
    index = data.draw(st.lists(st.integers(0, len(arrays) - 1), max_size=15))
    chunk = data.draw(st.sampled_from([None, 1, 3, 1 << 20]))
    got = sets.take(np.array(index, dtype=np.int64), chunk=chunk)
    assert got.values.dtype == np.uint64 and len(got) == len(index)
    assert [got.get(k).tolist() for k in range(len(index))] == [arrays[i].tolist() for i in index]
