"""Input blocks and output part files of the Dask engine, through fsspec.

Inputs are sharded JSONL (``.jsonl``/``.ndjson``, optionally ``.gz``) or Parquet files, as
local paths or any fsspec URL (``s3://``, ``gs://``, ``hdfs://``, ``file://``...). A plain
JSONL file is cut into byte ranges of about ``block_bytes`` (a range owns every line that
*starts* inside it); a ``.gz`` file is one block (gzip cannot be split); a Parquet file gives
one block per row group. Records are turned into documents by the same code as the local
reader (:mod:`neardup.text.read`), so ids, skip reasons and ``FILE:LINE`` sources agree.

Outputs: every partition writes ``OUT/_parts/NAME-PPPPP.jsonl``; :func:`merge_parts`
concatenates them in partition order into ``OUT/NAME`` (temporary name, then rename on
local file systems) and removes the parts.
"""

from __future__ import annotations

import gzip
import itertools
import json
import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from neardup.errors import InputError
from neardup.text.read import JSONL_SUFFIXES, read_options, read_unit, record_document
from neardup.text.types import Document, Skipped
from neardup.text.units import BLOCK_BYTES, LinesUnit, ReadOptions

PARQUET_SUFFIXES: tuple[str, ...] = (".parquet", ".pq")
_CHUNK = 1 << 22


@dataclass(frozen=True, slots=True)
class Block:
    """One input partition.

    Attributes:
        url: fsspec URL or local path of the file (as given, used in ``source`` fields).
        base: the file's path relative to the inputs' common parent, the prefix of fallback
            ids (``base:LINE``).
        kind: ``jsonl``, ``jsonl.gz`` or ``parquet``.
        start, end: byte range for ``jsonl`` (lines starting in ``[start, end)``); the row
            group number in ``start`` for ``parquet``; unused (0, -1) for ``jsonl.gz``.
        first_line: 1-based number of the block's first line (``jsonl``; set by
            :func:`number_lines`).
    """

    url: str
    base: str
    kind: str
    start: int = 0
    end: int = -1
    first_line: int = 1


def list_files(inputs: Sequence[str | os.PathLike[str]]) -> list[str]:
    """Input files in order: files as given, directories walked (sorted), globs expanded.

    Only JSONL(.gz) and Parquet files are taken from directories and globs.

    Raises:
        InputError: an input matches nothing or a given file has an unsupported suffix.
    """
    import fsspec

    out: list[str] = []
    for item in inputs:
        url = os.fspath(item)
        fs, path = fsspec.core.url_to_fs(url)
        if fs.isdir(path):
            found = sorted(p for p in fs.find(path) if _supported(p))
            out += [_rejoin(url, path, p) for p in found]
        elif fs.isfile(path):
            if not _supported(path):
                raise InputError(f"input {url!r}: the Dask engine reads JSONL(.gz) or Parquet")
            out.append(url)
        else:
            found = sorted(p for p in fs.glob(path) if _supported(p))
            if not found:
                raise InputError(f"input {url!r} does not exist")
            out += [_rejoin(url, path, p) for p in found]
    return out


def _supported(path: str) -> bool:
    low = path.lower()
    return low.endswith(JSONL_SUFFIXES) or low.endswith(PARQUET_SUFFIXES)


def _rejoin(url: str, path: str, found: str) -> str:
    """Give ``found`` the protocol prefix ``url`` had (``s3://``...), if any."""
    if "://" in url and "://" not in found:
        return url.split("://", 1)[0] + "://" + found
    return found


