"""Give freed heap memory back to the operating system (glibc ``malloc_trim``).

Numpy arrays under glibc's mmap threshold (which grows to 32 MiB after the first large
free) live on the heap; freeing many of them leaves the pages resident, so a job that
copies a corpus' shingle sets out of per-unit parts would hold them twice. :func:`trim`
returns those pages; elsewhere than glibc it does nothing.

The opposite holds in the dedup job's worker processes, which make and free the same
few-MiB temporaries unit after unit: :func:`keep_freed_heap` has glibc keep freed memory
for reuse instead of mapping and faulting in fresh pages for every temporary (about a
sixth of the workers' CPU time went to page faults without it).

The local job's main process makes and frees arrays of hundreds of MiB stage after stage
(band keys, candidate pairs, the sets read back to verify them): :func:`whole_heap` has
glibc serve them all from the heap and keep what is freed while the job runs (ten million
documents: the candidate, prefilter and verify stages 4-5 s faster of 27).

A process that holds what it makes (a Dask worker holding its partitions) turns off
numpy's transparent huge page advice with :func:`no_huge_page_advice`: on these machines a
huge page faulted in fresh cost several times the small pages it replaces.

:func:`held_bytes` and :func:`fields_bytes` estimate what a batch of documents holds, for
the ``__sizeof__`` of the values the Dask engine keeps on its workers (Dask weighs a result
by ``sys.getsizeof``).
"""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

import numpy as np

#: Items of a sequence (or object array) whose sizes :func:`held_bytes` samples.
_SAMPLED = 32


@lru_cache(maxsize=1)
def _libc() -> Any:
    """The C library this process runs on, if it has ``malloc_trim`` (glibc). Looked up in
    the process' own symbols: ``ctypes.util.find_library`` would run ``ldconfig`` in a
    forked child, whose peak memory the kernel then reports as that of this process."""
    try:
        lib = ctypes.CDLL(None)
        lib.malloc_trim.argtypes = [ctypes.c_size_t]
        return lib
    except (OSError, AttributeError):  # not glibc
        return None


def trim() -> bool:
    """Release the free heap pages of this process; True if any were released."""
    lib = _libc()
    return bool(lib is not None and lib.malloc_trim(0))


#: Allocations below this come from the heap in :func:`keep_freed_heap`'s processes.
KEEP_MMAP_THRESHOLD = 256 << 20
#: Free heap kept (not trimmed) in :func:`keep_freed_heap`'s processes.
KEEP_TRIM_THRESHOLD = 1 << 30
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # glibc mallopt parameters


def keep_freed_heap() -> bool:
    """Have glibc serve allocations under :data:`KEEP_MMAP_THRESHOLD` from the heap and keep
    up to :data:`KEEP_TRIM_THRESHOLD` of freed heap, for a process that frees and makes
    again arrays of the same sizes (the dedup job's workers); True if set (glibc only)."""
    lib = _libc()
    if lib is None or not hasattr(lib, "mallopt"):
        return False
    ok = lib.mallopt(_M_MMAP_THRESHOLD, KEEP_MMAP_THRESHOLD)
    return bool(ok and lib.mallopt(_M_TRIM_THRESHOLD, KEEP_TRIM_THRESHOLD))


#: Freed heap :func:`whole_heap` keeps: the most ``mallopt`` takes (an ``int``).
WHOLE_TRIM_THRESHOLD = 2**31 - 1
_M_MMAP_MAX = -4
#: glibc's own settings, which :func:`whole_heap` restores (it cannot read those in force).
_GLIBC_MMAP_MAX, _GLIBC_TRIM_THRESHOLD = 65536, 128 << 10


def whole_heap() -> Callable[[], None]:
    """Have glibc serve every allocation from the heap (``M_MMAP_MAX`` 0: no block mapped
    on its own and unmapped when freed) and keep up to :data:`WHOLE_TRIM_THRESHOLD` of
    freed heap: an array freed is made again in memory this process has touched, not in
    fresh pages, each faulted in (on these machines 0.25 s a GiB for memory freed moments
    before, 0.8-1.9 s for memory the system took back). Returns what restores glibc's
    settings and gives the freed heap back (``malloc_trim``); nothing to restore where
    the C library is not glibc. glibc falls back to mapping where the heap cannot grow."""
    lib = _libc()
    if lib is None or not hasattr(lib, "mallopt"):
        return _nothing
    if not (lib.mallopt(_M_MMAP_MAX, 0) and lib.mallopt(_M_TRIM_THRESHOLD, WHOLE_TRIM_THRESHOLD)):
        lib.mallopt(_M_MMAP_MAX, _GLIBC_MMAP_MAX)
        return _nothing

    def restore() -> None:
        lib.mallopt(_M_MMAP_MAX, _GLIBC_MMAP_MAX)
        lib.mallopt(_M_TRIM_THRESHOLD, _GLIBC_TRIM_THRESHOLD)
        lib.malloc_trim(0)

    return restore


