"""MinHash-LSH: banding of sketches into hash tables, and the choice of bands and rows.

A sketch of ``k`` slots is cut into ``b`` bands of ``r`` rows (``b·r <= k``); two
documents become candidates when all ``r`` rows of at least one band agree. For a pair of
resemblance ``s`` the probability is ``P(s) = 1 - (1 - s^r)^b`` (Leskovec, Rajaraman &
Ullman, *Mining of Massive Datasets*, §3.4; the super-shingle formula (3) of Zagorulko et al. 2013
is
the same curve read for "at least two bands").

:func:`optimal_params` picks ``(b, r)`` for a threshold ``t`` by minimising
``w_fp · ∫_0^t P(s) ds + w_fn · ∫_t^1 (1 - P(s)) ds``, the weighted false-positive and
false-negative areas (the rule datasketch's ``MinHashLSH`` uses), over every ``b·r <= k``
at once, so any threshold in (0, 1] works.

Indexes return *candidates*: verification decides.

:func:`recall_params` is the rule for candidates that are then decided one by one (every
neardup job, collection and Index: the exact sets under ``verified``, the sketch estimate
under ``own``): a false candidate costs one comparison, a missed pair is lost for good, so
it takes the most rows ``r`` (the fewest false candidates) for which some ``b <= k // r``
bands make a pair at ``s = t`` a candidate with probability ``>= probability`` (0.995 by
default: 40 bands x 3 rows at t = 0.5, k = 128), and the fewest such bands.
:func:`optimal_params` (the balanced point) suits an index whose candidates are reported
unchecked.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, TypeVar

import numpy as np

from neardup._array import (
    U64,
    equal_groups,
    fmix64,
    fmix64_into,
    pair_codes,
    pairs_in_groups,
    pairs_of_codes,
    sorted_unique,
)
from neardup.errors import ParameterError, check_float, check_int

T = TypeVar("T")
R = TypeVar("R")
_GRID = 1001
#: Documents :func:`band_keys` hashes at a time (bounds its temporary arrays).
_KEY_ROWS = 1 << 16
#: Most bands whose keys a thread of :func:`lsh_candidates` holds at a time.
_BAND_RUN = 8
#: Documents from which :func:`lsh_candidates` groups its bands on several threads.
_THREAD_ROWS = 1 << 14
#: Documents from which :func:`band_keys` and :func:`band_columns` take the compiled band
#: pass: fewer (a one-file check) are hashed by numpy without loading the kernel module
#: (the same keys; start-up, issue 28).
_KERNEL_ROWS = 32


@dataclass(frozen=True, slots=True)
class LSHParams:
    """Bands and rows of an LSH index.

    Attributes:
        bands: number of bands ``b``; rows: rows per band ``r``; ``b·r <= num_perm``.
    """

    bands: int
    rows: int

    def probability(self, s: float | np.ndarray) -> float | np.ndarray:
        """``P(candidate | resemblance s) = 1 - (1 - s^r)^b``."""
        return 1.0 - (1.0 - np.asarray(s, dtype=float) ** self.rows) ** self.bands


def optimal_params(
    threshold: float, num_perm: int, *, fp_weight: float = 0.5, fn_weight: float = 0.5
) -> LSHParams:
    """Bands and rows that minimise the weighted false-positive and false-negative areas.

    Args:
        threshold: resemblance threshold ``t`` in (0, 1].
        num_perm: sketch length ``k`` (>= 1).
        fp_weight: weight of the false-positive area, >= 0.
        fn_weight: weight of the false-negative area, >= 0 (not both zero).

    Returns:
        The best :class:`LSHParams` (ties: more bands).

    Raises:
        ParameterError: an argument is out of range.
    """
    t = check_float("threshold", threshold, low=0.0, high=1.0, low_open=True)
    k = check_int("num_perm", num_perm, low=1, high=4096)
    check_float("fp_weight", fp_weight, low=0.0, high=1e9)
    check_float("fn_weight", fn_weight, low=0.0, high=1e9)
    if fp_weight + fn_weight == 0:
        raise ParameterError("fp_weight+fn_weight", 0, "a positive sum")
    return _optimal(t, k, float(fp_weight), float(fn_weight))


@lru_cache(maxsize=256)
def _optimal(t: float, k: int, fp_weight: float, fn_weight: float) -> LSHParams:
    """:func:`optimal_params` of checked arguments, computed once a process (about 50 ms at
    k = 128: each Dask task unpickles its own method object)."""
    b, r = _all_shapes(k)
    s = np.linspace(0.0, 1.0, _GRID)
    p = 1.0 - (1.0 - s[None, :] ** r[:, None]) ** b[:, None]
    below, above = s <= t, s >= t
    fp = np.trapezoid(np.where(below, p, 0.0), s, axis=1)
    fn = np.trapezoid(np.where(above, 1.0 - p, 0.0), s, axis=1)
    cost = fp_weight * fp + fn_weight * fn
    best = int(np.lexsort((-b, cost))[0])
    return LSHParams(bands=int(b[best]), rows=int(r[best]))


def banding_summary(method: Any, threshold: float) -> dict[str, Any]:
    """``{"lsh": {"bands", "rows", "candidate_probability_at_t"}}`` for a method with LSH
    bands (its ``lsh``, an :class:`LSHParams`): the S-curve's point at the job's
    ``threshold``, for a job's ``summary.json``; ``{}`` for any other method."""
    params = getattr(method, "lsh", None)
    if not isinstance(params, LSHParams):
        return {}
    p = float(params.probability(threshold))
    return {"lsh": {"bands": params.bands, "rows": params.rows,
                    "candidate_probability_at_t": round(p, 6)}}  # fmt: skip


