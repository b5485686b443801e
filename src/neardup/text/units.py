"""Read units: what a format's planner cuts a file into and :func:`neardup.text.read.read_unit`
turns into documents, one process or several; the read options; the id rules.

Three kinds of unit, the interface between the formats (:mod:`neardup.text.formats`) and
the reader: :class:`LinesUnit` (a block of whole JSONL lines), :class:`RecordsUnit`
(records already split into fields: Parquet, Arrow, CSV) and :class:`FilesUnit` (document
files, one document each). A new format makes one of them and needs no change to the
reader. Memory is bounded by the unit size: a block holds at most :data:`BLOCK_BYTES` plus
one line, a batch at most :data:`BATCH_ROWS` records.
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import json
import lzma
import os
import zlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, cast

from neardup.options import OPTIONS
from neardup.text.scrub import scrub

#: Bytes of JSONL lines in one block (a block also ends at the end of a file).
BLOCK_BYTES = 4 << 20
#: Records in one batch of a Parquet, Arrow or CSV file.
BATCH_ROWS = 2048
#: Document files in one unit (or fewer, when their sizes add up to :data:`BLOCK_BYTES`).
FILES_PER_UNIT = 64
#: Bytes read at a time from a stream.
PIECE = 1 << 20
#: What reading a damaged or changed file raises.
READ_ERRORS = (OSError, EOFError, zlib.error, lzma.LZMAError, ValueError)


@dataclass(frozen=True, slots=True)
class ReadOptions:
    """How records become documents (validated by :func:`neardup.text.read.read_corpus`).

    Attributes:
        id_field, text_field: record fields holding the id and the text.
        content_type: ``auto`` or a forced ``text``, ``html``, ``wiki``.
        max_bytes: largest payload read (bytes).
        extractor: HTML main-text extractor (``resiliparse`` or ``trafilatura``).
        glob: pattern selecting the files of directory inputs, or ``None``.
        follow_symlinks: read symbolic links whose target lies outside the walked tree.
        include: patterns selecting the files of directory inputs (a file is read when it
            matches one of them or ``glob``; none: every file).
        exclude: patterns of files of directory inputs that are not read.
        recursive: walk the subdirectories of directory inputs (else their files only).
        limit: read the first ``limit`` records (documents and skip rows) only, or None.
    """

    id_field: str = OPTIONS["id_field"].default
    text_field: str = OPTIONS["text_field"].default
    content_type: str = OPTIONS["content_type"].default
    max_bytes: int = OPTIONS["max_bytes"].default
    extractor: str = OPTIONS["extractor"].default
    glob: str | None = None
    follow_symlinks: bool = False
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    recursive: bool = True
    limit: int | None = None

    @property
    def includes(self) -> tuple[str, ...]:
        """The patterns a file of a walked tree must match one of (``glob`` and
        ``include``); empty: every file."""
        return ((self.glob,) if self.glob is not None else ()) + self.include


@dataclass(frozen=True, slots=True)
class FilesUnit:
    """Document files (one document each): ``(path, document id)`` pairs, in order;
    ``weight``: their bytes on disk (the progress of the read, :func:`planned_bytes`)."""

    files: tuple[tuple[str, str], ...]
    weight: int = field(default=0, compare=False)


@dataclass(frozen=True, slots=True)
class LinesUnit:
    """A block of whole JSONL lines of one file.

    Attributes:
        path: the file as shown in skip rows; base: prefix of fallback ids (``base:LINE``);
        data: the lines' bytes (decompressed), or ``b""`` when ``span`` locates them;
        first_line: 1-based number of the first line.
        span: ``(file, offset, length)``: where the lines lie in an uncompressed file, read
            by :meth:`loaded` in the process that reads the unit (so a pool of workers is
            not sent the corpus through pipes); None when ``data`` holds them.
        weight: the bytes of the file on disk the unit stands for (compressed bytes for a
            compressed file; the progress of the read, :func:`planned_bytes`).
    """

    path: str
    base: str
    data: bytes
    first_line: int
    span: tuple[str, int, int] | None = None
    weight: int = field(default=0, compare=False)
    digest: int | None = field(default=None, compare=False)

    def loaded(self) -> LinesUnit:
        """This unit with its lines in ``data``.

        Raises:
            OSError: the file can no longer be read, is shorter than planned, or no longer
                holds the bytes planned (``digest``: the span's XXH3-64 when planned).
        """
        if self.span is None:
            return self
        file, offset, length = self.span
        with open(file, "rb") as f:
            f.seek(offset)
            data = f.read(length)
            forget_read_pages(f, offset, length)
        if len(data) != length:
            raise OSError(f"{self.path} changed while it was read: {len(data)} of {length} bytes")
        if self.digest is not None and digest(data) != self.digest:
            raise OSError(
                f"{self.path} changed while it was read: bytes {offset}-{offset + length}"
                " differ from those planned"
            )
        return LinesUnit(self.path, self.base, data, self.first_line)


#: An input file of at least this share of the machine's physical memory has the pages of
#: each span a worker read dropped from the page cache (:func:`forget_read_pages`).
FORGET_SHARE = 0.5


def forget_read_pages(f: IO[bytes], offset: int, length: int) -> None:
    """Drop bytes ``offset:offset + length`` of ``f``, just read, from the page cache
    (``posix_fadvise(POSIX_FADV_DONTNEED)``) when the file is at least
    :data:`FORGET_SHARE` of the physical memory: such a file cannot stay cached beside
    the job anyway, and its pages, read twice (the plan's digest, then the worker), were
    kept by the kernel over the job's own spilled arrays, which the candidate and verify
    stages then read back from the disk. Ten million documents (22.6 GB of JSONL, 24 GiB
    of memory): see ``docs/speed.md``. A smaller file, or a system without the call, is
    left alone."""
    from neardup._spill import physical_memory

    fadvise = getattr(os, "posix_fadvise", None)
    total = physical_memory()
    if fadvise is None or total is None:
        return
    with contextlib.suppress(OSError, ValueError):
        if os.fstat(f.fileno()).st_size >= FORGET_SHARE * total:
            fadvise(f.fileno(), offset, length, os.POSIX_FADV_DONTNEED)


@dataclass(frozen=True, slots=True)
class RecordsUnit:
    """Records already split into fields (Parquet, Arrow, CSV), in order.

    Attributes:
        path: the file; ids: document ids; texts: raw text values (``str``, ``bytes`` or
        anything a record held); where: each record's locator for skip rows
        (``file:row N`` or ``file:LINE``); weight: the file's bytes on disk the records
        stand for (the progress of the read, :func:`planned_bytes`).
    """

    path: str
    ids: tuple[str, ...]
    texts: tuple[Any, ...]
    where: tuple[str, ...]
    weight: int = field(default=0, compare=False)


Unit = FilesUnit | LinesUnit | RecordsUnit


def file_size(path: Path) -> int:
    """``path``'s size in bytes, 0 when it cannot be told."""
    try:
        return path.stat().st_size
    except OSError:
        return 0


# -- streams --------------------------------------------------------------------------------
@contextlib.contextmanager
def counted_stream(path: Path, fs: Any = None) -> Iterator[tuple[IO[bytes], Any]]:
    """``(stream, consumed)``: ``path`` opened as :func:`open_stream` opens it (on the
    fsspec file system ``fs``, if given), and a function giving the bytes of the file on
    disk read so far (compressed bytes for a compressed file: the progress of the read)."""
    with (
        open(path, "rb") if fs is None else fs.open(str(path), "rb") as raw,
        _decompressed(raw, path.name.lower()) as f,
    ):
        yield f, raw.tell


def _decompressed(raw: IO[bytes], lower: str) -> Any:
    """``raw`` read through the decompressor its name asks for (``raw`` left open)."""
    if lower.endswith(".gz"):
        return gzip.GzipFile(fileobj=raw, mode="rb")
    if lower.endswith(".zst"):
        import zstandard

        return zstandard.ZstdDecompressor().stream_reader(raw, closefd=False)
    if lower.endswith(".bz2"):
        return bz2.BZ2File(raw)
    if lower.endswith(".xz"):
        return lzma.LZMAFile(raw)
    return contextlib.nullcontext(raw)


def open_stream(path: Path) -> IO[bytes]:
    """``path`` opened for reading bytes, decompressed by its suffix (.gz, .zst, .bz2, .xz)."""
    lower = path.name.lower()
    if lower.endswith(".gz"):
        return cast("IO[bytes]", gzip.open(path, "rb"))  # GzipFile: an IO[bytes] at runtime
    if lower.endswith(".zst"):
        import zstandard

        return zstandard.ZstdDecompressor().stream_reader(open(path, "rb"), closefd=True)
    if lower.endswith(".bz2"):
        return bz2.open(path, "rb")
    if lower.endswith(".xz"):
        return lzma.open(path, "rb")
    return open(path, "rb")


def digest(data: bytes | memoryview) -> int:
    """XXH3-64 of a block's bytes (about 10 GB/s: what a block held when planned)."""
    import xxhash

    return int(xxhash.xxh3_64_intdigest(data))


# -- record ids -------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class LongInt:
    """A JSON integer of more digits than Python converts (``sys.get_int_max_str_digits``),
    kept as its digits, so a record holding one in any field is read all the same (as an id
    it reads as its digits)."""

    digits: str

    def __str__(self) -> str:
        return self.digits


def record_id(value: object, fallback: str) -> str:
    """A record's document id: the id field as text, or ``fallback`` when absent/blank."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return fallback
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, bytes):
        return scrub(value.decode("utf-8", "replace"))
    if isinstance(value, LongInt):
        return value.digits
    return scrub(json.dumps(value, ensure_ascii=False, default=str))


def field_of(record: object, field: str) -> object:
    """``record[field]``, else ``record[a][b]...`` for ``field = "a.b..."`` (a field of a
    nested object); None when absent or ``record`` is not a mapping."""
    if not isinstance(record, dict):
        return None
    if field in record:
        return record[field]
    head, dot, rest = field.partition(".")
    return field_of(record.get(head), rest) if dot and head in record else None


def has_own_id(raw_id: object) -> bool:
    """Whether a record's id field value is its id (not absent or blank: :func:`record_id`
    then gives the fallback ``FILE:LINE``)."""
    return raw_id is not None and not (isinstance(raw_id, str) and not raw_id.strip())


# -- unique ids ---------------------------------------------------------------------------------
class UniqueIds:
    """The corpus-wide id rule: the first record with an id keeps it (even if it is then
    skipped); every later record with the same id is given its place as id (its source:
    ``FILE:LINE``, ``FILE:row N`` or the file's path; ``#2``, ``#3``... appended if that is
    taken too, or to the id when there is no source). Nothing is dropped for its id, and
    the same input gives the same ids.

    Attributes:
        renamed: records given their place as id; first: the first few ``(id, source)``
            clashes (for the warning).
    """

    def __init__(self) -> None:
        self._seen: set[str] = set()
        self.renamed = 0
        self.first: list[tuple[str, str]] = []

    def fresh(self, ids: Iterable[str]) -> bool:
        """Whether all of ``ids`` are new and distinct; if so they are taken (C speed)."""
        batch = ids if isinstance(ids, list) else list(ids)
        if self._seen.isdisjoint(batch) and len(set(batch)) == len(batch):
            self._seen.update(batch)
            return True
        return False

    def note(self, doc_id: str) -> None:
        """Take the id of a skipped record (a later record with it is renamed)."""
        self._seen.add(doc_id)

    def claim(self, doc_id: str, source: str) -> str:
        """The id a document with ``doc_id`` found at ``source`` gets (see the class)."""
        if doc_id not in self._seen:
            self._seen.add(doc_id)
            return doc_id
        base = source or doc_id  # a Document made in Python may have no source
        new, k = base, 2
        while new in self._seen:
            new, k = f"{base}#{k}", k + 1
        self._seen.add(new)
        self.renamed += 1
        if len(self.first) < 3:
            self.first.append((doc_id, source))
        return new

    def warning(self) -> str | None:
        """The one-line warning of the renamed records, or None."""
        return renamed_warning(self.renamed, self.first)


def renamed_warning(renamed: int, first: Sequence[tuple[str, str]] = ()) -> str | None:
    """The job's one-line warning of ``renamed`` records given their place as id (the
    first few ``(id, source)`` clashes named when known), on every executor; None for 0."""
    if not renamed:
        return None
    shown = ", ".join(f"{i!r} at {s}" for i, s in first)
    return (
        f"{renamed} records repeat an id seen before{f' (first: {shown})' if shown else ''};"
        " each was given its place FILE:LINE as id (--kept/--removed/--mark write it as the"
        " record's field neardup_id; use --id-field to pick another id field)"
    )
