"""Cut a corpus into read units: the batches of work that :func:`neardup.text.read.read_unit`
turns into documents, one process or several.

The planner (:func:`plan_units`) runs in one process and touches every input once: it walks
directory trees, cuts JSONL into blocks of whole lines (an uncompressed file as file spans
that the reading process reads itself, a compressed file or standard input as raw bytes,
decompressed), reads Parquet, CSV and Hugging Face ``datasets`` folders into record
batches, and spools standard input (``-``) to a temporary file. What it cannot read
becomes a :class:`Skipped` value with its reason, in input order; nothing is dropped
silently. The expensive steps (JSON parsing,
decoding, markup extraction, PDF and DOCX text) happen in :func:`read_unit`, so a pool of
workers can share them.

Memory is bounded by the unit size: a JSONL block holds at most :data:`BLOCK_BYTES` plus one
line, and a line over ``max_bytes`` is skipped while it is read, never held whole.
"""

from __future__ import annotations

import bz2
import contextlib
import csv
import gzip
import io
import json
import lzma
import os
import shutil
import sys
import tempfile
import zlib
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from fnmatch import fnmatchcase
from pathlib import Path
from typing import IO, Any, cast

from neardup.errors import InputError, ParameterError
from neardup.options import OPTIONS
from neardup.text.formats import (
    InputKind,
    input_kind,
    is_datasets_folder,
)
from neardup.text.scrub import scrub
from neardup.text.types import Skipped, SkipReason

#: Bytes of JSONL lines in one block (a block also ends at the end of a file).
BLOCK_BYTES = 4 << 20
#: Records in one batch of a Parquet, Arrow or CSV file.
BATCH_ROWS = 2048
#: Document files in one unit (or fewer, when their sizes add up to :data:`BLOCK_BYTES`).
FILES_PER_UNIT = 64
_PIECE = 1 << 20
_ERRORS = (OSError, EOFError, zlib.error, lzma.LZMAError, ValueError)


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
        if len(data) != length:
            raise OSError(f"{self.path} changed while it was read: {len(data)} of {length} bytes")
        if self.digest is not None and _digest(data) != self.digest:
            raise OSError(
                f"{self.path} changed while it was read: bytes {offset}-{offset + length}"
                " differ from those planned"
            )
        return LinesUnit(self.path, self.base, data, self.first_line)


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

#: Input kinds read as records, planned by :func:`plan_file`.
RECORD_KINDS: tuple[InputKind, ...] = ("jsonl", "parquet", "csv", "arrow")


@dataclass(frozen=True, slots=True)
class RecordFile:
    """A record file (JSONL, Parquet, CSV, Arrow) planned where it is read
    (:func:`plan_deferred`: by the Dask engine's workers), by :func:`plan_file` as the
    local planner plans it.

    Attributes:
        path: the file; name: its name in ids (``FILE`` of ``FILE:LINE``); kind: its kind;
        size: the bytes of an uncompressed JSONL file to read (its size when planned);
        groups: ``(first, stop)``: the Parquet row groups to read, or None: all.
    """

    path: str
    name: str
    kind: InputKind
    size: int | None = None
    groups: tuple[int, int] | None = None

    def units(self, options: ReadOptions) -> Iterator[Unit | Skipped]:
        """The file's read units and skip rows (:func:`plan_file`)."""
        path = Path(self.path)
        return plan_file(path, self.name, self.kind, options, size=self.size, groups=self.groups)


@dataclass
class Spool:
    """Temporary copies of standard input, removed by :meth:`close`; ``stdin``: whether
    standard input was read into it (it can be read once: :func:`resolve_inputs`)."""

    paths: list[Path] = field(default_factory=list)
    stdin: bool = False

    def close(self) -> None:
        for p in self.paths:
            p.unlink(missing_ok=True)
        self.paths.clear()


#: Characters that make a missing input a glob pattern (:func:`expand_inputs`).
GLOB_CHARS = frozenset("*?[")


def expand_inputs(inputs: Iterable[str], *, strict: bool = True) -> list[str]:
    """The inputs with each one that does not exist and holds a glob character (``*``,
    ``?``, ``[``) replaced by the paths it matches, sorted (:func:`glob.glob`, ``**``
    spanning folders, hidden names left out): a pattern quoted on the command line
    (``'shard*.jsonl'``), which the shell did not expand, reads as if it had. An existing
    path is taken as it is, whatever its name holds; ``-`` (standard input) too.

    Args:
        inputs: the inputs as given.
        strict: raise for a missing input (else keep it, for the reader to refuse).

    Raises:
        InputError: (``strict``) an input does not exist; for a pattern, that it matches no
            path (the shell did not expand it either: it was quoted, or matched nothing).
    """
    import glob

    out: list[str] = []
    for raw in inputs:
        if raw == "-" or os.path.lexists(raw):
            out.append(raw)
            continue
        matches = sorted(glob.glob(raw, recursive=True)) if GLOB_CHARS & set(raw) else []
        if matches:
            out.extend(matches)
        elif not strict:
            out.append(raw)
        elif GLOB_CHARS & set(raw):
            raise InputError(
                f"input {raw!r} does not exist, and no path matches it as a glob pattern "
                "(neardup expands a pattern the shell left alone, e.g. quoted: check the "
                "pattern and its folder)"
            )
        else:
            raise InputError(f"input {raw!r} does not exist")
    return out


