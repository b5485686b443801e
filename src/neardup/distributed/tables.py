"""Tables of numpy columns, the rows that the partitioned job's shuffles move
(:meth:`neardup.distributed.tasks.TaskRunner.shuffle`): a *table* is a
``dict[str, np.ndarray]`` of equal-length columns; :func:`split` cuts one by destination.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from neardup._array import U64, fmix64

Table = dict[str, np.ndarray]


def empty_like(columns: dict[str, Any]) -> Table:
    """An empty table with the given ``{name: dtype}`` columns."""
    return {k: np.zeros(0, dtype=v) for k, v in columns.items()}


def collect(held: Any, *more: Any) -> list[Any]:
    """``held`` (a task's result, or the list :func:`collect` made so far) with ``more``
    after it: a link of a chain that brings the results of every partition to one worker
    while the blocks are still being read (each link runs where the list is, so only the
    new result moves, while the workers are busy with other blocks) rather than all at
    once after the last one. Nothing is copied: the list holds the same objects."""
    return [*(held if isinstance(held, list) else [held]), *more]


def concat(tables: Sequence[Table]) -> Table:
    """Rows of all tables, in order (tables must share columns; empty input gives ``{}``)."""
    tables = [t for t in tables if t]
    if not tables:
        return {}
    return {k: np.concatenate([t[k] for t in tables]) for k in tables[0]}


def take(table: Table, index: np.ndarray) -> Table:
    """Rows ``index`` (int or bool array) of every column."""
    return {k: v[index] for k, v in table.items()}


def split(table: Table, dest: np.ndarray, n: int) -> list[Table]:
    """Rows by destination ``dest`` (int (rows,), values in ``[0, n)``), order kept within.

    Up to 65,536 destinations the stable sort is numpy's radix sort of 16-bit keys.
    """
    order = np.argsort(dest.astype(np.uint16) if n <= 1 << 16 else dest, kind="stable")
    bounds = np.searchsorted(dest[order], np.arange(n + 1))
    sorted_table = take(table, order)
    return [{k: v[bounds[j] : bounds[j + 1]] for k, v in sorted_table.items()} for j in range(n)]


def hash_dest(key: np.ndarray, n: int) -> np.ndarray:
    """Destination in ``[0, n)`` of integer keys (mixed, so nearby keys spread): int64."""
    return (fmix64(key.astype(U64) ^ U64(0x243F6A8885A308D3)) % U64(n)).astype(np.int64)


def range_dest(gidx: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Partition of global document indexes, given partition ``offsets`` (P + 1,): int64."""
    return np.searchsorted(offsets, gidx, side="right").astype(np.int64) - 1
