"""Tables of numpy columns and the task-based all-to-all shuffle on a Dask client.

A *table* is a ``dict[str, np.ndarray]`` of equal-length columns. :func:`shuffle` moves the
rows of ``m`` input tables to ``r`` output tables: every input runs ``split`` (rows ->
``r`` pieces by destination), tiny ``getitem`` tasks pick each piece where it was made, and
each output concatenates its ``m`` pieces. Every piece is an ordinary Dask task result, so
a lost worker only costs the recomputation of its pieces from their lineage (Dask retries
the lost tasks); no task ever holds more than one input or one output partition.
"""

from __future__ import annotations

import operator
import uuid
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from neardup._array import U64, fmix64

Table = dict[str, np.ndarray]


def empty_like(columns: dict[str, Any]) -> Table:
    """An empty table with the given ``{name: dtype}`` columns."""
    return {k: np.zeros(0, dtype=v) for k, v in columns.items()}


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


def shuffle(
    client: Any,
    inputs: Sequence[Any],
    splitter: Callable[..., list[Table]],
    n_out: int,
    combiner: Callable[..., Any],
    *,
    split_args: tuple[Any, ...] = (),
    combine_args: tuple[Any, ...] = (),
    combine_each: Sequence[Any] | None = None,
    name: str = "shuffle",
) -> list[Any]:
    """All-to-all shuffle of futures of tables (or of anything ``splitter`` accepts).

    Args:
        client: a ``distributed.Client``.
        inputs: futures (or values) of the ``m`` inputs.
        splitter: ``splitter(input, *split_args) -> list`` of ``n_out`` tables.
        n_out: number of outputs.
        combiner: ``combiner(j, *combine_args, *pieces) -> output`` for output ``j``, or
            ``combiner(j, combine_each[j], *combine_args, *pieces)`` when ``combine_each``
            (one value or future per output) is given.

    Returns:
        ``n_out`` futures of the outputs.
    """
    uid = uuid.uuid4().hex[:8]
    splits = [
        client.submit(splitter, x, *split_args, key=f"{name}-split-{uid}-{i}")
        for i, x in enumerate(inputs)
    ]
    outs = []
    for j in range(n_out):
        pieces = [
            client.submit(operator.getitem, s, j, key=f"{name}-piece-{uid}-{i}-{j}")
            for i, s in enumerate(splits)
        ]
        own = () if combine_each is None else (combine_each[j],)
        outs.append(
            client.submit(combiner, j, *own, *combine_args, *pieces, key=f"{name}-out-{uid}-{j}")
        )
    return outs