def resolve_inputs(inputs: list[str], spool: Spool) -> list[Path]:
    """Input paths, with ``-`` spooled from standard input to a temporary file and glob
    patterns that are not paths expanded (:func:`expand_inputs`).

    Standard input whose first line is a JSON object is read as JSONL, anything else as one
    document with id ``-``. It can be read once: ``-`` named twice through one ``spool``
    (twice among the inputs, or on both sides of a job: ``dedup - --against -``) is
    refused, since the second read would find it empty.

    Raises:
        InputError: an input does not exist (a pattern matches no path) or is neither a
            file nor a directory.
        ParameterError: ``-`` named a second time.
    """
    out: list[Path] = []
    for raw in expand_inputs([os.fspath(p) for p in inputs]):
        if raw == "-":
            if spool.stdin:
                raise ParameterError(
                    "input",
                    "-",
                    "standard input named once: it can be read only once (save it to a file "
                    "to give it twice or on both sides)",
                )
            spool.stdin = True
            out.append(_spool_stdin(spool))
            continue
        path = Path(raw)
        if not path.exists():
            raise InputError(f"input {os.fspath(raw)!r} does not exist")
        if not (path.is_file() or path.is_dir()):
            raise InputError(f"input {os.fspath(raw)!r} is neither a file nor a directory")
        out.append(path)
    return out


def _spool_stdin(spool: Spool) -> Path:
    stream = sys.stdin.buffer
    fd, name = tempfile.mkstemp(prefix="neardup-stdin-")
    with os.fdopen(fd, "wb") as f:
        shutil.copyfileobj(stream, f, _PIECE)
    path = Path(name)
    with open(path, "rb") as f:
        head = f.read(_PIECE).lstrip()
    target = path.with_name(path.name + (".jsonl" if _looks_jsonl(head) else ".stdin"))
    path.rename(target)
    spool.paths.append(target)
    return target


def _looks_jsonl(head: bytes) -> bool:
    """Whether standard input's first line is a JSON object (a wiki page opening with a
    ``{{template}}`` is not); a first line longer than ``head`` counts when it opens ``{"``."""
    first, newline, _ = head.partition(b"\n")
    if not newline and len(head) >= _PIECE - 1:
        return first.startswith(b'{"')
    try:
        return isinstance(json.loads(first), dict)
    except ValueError:
        return False


def display_name(path: Path) -> str:
    """How an input is named in ids and skip rows (``-`` for standard input)."""
    return "-" if path.name.startswith("neardup-stdin-") else scrub(path.name)


def is_stdin(path: Path) -> bool:
    """Whether ``path`` is the spooled copy of standard input (:func:`resolve_inputs`)."""
    return path.name.startswith("neardup-stdin-")


def input_names(paths: list[Path]) -> list[str]:
    """The id prefix of each input: its path relative to the deepest directory holding
    every input (a directory input holds itself, a file input is held by its parent), in
    POSIX form; ``""`` for a directory that is that common parent, ``-`` for standard input.

    So one directory gives ids relative to it (``a/b.txt``), one file its name, and
    ``6.1/Documentation 6.12/Documentation`` or ``l14/**/*.html l16/**/*.html`` give ids
    that keep the two trees apart (``6.1/Documentation/a.txt``, ``l14/x/index.html``).
    """
    homes = [os.path.abspath(p if p.is_dir() else p.parent) for p in paths if not is_stdin(p)]
    common = os.path.commonpath(homes) if homes else ""
    out: list[str] = []
    for p in paths:
        if is_stdin(p):
            out.append("-")
            continue
        rel = Path(os.path.relpath(os.path.abspath(p), common)).as_posix()
        out.append("" if rel == "." else scrub(rel))
    return out


def group_names(groups: Sequence[Sequence[Path]]) -> list[list[str]]:
    """:func:`input_names` of several groups of inputs read by one job (``dedup B
    --against A``): each path named relative to the common parent of all of them, so that
    the ids of one group never collide with another's (``6.1/Documentation/a.rst`` and
    ``6.12/Documentation/a.rst``), and each group's ids are those one read of all the inputs
    would give."""
    names = input_names([p for g in groups for p in g])
    out: list[list[str]] = []
    for g in groups:
        out.append(names[: len(g)])
        names = names[len(g) :]
    return out


def _joined(prefix: str, rel: str) -> str:
    return f"{prefix}/{rel}" if prefix and rel else (prefix or rel)