def file_names(inputs: Sequence[str | os.PathLike[str]], files: Sequence[str]) -> list[str]:
    """Each file's name in ids (``FILE`` of ``FILE:LINE``): its path relative to the
    deepest directory holding every input (a directory input holds itself, a file or glob
    match is held by its parent), as the local reader names them
    (:func:`neardup.text.units.input_names`)."""
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
    files: Sequence[str], block_bytes: int, names: Sequence[str] | None = None
) -> list[Block]:
    """Blocks of the files: byte ranges of plain JSONL (``ceil(size / block_bytes)`` equal
    ranges a file, each at most ``block_bytes``), whole ``.gz``, Parquet row groups;
    ``names``: each file's name in ids (:func:`file_names`; default its file name)."""
    import fsspec

    blocks: list[Block] = []
    for k, url in enumerate(files):
        fs, path = fsspec.core.url_to_fs(url)
        base = names[k] if names is not None else path.rstrip("/").rsplit("/", 1)[-1]
        low = path.lower()
        if low.endswith(PARQUET_SUFFIXES):
            import pyarrow.parquet as pq

            with fs.open(path, "rb") as fh:
                groups = pq.ParquetFile(fh).num_row_groups
            blocks += [Block(url, base, "parquet", g) for g in range(max(groups, 1))]
        elif low.endswith(".gz"):
            blocks.append(Block(url, base, "jsonl.gz"))
        else:
            size = max(fs.size(path), 1)
            n = -(-size // block_bytes)  # equal blocks: no short last block for one worker
            cuts = [size * k // n for k in range(n + 1)]
            blocks += [Block(url, base, "jsonl", a, b) for a, b in itertools.pairwise(cuts)]
    return blocks


def count_lines(block: Block) -> int:
    """Lines that start inside a ``jsonl`` block (0 for other kinds)."""
    if block.kind != "jsonl":
        return 0
    local = _local_path(block.url)
    if local is None:
        data = _block_data(block)
        return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    return _count_mapped(local, block.start, block.end)


def is_local(url: str) -> bool:
    """Whether ``url`` names a file on this machine's file system (a path, ``file://``)."""
    return _local_path(url) is not None


def _local_path(url: str) -> str | None:
    """The path of a file on this machine's file system, or None (another fsspec protocol)."""
    import fsspec

    fs, path = fsspec.core.url_to_fs(url)
    protocol = fs.protocol if isinstance(fs.protocol, tuple) else (fs.protocol,)
    return path if "file" in protocol or "local" in protocol else None


def _count_mapped(path: str, start: int, end: int) -> int:
    """Lines that start in ``[start, end)`` of a local file, counted on a memory map (no
    copy of the bytes): the line starts are byte 0 and every byte after a ``\\n``."""
    import mmap

    import numpy as np

    with open(path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        end = min(end, size)
        if start >= end:
            return 0
        with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
            before = 1 if start == 0 or mm[start - 1] == 0x0A else 0
            # line starts in (start, end): the newlines in [start, end - 1), counted a
            # piece at a time (a bool array of at most _CHUNK bytes)
            inside = 0
            for a in range(start, end - 1, _CHUNK):
                piece = np.frombuffer(mm, np.uint8, min(_CHUNK, end - 1 - a), a)
                inside += int(np.count_nonzero(piece == 0x0A))
                del piece  # no export of the map left when it closes
            return before + inside


def number_lines(blocks: Sequence[Block], counts: Sequence[int]) -> list[Block]:
    """Blocks with ``first_line`` set from the line counts of the earlier blocks of a file."""
    out: list[Block] = []
    line, url = 1, None
    for block, count in zip(blocks, counts, strict=True):
        if block.url != url:
            line, url = 1, block.url
        out.append(Block(block.url, block.base, block.kind, block.start, block.end, line))
        line += count
    return out


def _block_data(block: Block) -> bytes:
    """The bytes of the lines that start in ``[start, end)`` of a plain JSONL file (the last
    one whole, past ``end``), read in large pieces: no Python step a line."""
    import fsspec

    fs, path = fsspec.core.url_to_fs(block.url)
    with fs.open(path, "rb", block_size=_CHUNK) as fh:
        pos = block.start
        if pos > 0:
            fh.seek(pos - 1)
            if fh.read(1) != b"\n":  # mid-line: that line belongs to the previous block
                pos += len(fh.readline())
        if pos >= block.end:
            return b""
        pieces = [fh.read(block.end - pos)]
        if pieces[0].endswith(b"\n"):
            return pieces[0]
        pieces.append(fh.readline())  # the rest of the last line that starts in the block
        return b"".join(pieces)


def read_block(block: Block, read_options_dict: dict[str, Any]) -> Iterator[Document | Skipped]:
    """Documents and skips of a block, in file order (the local reader's rules).

    Args:
        block: the block; read_options_dict: ``id_field``, ``text_field``, ``content_type``,
            ``max_bytes`` as for :func:`neardup.text.read_corpus`.
    """
    opts = read_options(**read_options_dict)
    if block.kind == "parquet":
        yield from _parquet_records(block, opts)
        return
    for unit in block_units(block):
        yield from read_unit(unit, opts)


def block_units(block: Block) -> Iterator[LinesUnit]:
    """The read units of a JSONL(.gz) block (lines joined into chunks of about
    :data:`BLOCK_BYTES`), in file order: what the local reader decodes at once.

    Raises:
        ValueError: a Parquet block (its records come from :func:`read_block`).
    """
    if block.kind == "parquet":
        raise ValueError("a Parquet block has no JSONL read units")
    if block.kind == "jsonl.gz":
        for first, chunk in _chunks(_gzip_lines(block), block.first_line):
            yield LinesUnit(block.url, block.base, chunk, first)
        return
    first, data = block.first_line, _block_data(block)
    for chunk in _cut(data):
        yield LinesUnit(block.url, block.base, chunk, first)
        first += chunk.count(b"\n")


def _cut(data: bytes) -> Iterator[bytes]:
    """``data`` (whole lines) cut as :func:`_chunks` joins its lines: each chunk ends with
    the first line that brings it to :data:`BLOCK_BYTES` bytes; the last line is given its
    ``\\n`` if it lacks one."""
    start, n = 0, len(data)
    while start < n:
        nl = data.find(b"\n", start + BLOCK_BYTES - 1)
        if nl < 0:
            tail = data[start:]
            yield tail if tail.endswith(b"\n") else tail + b"\n"
            return
        yield data[start : nl + 1]
        start = nl + 1


def _chunks(lines: Iterable[bytes], first: int) -> Iterator[tuple[int, bytes]]:
    """Lines (each with its ``\\n``) joined into chunks of about :data:`BLOCK_BYTES`, with
    the number of each chunk's first line: the units the local reader decodes at once."""
    held: list[bytes] = []
    size = 0
    for line in lines:
        held.append(line if line.endswith(b"\n") else line + b"\n")
        size += len(line)
        if size >= BLOCK_BYTES:
            yield first, b"".join(held)
            first, held, size = first + len(held), [], 0
    if held:
        yield first, b"".join(held)


def _gzip_lines(block: Block) -> Iterator[bytes]:
    import fsspec

    fs, path = fsspec.core.url_to_fs(block.url)
    with fs.open(path, "rb") as raw, gzip.open(raw, "rb") as fh:
        yield from fh


def _parquet_records(block: Block, opts: ReadOptions) -> Iterator[Document | Skipped]:
    import fsspec
    import pyarrow.parquet as pq

    fs, path = fsspec.core.url_to_fs(block.url)
    with fs.open(path, "rb") as fh:
        pf = pq.ParquetFile(fh)
        if pf.num_row_groups == 0:
            return
        names = set(pf.schema_arrow.names)
        cols = [c for c in (opts.id_field, opts.text_field) if c in names]
        table = pf.read_row_group(block.start, columns=cols)
        offset = sum(pf.metadata.row_group(g).num_rows for g in range(block.start))
    ids = table.column(opts.id_field).to_pylist() if opts.id_field in names else None
    texts = table.column(opts.text_field).to_pylist() if opts.text_field in names else None
    for i in range(table.num_rows):
        row = offset + i + 1
        fallback_id, source = f"{block.base}:{row}", f"{block.url}:{row}"
        raw_id = ids[i] if ids is not None else None
        doc_id = _id(raw_id, fallback_id)
        text = texts[i] if texts is not None else None
        yield record_document(doc_id, source, text, opts, trusted=False)


def _id(value: object, fallback: str) -> str:
    if value is None or (isinstance(value, str) and not value.strip()):
        return fallback
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


# -- output ---------------------------------------------------------------------------------
def part_url(out_dir: str, name: str, part: int) -> str:
    """``OUT/_parts/NAME-PPPPP.jsonl`` for partition ``part`` of output ``NAME.jsonl``."""
    stem = name.removesuffix(".jsonl")
    return f"{out_dir.rstrip('/')}/_parts/{stem}-{part:05d}.jsonl"


def write_part(out_dir: str, name: str, part: int, rows: Iterable[dict[str, Any]]) -> int:
    """Write one partition's rows as JSONL (overwriting a retried task's file).

    Returns:
        Number of rows written.
    """
    return write_part_lines(
        out_dir, name, part, (json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    )


def write_part_lines(out_dir: str, name: str, part: int, lines: Iterable[str]) -> int:
    """Write one partition's ready JSONL ``lines`` (each ending in ``\\n``), overwriting a
    retried task's file, in blocks (:func:`neardup.output.write_lines`).

    Returns:
        Number of lines written.
    """
    import fsspec

    from neardup.output import write_lines

    url = part_url(out_dir, name, part)
    fs, path = fsspec.core.url_to_fs(url)
    fs.makedirs(path.rsplit("/", 1)[0], exist_ok=True)
    with fs.open(path, "w", encoding="utf-8") as fh:
        return write_lines(fh, lines)


def merge_parts(out_dir: str, name: str, parts: int) -> None:
    """Concatenate ``parts`` part files of ``name`` in order into ``OUT/name``, then remove them.

    Raises:
        OSError / FileNotFoundError: a part file is missing or unreadable.
    """
    import fsspec

    fs, root = fsspec.core.url_to_fs(out_dir)
    final = f"{root.rstrip('/')}/{name}"
    tmp = f"{root.rstrip('/')}/.{name}.tmp"
    with fs.open(tmp, "wb") as out:
        for p in range(parts):
            _, src = fsspec.core.url_to_fs(part_url(out_dir, name, p))
            with fs.open(src, "rb") as fh:
                while chunk := fh.read(_CHUNK):
                    out.write(chunk)
    fs.mv(tmp, final)
    for p in range(parts):
        fs.rm(fsspec.core.url_to_fs(part_url(out_dir, name, p))[1])


def remove_parts_dir(out_dir: str) -> None:
    """Remove ``OUT/_parts`` once every part file has been merged (no error if absent)."""
    import fsspec

    fs, root = fsspec.core.url_to_fs(out_dir)
    parts = f"{root.rstrip('/')}/_parts"
    if fs.exists(parts):
        fs.rm(parts, recursive=True)


def write_text(out_dir: str, name: str, text: str) -> None:
    """Write ``OUT/name`` whole (temporary name, then rename)."""
    import fsspec

    fs, root = fsspec.core.url_to_fs(out_dir)
    tmp, final = f"{root.rstrip('/')}/.{name}.tmp", f"{root.rstrip('/')}/{name}"
    with fs.open(tmp, "w", encoding="utf-8") as fh:
        fh.write(text)
    fs.mv(tmp, final)


def prepare_out_dir(out_dir: str) -> None:
    """Create ``out_dir`` and remove a stale ``summary.json`` (no complete result is claimed)."""
    import fsspec

    fs, root = fsspec.core.url_to_fs(out_dir)
    fs.makedirs(root, exist_ok=True)
    stale = f"{root.rstrip('/')}/summary.json"
    if fs.exists(stale):
        fs.rm(stale)
