"""LSH: parameter choice, the S-curve, and candidates that contain every identical pair."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.errors import ParameterError
from neardup.methods.lsh import (
    PREFILTER_MISS,
    RECALL_PROBABILITY,
    BandKeys,
    LSHParams,
    agreement_floor,
    agreement_miss,
    banding_summary,
    byte_agreements,
    key_candidates,
    lean_rows,
    low_bytes,
    lsh_candidates,
    optimal_params,
    recall_params,
)
from neardup.methods.minhash import MinHasher
from neardup.methods.sets import ShingleSets


@pytest.mark.parametrize("t", [0.1, 0.3, 0.5, 0.7, 0.9, 1.0])
def test_optimal_params_fit_and_center_on_threshold(t: float) -> None:
    p = optimal_params(t, 128)
    assert p.bands * p.rows <= 128
    # the S-curve's steepest region sits near t: low below, high above
    assert p.probability(max(t - 0.25, 0.0)) < 0.5 or t <= 0.25
    assert p.probability(min(t + 0.1, 1.0)) > 0.5


def test_probability_formula() -> None:
    p = LSHParams(bands=20, rows=5)
    assert p.probability(0.5) == pytest.approx(1 - (1 - 0.5**5) ** 20)


def test_bad_threshold() -> None:
    with pytest.raises(ParameterError, match="threshold"):
        optimal_params(0.0, 128)


@pytest.mark.parametrize(
    ("t", "k", "probability", "shape"),
    [
        (0.5, 128, 0.995, (40, 3)),  # 1 - (7/8)^40 = 0.99521; (7/8)^39 misses
        (0.6, 128, 0.995, (22, 3)),
        (0.7, 128, 0.995, (20, 4)),
        (0.8, 128, 0.995, (18, 6)),
        (0.9, 128, 0.995, (11, 9)),
        (0.5, 64, 0.995, (19, 2)),  # 3 rows would need 40 bands: 120 > 64 slots
        (0.5, 128, 0.9, (18, 3)),
        (0.5, 256, 0.995, (40, 3)),  # 4 rows would need 83 bands: 332 > 256 slots
        (0.5, 400, 0.995, (83, 4)),
        (1.0, 128, 0.995, (1, 128)),  # equal sketches only
        (0.01, 128, 0.995, (128, 1)),  # out of reach: the highest P(t), 0.724
        (0.5, 1, 0.3, (1, 1)),
    ],
)
def test_recall_params_exact_shapes(
    t: float, k: int, probability: float, shape: tuple[int, int]
) -> None:
    p = recall_params(t, k, probability=probability)
    assert (p.bands, p.rows) == shape


@pytest.mark.parametrize("t", [0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9])
def test_recall_params_is_the_fewest_bands_of_the_most_rows(t: float) -> None:
    p = recall_params(t, 128)
    assert p.bands * p.rows <= 128 and p.probability(t) >= 0.995
    assert LSHParams(p.bands - 1, p.rows).probability(t) < 0.995  # one band fewer misses
    more = p.rows + 1  # one row more misses with every band that fits
    assert LSHParams(128 // more, more).probability(t) < 0.995


def test_recall_params_refuses_bad_arguments() -> None:
    with pytest.raises(ParameterError, match="probability"):
        recall_params(0.5, 128, probability=1.0)
    with pytest.raises(ParameterError, match="num_perm"):
        recall_params(0.5, 0)


def test_minhash_lsh_bands_for_recall_unless_asked_for_the_balanced_point() -> None:
    from neardup.methods.shingle_methods import MinHashLSH

    assert MinHashLSH(threshold=0.5).lsh == LSHParams(40, 3)
    assert MinHashLSH(threshold=0.5, candidate_probability=None).lsh == LSHParams(25, 5)
    assert MinHashLSH(threshold=0.5, candidate_probability=0.995).lsh == LSHParams(40, 3)
    assert MinHashLSH(threshold=0.5, candidate_probability=0.9).lsh == LSHParams(18, 3)
    assert MinHashLSH(threshold=0.5, bands=20, rows=6).lsh == LSHParams(20, 6)
    with pytest.raises(ParameterError, match="candidate_probability"):
        MinHashLSH(threshold=0.5, candidate_probability=1.0)
    recall = MinHashLSH(threshold=0.5, candidate_probability=RECALL_PROBABILITY)
    assert banding_summary(recall, 0.5) == {
        "lsh": {"bands": 40, "rows": 3, "candidate_probability_at_t": 0.99521}
    }
    assert banding_summary(object(), 0.5) == {}


def _pairs_at(resemblance: float, n: int, size: int, seed: int) -> ShingleSets:
    """``n`` pairs of sets of ``size`` random fingerprints each with resemblance exactly
    ``resemblance``: shared ``u`` and ``size - u`` of their own, ``u / (2·size - u)``."""
    u = round(2 * size * resemblance / (1 + resemblance))
    assert u / (2 * size - u) == pytest.approx(resemblance, abs=1e-9)
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        v = rng.choice(2**62, 2 * size - u, replace=False).astype(np.uint64)
        out += [np.sort(v[:size]), np.sort(v[size - u :])]
    return ShingleSets.from_arrays(out)


@pytest.mark.parametrize(("t", "size"), [(0.5, 150), (0.8, 180)])
def test_a_pair_at_the_threshold_is_a_candidate_at_the_promised_rate(t: float, size: int) -> None:
    """2,000 seeded pairs of resemblance exactly t through MinHash-LSH's own sketches and
    bands: at P(t) >= 0.995 about 10 miss (the balanced 25 x 5 at 0.5 missed 45 %); the
    bound (1.25 %) sits 4 standard deviations above the promise."""
    from neardup.methods.shingle_methods import MinHashLSH

    n = 2000
    meth = MinHashLSH(threshold=t, candidate_probability=RECALL_PROBABILITY)
    sketches = meth.hasher.sketches(_pairs_at(t, n, size, seed=7))
    pairs = {tuple(p) for p in lsh_candidates(sketches, meth.lsh).tolist()}
    found = sum((2 * i, 2 * i + 1) in pairs for i in range(n))
    assert n - found <= 25, (n - found, meth.lsh)


def _binomial_below(k: int, t: float, c: int) -> float:
    """``P(X < c)``, ``X ~ Binomial(k, t)``, in exact rational arithmetic."""
    from fractions import Fraction
    from math import comb

    q = Fraction(t)
    return float(sum(comb(k, i) * q**i * (1 - q) ** (k - i) for i in range(c)))


@pytest.mark.parametrize(
    ("t", "k", "floor"),
    [(0.5, 128, 47), (0.8, 128, 88), (0.9, 128, 104), (0.3, 128, 23), (0.5, 64, 20)],
)
def test_agreement_floor_is_the_binomial_bound(t: float, k: int, floor: int) -> None:
    """The floor ``c`` is the largest with ``P(X < c) <= 0.001`` at ``s = t`` (checked in
    exact arithmetic: one more slot would drop more than 0.1 % of the pairs at t)."""
    assert agreement_floor(t, k) == floor
    assert _binomial_below(k, t, floor) <= PREFILTER_MISS < _binomial_below(k, t, floor + 1)
    assert agreement_miss(t, k, floor) == pytest.approx(_binomial_below(k, t, floor), rel=1e-9)


def test_agreement_floor_edges_and_errors() -> None:
    assert agreement_floor(1.0, 128) == 128  # only equal sketches: J = 1 agrees everywhere
    assert agreement_miss(1.0, 128, 128) == 0.0
    assert agreement_floor(0.5, 1) == 0  # one slot: dropping any pair would miss half
    assert agreement_floor(0.5, 128, miss=0.5) == 64
    with pytest.raises(ParameterError, match="miss"):
        agreement_floor(0.5, 128, miss=1.0)
    with pytest.raises(ParameterError, match="threshold"):
        agreement_floor(0.0, 128)
    with pytest.raises(ParameterError, match="floor"):
        agreement_miss(0.5, 128, 129)


def _equal_slots(sketches: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """int (p,): the slots on which the two sketches of each pair are equal."""
    return (sketches[pairs[:, 0]] == sketches[pairs[:, 1]]).sum(axis=1)


def test_byte_agreements_count_equal_low_bytes() -> None:
    # slot values equal (3 of 4), equal in the low byte only (0x101 vs 0x201), unequal
    sk = np.array([[1, 2, 3, 0x101], [1, 2, 0, 0x201], [9, 9, 9, 9]], dtype=np.uint64)
    pairs = np.array([[0, 1], [0, 2], [1, 1], [2, 2]], dtype=np.int64)
    low = low_bytes(sk)
    assert low.shape == (3, 1) and low.dtype == np.uint64  # 4 slots in one word, 4 spare
    assert byte_agreements(low, pairs, 4).tolist() == [3, 0, 4, 4]
    assert _equal_slots(sk, pairs).tolist() == [2, 0, 4, 4]


@pytest.mark.parametrize(
    ("k", "block", "threads"), [(128, 1 << 14, 1), (13, 1 << 14, 1), (128, 7, 3)]
)
def test_byte_agreements_are_the_low_bytes_equal_and_never_fewer_than_the_slots(
    monkeypatch: pytest.MonkeyPatch, k: int, block: int, threads: int
) -> None:
    """Per pair, the slots whose low bytes agree (numpy's count over a uint8 view): at
    least the slots whose values agree, so a prefilter on them keeps every pair the
    sketches keep; 13 slots: a spare byte in the second word; blocks of 7 pairs on 3
    threads: each pair's count in its place."""
    from neardup.methods import lsh

    monkeypatch.setattr(lsh, "_AGREE_ROWS", block)
    monkeypatch.setattr(lsh, "workers", lambda: threads)
    rng = np.random.default_rng(3)
    # values in a few classes of high bits over few low bytes: agreements of both kinds
    sk = (rng.integers(0, 3, size=(500, k), dtype=np.uint64) << np.uint64(8)) | rng.integers(
        0, 4, size=(500, k), dtype=np.uint64
    )
    pairs = rng.integers(0, 500, size=(3000, 2))
    got = byte_agreements(low_bytes(sk), pairs, k)
    low = sk.astype(np.uint8)
    assert got.tolist() == (low[pairs[:, 0]] == low[pairs[:, 1]]).sum(axis=1).tolist()
    assert (got >= _equal_slots(sk, pairs)).all()
    assert (got > _equal_slots(sk, pairs)).any()


@pytest.mark.parametrize(("t", "size"), [(0.5, 150), (0.8, 180), (0.5, 30), (0.5, 12)])
def test_the_prefilter_drops_pairs_at_the_threshold_at_most_at_the_promised_rate(
    t: float, size: int
) -> None:
    """2,000 seeded pairs of resemblance exactly t through MinHash-LSH's sketches: the
    prefilter may drop 0.1 % (2 expected); the bound, 8, sits 4 standard deviations above.
    Sets smaller than the 128 slots (densified sketches, fewer independent trials) are held
    to the floor of their size. Pairs at t - 0.3 of full sketches mostly fall below it."""
    from neardup.methods.shingle_methods import MinHashLSH

    n = 2000
    meth = MinHashLSH(threshold=t)
    pairs = np.arange(2 * n, dtype=np.int64).reshape(n, 2)
    at_t = _pairs_at(t, n, size, seed=11)
    kept = meth.prefilter(meth.from_sets(at_t), pairs, t, sizes=at_t.sizes)
    assert n - int(kept.sum()) <= 8
    if size >= 128:  # a full sketch tells pairs far below t apart
        low = _pairs_at(t - 0.3, n, size, seed=12)
        kept = meth.prefilter(meth.from_sets(low), pairs, t, sizes=low.sizes)
        assert int(kept.sum()) < n // 100


def test_the_prefilter_keeps_the_same_pairs_from_sketches_band_keys_or_low_bytes() -> None:
    """The three forms a job holds (the sketches, the band keys and low bytes of
    ``from_lean_rows``, the low bytes alone as the Dask job's candidate task gets them)
    keep the same pairs: a mix at t and far below it, 1,000 each, and 3,000 pairs of
    strangers, of which some 1 % more than the full sketches' count would keep."""
    from neardup.methods.shingle_methods import MinHashLSH

    t, n = 0.5, 1000
    meth = MinHashLSH(threshold=t)
    sets = ShingleSets.concat([_pairs_at(t, n, 150, seed=21), _pairs_at(0.2, n, 150, seed=22)])
    sigs = meth.from_sets(sets)
    rng = np.random.default_rng(23)
    pairs = np.concatenate(
        [np.arange(4 * n, dtype=np.int64).reshape(2 * n, 2), rng.integers(0, 4 * n, (3000, 2))]
    )
    got = meth.prefilter(sigs, pairs, t, sizes=sets.sizes)
    lean = meth.from_lean_rows(meth.lean_rows(sigs.data))
    assert meth.prefilter(lean, pairs, t, sizes=sets.sizes).tolist() == got.tolist()
    low = dataclasses.replace(sigs, data=low_bytes(sigs.data))
    assert meth.prefilter(low, pairs, t, sizes=sets.sizes, low=True).tolist() == got.tolist()
    kept = int(got.sum())
    assert n - 8 <= kept < n + n // 10  # of 5,000: those at t, and few more
    full = _equal_slots(sigs.data, pairs) >= 47  # the floor of sets of 128 and more
    assert (got >= full).all()  # every pair the full sketches keep


def test_band_keys_refuse_rows_of_another_width_and_the_own_rule() -> None:
    """Rows not of ``lean_rows``' width are refused by name; band keys hold no sketch, so
    the own rule's estimate refuses them, while the grouping keys (the Dask job's) are the
    sketches' own, an empty set's none."""
    from neardup.methods.minhash import EMPTY
    from neardup.methods.shingle_methods import MinHashLSH

    meth = MinHashLSH(threshold=0.5)  # 40 bands of 128 slots: 40 + 16 words
    sk = _sketches(20, 128, 1, 3)  # with a few empty sets' sketches
    sk[7] = EMPTY
    empty = np.all(sk == EMPTY, axis=1)
    with pytest.raises(ParameterError, match=r"rows.*\(n, 56\)"):
        meth.from_lean_rows(sk)
    lean = meth.from_lean_rows(meth.lean_rows(sk))
    assert lean.data.columns.shape == (40, 20) and lean.data.low.shape == (20, 16)
    with pytest.raises(ParameterError, match="signatures"):
        meth.similarity(lean, np.array([[0, 1]]))
    got, want = meth.keys(lean), meth.keys(meth.from_rows(sk))
    assert got.valid.tolist() == want.valid.tolist()
    assert got.valid.tolist() == np.repeat(~empty[:, None], 40, axis=1).tolist()
    assert (got.keys[got.valid] == want.keys[want.valid]).all()


def test_agreement_floors_follow_the_smaller_set() -> None:
    """``ceil(c_m · 128 / m)`` for a smaller set of ``m < 128`` shingles: 40 -> c = 10 of
    40 trials -> 32 of 128 slots; 128 and more -> 47, the full sketch's floor."""
    from neardup.methods.lsh import agreement_floors

    floors = agreement_floors(0.5, 128, np.array([0, 1, 40, 127, 128, 5000]))
    assert floors.tolist() == [0, 0, 32, 47, 47, 47]
    assert agreement_floor(0.5, 40) == 10


def test_candidates_find_near_duplicates_and_skip_strangers() -> None:
    rng = np.random.default_rng(0)
    base = np.unique(rng.integers(0, 2**63, 400, dtype=np.uint64))
    near = np.unique(np.concatenate([base[:380], rng.integers(0, 2**63, 20, dtype=np.uint64)]))
    strangers = [np.unique(rng.integers(0, 2**63, 400, dtype=np.uint64)) for _ in range(30)]
    sets = ShingleSets.from_arrays([base, *strangers, near, np.zeros(0, np.uint64)])
    sk = MinHasher(num_perm=128).sketches(sets)
    pairs = lsh_candidates(sk, optimal_params(0.8, 128))
    assert [0, 31] in pairs.tolist()
    assert all(32 not in p for p in pairs.tolist())  # the empty set is never a candidate
    assert len(pairs) < 5


@settings(derandomize=True, max_examples=200, deadline=None)
@given(
    st.lists(st.integers(0, 7), min_size=0, max_size=60),
    st.sampled_from([0, 1, 2**63 + 5, 2**64 - 1]),
    st.integers(0, 3),
)
def test_equal_groups_are_the_stable_argsort_groups(
    small: list[int], base: int, spread: int
) -> None:
    """Keys that agree in their top bits but not in full (the rare re-split) included."""
    from neardup._array import equal_groups, group_bounds

    keys = np.array([(base + (k << spread * 20)) % 2**64 for k in small], dtype=np.uint64)
    ids = np.arange(keys.shape[0], dtype=np.int64) * 3 + 1
    order = np.argsort(keys, kind="stable")
    starts, sizes = group_bounds(keys[order])
    runs = zip(starts, sizes, strict=True)
    want = sorted(tuple(ids[order][s : s + n]) for s, n in runs if n >= 2)
    members, g_starts, g_sizes = equal_groups(keys, ids)
    got = sorted(tuple(members[s : s + n]) for s, n in zip(g_starts, g_sizes, strict=True))
    assert got == want


@settings(derandomize=True, max_examples=100, deadline=None)
@given(
    st.lists(st.integers(0, 2**64 - 1), min_size=0, max_size=300),
    st.integers(0, 40),
    st.integers(0, 40),
)
def test_repeated_groups_are_the_equal_groups(keys_: list[int], dups: int, near: int) -> None:
    """The kernel's screen changes no group, member or member order: repeated keys,
    singletons and keys that share their top bits with another (the screen's bitmap slot)
    without being equal."""
    from neardup._array import equal_groups
    from neardup.methods import kernel, lsh

    if kernel.compiled() is None:
        pytest.skip(kernel.missing_reason())
    keys = np.array(keys_, dtype=np.uint64)
    if keys.size:
        rng = np.random.default_rng(dups * 41 + near)
        keys[rng.integers(0, keys.size, dups)] = keys[rng.integers(0, keys.size, dups)]
        at = rng.integers(0, keys.size, near)  # same top bits, other low bits
        keys[at] = keys[rng.integers(0, keys.size, near)] ^ np.uint64(1 << 20)
    ids = np.arange(keys.size, dtype=np.int64) * 7 + 2

    def groups(found: tuple[np.ndarray, np.ndarray, np.ndarray]) -> list[tuple[int, ...]]:
        members, starts, sizes = found
        return sorted(tuple(members[a : a + n]) for a, n in zip(starts, sizes, strict=True))

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(lsh, "_KERNEL_ROWS", 0)
        assert groups(lsh.repeated_groups(keys, ids)) == groups(equal_groups(keys, ids))


def test_the_repeat_pass_marks_every_repeated_key_and_spares_lone_slots() -> None:
    from neardup.methods import kernel

    compiled = kernel.compiled()
    if compiled is None:
        pytest.skip(kernel.missing_reason())
    bits = 12
    top = np.array([5, 9, 9, 700, 5, 4095, 8, 8], dtype=np.uint64) << np.uint64(64 - bits)
    keys = top | np.array([1, 2, 2, 3, 4, 5, 6, 7], dtype=np.uint64)  # 9: equal; 5, 8: top only
    mark = np.empty(keys.size, dtype=np.uint8)
    scratch = np.full(2 << (bits - 6), 2**64 - 1, dtype=np.uint64)  # zeroed by the pass
    compiled.repeat_pass(keys, bits, scratch, mark)
    assert mark.tolist() == [1, 1, 1, 0, 1, 0, 1, 1]


@pytest.mark.parametrize("chunk", [1, 7, 1000])
def test_band_keys_do_not_depend_on_the_chunk_or_a_memory_map(tmp_path: Path, chunk: int) -> None:
    from neardup.methods.lsh import LSHParams, band_keys

    rng = np.random.default_rng(5)
    sketches = rng.integers(0, 2**64 - 1, size=(50, 16), dtype=np.uint64)
    params = LSHParams(bands=3, rows=4)  # 12 of the 16 columns
    whole = band_keys(sketches, params, chunk=10**6)
    path = tmp_path / "sketches.u64"
    sketches.tofile(path)
    mapped = np.memmap(path, dtype=np.uint64, mode="r", shape=sketches.shape)
    assert np.array_equal(band_keys(sketches, params, chunk=chunk), whole)
    assert np.array_equal(band_keys(mapped, params, chunk=chunk), whole)
    sketches[:, 12:] = 0  # columns past bands*rows play no part
    assert np.array_equal(band_keys(sketches, params, chunk=chunk), whole)
    sketches[3, 5] ^= 1  # one row of band 1 of document 3 changes that key only
    changed = band_keys(sketches, params, chunk=chunk) != whole
    assert changed.sum() == 1 and changed[3, 1]


sketch_arrays = st.builds(
    lambda n, k, seed, dups: _sketches(n, k, seed, dups),
    st.integers(0, 300),
    st.sampled_from([1, 5, 16, 128, 130]),
    st.integers(0, 2**32),
    st.integers(0, 40),
)


def _sketches(n: int, k: int, seed: int, dups: int) -> np.ndarray:
    """Random sketches with ``dups`` rows copied over others, and a few all-EMPTY rows."""
    from neardup.methods.minhash import EMPTY

    rng = np.random.default_rng(seed)
    out = rng.integers(0, 2**64 - 1, size=(n, k), dtype=np.uint64, endpoint=True)
    if n:
        out[rng.integers(0, n, dups)] = out[rng.integers(0, n, dups)]
        out[rng.integers(0, n, min(n, 2))] = EMPTY
    return out


@settings(max_examples=60, deadline=None)
@given(sketch_arrays, st.sampled_from([0.3, 0.5, 0.8, 1.0]), st.sampled_from([1, 3]))
def test_the_compiled_band_pass_and_threads_change_no_candidate(
    sketches: np.ndarray, t: float, threads: int
) -> None:
    """Band keys and candidates are the same bytes with the kernel's band pass (on any
    number of threads) and with the numpy path on one."""
    from neardup.methods import kernel, lsh

    if kernel.compiled() is None:
        pytest.skip(kernel.missing_reason())
    params = optimal_params(t, 128)
    params = (
        LSHParams(min(params.bands, sketches.shape[1]), 1) if sketches.shape[1] < 128 else params
    )
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("NEARDUP_KERNEL", "python")
        mp.setattr(lsh, "workers", lambda: 1)
        keys = lsh.band_keys(sketches, params)
        want = lsh_candidates(sketches, params, max_bucket=3)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("NEARDUP_KERNEL", "auto")
        mp.setattr(lsh, "workers", lambda: threads)
        mp.setattr(lsh, "_KEY_ROWS", 64)  # several row blocks
        mp.setattr(lsh, "_THREAD_ROWS", 0)  # threads however small the input
        mp.setattr(lsh, "_KERNEL_ROWS", 0)  # the compiled band pass however small too
        assert lsh.band_keys(sketches, params).tobytes() == keys.tobytes()
        assert lsh.band_columns(sketches, params).tobytes() == keys.T.copy().tobytes()
        got = lsh_candidates(sketches, params, max_bucket=3)
    assert got.dtype == want.dtype and got.tobytes() == want.tobytes()


def test_a_memory_mapped_sketch_takes_the_band_pass(tmp_path: Path) -> None:
    from neardup.methods import kernel, lsh

    if kernel.compiled() is None:
        pytest.skip(kernel.missing_reason())
    sketches = _sketches(500, 128, 3, 30)
    path = tmp_path / "rows.u64"
    sketches.tofile(path)
    mapped = np.memmap(path, dtype=np.uint64, mode="r", shape=sketches.shape)
    params = optimal_params(0.5, 128)
    assert (
        lsh.band_columns(mapped, params).tobytes() == lsh.band_columns(sketches, params).tobytes()
    )
    assert lsh_candidates(mapped, params).tolist() == lsh_candidates(sketches, params).tolist()


@pytest.mark.parametrize(("jobs", "pools"), [(1, []), (3, [3]), (None, [8])])
def test_the_threaded_band_grouping_follows_the_jobs_of_the_dedup_job(
    monkeypatch: pytest.MonkeyPatch, jobs: int | None, pools: list[int]
) -> None:
    """``dedup(jobs=1)`` groups the LSH bands in its own thread (it used a pool of every
    core before); ``jobs=3``: a pool of 3 threads; no ``jobs``: of every core (8 here)."""
    import concurrent.futures
    import os

    from neardup import dedup
    from neardup.methods import lsh
    from neardup.text.types import Document

    made: list[int] = []

    class Recorded(concurrent.futures.ThreadPoolExecutor):
        def __init__(self, max_workers: int, thread_name_prefix: str = "") -> None:
            if thread_name_prefix.startswith("neardup-lsh"):
                made.append(max_workers)
            super().__init__(max_workers=max_workers, thread_name_prefix=thread_name_prefix)

    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: set(range(8)), raising=False)
    monkeypatch.setattr(lsh, "_THREAD_ROWS", 0)  # threads however small the input
    monkeypatch.setattr(concurrent.futures, "ThreadPoolExecutor", Recorded)
    words = [f"w{i}" for i in range(3000)]
    docs = [Document(f"d{i}", " ".join(words[7 * i : 7 * i + 200])) for i in range(40)]
    docs.append(Document("copy", docs[5].text))
    result = dedup(docs, method="minhash-lsh", jobs=jobs)
    assert ("d5", "copy") in {(p.a, p.b) for p in result.pairs}
    assert made == pools