def plan_units(
    paths: list[Path], options: ReadOptions, *, names: list[str] | None = None
) -> Iterator[Unit | Skipped]:
    """The read units (and planning skips) of ``paths``, in input order.

    A directory is walked in sorted order (:func:`walk`); a datasets folder
    (``save_to_disk``) is read as records; a file is read by its kind
    (:func:`neardup.text.formats.input_kind`). Ids of files (and the ``FILE`` of fallback
    ids ``FILE:LINE``) are paths relative to the inputs' common parent
    (:func:`input_names`), or the given ``names`` (one per path: the paths are one group of
    a job's inputs, named with the others by :func:`group_names`).

    A file reached through two of ``paths`` (``dedup F F``, ``dedup D D/a.jsonl``) is read
    the first time only; the second time it is a skip row naming the first
    (:class:`InputRepeats`), so what the job counts is what ``--kept``/``--removed`` write.
    """
    return cast("Iterator[Unit | Skipped]", _plan(paths, options, names, deferred=False))


def plan_deferred(
    paths: list[Path], options: ReadOptions, *, names: list[str] | None = None
) -> Iterator[Unit | RecordFile | Skipped]:
    """:func:`plan_units` with each record file left to be planned where it is read: a
    :class:`RecordFile` in its place (the Dask engine plans on the client and reads on
    its workers: the tree walk, document files and skip rows are the local job's, and
    every record file is read by the local job's :func:`plan_file` and reader)."""
    return _plan(paths, options, names, deferred=True)


def _plan(
    paths: list[Path], options: ReadOptions, names: list[str] | None, *, deferred: bool
) -> Iterator[Unit | RecordFile | Skipped]:
    watched: list[tuple[Path, str, int, tuple[int, int], bool]] = []
    repeats = InputRepeats()
    prefixes = input_names(paths) if names is None else names
    for arg, (path, prefix) in enumerate(zip(paths, prefixes, strict=True)):
        if path.is_dir():
            if is_datasets_folder(path):
                yield from _plan_datasets(path, prefix, options, deferred)
                continue
            yield from _plan_tree(path, prefix, options, watched, repeats.of(arg), deferred)
        else:
            if prefix == "-" and path.suffix == ".stdin":
                yield FilesUnit(((str(path), "-"),), _file_size(path))
                continue
            again = repeats.of(arg)(path, prefix)
            if again is not None:
                yield again
                continue
            kind = input_kind(path.name)
            yield from _watched(path, prefix, kind, options, watched, deferred)
    yield from _grown(watched)


class InputRepeats:
    """Which files of a job's inputs were read already through another input argument
    (by device and inode, so ``D/a.jsonl`` and ``./D/a.jsonl`` are one file; links inside
    one tree are not repeats of each other)."""

    def __init__(self) -> None:
        self._first: dict[tuple[int, int], tuple[int, str]] = {}

    def of(self, arg: int) -> Any:
        """``check(file, name)`` for the files of input argument ``arg``: None the first
        time a file is met (or when it cannot be told), else its skip row."""

        def check(file: Path, name: str) -> Skipped | None:
            try:
                st = file.stat()
            except OSError:
                return None
            first = self._first.setdefault((st.st_dev, st.st_ino), (arg, name))
            if first[0] == arg:
                return None
            why = f"the same file as {first[1]}, read already: an input given twice is read once"
            return Skipped(name, scrub(str(file)), "unsupported", why)

        return check


def _watched(
    path: Path,
    name: str,
    kind: InputKind,
    options: ReadOptions,
    watched: list[Any],
    deferred: bool = False,
) -> Iterator[Unit | RecordFile | Skipped]:
    """:func:`plan_file` (with ``deferred``, a :class:`RecordFile` for it), noting the
    file's size, modification time and inode for :func:`_grown` (an uncompressed JSONL
    file is read by spans up to that size)."""
    size = None
    records = kind in RECORD_KINDS  # a document file: checked as read
    with contextlib.suppress(OSError):
        st = path.stat() if records else None
        spans = kind == "jsonl" and _uncompressed(path)
        if st is not None:
            size = st.st_size if spans else None
            watched.append((path, name, st.st_size, (st.st_ino, st.st_mtime_ns), spans))
    if deferred and kind in RECORD_KINDS:
        yield RecordFile(str(path), name, kind, size)
        return
    yield from plan_file(path, name, kind, options, size=size)


