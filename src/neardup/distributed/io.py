"""Input blocks and output part files of the Dask engine, through fsspec.

Local inputs are everything the local job reads, planned by its planner
(:func:`neardup.text.inputs.plan_deferred`: the same tree walk, ids and skip rows): a plain
JSONL file is cut into byte ranges of about ``block_bytes`` (a range owns every line that
*starts* inside it); a Parquet file gives one block per row group; every other record file
(compressed JSONL, CSV, Arrow) is one block, planned and read on a worker by the local
job's :func:`~neardup.text.inputs.plan_file` and reader; document files and skip rows go
into blocks of about ``block_bytes`` in input order. Inputs given as fsspec URLs
(``s3://``, ``gs://``, ``hdfs://``, ``file://``...) are record files of any format
(:mod:`neardup.text.formats`: JSONL, Parquet, CSV, Arrow), read through fsspec by their
format's planner (a plain JSONL file by byte ranges, a Parquet file a row group a block);
a URL naming another kind of file is refused before the job. Records are turned into
documents by the local reader (:mod:`neardup.text.read`), so ids, skip reasons and
``FILE:LINE`` sources agree.

Outputs are written by the job's one writer (:mod:`neardup.output`: every partition its
piece of each table, merged in partition order).
"""

from __future__ import annotations

import dataclasses
import itertools
import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from neardup.errors import InputError
from neardup.text.formats import FORMATS, format_named, format_of
from neardup.text.formats.format import is_compressed, is_local_fs
from neardup.text.inputs import RecordFile, Spool, group_names, plan_deferred, resolve_inputs
from neardup.text.read import as_read_options, read_unit
from neardup.text.scrub import scrub
from neardup.text.types import Document, Skipped
from neardup.text.units import FilesUnit, ReadOptions, Unit

#: The suffixes of the record formats, named when a URL holds another kind of file.
_RECORD_SUFFIXES: tuple[str, ...] = tuple(s for f in FORMATS if f.records for s in f.suffixes)
#: Read units of document files (up to :data:`~neardup.text.units.FILES_PER_UNIT` files
#: each) in one block at most: extracting markup costs far more a byte than parsing JSONL,
#: so a tree of small documents is cut into blocks of at most 1,024 files, not one block of
#: ``block_bytes`` that a single worker would read.
DOCUMENT_UNITS = 16


@dataclass(frozen=True, slots=True)
class Block:
    """One input partition.

    Attributes:
        url: fsspec URL or local path of the file (as given, used in ``source`` fields).
        base: the file's path relative to the inputs' common parent, the prefix of fallback
            ids (``base:LINE``).
        kind: ``jsonl`` (a byte range of a plain JSONL file named by URL), ``file`` (a
            record file named by URL, read by its format's planner), or ``units``:
            ``items`` planned by the local job's planner (read units, record files planned
            where they are read, skip rows), read in order.
        start, end: byte range for ``jsonl`` (lines starting in ``[start, end)``); the
            parts (:attr:`neardup.text.formats.Format.parts`: Parquet row groups) read of a
            ``file``, ``(0, -1)``: all; unused otherwise.
        first_line: 1-based number of the block's first line (``jsonl``; set by
            :func:`number_lines`).
        items: the planned items of a ``units`` block.
        given: ``(prefix, replacement)``: the files of a local input given by a relative
            path are read by their path from the client's working directory (a worker may
            run elsewhere: ``prefix`` is that directory and ``/``) and named in sources as
            given (``replacement`` ``""``), as the local job names them; empty for
            absolute paths.
    """

    url: str
    base: str
    kind: str
    start: int = 0
    end: int = -1
    first_line: int = 1
    items: tuple[Unit | RecordFile | Skipped, ...] = ()
    given: tuple[str, str] | tuple[()] = ()


