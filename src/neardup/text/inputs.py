"""A job's inputs: resolve them, walk their trees, and plan them into read units.

The planner (:func:`plan_units`) runs in one process and touches every input once: it
walks directory trees (:func:`walk`), spools standard input (``-``) to a temporary file,
and hands each file to its format's planner (:mod:`neardup.text.formats`: JSONL blocks,
Parquet, CSV and Arrow record batches, ``datasets`` folders), document files grouped a
:class:`~neardup.text.units.FilesUnit` of several. What it cannot read becomes a
:class:`Skipped` value with its reason, in input order; nothing is dropped silently. The
expensive steps (JSON parsing, decoding, markup extraction, PDF and DOCX text) happen in
:func:`neardup.text.read.read_unit`, so a pool of workers can share them.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any, cast

from neardup.errors import InputError, ParameterError
from neardup.text.formats import Format, format_named, format_of
from neardup.text.formats.datasets import DatasetsEntryError, datasets_files, is_datasets_folder
from neardup.text.formats.format import is_compressed
from neardup.text.formats.jsonl import newlines
from neardup.text.scrub import scrub
from neardup.text.types import Skipped, SkipReason
from neardup.text.units import (
    BLOCK_BYTES,
    FILES_PER_UNIT,
    PIECE,
    FilesUnit,
    ReadOptions,
    Unit,
    file_size,
)


@dataclass(frozen=True, slots=True)
class RecordFile:
    """A record file (JSONL, Parquet, CSV, Arrow) planned where it is read
    (:func:`plan_deferred`: by the Dask engine's workers), by its format's planner as the
    local planner plans it.

    Attributes:
        path: the file; name: its name in ids (``FILE`` of ``FILE:LINE``); format: the name
        of its format (:func:`neardup.text.formats.format_named`); size: the bytes of an
        uncompressed JSONL file to read (its size when planned); groups: ``(first,
        stop)``: the parts to read (Parquet row groups, :attr:`.Format.parts`), or None: all.
    """

    path: str
    name: str
    format: str
    size: int | None = None
    groups: tuple[int, int] | None = None

    def units(self, options: ReadOptions) -> Iterator[Unit | Skipped]:
        """The file's read units and skip rows (:func:`plan_file`)."""
        path = Path(self.path)
        fmt = format_named(self.format)
        return plan_file(path, self.name, fmt, options, size=self.size, groups=self.groups)


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
        shutil.copyfileobj(stream, f, PIECE)
    path = Path(name)
    with open(path, "rb") as f:
        head = f.read(PIECE).lstrip()
    target = path.with_name(path.name + (".jsonl" if _looks_jsonl(head) else ".stdin"))
    path.rename(target)
    spool.paths.append(target)
    return target


def _looks_jsonl(head: bytes) -> bool:
    """Whether standard input's first line is a JSON object (a wiki page opening with a
    ``{{template}}`` is not); a first line longer than ``head`` counts when it opens ``{"``."""
    first, newline, _ = head.partition(b"\n")
    if not newline and len(head) >= PIECE - 1:
        return first.startswith(b'{"')
    try:
        return isinstance(json.loads(first), dict)
    except ValueError:
        return False


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
    (``save_to_disk``) is read as records; a file is read by its format
    (:func:`neardup.text.formats.format_of`). Ids of files (and the ``FILE`` of fallback
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
                yield FilesUnit(((str(path), "-"),), file_size(path))
                continue
            again = repeats.of(arg)(path, prefix)
            if again is not None:
                yield again
                continue
            yield from _watched(path, prefix, format_of(path.name), options, watched, deferred)
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
    fmt: Format | None,
    options: ReadOptions,
    watched: list[Any],
    deferred: bool = False,
) -> Iterator[Unit | RecordFile | Skipped]:
    """:func:`plan_file` (with ``deferred``, a :class:`RecordFile` for it), noting the
    file's size, modification time and inode for :func:`_grown` (an uncompressed file of
    an ``appendable`` format is read up to that size)."""
    size = None
    records = fmt is not None and fmt.records  # a document file: checked as read
    with contextlib.suppress(OSError):
        st = path.stat() if records else None
        spans = fmt is not None and fmt.appendable and not is_compressed(path.name)
        if st is not None:
            size = st.st_size if spans else None
            watched.append((path, name, st.st_size, (st.st_ino, st.st_mtime_ns), spans))
    if deferred and fmt is not None and fmt.records:
        yield RecordFile(str(path), name, fmt.name, size)
        return
    yield from plan_file(path, name, fmt, options, size=size)


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
            piece = f.read(min(PIECE, left))
            if not piece:
                break
            count += newlines(piece)
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
        fmt = format_of(file.name)
        if fmt is None or not fmt.records:
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
        yield from _watched(file, rel, fmt, options, watched, deferred)
    if batch:
        yield FilesUnit(tuple(batch), size)


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
        total += sum(file_size(f) for f in files)
    return total


def planned_files(path: Path, options: ReadOptions) -> list[Path]:
    """The files :func:`plan_units` reads for the input ``path``: a file itself, the files of
    a datasets folder, or the files of a tree that :func:`walk` lists (``include``,
    ``exclude``, ``recursive`` applied; hidden entries and links leaving it not)."""
    if path.is_dir() and is_datasets_folder(path):
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
    fmt: Format | None,
    options: ReadOptions,
    *,
    size: int | None = None,
    groups: tuple[int, int] | None = None,
) -> Iterator[Unit | Skipped]:
    """The units of one file of the format ``fmt`` (None: of no format); ``name`` prefixes
    its fallback ids; ``size`` and ``groups`` as the format's planner takes them
    (:class:`neardup.text.formats.format.Plan`). A document file is one unit."""
    if fmt is not None and fmt.plan is not None:
        yield from fmt.plan(path, name, options, size=size, groups=groups)
    else:
        yield FilesUnit(((str(path), name),), file_size(path))


def _plan_datasets(
    root: Path, prefix: str, options: ReadOptions, deferred: bool = False
) -> Iterator[Unit | RecordFile | Skipped]:
    """A Hugging Face ``datasets`` folder saved with ``save_to_disk``: its Arrow files in
    the order ``state.json`` lists them (a ``DatasetDict``: each split folder in turn); an
    entry naming a file outside the folder, or a split cycle, is a skip row."""
    arrow = format_named("arrow")
    for entry in datasets_files(root, prefix):
        if isinstance(entry, DatasetsEntryError):
            yield Skipped(entry.name, scrub(str(entry.path)), "unreadable", entry.reason)
        elif deferred:
            yield RecordFile(str(entry[0]), entry[1], arrow.name)
        else:
            yield from plan_file(entry[0], entry[1], arrow, options)


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
            first = next((e for e in datasets_files(path) if isinstance(e, tuple)), None)
            found = None if first is None else _fields_of(first[0], format_named("arrow"))
        elif path.is_file():
            fmt = format_of(path.name)
            if fmt is not None and fmt.fields is not None:
                found = _fields_of(path, fmt)
        if found is not None:
            yield found


def _fields_of(path: Path, fmt: Format) -> tuple[str, list[str]] | None:
    """``(file, its field names)``, or None when they cannot be told (an unreadable file:
    the reader names it in a skip row)."""
    try:
        found = None if fmt.fields is None else fmt.fields(path)
    except Exception:  # an unreadable file: the reader's skip row names it
        return None
    return None if found is None else (str(path), found)
