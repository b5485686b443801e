"""Resemblance, containment and dice: hand-computed values on real Russian and English text."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.job.compare import compare
from neardup.methods.measures import intersection_sizes, overlap
from neardup.methods.sets import ShingleSets


def test_overlap_of_small_sets() -> None:
    ov = overlap(np.array([1, 2, 3, 4], np.uint64), np.array([3, 4, 5], np.uint64))
    assert (ov.shared, ov.union) == (2, 5)
    assert ov.resemblance == pytest.approx(2 / 5)
    assert ov.containment_ab == pytest.approx(2 / 4)
    assert ov.containment_ba == pytest.approx(2 / 3)
    assert ov.dice == pytest.approx(4 / 7)


def test_empty_sets_never_match() -> None:
    ov = overlap(np.zeros(0, np.uint64), np.zeros(0, np.uint64))
    assert (ov.resemblance, ov.containment_ab, ov.dice) == (0.0, 0.0, 0.0)


def test_compare_russian_by_hand() -> None:
    # canonical tokens (stop words "и", "в", "на" out):
    # A: кот сидел окне смотрел улицу            -> 3-shingles: 3
    # B: кот сидел окне смотрел улицу долго      -> 3-shingles: 4 (3 shared)
    a = "Кот сидел на окне и смотрел на улицу."
    b = "Кот сидел на окне и смотрел на улицу долго!"
    r = compare(a, b, shingle_size=3)
    assert (r.overlap.size_a, r.overlap.size_b, r.overlap.shared) == (3, 4, 3)
    assert r.resemblance == pytest.approx(3 / 4)
    assert r.containment_ab == pytest.approx(1.0)
    assert r.containment_ba == pytest.approx(3 / 4)


def test_compare_english_by_hand() -> None:
    # stop words out: "the", "over", "a" ... ; A: quick brown fox jumps lazy dog
    a = "The quick brown fox jumps over the lazy dog."
    b = "A quick brown fox jumps over a sleepy dog."
    r = compare(a, b, shingle_size=2)
    # A 2-shingles: quick brown, brown fox, fox jumps, jumps lazy, lazy dog
    # B 2-shingles: quick brown, brown fox, fox jumps, jumps sleepy, sleepy dog
    assert (r.overlap.size_a, r.overlap.size_b, r.overlap.shared) == (5, 5, 3)
    assert r.resemblance == pytest.approx(3 / 7)
    assert r.overlap.dice == pytest.approx(6 / 10)


sets_strategy = st.lists(
    st.lists(st.integers(0, 40), max_size=30).map(lambda v: np.unique(np.array(v, np.uint64))),
    min_size=2,
    max_size=8,
)


@settings(derandomize=True, max_examples=80, deadline=None)
@given(sets_strategy, st.data())
def test_batch_intersections_equal_numpy(arrays: list[np.ndarray], data: st.DataObject) -> None:
    sets = ShingleSets.from_arrays(arrays)
    n = len(arrays)
    pairs = np.array(
        data.draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=20))
        or [(0, 1)],
        dtype=np.int64,
    )
    got = intersection_sizes(sets, pairs, chunk=16)
    want = [np.intersect1d(arrays[a], arrays[b]).size for a, b in pairs]
    assert got.tolist() == want


@settings(derandomize=True, max_examples=40, deadline=None)
@given(sets_strategy, st.data())
def test_sets_on_disk_give_the_in_memory_counts(
    tmp_path_factory: pytest.TempPathFactory, arrays: list[np.ndarray], data: st.DataObject
) -> None:
    """Sets in a memory-mapped file (the dedup job's spill) are read in file order first,
    the pairs renumbered into them: the counts are those of the sets in memory, in the
    pairs' order, whatever the chunk."""
    big = [np.unique(a * np.uint64(0x9E3779B97F4A7C15)) for a in arrays]
    big.append(np.array([3, 5], np.uint64))  # a file of at least one value
    sets = ShingleSets.from_arrays(big)
    path = tmp_path_factory.mktemp("spill") / "values.bin"
    sets.values.tofile(path)
    mapped = np.memmap(path, dtype=np.uint64, mode="r", shape=sets.values.shape)
    on_disk = ShingleSets(mapped, sets.offsets)
    n = len(big)
    pairs = np.array(
        data.draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=40))
        or [(n - 1, 0)],
        dtype=np.int64,
    )
    chunk = data.draw(st.sampled_from([1, 16, 1 << 20]))
    assert on_disk.on_disk
    got = intersection_sizes(on_disk, pairs, chunk=chunk)
    assert got.tolist() == intersection_sizes(sets, pairs, chunk=chunk).tolist()
    assert got.tolist() == [np.intersect1d(big[a], big[b]).size for a, b in pairs]


@settings(derandomize=True, max_examples=60, deadline=None)
@given(sets_strategy)
def test_resemblance_symmetric_containment_swaps(arrays: list[np.ndarray]) -> None:
    a, b = arrays[0], arrays[1]
    ab, ba = overlap(a, b), overlap(b, a)
    assert ab.resemblance == ba.resemblance
    assert ab.containment_ab == ba.containment_ba
    assert 0.0 <= ab.resemblance <= min(ab.containment_ab, ab.containment_ba) or ab.shared == 0


@settings(derandomize=True, max_examples=80, deadline=None)
@given(sets_strategy, st.data())
def test_batch_intersections_of_64_bit_fingerprints_equal_numpy(
    arrays: list[np.ndarray], data: st.DataObject
) -> None:
    # values above 2**32: many pairs go through dense labels, few through the lexsort
    big = [np.unique(a * np.uint64(0x9E3779B97F4A7C15)) for a in arrays]
    sets = ShingleSets.from_arrays(big)
    n = len(big)
    pairs = np.array(
        data.draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=40))
        or [(0, 1)],
        dtype=np.int64,
    )
    got = intersection_sizes(sets, pairs, chunk=16)
    assert got.tolist() == [np.intersect1d(big[a], big[b]).size for a, b in pairs]


@settings(derandomize=True, max_examples=60, deadline=None)
@given(sets_strategy, st.data())
def test_64_bit_fingerprints_equal_in_their_top_bits_are_still_told_apart(
    arrays: list[np.ndarray], data: st.DataObject
) -> None:
    """Values that differ only in their lowest bits (the one-sort key drops them) and
    values near 2**64: the exact sort takes over and the counts stay exact."""
    high = [np.unique(np.uint64(0xABCDEF << 40) | a) for a in arrays]
    top = [np.unique(np.uint64(2**64 - 64) + a) for a in arrays]
    n = len(arrays)
    pairs = np.array(
        data.draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=40))
        or [(0, 1)],
        dtype=np.int64,
    )
    for big in (high, top):
        got = intersection_sizes(ShingleSets.from_arrays(big), pairs, chunk=16)
        assert got.tolist() == [np.intersect1d(big[a], big[b]).size for a, b in pairs]


@settings(derandomize=True, max_examples=60, deadline=None)
@given(sets_strategy)
def test_dense_labels_keep_order_and_intersections(arrays: list[np.ndarray]) -> None:
    big = [np.unique(a * np.uint64(0x9E3779B97F4A7C15)) for a in arrays]
    dense = ShingleSets.from_arrays(big).dense_labels()
    distinct = np.unique(np.concatenate(big))
    for i, a in enumerate(big):
        assert dense.get(i).tolist() == np.searchsorted(distinct, a).tolist()