def test_a_thread_limit_below_one_is_refused() -> None:
    from neardup.methods import lsh

    with pytest.raises(ParameterError, match="threads"), lsh.thread_limit(0):
        pass


@settings(max_examples=60, deadline=None)
@given(
    sketch_arrays,
    st.sampled_from([0.3, 0.5, 0.8]),
    st.sampled_from([1, 3]),
    st.sampled_from([None, 2]),
)
def test_band_keys_give_the_candidates_the_sketches_give(
    sketches: np.ndarray, t: float, threads: int, max_bucket: int | None
) -> None:
    """Candidates from the band keys of :func:`lean_rows` (read back a block of 64 rows at
    a time, on threads) are the sketches' own, to the byte: the same buckets, the same
    stars of a large one, no all-EMPTY row; the low bytes are the sketches'."""
    from neardup.methods import lsh
    from neardup.methods.minhash import EMPTY

    k = sketches.shape[1]
    params = recall_params(t, k) if k >= 16 else LSHParams(k, 1)
    want = lsh_candidates(sketches, params, max_bucket=max_bucket)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(lsh, "workers", lambda: threads)
        mp.setattr(lsh, "_KEY_ROWS", 64)
        mp.setattr(lsh, "_THREAD_ROWS", 0)
        keys = BandKeys.from_rows(lean_rows(sketches, params), params, k)
        got = key_candidates(keys, max_bucket=max_bucket)
    assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
    assert keys.low.tobytes() == low_bytes(sketches).tobytes()
    assert keys.empty.tolist() == np.flatnonzero((sketches == EMPTY).all(axis=1)).tolist()


def test_band_keys_read_from_a_memory_map(tmp_path: Path) -> None:
    """Lean rows in a spill file (a memory map, as a large job holds them) give the keys
    the rows in memory give."""
    sketches = _sketches(500, 128, 4, 40)
    params = recall_params(0.5, 128)
    rows = lean_rows(sketches, params)
    path = tmp_path / "lean.u64"
    rows.tofile(path)
    mapped = np.memmap(path, dtype=np.uint64, mode="r", shape=rows.shape)
    got = BandKeys.from_rows(mapped, params, 128)
    want = BandKeys.from_rows(rows, params, 128)
    assert got.columns.tobytes() == want.columns.tobytes()
    assert got.low.tobytes() == want.low.tobytes()
    assert key_candidates(got).tolist() == lsh_candidates(sketches, params).tolist()
