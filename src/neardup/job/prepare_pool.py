"""Read and prepare a corpus on every core: read units -> token counts and shingle sets.

The dedup job's first stages (read, prepare, shingle) for word shingles with XXH64
fingerprints: each read unit (:mod:`neardup.text.units`) is read, canonicalised and
shingled by :func:`neardup.job.prepare.prepare_unit`, in a pool of worker processes
(``jobs`` > 1) or in this one. Results come back in input order, so the output does not
depend on ``jobs``: the same input gives the same ids, sets and skip rows byte for byte.

A worker hands the arrays of its result (shingle sets, content keys, signature rows: about
4 MB a unit) over in shared memory (:class:`ResultSlots`), and only the rest (ids, skip
rows: tens of KB) through the pool's result pipe: the calling process then copies each
array once, into the corpus' arrays, instead of reading it from the pipe in 1 MiB pieces
and unpickling it, and a worker never waits for this process to read its result.

The decisions that need the whole corpus stay in the calling process
(:class:`UnitMerger`, with the rules of :func:`neardup.job.prepare.screen`): a repeated
document id is skipped (``unreadable``, "duplicate document id") wherever its first
occurrence was, then documents with fewer than ``min_tokens`` canonical tokens are skipped
as ``too-short``.
"""

from __future__ import annotations

import dataclasses
import math
import mmap
import multiprocessing
import os
import time
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor

import numpy as np

from neardup._spill import PartStack
from neardup.errors import check_int
from neardup.job.prepare import (
    PreparedDocuments,
    claim_ids,
    no_repeats,
    prepare_unit,
    screen,
)
from neardup.methods.plan import PrepareConfig
from neardup.methods.sets import ShingleSets
from neardup.text.types import Skipped
from neardup.text.units import UniqueIds, Unit

#: Units in flight per worker (bounds memory: each holds a few MB of text).
_AHEAD = 3
#: Bytes of one result slot (:class:`ResultSlots`): a unit's arrays are about 3.9 MB for the
#: 1,850 documents of a 4 MiB JSONL block of the planted corpus (shingle sets 1.9, MinHash
#: rows 1.9); a larger result (a block of many short documents) crosses the result pipe.
SLOT_BYTES = 16 << 20
#: Bytes of the result pipe's buffer (:func:`widen_result_pipe`): 1 MiB, the Linux cap for
#: an unprivileged process.
PIPE_BYTES = 1 << 20


def prepared_units(
    units: Iterable[Unit | Skipped], config: PrepareConfig, *, jobs: int
) -> Iterator[PreparedDocuments | Skipped]:
    """:func:`prepare_unit` of every unit, in order; planning skips pass through.

    With ``jobs`` > 1 the arrays of a yielded item may be views of shared memory that the
    pool reuses once the next item is asked for: the consumer copies what it keeps
    (:class:`UnitMerger` does).

    Args:
        units: the planner's output; config: what the workers need.
        jobs: worker processes (1: in this process).
    """
    if jobs <= 1:
        for unit in units:
            yield unit if isinstance(unit, Skipped) else prepare_unit(unit, config)
        return
    context = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
    # the workers inherit the slots' map when forked; spawned ones send results by the pipe
    slots = _slots(jobs) if context.get_start_method() == "fork" else None
    pool = ProcessPoolExecutor(
        max_workers=jobs,
        mp_context=context,
        initializer=_start_worker,
        initargs=(os.getpid(), None if slots is None else slots.map),
    )
    widen_result_pipe(pool)
    with pool:
        pending: deque[_Pending | Skipped] = deque()
        running = 0
        for unit in units:
            if isinstance(unit, Skipped):
                pending.append(unit)
                continue
            slot, size = (None, SLOT_BYTES) if slots is None else (slots.take(), slots.size)
            pending.append((pool.submit(prepare_placed, unit, config, slot, size), slot))
            running += 1
            while running > jobs * _AHEAD:
                item = pending.popleft()
                running -= 0 if isinstance(item, Skipped) else 1
                yield from _handed(item, slots)
        while pending:
            yield from _handed(pending.popleft(), slots)


