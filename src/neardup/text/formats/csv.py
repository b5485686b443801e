"""CSV (``.csv``; through ``.gz``, ``.zst``, ``.bz2``, ``.xz``): UTF-8 with a header row.

Read from bytes into :class:`~neardup.text.units.RecordsUnit` batches: a bad byte costs its
record only (the text is decoded per record), a field over ``max_bytes`` is skipped while
read, and a quote left open costs the record that opened it (:func:`csv_records`). A file
whose header lacks the text field is one skip row, as in a tree walk.
"""

from __future__ import annotations

import csv
import sys
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from neardup.text.formats.format import Batch, Format, Want
from neardup.text.scrub import scrub
from neardup.text.types import Skipped, SkipReason
from neardup.text.units import (
    BATCH_ROWS,
    BLOCK_BYTES,
    PIECE,
    READ_ERRORS,
    ReadOptions,
    RecordsUnit,
    Unit,
    counted_stream,
    file_size,
    has_own_id,
    open_stream,
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
    """CSV with a header row, read from bytes (:class:`~neardup.text.formats.format.Plan`;
    ``size`` and ``groups`` do not apply)."""
    shown = shown or scrub(str(path))
    try:
        with counted_stream(path, fs) as (f, consumed):
            yield from _csv_units(f, shown, name, options, consumed)
    except READ_ERRORS as exc:
        yield Skipped(name, shown, "unreadable", f"{type(exc).__name__}: {exc}")


#: Times the records after an unclosed quote are read again (each time at least one line
#: further on); past it the rest of the file is one skip row.
_CSV_REPLAYS = 1000


@dataclass(frozen=True, slots=True)
class CsvRecord:
    """One CSV record: its first line number and fields, or the reason it is skipped
    (``reason`` set, ``fields`` empty)."""

    line: int
    fields: list[str]
    reason: SkipReason | None = None
    detail: str = ""


def csv_records(f: IO[bytes], max_bytes: int) -> Iterator[CsvRecord]:
    """The records of a CSV byte stream (the header first), each with its first line number.

    Lines end at ``\n``, or at ``\r`` in a file whose first 1 MiB has ``\r`` and no
    ``\n`` (old Mac line ends). A line over ``max_bytes`` is read past, never held (an
    ``oversize`` record). A record over several lines with an odd number of quotes, or
    with other than the header's number of fields, had a quote left open that took the
    lines after it (to the end of the file, to the field limit, or to the next quote): that
    record is skipped (``unreadable``, naming the lines
    it took) and the lines after its first are read again as records. Used by the reader
    and by :mod:`neardup.job.export`, so both number records alike.
    """
    lines = _BoundedLines(f, max_bytes)
    wanted = min(max_bytes + 1, sys.maxsize, 2**31 - 1)
    if csv.field_size_limit() < wanted:
        csv.field_size_limit(wanted)
    reader = csv.reader(lines)
    replays, width = 0, 0  # width: the header's fields
    while True:
        start = lines.start()
        error: csv.Error | None = None
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            error = exc
        held = lines.record
        odd = sum(x.count('"') for x in held) % 2 == 1
        if len(held) > 1 and (odd or (error is None and width and len(row) != width)):
            # over several lines, an odd number of quotes or not the header's fields: a
            # quote left open took the lines after it (to the end of the file, the field
            # limit, or the next quote, which opened a field of its own)
            last = start + len(held) - 1
            if replays >= _CSV_REPLAYS:
                why = f"unclosed quotes: lines {start}-{last} not read ({replays} read again)"
                yield CsvRecord(start, [], "unreadable", why)
                return
            replays += 1
            why = f"unclosed quote: the record took lines {start + 1}-{last} (read again)"
            yield CsvRecord(start, [], "unreadable", why)
            lines.replay(start, held[1:])
            lines.oversize = False
            continue
        if error is not None:
            reason: SkipReason = "oversize" if "larger than" in str(error) else "unreadable"
            yield CsvRecord(start, [], reason, f"bad CSV record: {error}")
            continue
        if lines.oversize:
            lines.oversize = False
            yield CsvRecord(start, [], "oversize", f"record over max_bytes={max_bytes}")
            continue
        width = width or len(row)
        yield CsvRecord(start, row)


def _csv_units(
    f: IO[bytes], shown: str, name: str, options: ReadOptions, consumed: Any = None
) -> Iterator[RecordsUnit | Skipped]:
    records = csv_records(f, options.max_bytes)
    first = next(records, None)
    if first is None:
        return
    if first.reason is not None:
        yield Skipped(name, shown, "unreadable", f"bad CSV header: {first.detail}")
        return
    header = [h.lstrip("\ufeff") if i == 0 else h for i, h in enumerate(first.fields)]
    if options.text_field not in header:
        detail = f"no column {options.text_field!r} in the header {header!r}"
        yield Skipped(name, shown, "unreadable", detail)
        return
    ti = header.index(options.text_field)
    ii = header.index(options.id_field) if options.id_field in header else -1
    rows: list[tuple[str, Any, str]] = []
    done, held = 0, 0

    def unit() -> RecordsUnit:
        nonlocal done
        now = done if consumed is None else consumed()
        made = _csv_unit(shown, rows, now - done)
        done = now
        return made

    for item in _csv_rows(records, shown, name, ti, ii):
        if isinstance(item, Skipped):
            if rows:  # keep input order: the records before the skip go first
                yield unit()
                rows, held = [], 0
            yield item
            continue
        rows.append(item)
        held += len(item[1])
        if len(rows) >= BATCH_ROWS or held >= BLOCK_BYTES:  # about a JSONL block's text
            yield unit()
            rows, held = [], 0
    if rows:
        yield unit()


def _csv_rows(
    records: Iterator[CsvRecord], shown: str, name: str, ti: int, ii: int
) -> Iterator[tuple[str, str, str] | Skipped]:
    """``(id, raw text, locator)`` of each record, or its skip row."""
    for rec in records:
        fallback, where = f"{name}:{rec.line}", f"{shown}:{rec.line}"
        if rec.reason is not None:
            yield Skipped(fallback, where, rec.reason, rec.detail)
            continue
        row = rec.fields
        doc_id = record_id(_undo_escape(row[ii]) if 0 <= ii < len(row) else None, fallback)
        if len(row) <= ti:
            yield Skipped(doc_id, where, "unreadable", "record has no text column")
            continue
        yield doc_id, row[ti], where


def _undo_escape(value: str) -> str:
    return value.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _csv_unit(shown: str, rows: list[tuple[str, Any, str]], weight: int = 0) -> RecordsUnit:
    # The text goes on as the field's bytes: read_unit decodes it strictly per record, so a
    # bad byte skips its record as undecodable and nothing else.
    ids, texts, where = zip(*rows, strict=True)
    raw = tuple(t.encode("utf-8", "surrogateescape") for t in texts)
    return RecordsUnit(shown, tuple(ids), raw, tuple(where), weight)


class _BoundedLines:
    """Text lines of a binary stream for :mod:`csv`, decoded with ``surrogateescape``; a
    line over ``max_bytes`` is read past and replaced by an empty line (``oversize`` set),
    so a huge field is never held whole. It keeps the lines of the record being read
    (``record``, at most ``max_bytes`` as the field limit stops csv there) and can hand
    them out again (:meth:`replay`)."""

    def __init__(self, f: IO[bytes], max_bytes: int) -> None:
        self._f = f
        self._max = max_bytes
        self._buf = b""
        self._pos = 0
        self._eol: bytes | None = None  # b"\n", or b"\r" for a CR-only file
        self._again: deque[str] = deque()
        self.line_no = 0
        self.oversize = False
        self.record: list[str] = []

    def start(self) -> int:
        """Mark the start of a record; returns its first line number."""
        self.record = []
        return self.line_no + 1

    def replay(self, line_no: int, lines: list[str]) -> None:
        """Hand out ``lines`` again, the first numbered ``line_no + 1``."""
        self._again.extendleft(reversed(lines))
        self.line_no = line_no

    def __iter__(self) -> _BoundedLines:
        return self

    def __next__(self) -> str:
        text = self._again.popleft() if self._again else self._next_line()
        self.line_no += 1
        self.record.append(text)
        return text

    def _next_line(self) -> str:
        raw = self._readline(self._max + 2)
        if not raw:
            raise StopIteration
        if len(raw) > self._max + 1 and not raw.endswith(self._eol or b"\n"):
            while True:
                rest = self._readline(min(PIECE, self._max + 2))
                if not rest or rest.endswith(self._eol or b"\n"):
                    break
            self.oversize = True
            return "\n"
        return raw.decode("utf-8", "surrogateescape")

    def _readline(self, limit: int) -> bytes:
        """Up to ``limit`` bytes: a line with its end, or the start of a longer one."""
        while True:
            buf, pos = self._buf, self._pos
            if self._eol is None and buf:
                head = buf[:PIECE]
                self._eol = b"\r" if b"\r" in head and b"\n" not in head else b"\n"
            at = buf.find(self._eol, pos, pos + limit) if self._eol else -1
            if at >= 0:
                self._pos = at + 1
                return buf[pos : at + 1]
            if len(buf) - pos >= limit:
                self._pos = pos + limit
                return buf[pos : pos + limit]
            piece = self._f.read(min(PIECE, max(1 << 16, limit - (len(buf) - pos))))
            if not piece:
                self._buf, self._pos = b"", 0
                return buf[pos:]
            self._buf, self._pos = buf[pos:] + piece, 0


# -- fields and whole records -----------------------------------------------------------------
def fields(path: Path) -> list[str] | None:
    """The header's fields (None: no header, or a bad one)."""
    with open_stream(path) as f:
        head = next(csv_records(f, 1 << 20), None)
        if head is None or head.reason is not None:
            return None
        return [h.lstrip("\ufeff") for h in head.fields]


def select(
    path: Path, name: str, want: Want, options: ReadOptions, done: Callable[[int], None]
) -> Iterator[Batch]:
    """Whole CSV rows (every column) of the wanted records: the job's ids by record line,
    then one pass writing those lines' rows."""
    wanted: dict[int, tuple[str, str]] = {}
    for unit in plan(path, name, options):
        if isinstance(unit, RecordsUnit):
            for doc_id, where in zip(unit.ids, unit.where, strict=True):
                wanted[int(where.rsplit(":", 1)[1])] = (doc_id, where)
    id_at = None
    rows: list[dict[str, Any]] = []
    with open_stream(path) as f:
        records = csv_records(f, options.max_bytes)  # numbered as the job numbered them
        head = next(records, None)
        header = [] if head is None or head.reason else [_text(h) for h in head.fields]
        if header:
            header[0] = header[0].lstrip("\ufeff")
            id_at = header.index(options.id_field) if options.id_field in header else None
        for rec in records:
            wanted_id = wanted.get(rec.line)
            raw_id = None
            if id_at is not None and id_at < len(rec.fields):
                raw_id = rec.fields[id_at]
            if (
                rec.reason is None
                and wanted_id is not None
                and want(*wanted_id, has_own_id(raw_id))
            ):
                rows.append(dict(zip(header, map(_text, rec.fields), strict=False)))
            if len(rows) >= BATCH_ROWS:
                yield ("rows", rows)
                rows = []
    if rows:
        yield ("rows", rows)
    done(file_size(path))


def _text(field: str) -> str:
    """A CSV field read with ``surrogateescape`` as text (a bad byte becomes U+FFFD)."""
    return field.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


FORMAT = Format("csv", (".csv",), plan=plan, fields=fields, select=select)