#: Default probability that a pair of resemblance ``t`` becomes a candidate
#: (:func:`recall_params`).
RECALL_PROBABILITY = 0.995


def recall_params(
    threshold: float, num_perm: int, *, probability: float = RECALL_PROBABILITY
) -> LSHParams:
    """Bands and rows that make a pair of resemblance ``threshold`` a candidate with at
    least ``probability``, with the fewest false candidates.

    Among the shapes ``b·r <= num_perm`` with ``P(t) = 1 - (1 - t^r)^b >= probability``,
    the one with the most rows ``r`` (a band of more rows lets fewer dissimilar pairs
    through), then the fewest bands (fewer keys to hash and store). When no shape reaches
    ``probability`` (a low threshold with few permutations), ``num_perm`` bands of one row,
    the highest ``P(t)`` the sketch allows (:meth:`LSHParams.probability` tells how high).

    Args:
        threshold: resemblance threshold ``t`` in (0, 1].
        num_perm: sketch length ``k``, 1-4096.
        probability: the least ``P(t)``, in (0, 1).

    Returns:
        The :class:`LSHParams`; e.g. 40 x 3 at ``t = 0.5, k = 128`` (``P(t) = 0.9952``).

    Raises:
        ParameterError: an argument is out of range.
    """
    t = check_float("threshold", threshold, low=0.0, high=1.0, low_open=True)
    k = check_int("num_perm", num_perm, low=1, high=4096)
    p = check_float("probability", probability, low=0.0, high=1.0, low_open=True)
    if p >= 1.0:
        raise ParameterError("probability", probability, "a number in (0, 1)")
    return _recall(t, k, p)


@lru_cache(maxsize=256)
def _recall(t: float, k: int, probability: float) -> LSHParams:
    for r in range(k, 0, -1):
        miss = 1.0 - t**r  # one band misses the pair with this probability
        if miss <= 0.0:
            return LSHParams(bands=1, rows=r)
        if miss >= 1.0:
            continue
        # the fewest bands with 1 - miss^b >= probability; float rounding checked directly
        b = max(1, int(np.ceil(np.log1p(-probability) / np.log(miss))))
        while b > 1 and 1.0 - miss ** (b - 1) >= probability:
            b -= 1
        while b <= k // r and 1.0 - miss**b < probability:
            b += 1
        if b <= k // r:
            return LSHParams(bands=b, rows=r)
    return LSHParams(bands=k, rows=1)