def no_huge_page_advice() -> Callable[[], None]:
    """Stop numpy advising transparent huge pages (``madvise(MADV_HUGEPAGE)`` on the data of
    every array of 4 MiB and more) in this process, as ``NUMPY_MADVISE_HUGEPAGE=0`` does
    at numpy's import; returns what restores the advice found (nothing where this numpy
    has no such switch).

    For a process whose large arrays are fresh memory it keeps: a Dask worker holding its
    partitions, the local job's main process stacking the sketches' band keys. Where the
    system makes huge pages on advice only (``/sys/kernel/mm/transparent_hugepage/enabled``
    and ``defrag`` both ``madvise``), an advised fault may compact memory to find 2 MiB
    first. On these machines (2026-12-05): a worker's ingest of 17 blocks of a million
    documents, holding them, spent 1.1-1.6 s joining its units' arrays with the advice
    and 0.4-0.5 s without (system time 1.7-2.2 s against 0.9-1.0 s), and the local job's
    sign stage took 0.72 s against 0.22 s (``benchmarks/results/issue43_20261205c.md``)."""
    switch = huge_page_switch()
    if switch is None:
        return _nothing
    found = bool(switch(False))

    def restore() -> None:
        switch(found)

    return restore if found else _nothing


def huge_page_switch() -> Callable[[bool], bool] | None:
    """numpy's switch of its huge page advice (``_set_madvise_hugepage``: sets it, returns
    what it was), in ``numpy._core`` (``numpy.core`` before numpy 2), or None."""
    for name in ("_core", "core"):
        switch = getattr(
            getattr(getattr(np, name, None), "multiarray", None), "_set_madvise_hugepage", None
        )
        if switch is not None:
            return switch
    return None


def _nothing() -> None:
    return None


#: Bytes of freed parts after which :func:`stack_consuming` trims the heap.
TRIM_EVERY = 64 << 20


def stack_consuming(parts: list[Any]) -> Any:
    """``numpy.concatenate(parts)`` that empties ``parts`` as it copies and gives the freed
    parts back to the system as it goes, so the peak is the result plus a few parts, not
    twice the result (the caller must hold no other reference to the parts).

    Args:
        parts: a non-empty list of arrays with equal shapes past the first axis and one dtype.

    Returns:
        The arrays joined along the first axis.
    """
    import numpy as np

    first = parts[0]
    total = sum(p.shape[0] for p in parts)
    out = np.empty((total, *first.shape[1:]), dtype=first.dtype)
    at = freed = 0
    while parts:
        part = parts.pop(0)
        out[at : at + part.shape[0]] = part
        at += part.shape[0]
        freed += part.nbytes
        del part
        if freed >= TRIM_EVERY:  # freed parts sit on the heap until trimmed
            trim()
            freed = 0
    trim()
    return out


def held_bytes(*values: Any) -> int:
    """Bytes that ``values`` hold, estimated: a numpy array its ``nbytes`` (an object
    array, plus its items), a sequence (a list of ids, texts or token lists) its items,
    sampled (:data:`_SAMPLED` evenly spaced items, scaled to its length; a token list's
    own items counted one level down), None nothing, anything else ``sys.getsizeof``.

    For ``__sizeof__`` of a partition of the Dask engine: without one, Dask weighed a
    million documents' partitions at 56 bytes each, so its scheduler moved them between
    workers as if free (a 2.2 s transfer of partitions away from the worker finding the
    candidates, in a task stream at a million documents)."""
    return sum(_held(v, depth=2) for v in values)


def fields_bytes(value: Any) -> int:
    """``sys.getsizeof`` of a dataclass instance: the object itself and what its fields hold
    (:func:`held_bytes` of every field), for its ``__sizeof__``."""
    import dataclasses

    fields = (getattr(value, f.name) for f in dataclasses.fields(value))
    return object.__sizeof__(value) + held_bytes(*fields)


def _held(value: Any, *, depth: int) -> int:
    if value is None:
        return 0
    if isinstance(value, np.ndarray):
        if value.dtype != object:
            return int(value.nbytes)
        return int(value.nbytes) + _items(value.ravel(), depth)
    if isinstance(value, (str, bytes)) or depth == 0:
        return sys.getsizeof(value)
    if isinstance(value, Sequence):
        return sys.getsizeof(value) + _items(value, depth)
    return sys.getsizeof(value)


def _items(seq: Any, depth: int) -> int:
    """The sampled items' bytes of ``seq``, scaled to its length."""
    n = len(seq)
    if n == 0:
        return 0
    step = max(1, n // _SAMPLED)
    picked = range(0, n, step)
    total = sum(_held(seq[i], depth=depth - 1) for i in picked)
    return total * n // len(picked)
