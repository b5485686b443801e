"""Parquet (``.parquet``, ``.pq``), read by row group and record batch into
:class:`~neardup.text.units.RecordsUnit` values of about a JSONL block's text each; a row
group whose text column inflates past ``max_bytes`` a record is skipped unread
(:func:`parquet_groups`). The Dask engine reads a file a row group a task (:func:`parts`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from neardup.text.formats.arrow import record_batches, select_batches, wanted_columns
from neardup.text.formats.format import Batch, Format, Want
from neardup.text.scrub import scrub
from neardup.text.types import Skipped
from neardup.text.units import (
    BATCH_ROWS,
    BLOCK_BYTES,
    PIECE,
    ReadOptions,
    Unit,
    file_size,
    record_id,
)


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
    """The record batches of a Parquet file, row group by row group
    (:class:`~neardup.text.formats.format.Plan`; ``groups``: the row groups read, the
    others passed over, a file-wide skip row given by the part holding the first; ``size``
    does not apply)."""
    shown = shown or scrub(str(path))
    try:
        pf = open_parquet(path, fs)
        columns = wanted_columns(pf.schema_arrow.names, options)
        if isinstance(columns, str):
            if groups is None or groups[0] == 0:
                yield Skipped(name, shown, "unreadable", columns)
            return
        row = 0
        share = (file_size(path) if fs is None else fs.size(str(path)), pf.metadata.num_rows)
        for group, why in enumerate(parquet_groups(pf, options)):
            if groups is not None and not groups[0] <= group < groups[1]:
                pass  # another task's row group
            elif why is None:
                batches = parquet_batches(pf, group, options, columns)
                yield from record_batches(batches, shown, name, options, row, share)
            else:
                yield from _group_skips(pf, group, row, why, shown, name, options)
            row += pf.metadata.row_group(group).num_rows
    except Exception as exc:  # pyarrow raises ArrowInvalid, OSError and others on bad files
        yield Skipped(name, shown, "unreadable", f"{type(exc).__name__}: {exc}")


def open_parquet(path: Path, fs: Any = None) -> Any:
    """``pyarrow.parquet.ParquetFile`` reading pages as they are needed (1 MiB buffered
    reads, no pre-buffering of whole column chunks), so a large row group is not held whole
    while its batches are read; on the fsspec file system ``fs``, if given."""
    import pyarrow.parquet as pq

    source = path if fs is None else fs.open(str(path), "rb")
    return pq.ParquetFile(source, buffer_size=PIECE, pre_buffer=False)


def parquet_batches(
    pf: Any, group: int, options: ReadOptions, columns: list[str] | None = None
) -> Iterator[Any]:
    """The record batches of row group ``group`` of ``pf`` (:func:`open_parquet`), of about
    :data:`BLOCK_BYTES` of text each (as many records as a JSONL block holds, at most
    :data:`BATCH_ROWS`), so that reading Parquet holds about what reading JSONL holds;
    Arrow's freed buffers are handed back to the system after each batch."""
    import pyarrow as pa

    meta = pf.metadata
    names = [meta.schema.column(j).path for j in range(meta.num_columns)]
    rows = meta.row_group(group).num_rows
    size = 0
    if options.text_field in names:
        size = meta.row_group(group).column(names.index(options.text_field)).total_uncompressed_size
    per_batch = BATCH_ROWS if size <= 0 else max(1, min(BATCH_ROWS, BLOCK_BYTES * rows // size))
    pool = pa.default_memory_pool()
    for batch in pf.iter_batches(per_batch, row_groups=[group], columns=columns, use_threads=False):
        yield batch
        pool.release_unused()


def parquet_groups(pf: Any, options: ReadOptions) -> list[str | None]:
    """Per row group of the Parquet file ``pf``: None to read it, or why its records are
    skipped unread (``oversize``): its text column holds more uncompressed bytes than
    ``max_bytes`` a record (a few KB on disk can inflate to hundreds of MB, and a page is
    decompressed whole, so reading it would hold an oversize field)."""
    meta = pf.metadata
    names = [meta.schema.column(j).path for j in range(meta.num_columns)]
    if options.text_field not in names:
        return [None] * meta.num_row_groups
    j = names.index(options.text_field)
    out: list[str | None] = []
    for g in range(meta.num_row_groups):
        group = meta.row_group(g)
        size, rows = group.column(j).total_uncompressed_size, group.num_rows
        if size > max(rows, 1) * options.max_bytes:
            out.append(
                f"row group {g} holds {size} bytes of text uncompressed for {rows} records,"
                f" over max_bytes={options.max_bytes} a record: not read"
            )
        else:
            out.append(None)
    return out


def _group_skips(
    pf: Any, group: int, row: int, why: str, shown: str, name: str, options: ReadOptions
) -> Iterator[Skipped]:
    """Skip rows of the records of a row group that is not read (ids read alone)."""
    rows = pf.metadata.row_group(group).num_rows
    raw_ids: list[Any] = [None] * rows
    if options.id_field in pf.schema_arrow.names:
        table = pf.read_row_group(group, columns=[options.id_field])
        raw_ids = table.column(0).to_pylist()
    for i, value in enumerate(raw_ids):
        n = row + i + 1
        yield Skipped(record_id(value, f"{name}:{n}"), f"{shown}:row {n}", "oversize", why)


def fields(path: Path) -> list[str] | None:
    """The schema's field names."""
    import pyarrow.parquet as pq

    return list(pq.ParquetFile(path).schema_arrow.names)


def select(
    path: Path, name: str, want: Want, options: ReadOptions, done: Callable[[int], None]
) -> Iterator[Batch]:
    """The wanted records of a Parquet file, whole (:class:`~.format.Select`); the row
    groups the job skipped unread (:func:`parquet_groups`) are not read here either."""

    def numbered() -> Iterator[tuple[int, Any, int]]:
        pf = open_parquet(path)
        rows = pf.metadata.num_rows
        row = 0
        for group, why in enumerate(parquet_groups(pf, options)):
            if why is None:
                for batch in parquet_batches(pf, group, options):
                    yield row, batch, rows
                    row += batch.num_rows
            else:
                row += pf.metadata.row_group(group).num_rows

    yield from select_batches(numbered(), path, name, want, options, done)


def parts(path: Path, options: ReadOptions, fs: Any = None) -> int:
    """The row groups of a Parquet file that holds the text field (a task each); 1 when it
    has not or its footer cannot be read (one task, whose reader's skip row names it)."""
    try:
        pf = open_parquet(path, fs)
        if options.text_field in pf.schema_arrow.names:
            return int(pf.metadata.num_row_groups)
    except Exception:  # the reader's skip row names it, on a worker
        pass
    return 1


FORMAT = Format(
    "parquet",
    (".parquet", ".pq"),
    seekable=True,
    plan=plan,
    fields=fields,
    select=select,
    parts=parts,
)