def plan_local(
    groups: Sequence[Sequence[str | os.PathLike[str]]],
    block_bytes: int,
    options: ReadOptions | dict[str, Any] | None = None,
) -> list[list[Block]]:
    """The blocks of each group of local inputs (``[A, B]`` with ``--against``, else
    ``[B]``), planned by the local job's planner
    (:func:`~neardup.text.inputs.plan_deferred`), so that the Dask engine reads what the
    local job reads, in its order, with its ids and skip rows: document files and skip
    rows in ``units`` blocks of about ``block_bytes`` or :data:`DOCUMENT_UNITS` items (cut
    at the end of each input),
    a plain JSONL file in byte ranges, a Parquet file a block per row group (one block when
    its footer or text column is missing: the reader's skip row), any other record file
    one block (planned and read on a worker).

    Raises:
        InputError: an input does not exist, or is standard input (``-``).
    """
    opts = as_read_options(options)
    for group in groups:
        for item in group:
            if os.fspath(item) == "-":
                raise InputError("standard input cannot be cut into partitions: save it to a file")
    resolved = [resolve_inputs(_globbed(g), Spool()) for g in groups]
    home = os.getcwd()
    return [
        list(_blocks(plan_deferred(paths, opts, names=names), block_bytes, opts, home))
        for paths, names in zip(resolved, group_names(resolved), strict=True)
    ]


def _blocks(
    planned: Iterable[Unit | RecordFile | Skipped],
    block_bytes: int,
    options: ReadOptions,
    home: str,
) -> Iterator[Block]:
    """The blocks of a group's planned items (:func:`plan_local`): each record file's
    (:func:`_record_blocks`), and the document files and skip rows between them in
    ``units`` blocks, cut at ``block_bytes``, :data:`DOCUMENT_UNITS` items, and where the
    files go from a relative input to an absolute one (a block names its files one way)."""
    held: list[Unit | Skipped] = []  # document files and skip rows, in order
    size, relative = 0, False
    for entry in itertools.chain(planned, [None]):
        files = entry.files if isinstance(entry, FilesUnit) else ()
        inside = bool(files) and not os.path.isabs(files[0][0])
        full = size >= block_bytes or len(held) >= DOCUMENT_UNITS
        if isinstance(entry, RecordFile | None) or full or (files and inside != relative):
            if held:
                given = (scrub(os.path.join(home, "")), "") if relative else ()
                yield Block(home, "", "units", items=(*held,), given=given)
            held, size = [], 0
        if isinstance(entry, RecordFile):
            yield from _record_blocks(entry, block_bytes, options, home)
        elif entry is not None:
            if files:
                relative = inside
            if inside:  # read by its path from home, named as given (Block.given)
                moved = tuple((os.path.join(home, f), doc_id) for f, doc_id in files)
                entry = FilesUnit(moved, getattr(entry, "weight", 0))
            held.append(entry)
            size += getattr(entry, "weight", 0)


def _globbed(inputs: Sequence[str | os.PathLike[str]]) -> list[str]:
    """Inputs with a pattern that names no file expanded (``shard-*.jsonl``, sorted;
    ``**`` spans folders), as the Dask engine has taken globs; a pattern matching nothing
    stays, for :func:`~neardup.text.inputs.resolve_inputs` to name."""
    import glob

    out: list[str] = []
    for item in inputs:
        raw = os.fspath(item)
        found = (
            [] if os.path.exists(raw) or not glob.has_magic(raw) else glob.glob(raw, recursive=True)
        )
        out += sorted(found) if found else [raw]
    return out


def _record_blocks(
    item: RecordFile, block_bytes: int, options: ReadOptions, home: str
) -> list[Block]:
    """The blocks of a record file (:func:`plan_local`); a relative path is read by its
    path from ``home`` (the client's working directory) and named as given."""
    given: tuple[str, str] | tuple[()] = ()
    if not os.path.isabs(item.path):
        item = dataclasses.replace(item, path=os.path.join(home, item.path))
        given = (scrub(os.path.join(home, "")), "")
    fmt = format_named(item.format)
    if fmt.range_units is not None and not is_compressed(item.path):  # JSONL: byte ranges
        blocks = make_blocks([item.path], block_bytes, [item.name])
        return [dataclasses.replace(b, given=given) for b in blocks]
    groups = 1 if fmt.parts is None else fmt.parts(Path(item.path), options, None)
    if groups > 1:
        parts = [dataclasses.replace(item, groups=(g, g + 1)) for g in range(groups)]
    else:
        parts = [item]
    return [Block(item.path, item.name, "units", items=(p,), given=given) for p in parts]


def is_url(item: str | os.PathLike[str]) -> bool:
    """Whether an input is an fsspec URL (``s3://...``, ``file://...``), not a local path."""
    return "://" in os.fspath(item)