def _slots(jobs: int) -> ResultSlots | None:
    """The result slots of a pool of ``jobs`` forked workers, or None (the pipe) where the
    system refuses the map (``jobs`` x 3 + 1 slots of :data:`SLOT_BYTES`: 3 GiB of address
    space for 64 workers, of which only the used pages take memory)."""
    try:
        return ResultSlots(count=jobs * _AHEAD + 1, size=SLOT_BYTES)
    except OSError:  # ENOMEM: more address space than the system lets this process map
        return None


#: Where a result's arrays lie in its slot: ``(name, byte offset, dtype, shape)`` each.
Layout = tuple[tuple[str, int, str, tuple[int, ...]], ...]
#: A unit in the pool: its result's future and its slot (None: the pipe).
_Pending = tuple[Future[tuple[PreparedDocuments, Layout | None]], int | None]


def _handed(
    item: _Pending | Skipped, slots: ResultSlots | None
) -> Iterator[PreparedDocuments | Skipped]:
    """The result of ``item`` (its arrays read from its slot); the slot is free again once
    the consumer asks for the next item."""
    if isinstance(item, Skipped):
        yield item
        return
    future, slot = item
    done, layout = future.result()
    if slots is None or slot is None:
        yield done
        return
    yield done if layout is None else with_arrays(done, slots.arrays(slot, layout))
    slots.give_back(slot)


class ResultSlots:
    """Shared memory in which the pool's workers hand over their results' arrays: one
    anonymous shared map, made before the pool forks its workers (which inherit it), cut
    into ``count`` slots of ``size`` bytes. The calling process gives each unit it submits
    a free slot; the worker copies the result's arrays into it
    (:func:`prepare_placed`); the calling process reads them there and frees the slot when
    it has copied them. A slot's pages are faulted in once and then reused, unit after unit;
    nothing outlives the processes (no file, no name).

    Args:
        count: slots (units in flight at most, plus one); size: bytes of a slot.

    Raises:
        ParameterError: ``count`` < 1 or ``size`` < 4 KiB.
    """

    def __init__(self, *, count: int, size: int = SLOT_BYTES) -> None:
        check_int("count", count, low=1)
        check_int("size", size, low=1 << 12)
        self.size = size
        self.map = mmap.mmap(-1, count * size, flags=mmap.MAP_SHARED | mmap.MAP_ANONYMOUS)
        self._free = list(range(count - 1, -1, -1))

    def take(self) -> int:
        """A free slot (IndexError: none left, more units in flight than slots)."""
        return self._free.pop()

    def give_back(self, slot: int) -> None:
        """Free ``slot``: the arrays read from it may be overwritten from now on."""
        self._free.append(slot)

    def arrays(self, slot: int, layout: Layout) -> dict[str, np.ndarray]:
        """The arrays in ``slot`` (views of the shared map, not copies)."""
        base = slot * self.size
        return {
            name: np.frombuffer(
                self.map, dtype=np.dtype(dtype), count=math.prod(shape), offset=base + at
            ).reshape(shape)
            for name, at, dtype, shape in layout
        }


#: The worker's map of the job's :class:`ResultSlots` (set by :func:`_start_worker`).
_SLOTS: list[mmap.mmap | None] = [None]


