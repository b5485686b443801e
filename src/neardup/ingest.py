"""Read and prepare a corpus on every core: read units -> token counts and shingle sets.

The dedup job's first stages (read, prepare, shingle) for word shingles with XXH64
fingerprints: each read unit (:mod:`neardup.text.units`) is read, canonicalised and
shingled by :func:`prepare_unit`, in a pool of worker processes (``jobs`` > 1) or in this
one. Results come back in input order, so the output does not depend on ``jobs``: the
same input gives the same ids, sets and skip rows byte for byte.

The decisions that need the whole corpus stay in the calling process
(:class:`UnitMerger`): a repeated document id is skipped (``unreadable``, "duplicate
document id") wherever its first occurrence was, then documents with fewer than
``min_tokens`` canonical tokens are skipped as ``too-short``, exactly as the one-process
path does it.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from neardup._array import seg_arange
from neardup._spill import PartStack
from neardup.methods.sets import ShingleSets
from neardup.methods.shingles import Shingling
from neardup.text.canonical import CanonicalForm
from neardup.text.read import read_unit_columns
from neardup.text.types import Skipped
from neardup.text.units import ReadOptions, UniqueIds, Unit

#: Units in flight per worker (bounds memory: each holds a few MB of text).
_AHEAD = 3


@dataclass(frozen=True, slots=True, eq=False)
class PreparedUnit:
    """One unit, read and shingled.

    Attributes:
        ids, sources: every document of the unit, in order.
        positions: int64 (d,): each document's position among the unit's items.
        counts: int64 (d,): canonical tokens per document.
        sets: the shingle sets of the documents with ``counts >= min_tokens``, in order.
        keys: uint64 (len(sets),): their content keys (:meth:`ShingleSets.content_keys`).
        rows: their signature rows (``config.signer``), or None.
        skipped: ``(position, Skipped)`` of the reading skips.
        items: documents plus reading skips (for progress).
        seconds: worker seconds of its ``read``, ``prepare``, ``shingle`` and ``sign``
            steps (``sign``: content keys and signature rows).
    """

    ids: list[str]
    sources: Sequence[str]
    positions: np.ndarray
    counts: np.ndarray
    sets: ShingleSets
    keys: np.ndarray
    rows: np.ndarray | None
    skipped: list[tuple[int, Skipped]]
    items: int
    seconds: tuple[float, float, float, float]


@dataclass(frozen=True, slots=True)
class PrepareConfig:
    """What a worker needs besides the unit (pickled once per task).

    Attributes:
        signer: a method whose ``sign_rows(sets)`` gives one signature row per document
            (``rows_per_document``), signed in the worker; or None.
    """

    read: ReadOptions
    canonical: CanonicalForm
    shingling: Shingling
    min_tokens: int
    signer: Any = None


def prepare_unit(unit: Unit, config: PrepareConfig) -> PreparedUnit:
    """Read ``unit``, tokenise its documents (vectorised) and shingle the long enough ones."""
    from neardup.text.vectorized import canonical_fingerprints

    t0 = time.perf_counter()
    read = read_unit_columns(unit, config.read)
    t1 = time.perf_counter()
    fps, offsets = canonical_fingerprints(read.texts, config.canonical, config.shingling.seed)
    t2 = time.perf_counter()
    counts = np.diff(offsets)
    keep = np.flatnonzero(counts >= config.min_tokens)
    kept_counts = counts[keep]
    tokens = fps[seg_arange(offsets[keep], kept_counts)]
    values, doc = config.shingling.from_token_fingerprints(tokens, kept_counts)
    sets = ShingleSets.from_unsorted(values, doc, int(keep.shape[0]))
    t3 = time.perf_counter()
    keys = sets.content_keys()
    rows = None if config.signer is None else config.signer.sign_rows(sets)
    return PreparedUnit(
        read.ids,
        read.sources,
        np.asarray(read.positions, dtype=np.int64),
        counts.astype(np.int64),
        sets,
        keys,
        rows,
        read.skipped,
        read.items,
        (t1 - t0, t2 - t1, t3 - t2, time.perf_counter() - t3),
    )


def prepared_units(
    units: Iterable[Unit | Skipped], config: PrepareConfig, *, jobs: int
) -> Iterator[PreparedUnit | Skipped]:
    """:func:`prepare_unit` of every unit, in order; planning skips pass through.

    Args:
        units: the planner's output; config: what the workers need.
        jobs: worker processes (1: in this process).
    """
    if jobs <= 1:
        for unit in units:
            yield unit if isinstance(unit, Skipped) else prepare_unit(unit, config)
        return
    context = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
    pool = ProcessPoolExecutor(
        max_workers=jobs, mp_context=context, initializer=_start_worker, initargs=(os.getpid(),)
    )
    with pool:
        pending: list[Future[PreparedUnit] | Skipped] = []
        for unit in units:
            if isinstance(unit, Skipped):
                pending.append(unit)
            else:
                pending.append(pool.submit(prepare_unit, unit, config))
            while sum(isinstance(p, Future) for p in pending) > jobs * _AHEAD:
                yield _result(pending.pop(0))
        while pending:
            yield _result(pending.pop(0))


def _start_worker(parent: int) -> None:
    """Worker initializer: die with the job, keep freed heap for the next unit."""
    from neardup._memory import keep_freed_heap

    _die_with(parent)
    keep_freed_heap()


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


def _result(item: Future[PreparedUnit] | Skipped) -> PreparedUnit | Skipped:
    return item if isinstance(item, Skipped) else item.result()


def default_jobs() -> int:
    """Worker processes by default: the cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


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

    def __init__(
        self, min_tokens: int, *, budget: int | None = None, spill_dir: str | None = None
    ) -> None:
        self._min_tokens = min_tokens
        self._budget = budget
        self._spill_dir = spill_dir
        self.unique = UniqueIds()
        self.ids: list[str] = []
        self.lengths: list[int] = []
        self._values = PartStack()
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
        self._values.append(sets.values)
        self._sizes.append(sets.sizes)
        self.keys.append(keys)
        if rows is not None:
            self.rows.append(rows)
        held = self._values.nbytes + self.rows.nbytes
        if self._budget is not None and not self.spilled and held > self._budget:
            self._values.spill(self._spill_dir)
            self.rows.spill(self._spill_dir)

    def add(self, item: PreparedUnit | Skipped) -> int:
        """Take one unit (or planning skip); returns the items it covered (for progress)."""
        if isinstance(item, Skipped):
            self.unique.note(item.id)
            self.skipped.append(item)
            return 1
        self.seconds += item.seconds
        ids = item.ids
        if not self.unique.fresh([*ids, *(s.id for _, s in item.skipped)]):
            ids = self._claimed(item)  # a repeated id: renamed by its place (UniqueIds)
        rows, accepted = self._short(item, ids)
        has_set = np.flatnonzero(item.counts >= self._min_tokens)
        take = np.searchsorted(has_set, accepted)  # accepted documents all have a set
        if take.size:
            sets, keys, signed = item.sets, item.keys, item.rows
            if take.size != len(sets):
                sets, keys = sets.take(take), keys[take]
                signed = None if signed is None else signed[take]
            self._hold(sets, keys, signed)
        self.ids.extend(ids[k] for k in accepted.tolist())
        self.lengths.extend(item.counts[accepted].tolist())
        rows.sort(key=lambda r: r[0])
        self.skipped.extend(s for _, s in rows)
        return item.items

    def _short(
        self, item: PreparedUnit, ids: list[str]
    ) -> tuple[list[tuple[int, Skipped]], np.ndarray]:
        """Skip rows of the item's reading skips and of its too-short documents (``ids``:
        the documents' ids after :class:`UniqueIds`), and the indexes accepted."""
        rows = list(item.skipped)
        short = item.counts < self._min_tokens
        for k in np.flatnonzero(short).tolist():
            n = int(item.counts[k])
            detail = f"{n} canonical tokens < min_tokens={self._min_tokens}"
            pos = int(item.positions[k])
            rows.append((pos, Skipped(ids[k], item.sources[k], "too-short", detail)))
        return rows, np.flatnonzero(~short)

    def _claimed(self, item: PreparedUnit) -> list[str]:
        """The item's document ids under :class:`UniqueIds`, records taken in input order
        (a reading skip's id counts as seen, so the exporter's rule matches)."""
        events = [(int(p), 0, k) for k, p in enumerate(item.positions.tolist())]
        events += [(p, 1, j) for j, (p, _) in enumerate(item.skipped)]
        events.sort()
        ids = list(item.ids)
        for _, is_skip, k in events:
            if is_skip:
                self.unique.note(item.skipped[k][1].id)
            else:
                ids[k] = self.unique.claim(ids[k], item.sources[k])
        return ids


def pool_safe() -> bool:
    """Whether worker processes may be started here (not inside a daemon process)."""
    return not multiprocessing.current_process().daemon