def _grown(watched: list[tuple[Path, str, int, tuple[int, int], bool]]) -> Iterator[Skipped]:
    """A skip row for each planned record file that changed while the job read it: a JSONL
    file read by spans that grew (lines appended past its planned size are not read), and
    any file rewritten (another inode, size or modification time: its records may be
    read from two versions, so the counts are not the file's; a block that no longer holds
    the bytes planned fails on its own, :meth:`LinesUnit.loaded`). Checked when every
    input is planned, so a change after that goes unseen here."""
    for path, name, size, (ino, mtime), spans in watched:
        try:
            st = path.stat()
        except OSError:
            continue
        now = st.st_size
        if (st.st_ino, st.st_mtime_ns, now) != (ino, mtime, size) and not (spans and now > size):
            why = (
                f"the file changed while it was read (size {size} -> {now} bytes, modified"
                f"{'' if st.st_ino == ino else ', another inode'}): its records may come from"
                " two versions (read it again when it no longer changes)"
            )
            yield Skipped(name, scrub(str(path)), "unreadable", why)
        elif now > size:
            lines = _count_newlines(path, size, now)
            why = (
                f"the file grew from {size} to {now} bytes while it was read: the"
                f" {lines} lines appended were not read (read it again when complete)"
            )
            yield Skipped(
                f"{name}@{size}", f"{scrub(str(path))}:bytes {size}-{now}", "unreadable", why
            )


def _count_newlines(path: Path, start: int, end: int) -> int:
    count = 0
    with open(path, "rb") as f:
        f.seek(start)
        left = end - start
        while left > 0:
            piece = f.read(min(_PIECE, left))
            if not piece:
                break
            count += piece.count(b"\n")
            left -= len(piece)
    return count


def _plan_tree(
    root: Path,
    prefix: str,
    options: ReadOptions,
    watched: list[Any],
    again: Any,
    deferred: bool = False,
) -> Iterator[Unit | RecordFile | Skipped]:
    batch: list[tuple[str, str]] = []
    size = 0
    for entry in walk(root, options, prefix):
        item = entry if isinstance(entry, Skipped) else again(*entry) or entry
        if isinstance(item, Skipped):
            if batch:  # keep path order: the files before the skip go first
                yield FilesUnit(tuple(batch), size)
                batch, size = [], 0
            yield item
            continue
        file, rel = item
        kind = input_kind(file.name)
        if kind in ("document", "pdf", "docx", "unknown"):
            batch.append((str(file), rel))
            with contextlib.suppress(OSError):
                size += file.stat().st_size
            if len(batch) >= FILES_PER_UNIT or size >= BLOCK_BYTES:
                yield FilesUnit(tuple(batch), size)
                batch, size = [], 0
            continue
        if batch:
            yield FilesUnit(tuple(batch), size)
            batch, size = [], 0
        yield from _watched(file, rel, kind, options, watched, deferred)
    if batch:
        yield FilesUnit(tuple(batch), size)


def _file_size(path: Path) -> int:
    """``path``'s size in bytes, 0 when it cannot be told."""
    try:
        return path.stat().st_size
    except OSError:
        return 0


def planned_bytes(paths: list[Path], options: ReadOptions) -> int:
    """The bytes on disk of the files :func:`plan_units` reads from ``paths`` (the total of
    the read's progress: the planner's units carry their share as ``weight``), walking the
    trees as the planner walks them (a file reached again through another input counts
    once, as it is read once: :class:`InputRepeats`). Standard input counts by its spooled
    copy."""
    total = 0
    repeats = InputRepeats()
    for arg, path in enumerate(paths):
        files = planned_files(path, options)
        if not (path.is_dir() and is_datasets_folder(path)):
            again = repeats.of(arg)
            files = [f for f in files if again(f, "") is None]
        total += sum(_file_size(f) for f in files)
    return total


def planned_files(path: Path, options: ReadOptions) -> list[Path]:
    """The files :func:`plan_units` reads for the input ``path``: a file itself, the files of
    a datasets folder, or the files of a tree that :func:`walk` lists (``include``,
    ``exclude``, ``recursive`` applied; hidden entries and links leaving it not)."""
    if path.is_dir() and is_datasets_folder(path):
        from neardup.text.formats import datasets_files

        return [e[0] for e in datasets_files(path) if isinstance(e, tuple)]
    if path.is_dir():
        return [e[0] for e in walk(path, options) if isinstance(e, tuple)]
    return [path]