def _all_shapes(k: int) -> tuple[np.ndarray, np.ndarray]:
    bs, rs = [], []
    for b in range(1, k + 1):
        for r in range(1, k // b + 1):
            bs.append(b)
            rs.append(r)
    return np.array(bs), np.array(rs)


def band_keys(
    sketches: np.ndarray, params: LSHParams, *, chunk: int = _KEY_ROWS, threaded: bool = True
) -> np.ndarray:
    """One 64-bit key per (document, band): the hash of the band's ``r`` rows.

    Args:
        sketches: uint64 array, shape (n, k) with ``k >= bands·rows`` (in memory or a
            memory map: it is read ``chunk`` documents at a time).
        chunk: documents hashed at a time (bounds the temporary arrays).
        threaded: the compiled pass on :func:`workers` threads (False: on this one, as
            in a worker process of a job, whose cores are taken by its siblings).

    Returns:
        uint64 array, shape (n, bands). Keys of different bands are salted apart.
    """
    n = sketches.shape[0]
    b, r = params.bands, params.rows
    if sketches.shape[1] < b * r:
        raise ParameterError("bands*rows", b * r, f"at most the sketch length {sketches.shape[1]}")
    out = np.empty((n, b), dtype=U64)
    salts = _salts(b)
    kernel = _band_kernel(n)
    if kernel is not None:
        _compiled_bands(kernel, sketches, r, salts, out, by_band=False, threaded=threaded)
        return out
    for lo in range(0, n, chunk):
        _hash_bands(sketches[lo : lo + chunk, : b * r], r, salts, out[lo : lo + chunk])
    return out


def band_columns(sketches: np.ndarray, params: LSHParams) -> np.ndarray:
    """:func:`band_keys` transposed: uint64 (bands, n), each band's keys contiguous (what
    :func:`lsh_candidates` sorts band by band)."""
    b, r = params.bands, params.rows
    if sketches.shape[1] < b * r:
        raise ParameterError("bands*rows", b * r, f"at most the sketch length {sketches.shape[1]}")
    return _columns(sketches, r, _salts(b))


def _columns(
    sketches: np.ndarray, r: int, salts: np.ndarray, *, threaded: bool = True
) -> np.ndarray:
    """uint64 (len(salts), n): the keys of the bands on ``sketches``' first
    ``len(salts)·r`` columns, band ``j`` salted by ``salts[j]`` (a run of bands of
    :func:`band_columns` when ``sketches`` is a column slice and ``salts`` a slice);
    ``threaded``: the kernel's pass on :func:`workers` threads, else on this one."""
    n, b = sketches.shape[0], salts.shape[0]
    kernel = _band_kernel(n)
    if kernel is None:
        rows = np.empty((n, b), dtype=U64)
        for lo in range(0, n, _KEY_ROWS):
            _hash_bands(sketches[lo : lo + _KEY_ROWS, : b * r], r, salts, rows[lo : lo + _KEY_ROWS])
        return np.ascontiguousarray(rows.T)
    out = np.empty((b, n), dtype=U64)
    _compiled_bands(kernel, sketches, r, salts, out, by_band=True, threaded=threaded)
    return out


def _salts(b: int) -> np.ndarray:
    return fmix64(np.arange(b, dtype=U64) + np.uint64(0xA5A5))


def _band_kernel(n: int) -> Any:
    """The compiled kernel module for ``n`` sketches when it is built, ``NEARDUP_KERNEL``
    allows it and ``n >= _KERNEL_ROWS`` (its ``band_pass`` equals :func:`_hash_bands`,
    tests/methods/test_lsh.py), else None (fewer sketches: numpy, no kernel import)."""
    if n < _KERNEL_ROWS:
        return None
    from neardup.methods.kernel import compiled, requested

    return None if requested() == "python" else compiled()


def _compiled_bands(
    kernel: Any,
    sketches: np.ndarray,
    r: int,
    salts: np.ndarray,
    out: np.ndarray,
    *,
    by_band: bool,
    threaded: bool = True,
) -> None:
    """The kernel's band pass over row blocks, on :func:`workers` threads when
    ``threaded`` (it releases the GIL; each block writes its own part of ``out``)."""
    n = sketches.shape[0]
    view = sketches if sketches.dtype == U64 else sketches.astype(U64)
    blocks = [(lo, min(n, lo + _KEY_ROWS)) for lo in range(0, n, _KEY_ROWS)]

    def run(block: tuple[int, int]) -> None:
        lo, hi = block
        part = out[:, lo:hi] if by_band else out[lo:hi]
        if by_band:
            tmp = np.empty((out.shape[0], hi - lo), dtype=U64)
            kernel.band_pass(view[lo:hi], r, salts, tmp, True)
            part[:] = tmp
        else:
            kernel.band_pass(view[lo:hi], r, salts, part, False)

    if threaded:
        thread_map(run, blocks)
    else:
        for block in blocks:
            run(block)


#: The job's thread limit (its ``jobs``), set by :func:`thread_limit`; None: every core.
_THREADS: ContextVar[int | None] = ContextVar("neardup_lsh_threads", default=None)


@contextlib.contextmanager
def thread_limit(threads: int | None) -> Iterator[None]:
    """Within the block, the threaded band grouping and band keys of this context use at
    most ``threads`` threads (a job's ``jobs``, ``--jobs``); None: the cores it may use.

    Raises:
        ParameterError: ``threads`` is below 1.
    """
    if threads is not None:
        check_int("threads", threads, low=1)
    token = _THREADS.set(threads)
    try:
        yield
    finally:
        _THREADS.reset(token)


def workers() -> int:
    """Threads the candidate stage runs on: the cores this process may use, at most the
    :func:`thread_limit` in force."""
    try:
        cores = max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        cores = max(1, os.cpu_count() or 1)
    limit = _THREADS.get()
    return cores if limit is None else min(cores, limit)


def thread_map(fn: Callable[[T], R], items: Sequence[T]) -> list[R]:
    """``[fn(x) for x in items]``, on :func:`workers` threads when there are several items
    (numpy's sorts and the kernel release the GIL); results in ``items`` order."""
    count = min(workers(), len(items))
    if count <= 1:
        return [fn(x) for x in items]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=count, thread_name_prefix="neardup-lsh") as pool:
        return list(pool.map(fn, items))