def prepare_placed(
    unit: Unit, config: PrepareConfig, slot: int | None, size: int = SLOT_BYTES
) -> tuple[PreparedDocuments, Layout | None]:
    """What a pool worker does with a unit: :func:`prepare_unit`, then the result's arrays
    copied into ``slot`` of the job's :class:`ResultSlots` (each at a 64-byte boundary)
    and left out of the returned value, whose :data:`Layout` says where they lie. A
    result larger than a slot, or no slot (None, or no map in this process), is returned
    whole (layout None), to cross the result pipe."""
    done = prepare_unit(unit, config)
    shared = _SLOTS[0]
    if slot is None or shared is None:
        return done, None
    arrays = _arrays(done)
    layout: list[tuple[str, int, str, tuple[int, ...]]] = []
    at = 0
    for name, a in arrays.items():
        layout.append((name, at, a.dtype.str, tuple(a.shape)))
        at += -(-a.nbytes // 64) * 64
    if at > size:
        return done, None
    base = slot * size
    for (_, start, _, _), a in zip(layout, arrays.values(), strict=True):
        view = np.frombuffer(shared, dtype=a.dtype, count=a.size, offset=base + start)
        np.copyto(view.reshape(a.shape), a)
    return with_arrays(done, {k: a[:0] for k, a in arrays.items()}), tuple(layout)


def _arrays(done: PreparedDocuments) -> dict[str, np.ndarray]:
    """The arrays of a prepared unit, by name (rows only when it has them)."""
    got = {
        "values": done.sets.values,
        "offsets": done.sets.offsets,
        "keys": done.keys,
        "counts": done.counts,
        "positions": done.positions,
    }
    if done.rows is not None:
        got["rows"] = done.rows
    return got


def with_arrays(done: PreparedDocuments, arrays: dict[str, np.ndarray]) -> PreparedDocuments:
    """``done`` with the arrays of :func:`_arrays` replaced by ``arrays``."""
    return dataclasses.replace(
        done,
        sets=ShingleSets(arrays["values"], arrays["offsets"]),
        keys=arrays["keys"],
        rows=arrays.get("rows"),
        counts=arrays["counts"],
        positions=arrays["positions"],
    )


def widen_result_pipe(pool: ProcessPoolExecutor, size: int = PIPE_BYTES) -> int | None:
    """Grow the buffer of the pipe that carries ``pool``'s results to ``size`` bytes (Linux
    ``F_SETPIPE_SZ``; capped by ``/proc/sys/fs/pipe-max-size``, 1 MiB by default): a unit's
    result (about 4 MB at 1,850 documents) then crosses in a few writes, not in 64 KiB ones
    that each wait for this process to read. Returns the size the pipe has, or None where
    it cannot be changed (another system, another Python's pool): the pool still works,
    only slower (1.40 s against 1.47 s for the 100,000-document job's in-process run).

    Raises:
        ParameterError: ``size`` outside 4 KiB .. 1 GiB (``fcntl`` would truncate a larger
        one to a page).
    """
    check_int("size", size, low=1 << 12, high=1 << 30)
    try:
        import fcntl
    except ImportError:  # not a POSIX system
        return None
    option = getattr(fcntl, "F_SETPIPE_SZ", None)
    reader = getattr(getattr(pool, "_result_queue", None), "_reader", None)
    if option is None or reader is None:
        return None
    try:
        return int(fcntl.fcntl(reader.fileno(), option, size))
    except (OSError, ValueError):  # over the system's cap: keep the default
        return None


def _start_worker(parent: int, slots: mmap.mmap | None = None) -> None:
    """Worker initializer: die with the job, keep freed heap for the next unit, hand
    results over in ``slots`` (the job's :class:`ResultSlots` map, inherited by fork)."""
    from neardup._memory import keep_freed_heap

    _die_with(parent)
    keep_freed_heap()
    _SLOTS[0] = slots


def _die_with(parent: int) -> None:
    """Worker initializer: end this worker when the job that started it dies (a job killed
    with SIGKILL must not leave workers blocked on their queue forever). Linux: the kernel's
    parent-death signal; elsewhere a thread that watches the parent's pid."""
    import signal

    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (AttributeError, OSError):
        import threading

        def watch() -> None:
            while os.getppid() == parent:
                time.sleep(1.0)
            os._exit(1)

        threading.Thread(target=watch, daemon=True).start()
    if os.getppid() != parent:  # the parent died before the signal was armed
        os._exit(1)


#: Most worker processes a job takes (``jobs``): more is no machine's core count, and past
#: 2**31 - 1 the pool's semaphore overflows.
MAX_JOBS = 4096


def check_jobs(jobs: object) -> int:
    """``jobs`` validated: an integer in [1, :data:`MAX_JOBS`].

    Raises:
        ParameterError: naming ``jobs``, the value and the range.
    """
    from neardup.errors import check_int

    return check_int("jobs", jobs, low=1, high=MAX_JOBS)


def default_jobs() -> int:
    """Worker processes by default: the cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


#: The share of the input read before :meth:`UnitMerger.expect` projects the held arrays
#: to the whole input (a few units: the bytes a document holds vary little past them).
PROJECT_SHARE = 0.02


class UnitMerger:
    """Corpus-wide decisions over prepared units, in order: repeated ids, too-short.

    The accepted documents' shingle sets and signature rows are held in memory until they
    pass ``budget`` bytes together; then they go to temporary files in ``spill_dir``
    (:class:`neardup._spill.PartStack`) and come back as memory maps. The result is the
    same either way.

    Attributes:
        ids: accepted document ids; lengths: their token counts; keys: their content keys
        per unit; rows: their signature rows (empty without a signer); skipped: skip rows
        in input order; seconds: the workers' step seconds.
    """

    def __init__(self, *, budget: int | None = None, spill_dir: str | None = None) -> None:
        self._budget = budget
        self._spill_dir = spill_dir
        self.unique = UniqueIds()
        self.ids: list[str] = []
        self.lengths: list[int] = []
        #: spilled past the page cache (:class:`~neardup._spill.SpillFile`); the rows stay
        #: buffered: the candidate stage reads them back at once, verification only some sets
        self._values = PartStack(direct=True)
        self._sizes: list[np.ndarray] = []
        self.keys: list[np.ndarray] = []
        self.rows = PartStack()
        self.skipped: list[Skipped] = []
        self.seconds = np.zeros(4)

    @property
    def spilled(self) -> bool:
        """Whether the sets and rows went to disk."""
        return self._values.spilled

    def sets(self) -> ShingleSets:
        """The accepted documents' shingle sets (consumes the parts held in memory; the peak
        is the sets once, not twice)."""
        sizes = np.concatenate(self._sizes) if self._sizes else np.zeros(0, np.int64)
        self._sizes = []
        offsets = np.zeros(sizes.shape[0] + 1, dtype=np.int64)
        np.cumsum(sizes, out=offsets[1:])
        return ShingleSets(self._values.stack(np.zeros(0, np.uint64)), offsets)

    def _hold(self, sets: ShingleSets, keys: np.ndarray, rows: np.ndarray | None) -> None:
        """Keep copies of the arrays (they may be views of a pool's reused memory)."""
        self._values.append(sets.values)
        self._sizes.append(sets.sizes)
        self.keys.append(keys.copy())
        if rows is not None:
            self.rows.append(rows)
        if self._budget is not None and not self.spilled and self._held() > self._budget:
            self._spill()

    def _held(self) -> int:
        """Bytes of the shingle sets and rows taken so far."""
        return self._values.nbytes + self.rows.nbytes

    def expect(self, done: int, total: int) -> None:
        """``done`` of the input's ``total`` bytes (:func:`~neardup.text.inputs.planned_bytes`)
        are read: when the arrays held so far, scaled to the whole input, pass the budget
        (once at least :data:`PROJECT_SHARE` of it is read), they spill now rather than
        when the budget is reached.

        Held to the budget, they went to disk in one write of the whole budget (6 GiB on a
        24 GiB machine), which the kernel throttled to the disk's write speed: ten million
        documents stood still for 14 s (vmstat: no user time, one core in the kernel,
        120-410 MB/s written, 2026-12-04). Spilled early, the write is a few hundred MB
        and the rest follows at the pace of the workers."""
        if self._budget is None or self.spilled or total <= 0 or done < PROJECT_SHARE * total:
            return
        if self._held() * total > self._budget * done:
            self._spill()

    def _spill(self) -> None:
        """Move the held sets and rows to files in the spill directory (and every later
        part)."""
        self._values.spill(self._spill_dir)
        self.rows.spill(self._spill_dir)

    def add(self, item: PreparedDocuments | Skipped) -> int:
        """Take one unit (or planning skip); returns the items it covered (for progress)."""
        if isinstance(item, Skipped):
            self.unique.note(item.id)
            self.skipped.append(item)
            return 1
        self.seconds += item.seconds
        item = claim_ids(item, self.unique)  # a repeated id: renamed by its place
        out = screen(item, no_repeats(item))
        if out.take.size:
            sets, keys, signed = item.sets, item.keys, item.rows
            if not out.is_everything(item):
                sets, keys = sets.take(out.take), keys[out.take]
                signed = None if signed is None else signed[out.take]
            self._hold(sets, keys, signed)
        ids = item.ids
        if out.accepted.shape[0] == len(ids):  # every document accepted (the common case)
            self.ids.extend(ids)
        else:
            self.ids.extend(ids[k] for k in out.accepted.tolist())
        self.lengths.extend(item.counts[out.accepted].tolist())
        self.skipped.extend(out.skip_rows(item))
        return item.items


def pool_safe() -> bool:
    """Whether worker processes may be started here (not inside a daemon process)."""
    return not multiprocessing.current_process().daemon
