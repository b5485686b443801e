"""How many documents hold each unit key, in bounded memory.

Occurrences arrive document by document as rows ``(key, document, unit)``, one row per
distinct key of a document (its first unit with that key). They are held in memory up to
a budget; past it, every buffer is split by the key's top 8 bits into 256 partitions
appended to unnamed temporary files (a spilled hash partition, as a disk-based GROUP BY
does). :meth:`Occurrences.repeated` then takes one partition at a time (1/256 of the rows),
sorts it by key (stable, so rows stay in document order) and keeps the keys held by at
least ``min_docs`` documents with their first place. Memory: the buffer (16 bytes a row)
plus one partition and its sort (about 40 bytes a row), plus the repeated keys found.
"""

from __future__ import annotations

import tempfile
from array import array
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO

import numpy as np

from neardup.errors import check_int

ROW = np.dtype([("key", "<u8"), ("doc", "<u4"), ("unit", "<u4")])
_PARTITION_BITS = 8
#: Rows a buffer holds at most before it is sorted out (16 MiB of rows), whatever the budget.
_MAX_BUFFER_ROWS = 1 << 20


@dataclass(frozen=True, slots=True)
class RepeatedKeys:
    """Keys held by at least ``min_docs`` documents, sorted by key.

    Attributes:
        key: uint64 array (n,), ascending.
        documents: int64 array (n,): documents holding the key.
        first_doc: int64 array (n,): index (read order) of the first document holding it.
        first_unit: int64 array (n,): index of its first unit with the key in that document.
    """

    key: np.ndarray
    documents: np.ndarray
    first_doc: np.ndarray
    first_unit: np.ndarray

    def find(self, keys: np.ndarray) -> np.ndarray:
        """Index of each of ``keys`` (uint64 array) in :attr:`key`, -1 where absent."""
        if len(self.key) == 0 or len(keys) == 0:
            return np.full(len(keys), -1, dtype=np.int64)
        at = np.searchsorted(self.key, keys)
        at_c = np.minimum(at, len(self.key) - 1)
        return np.where(self.key[at_c] == keys, at_c, -1).astype(np.int64)


class Occurrences:
    """The ``(key, document, unit)`` rows of a job, in memory or spilled by partition.

    Args:
        memory_budget: bytes of rows held before they go to disk (>= 0; 0 spills every
            buffer); None: never spill.
        spill_dir: directory of the temporary files (None: the system's).
    """

    def __init__(self, *, memory_budget: int | None, spill_dir: str | None = None) -> None:
        if memory_budget is not None:
            check_int("memory_budget", memory_budget, low=0)
        self._budget = memory_budget
        self._spill_dir = spill_dir
        self._keys: array[int] = array("Q")
        self._docs: array[int] = array("I")
        self._units: array[int] = array("I")
        self._held: list[np.ndarray] = []
        self._held_bytes = 0
        self._files: list[IO[bytes]] | None = None
        #: rows added so far; whether rows went to temporary files
        self.rows = 0
        self.spilled = False

    def add(self, doc: int, keys: list[int], units: list[int]) -> None:
        """The distinct keys of document ``doc`` and the index of each one's first unit."""
        self._keys.extend(keys)
        self._docs.extend([doc] * len(keys))
        self._units.extend(units)
        if len(self._keys) >= _MAX_BUFFER_ROWS:
            self._seal()

    def _seal(self) -> None:
        n = len(self._keys)
        if n == 0:
            return
        rows = np.empty(n, dtype=ROW)
        rows["key"] = np.frombuffer(self._keys, dtype=np.uint64)
        rows["doc"] = np.frombuffer(self._docs, dtype=np.uint32)
        rows["unit"] = np.frombuffer(self._units, dtype=np.uint32)
        self._keys, self._docs, self._units = array("Q"), array("I"), array("I")
        self.rows += n
        self._held.append(rows)
        self._held_bytes += rows.nbytes
        if self._budget is not None and self._held_bytes > self._budget:
            self._spill()

    def _spill(self) -> None:
        self.spilled = True
        if self._files is None:
            self._files = [
                tempfile.TemporaryFile(dir=self._spill_dir)  # noqa: SIM115 (closed in close())
                for _ in range(1 << _PARTITION_BITS)
            ]
        for rows in self._held:
            part = (rows["key"] >> np.uint64(64 - _PARTITION_BITS)).astype(np.intp)
            order = np.argsort(part, kind="stable")
            bounds = np.searchsorted(part[order], np.arange((1 << _PARTITION_BITS) + 1))
            ordered = rows[order]
            for p, f in enumerate(self._files):
                lo, hi = bounds[p], bounds[p + 1]
                if hi > lo:
                    f.write(ordered[lo:hi].tobytes())
        self._held, self._held_bytes = [], 0

    def repeated(self, *, min_docs: int) -> RepeatedKeys:
        """The keys held by at least ``min_docs`` (>= 2) documents.

        Raises:
            ParameterError: ``min_docs`` < 2.
        """
        check_int("min_docs", min_docs, low=2)
        self._seal()
        if self._files is None:
            parts: Iterator[np.ndarray] = iter([np.concatenate(self._held)] if self._held else [])
        else:
            self._spill()
            parts = self._partitions()
        found = [_repeated_in(rows, min_docs) for rows in parts]
        self.close()
        if not found:
            empty = np.empty(0, dtype=np.int64)
            return RepeatedKeys(np.empty(0, dtype=np.uint64), empty, empty, empty)
        cols = [np.concatenate([f[i] for f in found]) for i in range(4)]
        order = np.argsort(cols[0], kind="stable")
        return RepeatedKeys(*(c[order] for c in cols))

    def _partitions(self) -> Iterator[np.ndarray]:
        """One partition's rows at a time (each in document order)."""
        assert self._files is not None
        for f in self._files:
            f.seek(0)
            rows = np.frombuffer(f.read(), dtype=ROW)
            f.truncate(0)
            if len(rows):
                yield rows

    def close(self) -> None:
        """Drop the rows and the temporary files."""
        for f in self._files or []:
            f.close()
        self._files = None
        self._held = []


def _repeated_in(rows: np.ndarray, min_docs: int) -> tuple[np.ndarray, ...]:
    """``(key, documents, first_doc, first_unit)`` of the keys of ``rows`` held by at least
    ``min_docs`` documents (rows in document order, one per (key, document))."""
    order = np.argsort(rows["key"], kind="stable")
    keys = rows["key"][order]
    if len(keys) == 0:
        empty = np.empty(0, dtype=np.int64)
        return np.empty(0, dtype=np.uint64), empty, empty, empty
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    counts = np.diff(np.r_[starts, len(keys)])
    keep = counts >= min_docs
    first = order[starts[keep]]
    return (
        keys[starts[keep]],
        counts[keep].astype(np.int64),
        rows["doc"][first].astype(np.int64),
        rows["unit"][first].astype(np.int64),
    )