def _hash_bands(part: np.ndarray, r: int, salts: np.ndarray, h: np.ndarray) -> None:
    """``h = fmix64(h * C ^ row)`` over each band's rows, in place in ``h`` (m, bands)."""
    m, b = h.shape
    rows = part.reshape(m, b, r)  # a view: the rows are read in place
    h[:] = salts
    tmp = np.empty_like(h)
    with np.errstate(over="ignore"):
        for j in range(r):
            h *= np.uint64(0x9E3779B97F4A7C15)
            h ^= rows[:, :, j]
            fmix64_into(h, tmp)


def lsh_candidates(
    sketches: np.ndarray, params: LSHParams, *, max_bucket: int | None = 1000
) -> np.ndarray:
    """Candidate pairs: documents that share a bucket in at least one band.

    Args:
        sketches: uint64 (n, k) sketches; rows that are all ``EMPTY`` (empty sets) never
            become candidates.
        params: bands and rows.
        max_bucket: buckets larger than this give star pairs only (see
            :func:`neardup._array.pairs_in_groups`), bounding the output.

    Returns:
        int64 array, shape (p, 2), unique, ``a < b``.
    """
    n = sketches.shape[0]
    from neardup.methods.minhash import EMPTY

    maybe_empty = np.flatnonzero(sketches[:, 0] == EMPTY)  # few rows: check them in full
    empty = maybe_empty[np.all(sketches[maybe_empty] == EMPTY, axis=1)]
    b, r = params.bands, params.rows
    if sketches.shape[1] < b * r:
        raise ParameterError("bands*rows", b * r, f"at most the sketch length {sketches.shape[1]}")
    salts = _salts(b)

    def columns(lo: int, hi: int) -> np.ndarray:
        """Bands ``lo..hi``'s keys, made here (a run's keys at a time bound the memory:
        8 MB a band a million documents)."""
        return _columns(sketches[:, lo * r : hi * r], r, salts[lo:hi], threaded=False)

    return band_pairs(columns, n, b, empty, max_bucket)


