"""Arrow IPC (``.arrow``, ``.feather``, ``.ipc``: a file or a stream; what ``datasets``
writes), read by record batches into :class:`~neardup.text.units.RecordsUnit` values. The
batch helpers here serve Parquet too (:mod:`neardup.text.formats.parquet`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from neardup.text.formats.format import Batch, Format, Want
from neardup.text.scrub import scrub
from neardup.text.types import Skipped
from neardup.text.units import ReadOptions, RecordsUnit, Unit, file_size, has_own_id, record_id


@contextlib.contextmanager
def _opened(path: Path, fs: Any = None) -> Iterator[tuple[Any, list[str]]]:
    """``(record batches, field names)`` of an Arrow IPC file, or stream, memory-mapped (on
    the fsspec file system ``fs``, if given: read through it)."""
    import pyarrow as pa

    with pa.memory_map(str(path)) if fs is None else fs.open(str(path), "rb") as source:
        try:
            reader: Any = pa.ipc.open_file(source)
            batches: Any = (reader.get_batch(i) for i in range(reader.num_record_batches))
        except pa.ArrowInvalid:
            source.seek(0)
            reader = pa.ipc.open_stream(source)
            batches = iter(reader)
        yield batches, reader.schema.names


def plan(
    path: Path,
    name: str,
    options: ReadOptions,
    *,
    size: int | None = None,
    groups: tuple[int, int] | None = None,
    fs: Any = None,
    shown: str | None = None,
) -> Iterator[Unit | Skipped]:
    """An Arrow IPC file or stream by record batches
    (:class:`~neardup.text.formats.format.Plan`; ``size`` and ``groups`` do not apply)."""
    shown = shown or scrub(str(path))
    try:
        with _opened(path, fs) as (batches, names):
            columns = wanted_columns(names, options)
            if isinstance(columns, str):
                yield Skipped(name, shown, "unreadable", columns)
                return
            picked = (b.select(columns) for b in batches)
            yield from record_batches(picked, shown, name, options)
    except Exception as exc:
        yield Skipped(name, shown, "unreadable", f"{type(exc).__name__}: {exc}")


def fields(path: Path) -> list[str] | None:
    """The schema's field names."""
    with _opened(path) as (_, names):
        return list(names)


def select(
    path: Path, name: str, want: Want, options: ReadOptions, done: Callable[[int], None]
) -> Iterator[Batch]:
    """The wanted records of an Arrow file, whole (:class:`~.format.Select`); its bytes
    counted by each batch's bytes in memory."""

    def numbered() -> Iterator[tuple[int, Any, int]]:
        row = 0
        with _opened(path) as (batches, _):
            for batch in batches:
                yield row, batch, 0
                row += batch.num_rows

    yield from select_batches(numbered(), path, name, want, options, done)


def select_batches(
    numbered: Iterator[tuple[int, Any, int]],
    path: Path,
    name: str,
    want: Want,
    options: ReadOptions,
    done: Callable[[int], None],
) -> Iterator[Batch]:
    """Record batches ``(first row, batch, rows of the file or 0)`` of a Parquet or Arrow
    file, filtered to the wanted records; ``done`` given a Parquet file's bytes by its rows,
    an Arrow file's by the batch's bytes in memory."""
    import pyarrow as pa

    shown = scrub(str(path))
    size = file_size(path)
    for row, batch, rows in numbered:
        done(size * (row + batch.num_rows) // rows - size * row // rows if rows else batch.nbytes)
        names = batch.schema.names
        if options.text_field not in names:
            return
        raw_ids = (
            batch.column(names.index(options.id_field)).to_pylist()
            if options.id_field in names
            else [None] * batch.num_rows
        )
        mask = [
            want(record_id(v, f"{name}:{row + i + 1}"), f"{shown}:row {row + i + 1}", has_own_id(v))
            for i, v in enumerate(raw_ids)
        ]
        if any(mask):
            yield ("arrow", batch.filter(pa.array(mask, type=pa.bool_())))


def wanted_columns(names: list[str], options: ReadOptions) -> list[str] | str:
    """The columns to read of a table of columns ``names`` (the id, if it has one, and the
    text), or why it is not read (no text column, the columns named)."""
    if options.text_field not in names:
        return f"no column {options.text_field!r} (columns: {', '.join(names)})"
    return [c for c in (options.id_field, options.text_field) if c in names]


def record_batches(
    batches: Any,
    shown: str,
    name: str,
    options: ReadOptions,
    row: int = 0,
    share: tuple[int, int] | None = None,
) -> Iterator[RecordsUnit]:
    """Record batches to units; ``share``: ``(file bytes, file rows)`` to weigh a batch by
    its rows (a Parquet file), else by its bytes in memory (an Arrow file)."""
    for batch in batches:
        texts = batch.column(batch.schema.names.index(options.text_field)).to_pylist()
        if options.id_field in batch.schema.names:
            raw_ids = batch.column(batch.schema.names.index(options.id_field)).to_pylist()
        else:
            raw_ids = [None] * len(texts)
        where = tuple(f"{shown}:row {row + i + 1}" for i in range(len(texts)))
        ids = tuple(record_id(v, f"{name}:{row + i + 1}") for i, v in enumerate(raw_ids))
        if share is None:
            weight = int(batch.nbytes)
        else:
            size, rows = share
            weight = size * (row + len(texts)) // max(rows, 1) - size * row // max(rows, 1)
        row += len(texts)
        yield RecordsUnit(shown, ids, tuple(texts), where, weight)


FORMAT = Format(
    "arrow", (".arrow", ".feather", ".ipc"), seekable=True, plan=plan, fields=fields, select=select
)