def walk(
    root: Path, options: ReadOptions, prefix: str = ""
) -> Iterator[tuple[Path, str] | Skipped]:
    """``(file, prefix/relative POSIX path)`` below ``root``, sorted by path components, and a
    :class:`Skipped` row for each entry that is not read: an unreadable directory, a
    symbolic link leaving the tree (unless ``follow_symlinks``), a hidden entry (name
    starting with ``.``). A file of no known kind is listed (read as one document if it
    decodes as text, else a ``binary`` skip row). With ``glob`` or ``include``, only the
    files whose relative path matches one of them (``*`` also matches ``/``; a pattern
    without ``/`` is matched against the file name) are listed, and files matching an
    ``exclude`` pattern are not: others pass without a row. Without ``recursive``, only the
    files directly in ``root`` are listed (subdirectories pass without a row)."""
    found: list[tuple[tuple[str, ...], Path | Skipped]] = []
    root_real = root.resolve()

    def unreadable(exc: OSError) -> None:
        where = Path(exc.filename) if exc.filename else root
        rel = _rel_parts(where, root)
        why = f"directory not readable: {exc.strerror or exc}"
        found.append((rel, Skipped("/".join(rel) or ".", scrub(str(where)), "unreadable", why)))

    for dirpath, dirnames, filenames in os.walk(root, onerror=unreadable, followlinks=False):
        base = Path(dirpath)
        if not options.recursive:
            dirnames.clear()  # the files of root only: its subdirectories pass without a row
        for name in list(dirnames):
            sub = base / name
            rel = _rel_parts(sub, root)
            if name.startswith("."):
                dirnames.remove(name)
                if not options.includes:
                    found.append((rel, _skip(rel, sub, "unsupported", "hidden directory")))
            elif sub.is_symlink():
                found.append((rel, _skip(rel, sub, "unsupported", "symbolic link to a directory")))
        dirnames.sort()
        for name in filenames:
            file = base / name
            rel = _rel_parts(file, root)
            entry = _walk_entry(file, rel, root_real, options)
            if entry is not None:
                found.append((rel, entry))
    found.sort(key=lambda item: item[0])
    for rel, entry in found:
        if isinstance(entry, Skipped):
            yield replace(entry, id=_joined(prefix, entry.id)) if prefix else entry
        else:
            yield entry, _joined(prefix, "/".join(rel))


def _walk_entry(
    file: Path, rel: tuple[str, ...], root_real: Path, options: ReadOptions
) -> Path | Skipped | None:
    if options.includes and not _matches(rel, options.includes):
        return None
    if _matches(rel, options.exclude):
        return None
    if not options.includes and rel[-1].startswith("."):
        return _skip(rel, file, "unsupported", "hidden file")
    if file.is_symlink() and not options.follow_symlinks:
        try:
            inside = file.resolve().is_relative_to(root_real)
        except (OSError, RuntimeError):
            inside = False
        if not inside:
            why = "symbolic link leaving the input tree (--follow-symlinks to read it)"
            return _skip(rel, file, "unsupported", why)
    if not file.is_file():
        return _skip(rel, file, "unsupported", "not a regular file")
    return file


def _matches(rel: tuple[str, ...], patterns: tuple[str, ...]) -> bool:
    """Whether the relative path ``rel`` matches one of ``patterns``
    (:func:`fnmatch.fnmatchcase`: ``*`` also matches ``/``; a pattern without ``/`` is
    matched against the file name)."""
    path = "/".join(rel)
    return any(fnmatchcase(path if "/" in p else rel[-1], p) for p in patterns)


def _rel_parts(path: Path, root: Path) -> tuple[str, ...]:
    try:
        return tuple(scrub(p) for p in path.relative_to(root).parts)
    except ValueError:
        return (scrub(path.name),)


def _skip(rel: tuple[str, ...], path: Path, reason: SkipReason, detail: str) -> Skipped:
    return Skipped("/".join(rel), scrub(str(path)), reason, detail)


def plan_file(
    path: Path,
    name: str,
    kind: InputKind,
    options: ReadOptions,
    *,
    size: int | None = None,
    groups: tuple[int, int] | None = None,
) -> Iterator[Unit | Skipped]:
    """The units of one record or document file; ``name`` prefixes its fallback ids;
    ``size``: read an uncompressed JSONL file up to this many bytes (its size when the
    job noted it), not further; ``groups``: ``(first, stop)``, read these row groups of a
    Parquet file only (None: all)."""
    if kind == "jsonl":
        yield from _plan_jsonl(path, name, options, size)
    elif kind == "parquet":
        yield from _plan_parquet(path, name, options, groups)
    elif kind == "csv":
        yield from _plan_csv(path, name, options)
    elif kind == "arrow":
        yield from _plan_arrow(path, name, options)
    else:
        yield FilesUnit(((str(path), name),), _file_size(path))


# -- JSONL ----------------------------------------------------------------------------------
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


def _plan_jsonl(
    path: Path, name: str, options: ReadOptions, size: int | None = None
) -> Iterator[Unit | Skipped]:
    shown = scrub(str(path)) if name != "-" else "-"
    if name != "-" and _uncompressed(path):  # inputs are regular files (resolve_inputs, walk)
        yield from _plan_jsonl_spans(path, name, shown, options, size)
    else:
        yield from plan_stream(path, name, shown, options)


def plan_stream(
    path: Path, name: str, shown: str, options: ReadOptions, fs: Any = None
) -> Iterator[Unit | Skipped]:
    """The blocks of a JSONL stream (compressed, or standard input) with their bytes;
    ``fs``: the fsspec file system ``path`` is on (None: this machine's)."""
    try:
        with counted_stream(path, fs) as (f, consumed):
            done = 0
            for first, data, skip in line_blocks(f, options.max_bytes):
                if skip is not None:
                    where = f"{shown}:{first}"
                    yield Skipped(f"{name}:{first}", where, "oversize", skip)
                    continue
                now = consumed()
                yield LinesUnit(shown, name, data, first, weight=now - done)
                done = now
    except _ERRORS as exc:
        yield Skipped(name, shown, "unreadable", f"{type(exc).__name__}: {exc}")