def list_files(inputs: Sequence[str | os.PathLike[str]]) -> list[str]:
    """Input files of URL inputs in order: files as given, directories walked (sorted),
    globs expanded.

    Raises:
        InputError: an input matches nothing, or it or a file found in it is not a record
            file (:attr:`neardup.text.formats.Format.records`; named: the Dask engine reads
            only those by URL, the local job's document files are read from local paths),
            so that no file is passed over.
    """
    import fsspec

    out: list[str] = []
    for item in inputs:
        url = os.fspath(item)
        fs, path = fsspec.core.url_to_fs(url)
        if fs.isdir(path):
            found = sorted(fs.find(path))
        elif fs.isfile(path):
            found = [path]
        else:
            found = sorted(fs.glob(path))
            if not found:
                raise InputError(f"input {url!r} does not exist")
        other = [p for p in found if not _supported(p)]
        if other:
            shown = ", ".join(repr(_rejoin(url, path, p)) for p in other[:3])
            more = f" and {len(other) - 3} more" if len(other) > 3 else ""
            raise InputError(
                f"input {url!r}: {shown}{more} not read: the Dask engine reads record files"
                f" ({', '.join(_RECORD_SUFFIXES)}) by URL (give a local path to read every"
                " kind the local job reads, or leave those files out)"
            )
        out += [_rejoin(url, path, p) if p != path else url for p in found]
    return out


def _supported(path: str) -> bool:
    """Whether a file named by URL is a record file (read by its format's planner)."""
    fmt = format_of(path)
    return fmt is not None and fmt.records


def _rejoin(url: str, path: str, found: str) -> str:
    """Give ``found`` the protocol prefix ``url`` had (``s3://``...), if any."""
    if "://" in url and "://" not in found:
        return url.split("://", 1)[0] + "://" + found
    return found


def file_names(inputs: Sequence[str | os.PathLike[str]], files: Sequence[str]) -> list[str]:
    """Each file's name in ids (``FILE`` of ``FILE:LINE``): its path relative to the
    deepest directory holding every input (a directory input holds itself, a file or glob
    match is held by its parent), as the local reader names them
    (:func:`neardup.text.inputs.input_names`)."""
    import posixpath

    import fsspec

    def located(url: str) -> tuple[Any, str]:
        fs, path = fsspec.core.url_to_fs(url)
        local = "file" in (fs.protocol if isinstance(fs.protocol, tuple) else (fs.protocol,))
        return fs, posixpath.abspath(path) if local else "/" + path.lstrip("/")

    paths = [located(url)[1] for url in files]
    homes = [posixpath.dirname(p) for p in paths]
    for item in inputs:
        fs, path = located(os.fspath(item))
        if fs.isdir(path):
            homes.append(path)
    common = posixpath.commonpath(homes) if homes else "/"
    return [posixpath.relpath(p, common) for p in paths]


