"""What an input format declares: :class:`Format`, one value a format module exports.

A format is one module of :mod:`neardup.text.formats` holding a ``FORMAT`` value: the
names it is known by, and the functions that read it. Every reader goes through the
registry (:func:`neardup.text.formats.format_of`): the local job's planner
(:mod:`neardup.text.inputs`), the written records of ``--kept``/``--removed``/``--mark``
(:mod:`neardup.job.export`), the Dask engine's blocks (:mod:`neardup.distributed.io`), the
upload forms and the corpus tools.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from neardup.text.types import ContentType, Skipped
from neardup.text.units import ReadOptions, Unit

#: Compression suffixes looked through (a format that is not ``seekable`` is read
#: decompressed through them).
COMPRESSION_SUFFIXES: tuple[str, ...] = (".gz", ".zst", ".bz2", ".xz")

#: A batch of whole records selected for an output: ``("lines", raw JSONL lines)``,
#: ``("rows", dicts)`` or ``("arrow", a record batch)``.
Batch = tuple[str, Any]


class Want(Protocol):
    """Whether to take a record: ``want(doc_id, place, own)`` with its id, its place
    (``FILE:LINE``, ``FILE:row N``) and whether its id field holds ``doc_id`` (else
    ``doc_id`` is the fallback); each wanted id is taken once."""

    def __call__(self, doc_id: str, place: str | None = None, own: bool = True) -> bool: ...


class Plan(Protocol):
    """The read units and skip rows of one record file, in order.

    Args:
        path: the file (on ``fs``, or this machine's file system when ``fs`` is None).
        name: its name in ids (the ``FILE`` of the fallback ids ``FILE:LINE``).
        options: the read options.
        size: read an uncompressed file up to this many bytes (its size when the job
            noted it), not further; None: all of it.
        groups: ``(first, stop)``: read these parts (Parquet row groups) only; None: all.
        fs: the fsspec file system ``path`` is on (a file given by URL to the Dask
            engine); None: this machine's.
        shown: how the file is named in sources and skip rows (the URL as given); None:
            its path.
    """

    def __call__(
        self,
        path: Path,
        name: str,
        options: ReadOptions,
        *,
        size: int | None = None,
        groups: tuple[int, int] | None = None,
        fs: Any = None,
        shown: str | None = None,
    ) -> Iterator[Unit | Skipped]: ...


class Select(Protocol):
    """The wanted records of one record file as :data:`Batch` values, whole (every field,
    JSONL lines byte for byte), numbered and named as :class:`Plan` numbers and names them;
    ``done(n)`` as ``n`` more bytes of the file on disk have been read."""

    def __call__(
        self, path: Path, name: str, want: Want, options: ReadOptions, done: Callable[[int], None]
    ) -> Iterator[Batch]: ...


class RangeUnits(Protocol):
    """The read units of the records that start in ``[start, end)`` of a file on the
    fsspec file system ``fs``, the first numbered ``first_line``, named ``base`` in ids and
    ``shown`` in sources."""

    def __call__(
        self, fs: Any, path: str, start: int, end: int, *, first_line: int, base: str, shown: str
    ) -> Iterator[Unit]: ...


@dataclass(frozen=True, slots=True)
class Format:
    """One input format.

    Attributes:
        name: the format's name (``jsonl``, ``csv``, ``pdf``...), unique in the registry.
        suffixes: lower-case file name suffixes it is known by (after one compression
            suffix, :data:`COMPRESSION_SUFFIXES`, is looked through).
        appendable: an uncompressed file is read up to its size when planned (``size`` of
            :class:`Plan`), so records appended while the job reads it are one skip row
            (the file grew), not a changed file.
        seekable: it needs random access, so it is not read through a compression suffix
            (``data.parquet.gz`` is of no known format).
        content_type: for a document format, the content type its suffix fixes (``text``,
            ``html``, ``wiki``: :func:`neardup.text.sniff.sniff_content_type`); None: by
            content.
        signature: the bytes a file of this format opens with, or ``b""``: a binary
            document format (PDF, DOCX) read by :attr:`text`, found by its signature when
            its name does not tell (:meth:`opens`).
        marker: bytes the first 4 KiB must hold besides the signature (``word/`` for a
            DOCX, a ZIP archive), or ``b""``.
        text: a binary document format's text from the file's bytes (raises
            :class:`neardup.text.office.OfficeError` for a file it cannot read); None: the
            bytes are decoded as text.
        title: a binary document format's title from its metadata (``""``: none).
        plan: a record format's :class:`Plan` (the file cut into read units); None: a
            document format, one document a file.
        fields: a record format's field names as the file's head gives them (None when
            they cannot be told: the reader's skip row names the file).
        select: a record format's :class:`Select`, for the written records.
        parts: the parts a record file (on the fsspec file system given, None: this
            machine's) is read in, each by its own task of the Dask engine (``plan(...,
            groups=(k, k + 1))``); None or 1: one task.
        range_units: a format whose uncompressed files can be cut at any byte offset, a
            record owning the range its line starts in (JSONL): the read units of the
            records that start in ``[start, end)`` (:class:`RangeUnits`), so the Dask
            engine reads a large file in ranges of ``--block-mib``; None: not cut so.
        range_lines: with ``range_units``: ``(fs, path, start, end)`` -> the records that
            start in the range (the engine numbers the ranges' lines before reading them).
    """

    name: str
    suffixes: tuple[str, ...]
    appendable: bool = False
    seekable: bool = False
    content_type: ContentType | None = None
    signature: bytes = b""
    marker: bytes = b""
    text: Callable[[bytes], str] | None = None
    title: Callable[[bytes], str] | None = None
    plan: Plan | None = None
    fields: Callable[[Path], list[str] | None] | None = None
    select: Select | None = None
    parts: Callable[[Path, ReadOptions, Any], int] | None = None
    range_units: RangeUnits | None = None
    range_lines: Callable[[Any, str, int, int], int] | None = None

    @property
    def records(self) -> bool:
        """Whether a file holds records (read by :attr:`plan`), not one document."""
        return self.plan is not None

    def opens(self, data: bytes) -> bool:
        """Whether ``data`` opens as a file of this format does (:attr:`signature` and
        :attr:`marker`); False for a format without a signature."""
        if not self.signature or not data.startswith(self.signature):
            return False
        return not self.marker or self.marker in data[:4096]


def strip_compression(name: str) -> str:
    """``name`` (lower case) without one trailing compression suffix."""
    lower = name.lower()
    for suffix in COMPRESSION_SUFFIXES:
        if lower.endswith(suffix):
            return lower[: -len(suffix)]
    return lower


def is_compressed(name: str) -> bool:
    """Whether ``name`` ends with a compression suffix (:data:`COMPRESSION_SUFFIXES`)."""
    return name.lower().endswith(COMPRESSION_SUFFIXES)


def is_local_fs(fs: Any) -> bool:
    """Whether the fsspec file system ``fs`` is this machine's (protocol ``file`` or
    ``local``), where a file can be memory-mapped and read back cheaply."""
    protocol = fs.protocol if isinstance(fs.protocol, tuple) else (fs.protocol,)
    return "file" in protocol or "local" in protocol