def _uncompressed(path: Path) -> bool:
    return not path.name.lower().endswith((".gz", ".zst", ".bz2", ".xz"))


def _plan_jsonl_spans(
    path: Path, name: str, shown: str, options: ReadOptions, planned: int | None = None
) -> Iterator[Unit | Skipped]:
    """The blocks of an uncompressed JSONL file as file spans (:attr:`LinesUnit.span`): the
    planner only finds where blocks end and counts their lines."""
    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            size = size if planned is None else min(size, planned)
            done = 0  # bytes accounted for: a skipped line's go with the next block
            digests: list[int | None] = []
            for first, offset, length, skip in span_blocks(f, size, options.max_bytes, digests):
                if skip is not None:
                    yield Skipped(f"{name}:{first}", f"{shown}:{first}", "oversize", skip)
                else:
                    span = (str(path), offset, length)
                    weight = offset + length - done
                    yield LinesUnit(shown, name, b"", first, span, weight, digests[-1])
                    done = offset + length
    except _ERRORS as exc:
        yield Skipped(name, shown, "unreadable", f"{type(exc).__name__}: {exc}")


def span_blocks(
    f: IO[bytes], size: int, max_bytes: int, digests: list[int | None] | None = None
) -> Iterator[tuple[int, int, int, str | None]]:
    """:func:`line_blocks` by position: ``(first line number, offset, length, None)`` of
    each block of whole lines of the seekable ``f`` (``size`` bytes), and ``(line number,
    offset, 0, reason)`` for a line over ``max_bytes`` longer than a block (read past in
    pieces, never held). With ``digests``, the XXH3-64 of each block's bytes as read here
    is appended to it before the block is yielded (None for a line longer than a block).

    A block ends at the last ``\\n`` within :data:`BLOCK_BYTES` (or ``max_bytes + 2``, if
    smaller) of its start; a line longer than that is a block of its own, or a skip.
    """
    reason = f"line over max_bytes={max_bytes}"
    window = min(BLOCK_BYTES, max_bytes + 2)
    pos, line = 0, 1
    buf = bytearray(window)  # one buffer read into again and again (no fresh pages)
    while pos < size:
        if pos + window >= size:
            if digests is not None:
                f.seek(pos)
                got = cast(io.BufferedIOBase, f).readinto(buf)
                digests.append(_digest(memoryview(buf)[: min(got, size - pos)]))
            yield line, pos, size - pos, None
            return
        f.seek(pos)
        got = cast(io.BufferedIOBase, f).readinto(buf)
        cut = buf.rfind(b"\n", 0, got)
        if cut >= 0:
            if digests is not None:
                digests.append(_digest(memoryview(buf)[: cut + 1]))
            yield line, pos, cut + 1, None
            line += _newlines(buf, cut + 1)
            pos += cut + 1
            continue
        nl = _next_newline(f, pos + window, size)
        stop = size if nl < 0 else nl + 1
        if _content_length(f, pos, size if nl < 0 else nl) > max_bytes:
            yield line, pos, 0, reason
        else:
            if digests is not None:
                digests.append(None)
            yield line, pos, stop - pos, None
        line, pos = line + 1, stop


def _digest(data: bytes | memoryview) -> int:
    """XXH3-64 of a block's bytes (about 10 GB/s: what a block held when planned)."""
    import xxhash

    return int(xxhash.xxh3_64_intdigest(data))


def _newlines(buf: bytearray, n: int) -> int:
    """``\\n`` bytes among the first ``n`` of ``buf`` (numpy's vectorised compare: about
    twice the speed of ``bytes.count`` for one byte)."""
    import numpy as np

    return int(np.count_nonzero(np.frombuffer(buf, dtype=np.uint8, count=n) == 10))


def _next_newline(f: IO[bytes], start: int, size: int) -> int:
    """Position of the first ``\\n`` at or after ``start``, or -1 (read in pieces)."""
    f.seek(start)
    at = start
    while at < size:
        piece = f.read(_PIECE)
        if not piece:
            break
        k = piece.find(b"\n")
        if k >= 0:
            return at + k
        at += len(piece)
    return -1


def _content_length(f: IO[bytes], start: int, end: int) -> int:
    """Length of bytes ``start:end`` of ``f`` without their trailing ``\\r`` bytes (as
    ``rstrip(b"\\r")``), reading only the tail."""
    while end > start:
        step = min(64, end - start)
        f.seek(end - step)
        tail = f.read(step)
        kept = len(tail.rstrip(b"\r"))
        if kept:
            return end - step + kept - start
        end -= step
    return 0