def make_blocks(
    files: Sequence[str],
    block_bytes: int,
    names: Sequence[str] | None = None,
    options: ReadOptions | None = None,
) -> list[Block]:
    """Blocks of the record files: byte ranges of plain JSONL (``ceil(size / block_bytes)``
    equal ranges a file, each at most ``block_bytes``), a block a part of a file of another
    format (:attr:`neardup.text.formats.Format.parts`: Parquet row groups; one for a
    compressed JSONL, CSV or Arrow file); ``names``: each file's name in ids
    (:func:`file_names`; default its file name); ``options``: the read options (the text
    field a Parquet file is split by; default the reader's)."""
    import fsspec

    opts = options if options is not None else as_read_options(None)
    blocks: list[Block] = []
    for k, url in enumerate(files):
        fs, path = fsspec.core.url_to_fs(url)
        base = names[k] if names is not None else path.rstrip("/").rsplit("/", 1)[-1]
        fmt = format_of(path)
        if fmt is None or fmt.range_units is None or is_compressed(path):
            parts = 1 if fmt is None or fmt.parts is None else fmt.parts(Path(path), opts, fs)
            if parts > 1:
                blocks += [Block(url, base, "file", g, g + 1) for g in range(parts)]
            else:
                blocks.append(Block(url, base, "file"))
        else:
            size = max(fs.size(path), 1)
            n = -(-size // block_bytes)  # equal blocks: no short last block for one worker
            cuts = [size * k // n for k in range(n + 1)]
            blocks += [Block(url, base, "jsonl", a, b) for a, b in itertools.pairwise(cuts)]
    return blocks


def count_lines(block: Block) -> int:
    """Lines that start inside a ``jsonl`` block (a byte range of a file, counted by its
    format's :attr:`~neardup.text.formats.Format.range_lines`; 0 for other kinds)."""
    if block.kind != "jsonl":
        return 0
    import fsspec

    fs, path = fsspec.core.url_to_fs(block.url)
    fmt = format_of(path)
    assert fmt is not None and fmt.range_lines is not None  # make_blocks cut it so
    return fmt.range_lines(fs, path, block.start, block.end)


def is_local(url: str) -> bool:
    """Whether ``url`` names a file on this machine's file system (a path, ``file://``)."""
    import fsspec

    return is_local_fs(fsspec.core.url_to_fs(url)[0])


def number_lines(blocks: Sequence[Block], counts: Sequence[int]) -> list[Block]:
    """Blocks with ``first_line`` set from the line counts of the earlier blocks of a file."""
    out: list[Block] = []
    line, url = 1, None
    for block, count in zip(blocks, counts, strict=True):
        if block.url != url:
            line, url = 1, block.url
        out.append(dataclasses.replace(block, first_line=line))
        line += count
    return out


def read_block(
    block: Block, read_options_dict: ReadOptions | dict[str, Any]
) -> Iterator[Document | Skipped]:
    """Documents and skips of a block, in file order (the local reader's rules), named as
    the local job names them (:func:`as_given`).

    Args:
        block: the block; read_options_dict: the read options (:class:`ReadOptions`, or
            the keyword arguments of :func:`neardup.text.read.read_options`).
    """
    opts = as_read_options(read_options_dict)
    items = (
        x
        for u in block_items(block, opts)
        for x in ([u] if isinstance(u, Skipped) else read_unit(u, opts))
    )
    rename = as_given(block)
    for x in items:
        if rename is not None and isinstance(x, Skipped):
            x = dataclasses.replace(x, source=rename(x.source), detail=rename(x.detail))
        elif rename is not None:
            x = dataclasses.replace(x, source=rename(x.source))
        yield x


def block_items(block: Block, options: ReadOptions) -> Iterator[Unit | Skipped]:
    """The read units and skip rows of a block, in input order: a ``units`` block's items
    (a record file planned here by the local job's :func:`~neardup.text.inputs.plan_file`),
    a ``file`` block's (the record file named by URL, planned here by its format through
    fsspec), a JSONL block's units (:func:`block_units`)."""
    if block.kind == "file":
        import fsspec

        fs, path = fsspec.core.url_to_fs(block.url)
        fmt = format_of(path)
        groups = None if block.end < 0 else (block.start, block.end)
        if fmt is not None and fmt.plan is not None:
            shown = scrub(block.url)
            yield from fmt.plan(Path(path), block.base, options, groups=groups, fs=fs, shown=shown)
        return
    if block.kind != "units":
        yield from block_units(block)
        return
    for item in block.items:
        if isinstance(item, RecordFile):
            yield from item.units(options)
        else:
            yield item


def as_given(block: Block) -> Any:
    """``str -> str`` naming a block's files as they were given (paths relative to the
    working directory: the local job's sources), in place of the paths they were read by;
    None when they are the same (:attr:`Block.given`). The prefix is replaced where a path
    starts (at the start of the text or after a character that is not part of a path:
    ``'/home/u/../x'`` in an error message becomes ``'../x'``, the ``/x`` in ``../x`` stays)."""
    if not block.given:
        return None
    import re

    real, shown = block.given
    starts = re.compile(r"(?<![\w./~-])" + re.escape(real))

    def rename(text: str) -> str:
        return starts.sub(lambda _: shown, text) if real in text else text

    return rename


def block_units(block: Block) -> Iterator[Unit]:
    """The read units of a ``jsonl`` block, a byte range of a file, in file order, by its
    format's :attr:`~neardup.text.formats.Format.range_units`."""
    import fsspec

    fs, path = fsspec.core.url_to_fs(block.url)
    fmt = format_of(path)
    assert fmt is not None and fmt.range_units is not None  # make_blocks cut it so
    yield from fmt.range_units(
        fs,
        path,
        block.start,
        block.end,
        first_line=block.first_line,
        base=block.base,
        shown=scrub(block.url),
    )