def band_pairs(
    columns: Callable[[int, int], np.ndarray],
    n: int,
    b: int,
    empty: np.ndarray,
    max_bucket: int | None,
) -> np.ndarray:
    """The pairs of :func:`lsh_candidates` (and :func:`key_candidates`, and the Dask job's
    one candidate task): ``columns(lo, hi)`` gives uint64 (hi - lo, n), the keys of bands
    ``lo..hi``; ``empty``: int64, the documents that are never candidates. Runs of bands
    on :func:`workers` threads, in band order; each run's pairs sorted and made unique on
    its thread, then the runs merged (ten million documents, 50 million candidates: the one
    sort of every band's pairs on one thread had taken about 9 s of the candidate stage's
    19-24, 2026-12-05).

    Returns:
        int64 (p, 2): the pairs of documents sharing a key in some band (a bucket larger
        than ``max_bucket`` a star from its first member), ``a < b``, sorted, unique.
    """
    live = np.setdiff1d(np.arange(n), empty, assume_unique=True) if empty.size else np.arange(n)
    threads = workers() if n >= _THREAD_ROWS else 1
    count = threads * -(-b // (threads * _BAND_RUN))  # runs of <= _BAND_RUN bands, even
    edges = [b * i // count for i in range(count + 1)]

    def run(i: int) -> np.ndarray:
        """The sorted unique codes (:func:`~neardup._array.pair_codes`) of a run's pairs."""
        lo, hi = edges[i], edges[i + 1]
        keys = columns(lo, hi)
        if live.size != n:
            keys = keys[:, live]
        out = [np.zeros(0, np.int64)]
        for j in range(hi - lo):
            members, starts, sizes = repeated_groups(keys[j], live)
            pairs = pairs_in_groups(members, starts, sizes, max_group=max_bucket)
            out.append(pair_codes(pairs, n))
        return sorted_unique(np.concatenate(out))

    runs = range(count)  # on workers() threads, in band order (not when small)
    found = list(thread_map(run, runs) if threads > 1 else map(run, runs))
    return pairs_of_codes(sorted_unique(np.concatenate(found), runs=True), n)


@dataclass(frozen=True, eq=False)
class BandKeys:
    """What an exactly verified MinHash-LSH job keeps of its sketches: the band keys its
    candidates come from and the low bytes its prefilter counts (:func:`lean_rows`, made in
    the worker processes; 448 bytes a document at 40 bands of 128 slots, against 1,024 for
    the sketch, which a ten-million-document job wrote to a spill file and read back).

    Attributes:
        columns: uint64 (bands, n): band ``j``'s keys (:func:`band_keys`), contiguous.
        low: uint64 (n, ceil(k / 8)): the sketches' low bytes (:func:`low_bytes`).
        empty: int64 (e,): the documents whose sets are empty (never candidates).
    """

    columns: np.ndarray
    low: np.ndarray
    empty: np.ndarray

    def __len__(self) -> int:
        return int(self.low.shape[0])

    def __sizeof__(self) -> int:
        """Bytes held: the three arrays (Dask weighs a task's result by ``sys.getsizeof``)."""
        held = self.columns.nbytes + self.low.nbytes + self.empty.nbytes
        return object.__sizeof__(self) + int(held)

    @classmethod
    def from_rows(cls, rows: np.ndarray, params: LSHParams, num_perm: int) -> BandKeys:
        """The keys of stacked :func:`lean_rows` (in memory or a memory map, read once, a
        block of rows at a time on :func:`workers` threads).

        Raises:
            ParameterError: ``rows`` is not uint64 (n, bands + ceil(num_perm / 8)).
        """
        b, words = params.bands, -(-num_perm // 8)
        if rows.ndim != 2 or rows.shape[1] != b + words or rows.dtype != U64:
            got = f"{rows.dtype}{rows.shape}"
            raise ParameterError("rows", got, f"uint64 (n, {b + words}) from lean_rows")
        n = rows.shape[0]
        columns = np.empty((b, n), dtype=U64)
        low = np.empty((n, words), dtype=U64)

        def run(lo: int) -> None:
            part = rows[lo : lo + _KEY_ROWS]
            columns[:, lo : lo + part.shape[0]] = part[:, :b].T
            low[lo : lo + part.shape[0]] = part[:, b:]

        thread_map(run, range(0, n, _KEY_ROWS))
        none = _empty_keys(params)
        maybe = np.flatnonzero(columns[0] == none[0]) if n else np.zeros(0, np.int64)
        empty = maybe[np.all(columns[:, maybe] == none[:, None], axis=0)]
        return cls(columns, low, empty.astype(np.int64))


def _empty_keys(params: LSHParams) -> np.ndarray:
    """uint64 (bands,): the band keys of an empty set's sketch (every slot ``EMPTY``)."""
    from neardup.methods.minhash import EMPTY

    return band_keys(np.full((1, params.bands * params.rows), EMPTY, dtype=U64), params)[0]


def lean_rows(sketches: np.ndarray, params: LSHParams) -> np.ndarray:
    """uint64 (n, bands + ceil(k / 8)): each sketch's :func:`band_keys` then its
    :func:`low_bytes`, one row a document (what :meth:`BandKeys.from_rows` reads), made on
    this thread (a job's worker process)."""
    return np.hstack([band_keys(sketches, params, threaded=False), low_bytes(sketches)])


def key_candidates(keys: BandKeys, *, max_bucket: int | None = 1000) -> np.ndarray:
    """:func:`lsh_candidates` from the band keys themselves: the same pairs as from the
    sketches they were made of. int64 (p, 2), unique, ``a < b``."""
    b, n = keys.columns.shape
    return band_pairs(lambda lo, hi: keys.columns[lo:hi], n, b, keys.empty, max_bucket)


#: Most bits of the bitmaps :func:`repeated_groups` screens keys with (2 x 8 MiB).
_REPEAT_BITS = 26


def repeated_groups(keys: np.ndarray, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The groups of two or more equal keys, as :func:`neardup._array.equal_groups` finds
    them (the same groups, each with its ids in input order), sorting only the keys that
    can repeat.

    Most band keys of a corpus occur once. With the compiled kernel (from
    ``_KERNEL_ROWS`` keys on), its ``repeat_pass`` marks every key whose top ``bits`` bits
    (``bits = log2(m) + 3``, at most 26) another key shares, in two passes over two bitmaps;
    a key occurring twice is always marked, and about one singleton in eight with it. Only
    the marked keys are sorted: at a million keys about a tenth of them, four times faster
    than sorting all (the candidate stage's main cost). Without the kernel, every key is
    sorted (:func:`~neardup._array.equal_groups`, the reference).

    Args:
        keys: uint64 (m,) keys (hashes: their top bits spread evenly); ids: int64 (m,),
            the id of each key's owner.

    Returns:
        ``(members, starts, sizes)`` as :func:`neardup._array.pairs_in_groups` takes them;
        groups ordered by key.
    """
    m = keys.shape[0]
    kernel = _band_kernel(m)
    if kernel is None:
        return equal_groups(keys, ids)
    bits = min(_REPEAT_BITS, max(12, int(m - 1).bit_length() + 3))
    view = np.ascontiguousarray(keys, dtype=U64)
    mark = np.empty(m, dtype=np.uint8)
    kernel.repeat_pass(view, bits, np.empty(2 << (bits - 6), dtype=U64), mark)
    kept = np.flatnonzero(mark)
    return equal_groups(view[kept], ids[kept])


#: Largest probability that :func:`agreement_floor` drops a candidate of resemblance ``t``.
PREFILTER_MISS = 0.001
#: Candidate pairs :func:`byte_agreements` compares at a time (bounds its gathers).
_AGREE_ROWS = 1 << 14


def agreement_floor(threshold: float, num_perm: int, *, miss: float = PREFILTER_MISS) -> int:
    """The least number of agreeing sketch slots a candidate needs to be verified.

    The slots of two MinHash sketches agree independently with probability ``s``, the pair's
    resemblance, so the count ``X`` of agreeing slots of ``k`` is ``Binomial(k, s)``
    (Broder 1997; one-permutation hashing with optimal densification has about the same
    variance, Shrivastava 2017). The floor is the largest ``c`` with
    ``P(X < c | s = t) <= miss``: a pair at the threshold is dropped with probability at
    most ``miss``, a pair above it with less (``X`` grows with ``s``).

    Args:
        threshold: resemblance threshold ``t`` in (0, 1].
        num_perm: sketch length ``k``, 1-4096.
        miss: the largest probability of dropping a pair at ``t``, in (0, 1).

    Returns:
        ``c`` in ``0..k``; e.g. 47 at ``t = 0.5, k = 128`` (an estimate below 0.367 is dropped).

    Raises:
        ParameterError: an argument is out of range.
    """
    t = check_float("threshold", threshold, low=0.0, high=1.0, low_open=True)
    k = check_int("num_perm", num_perm, low=1, high=4096)
    m = check_float("miss", miss, low=0.0, high=1.0, low_open=True)
    if m >= 1.0:
        raise ParameterError("miss", miss, "a number in (0, 1)")
    return _floor(t, k, m)


def agreement_miss(threshold: float, num_perm: int, floor: int) -> float:
    """``P(X < floor)`` for ``X ~ Binomial(num_perm, threshold)``: the probability that a pair
    at the threshold has fewer than ``floor`` agreeing slots (:func:`agreement_floor`)."""
    t = check_float("threshold", threshold, low=0.0, high=1.0, low_open=True)
    k = check_int("num_perm", num_perm, low=1, high=4096)
    c = check_int("floor", floor, low=0, high=k)
    return float(_below(t, k)[c - 1]) if c > 0 else 0.0


@lru_cache(maxsize=256)
def _below(t: float, k: int) -> np.ndarray:
    """``P(X <= i)`` for ``i = 0..k``, ``X ~ Binomial(k, t)`` (log-space terms)."""
    if t >= 1.0:
        return np.r_[np.zeros(k), 1.0]
    from math import lgamma, log

    i = np.arange(k + 1)
    log_choose = np.array([lgamma(k + 1) - lgamma(x + 1) - lgamma(k - x + 1) for x in i])
    return np.cumsum(np.exp(log_choose + i * log(t) + (k - i) * log(1.0 - t)))


def agreement_floors(
    threshold: float, num_perm: int, smaller: np.ndarray, *, miss: float = PREFILTER_MISS
) -> np.ndarray:
    """The floor of each pair by the size of its smaller set.

    A set of ``m < k`` shingles fills at most ``m`` of the ``k`` slots itself; densification
    copies the others, so the agreeing slots of a pair carry about ``m`` independent trials,
    not ``k``. The pair's floor is the :func:`agreement_floor` of ``m`` trials scaled to
    ``k`` slots, ``ceil(c_m · k / m)``; ``c_k`` for ``m >= k`` (0 for an empty set).

    Args:
        threshold, num_perm, miss: as :func:`agreement_floor`.
        smaller: int (p,): shingles of each pair's smaller set.

    Returns:
        int64 (p,): the least agreeing slots of each pair.
    """
    t = check_float("threshold", threshold, low=0.0, high=1.0, low_open=True)
    k = check_int("num_perm", num_perm, low=1, high=4096)
    m = check_float("miss", miss, low=0.0, high=1.0, low_open=True)
    if m >= 1.0:
        raise ParameterError("miss", miss, "a number in (0, 1)")
    floors: np.ndarray = _floor_table(t, k, m)[np.clip(np.asarray(smaller), 0, k)]
    return floors


@lru_cache(maxsize=64)
def _floor_table(t: float, k: int, miss: float) -> np.ndarray:
    table = np.zeros(k + 1, dtype=np.int64)
    for m in range(1, k + 1):
        table[m] = -(-_floor(t, m, miss) * k // m)
    return table


@lru_cache(maxsize=1024)
def _floor(t: float, k: int, miss: float) -> int:
    # below[c - 1] = P(X < c): the largest c with P(X < c) <= miss
    return int(np.searchsorted(_below(t, k), miss, side="right"))


def low_bytes(sketches: np.ndarray) -> np.ndarray:
    """The low byte of every slot of uint64 (n, k) sketches, 8 slots a uint64 word: uint64
    (n, ceil(k / 8)) (the last word's spare bytes 0), what :func:`byte_agreements` compares.

    An eighth of the sketches' bytes: the Dask job's one candidate task receives every
    partition's (128 bytes a document at 128 slots) to prefilter the candidates before any
    set or sketch is fetched (:func:`neardup.job.decide.sketch_prefilter`), and the local
    job's worker processes send them in place of the sketches (:func:`lean_rows`)."""
    n, k = sketches.shape
    if k % 8 == 0:  # uint64 -> uint8 keeps the low byte
        return np.ascontiguousarray(sketches.astype(np.uint8)).view(U64)
    out = np.zeros((n, -(-k // 8) * 8), dtype=np.uint8)
    out[:, :k] = sketches
    return out.view(U64)


def byte_agreements(low: np.ndarray, pairs: np.ndarray, num_perm: int) -> np.ndarray:
    """Slots on which the low bytes (:func:`low_bytes`) of two sketches of ``num_perm`` slots
    agree: int32 (p,), for int64 (p, 2) ``pairs`` of rows of ``low``.

    A slot whose values agree has equal low bytes, so each count is at least the count
    of equal slots of the full sketches (unequal values share their low
    byte about once in 256). Counted a word at a time: the bytes of ``a ^ b`` that are 0,
    found by the carry-free test ``((x & 0x7F..) + 0x7F..) | x`` (a byte's high bit set
    when the byte is not 0). A block of :data:`_AGREE_ROWS` pairs at a time, on
    :func:`workers` threads (numpy lets go of the GIL: 10 million pairs in 0.52 s against
    0.84 s on one thread of two cores, 2026-12-04)."""
    seven = U64(0x7F7F7F7F7F7F7F7F)
    high = U64(0x8080808080808080)
    out = np.empty(pairs.shape[0], dtype=np.int32)

    def run(lo: int) -> None:
        part = pairs[lo : lo + _AGREE_ROWS]
        x = np.take(low, part[:, 0], axis=0)
        x ^= np.take(low, part[:, 1], axis=0)
        y = x & seven
        y += seven
        y |= x
        y &= high
        differ = np.bitwise_count(y).sum(axis=1, dtype=np.int32)
        out[lo : lo + part.shape[0]] = num_perm - differ  # the spare bytes are 0 in both

    thread_map(run, range(0, pairs.shape[0], _AGREE_ROWS))
    return out