def line_blocks(f: IO[bytes], max_bytes: int) -> Iterator[tuple[int, bytes, str | None]]:
    """``(first line number, block of whole lines, None)`` of ``f``, and
    ``(line number, b"", reason)`` for each line over ``max_bytes`` (read past, never held:
    memory stays under a few times ``min(max_bytes, BLOCK_BYTES)``).

    Blocks hold about :data:`BLOCK_BYTES`; the last line of the stream needs no ``\\n``.
    A block may still hold lines over ``max_bytes`` when ``max_bytes`` is below the block
    size: :func:`neardup.text.read.read_unit` skips those.
    """
    reason = f"line over max_bytes={max_bytes}"
    line, pending, skipping = 1, b"", False
    size = min(BLOCK_BYTES, max_bytes + 2)  # a small limit reads small pieces
    while True:
        piece = f.read(size)
        if not piece:
            if skipping:
                yield line, b"", reason
            elif pending:
                yield line, pending, None
            return
        if skipping:
            nl = piece.find(b"\n")
            if nl < 0:
                continue
            yield line, b"", reason
            line, skipping, piece = line + 1, False, piece[nl + 1 :]
            if not piece:
                continue
        buf = pending + piece if pending else piece
        cut = buf.rfind(b"\n")
        if cut < 0:
            pending, skipping = (b"", True) if len(buf) > max_bytes + 1 else (buf, False)
            continue
        block, pending = buf[: cut + 1], buf[cut + 1 :]
        yield line, block, None
        line += block.count(b"\n")
        if len(pending) > max_bytes + 1:
            pending, skipping = b"", True


# -- Parquet, Arrow, datasets ------------------------------------------------------------------
def _plan_parquet(
    path: Path, name: str, options: ReadOptions, groups: tuple[int, int] | None = None
) -> Iterator[Unit | Skipped]:
    shown = scrub(str(path))
    try:
        pf = open_parquet(path)
        columns = _columns(pf.schema_arrow.names, options)
        if isinstance(columns, str):
            yield Skipped(name, shown, "unreadable", columns)
            return
        row = 0
        share = (_file_size(path), pf.metadata.num_rows)
        for group, why in enumerate(parquet_groups(pf, options)):
            if groups is not None and not groups[0] <= group < groups[1]:
                pass  # another task's row group
            elif why is None:
                batches = parquet_batches(pf, group, options, columns)
                yield from _record_batches(batches, shown, name, options, row, share)
            else:
                yield from _group_skips(pf, group, row, why, shown, name, options)
            row += pf.metadata.row_group(group).num_rows
    except Exception as exc:  # pyarrow raises ArrowInvalid, OSError and others on bad files
        yield Skipped(name, shown, "unreadable", f"{type(exc).__name__}: {exc}")


def _plan_arrow(path: Path, name: str, options: ReadOptions) -> Iterator[Unit | Skipped]:
    """An Arrow IPC file or stream (what ``datasets`` writes)."""
    shown = scrub(str(path))
    try:
        import pyarrow as pa

        with pa.memory_map(str(path)) as source:
            try:
                reader: Any = pa.ipc.open_file(source)
                batches: Any = (reader.get_batch(i) for i in range(reader.num_record_batches))
                names = reader.schema.names
            except pa.ArrowInvalid:
                source.seek(0)
                reader = pa.ipc.open_stream(source)
                batches, names = iter(reader), reader.schema.names
            columns = _columns(names, options)
            if isinstance(columns, str):
                yield Skipped(name, shown, "unreadable", columns)
                return
            picked = (b.select(columns) for b in batches)
            yield from _record_batches(picked, shown, name, options)
    except Exception as exc:
        yield Skipped(name, shown, "unreadable", f"{type(exc).__name__}: {exc}")


def _plan_datasets(
    root: Path, prefix: str, options: ReadOptions, deferred: bool = False
) -> Iterator[Unit | RecordFile | Skipped]:
    """A Hugging Face ``datasets`` folder saved with ``save_to_disk``: its Arrow files in
    the order ``state.json`` lists them (a ``DatasetDict``: each split folder in turn); an
    entry naming a file outside the folder, or a split cycle, is a skip row."""
    from neardup.text.formats import DatasetsEntryError, datasets_files

    for entry in datasets_files(root, prefix):
        if isinstance(entry, DatasetsEntryError):
            yield Skipped(entry.name, scrub(str(entry.path)), "unreadable", entry.reason)
        elif deferred:
            yield RecordFile(str(entry[0]), entry[1], "arrow")
        else:
            yield from _plan_arrow(entry[0], entry[1], options)


def _columns(names: list[str], options: ReadOptions) -> list[str] | str:
    if options.text_field not in names:
        return f"no column {options.text_field!r} (columns: {', '.join(names)})"
    return [c for c in (options.id_field, options.text_field) if c in names]


def open_parquet(path: Path) -> Any:
    """``pyarrow.parquet.ParquetFile`` reading pages as they are needed (1 MiB buffered
    reads, no pre-buffering of whole column chunks), so a large row group is not held whole
    while its batches are read."""
    import pyarrow.parquet as pq

    return pq.ParquetFile(path, buffer_size=_PIECE, pre_buffer=False)


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


def _record_batches(
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


# -- CSV ----------------------------------------------------------------------------------------
def _plan_csv(path: Path, name: str, options: ReadOptions) -> Iterator[Unit | Skipped]:
    """CSV with a header row, read from bytes: a bad byte costs its record only (the text is
    decoded per record), and a field over ``max_bytes`` is skipped while read."""
    shown = scrub(str(path))
    try:
        with counted_stream(path) as (f, consumed):
            yield from _csv_units(f, shown, name, options, consumed)
    except _ERRORS as exc:
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
                rest = self._readline(min(_PIECE, self._max + 2))
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
                head = buf[:_PIECE]
                self._eol = b"\r" if b"\r" in head and b"\n" not in head else b"\n"
            at = buf.find(self._eol, pos, pos + limit) if self._eol else -1
            if at >= 0:
                self._pos = at + 1
                return buf[pos : at + 1]
            if len(buf) - pos >= limit:
                self._pos = pos + limit
                return buf[pos : pos + limit]
            piece = self._f.read(min(_PIECE, max(1 << 16, limit - (len(buf) - pos))))
            if not piece:
                self._buf, self._pos = b"", 0
                return buf[pos:]
            self._buf, self._pos = buf[pos:] + piece, 0


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


# -- the fields of the first record file --------------------------------------------------------
#: JSONL records whose fields :func:`check_fields` gathers.
_FIELD_PROBE = 100


def check_fields(
    inputs: Iterable[str | os.PathLike[str]], options: ReadOptions, *, check_id: bool
) -> None:
    """Refuse a text field (and, with ``check_id``, an id field) that a record file given
    by name in ``inputs`` (JSONL, Parquet, CSV, Arrow, or a ``datasets`` folder) does not
    have, before anything is read or written. A record file met in a directory walk is not
    checked: without the field it is a skip row naming its fields (one per record for
    JSONL), as any other file of a tree that is not read. Standard input, missing inputs
    and document files are passed over (the reader deals with them); a JSONL file counts
    the fields of its first 100 records.

    Raises:
        ParameterError: ``--text-field`` or ``--id-field`` naming the value, the file and
            the fields it has.
    """
    wanted = [("--text-field", options.text_field)]
    if check_id:
        wanted.append(("--id-field", options.id_field))
    for file, fields in _named_fields(inputs):
        for flag, value in wanted:
            if value not in fields:
                shown = ", ".join(fields) if fields else "none"
                raise ParameterError(flag, value, f"a field of {scrub(file)} (its fields: {shown})")


def _named_fields(inputs: Iterable[str | os.PathLike[str]]) -> Iterator[tuple[str, list[str]]]:
    """``(file, its fields)`` of each record file named in ``inputs`` (a ``datasets``
    folder by its first Arrow file; a quoted glob by the files it matches), when they can
    be told."""
    for raw in expand_inputs([os.fspath(p) for p in inputs], strict=False):
        path = Path(raw)
        if raw == "-" or not path.exists():
            continue
        found = None
        if path.is_dir() and is_datasets_folder(path):
            from neardup.text.formats import datasets_files

            first = next((e for e in datasets_files(path) if isinstance(e, tuple)), None)
            found = None if first is None else _fields_of(first[0], "arrow")
        elif path.is_file():
            kind = input_kind(path.name)
            if kind in ("jsonl", "parquet", "csv", "arrow"):
                found = _fields_of(path, kind)
        if found is not None:
            yield found


def _fields_of(path: Path, kind: InputKind) -> tuple[str, list[str]] | None:
    """``(file, its field names)``, or None when they cannot be told (an unreadable file:
    the reader names it in a skip row)."""
    try:
        if kind == "parquet":
            import pyarrow.parquet as pq

            return str(path), list(pq.ParquetFile(path).schema_arrow.names)
        if kind == "arrow":
            import pyarrow as pa

            with pa.memory_map(str(path)) as source:
                try:
                    return str(path), list(pa.ipc.open_file(source).schema.names)
                except pa.ArrowInvalid:
                    source.seek(0)
                    return str(path), list(pa.ipc.open_stream(source).schema.names)
        with open_stream(path) as f:
            if kind == "csv":
                head = next(csv_records(f, 1 << 20), None)
                if head is None or head.reason is not None:
                    return None
                return str(path), [h.lstrip("\ufeff") for h in head.fields]
            return _jsonl_fields(path, f)
    except Exception:  # an unreadable file: the reader's skip row names it
        return None


def _jsonl_fields(path: Path, f: IO[bytes]) -> tuple[str, list[str]] | None:
    fields: dict[str, None] = {}
    seen = 0
    for _ in range(_FIELD_PROBE * 10):
        line = f.readline(1 << 24)  # a longer line is passed over in pieces
        if not line or seen >= _FIELD_PROBE:
            break
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict):
            fields.update(dict.fromkeys(obj))
            seen += 1
    return (str(path), list(fields)) if seen else None
