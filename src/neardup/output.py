"""Writing a dedup result to a directory: JSONL files, then ``summary.json`` last; the one
writer of every executor.

The layout: ``OUT/pairs.jsonl``, ``clusters.jsonl``, ``dropped.jsonl``, ``skipped.jsonl``
(:data:`FILES`, one JSON object a line, :func:`table_lines`) and ``OUT/summary.json``.
:func:`write_table` writes a table whole, or one partition's piece of it
(``OUT/_parts/NAME-PPPPP.jsonl``, an executor writing in parallel, as the Dask one does)
that :func:`merge_tables` joins in partition order; :func:`write_summary` writes the
summary. ``OUT`` is a local directory or an fsspec URL (``s3://...``, with ``fsspec``).

Every file is written to a temporary name in the same directory and renamed into place
(atomic on POSIX), and ``summary.json`` is written only after all the others: a directory
with a ``summary.json`` holds a complete result; one without it holds none that is claimed.
A job killed while writing leaves at most hidden temporary files (``.pairs.jsonl.XXXX``);
the next write into the directory removes them. Two jobs must not write one directory at
the same time.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from itertools import islice
from pathlib import Path
from typing import IO, Any

from neardup.job.pairs import PairTable
from neardup.job.pipeline import DedupResult

FILES: tuple[str, ...] = ("pairs.jsonl", "clusters.jsonl", "dropped.jsonl", "skipped.jsonl")
_SURROGATE = re.compile("[\ud800-\udfff]")
_BLOCK = 8192  # lines per write
_COPY = 1 << 22  # bytes per read when parts are merged


def write_result(
    result: DedupResult, out_dir: str | os.PathLike[str], *, tables: bool = True
) -> Path:
    """Write ``pairs.jsonl``, ``clusters.jsonl``, ``dropped.jsonl``, ``skipped.jsonl``, then
    ``summary.json`` into ``out_dir`` (created if needed). ``tables=False``: the four files
    are there already (an executor that writes them itself, ``Executor.writes_files``):
    ``summary.json`` only.

    Returns:
        The output directory as a :class:`Path`.

    Raises:
        OSError: the directory cannot be created or written.
    """
    out = Path(out_dir).resolve()  # "a/../out" is out: no stray "a" made by mkdir(parents)
    prepare_out_dir(out)
    _remove_temporaries(out)
    if tables:
        _write_tables(result, out)
    write_summary(out, result.summary)
    return out


def _write_tables(result: DedupResult, out: Path) -> None:
    pairs = result.pairs
    if isinstance(pairs, PairTable):
        write_table(out, "pairs.jsonl", pairs.lines())
    else:
        write_table(out, "pairs.jsonl", table_lines(p.as_dict() for p in pairs))
    write_table(out, "clusters.jsonl", table_lines(result.cluster_rows()))
    write_table(out, "dropped.jsonl", table_lines(d.as_dict() for d in result.dropped))
    write_table(out, "skipped.jsonl", table_lines(s.as_dict() for s in result.skipped))


def table_lines(rows: Iterable[dict[str, Any]]) -> Iterator[str]:
    """The lines of an output table: each row one JSON object (:func:`json_text`) and
    ``\n``; a pair table makes its own, the same (:meth:`PairTable.lines`)."""
    return (json_text(r) + "\n" for r in rows)


def _remote(out_dir: str | os.PathLike[str]) -> tuple[Any, str] | None:
    """``(filesystem, path)`` of an fsspec URL; None for a local directory."""
    text = os.fspath(out_dir)
    if "://" not in text or text.startswith("file://"):
        return None
    import fsspec

    fs, root = fsspec.core.url_to_fs(text)
    return fs, root.rstrip("/")


def _local(out_dir: str | os.PathLike[str]) -> Path:
    return Path(os.fspath(out_dir).removeprefix("file://"))


def part_name(name: str, part: int) -> str:
    """``_parts/NAME-PPPPP.jsonl``: partition ``part``'s piece of table ``NAME.jsonl``."""
    return f"_parts/{name.removesuffix('.jsonl')}-{part:05d}.jsonl"


def write_table(
    out_dir: str | os.PathLike[str], name: str, lines: Iterable[str], *, part: int | None = None
) -> int:
    """Write output table ``name`` (one of :data:`FILES`) of ready ``lines``
    (:func:`table_lines`): whole into ``OUT/NAME`` through a temporary name renamed into
    place (``part=None``), or partition ``part``'s piece (:func:`part_name`, overwriting a
    retried task's) for :func:`merge_tables`. Memory stays one block of lines.

    Returns:
        Number of lines written.
    """
    target = name if part is None else part_name(name, part)
    remote = _remote(out_dir)
    if remote is None:
        path = _local(out_dir) / target
        if part is None:
            return _atomic_write_lines(path, lines)
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "w", encoding="utf-8") as fh:
            return write_lines(fh, lines)
    fs, root = remote
    final = f"{root}/{target}"
    fs.makedirs(final.rsplit("/", 1)[0], exist_ok=True)
    written = final if part is not None else f"{root}/.{name}.tmp"
    with fs.open(written, "w", encoding="utf-8") as fh:
        count = write_lines(fh, lines)
    if written != final:
        fs.mv(written, final)
    return count


def merge_tables(out_dir: str | os.PathLike[str], parts: int) -> None:
    """Join the ``parts`` pieces of every table (:func:`write_table` with ``part``), in
    partition order, into ``OUT/NAME``; then remove them and ``OUT/_parts``.

    Raises:
        OSError / FileNotFoundError: a piece is missing or unreadable.
    """
    remote = _remote(out_dir)
    for name in FILES:
        pieces = [part_name(name, p) for p in range(parts)]
        if remote is None:
            root = _local(out_dir)
            with _atomic_file(root / name, "wb") as out:
                for x in pieces:
                    with open(root / x, "rb") as fh:
                        shutil.copyfileobj(fh, out, _COPY)
            continue
        fs, base = remote
        with fs.open(f"{base}/.{name}.tmp", "wb") as out:
            for x in pieces:
                with fs.open(f"{base}/{x}", "rb") as fh:
                    while chunk := fh.read(_COPY):
                        out.write(chunk)
        fs.mv(f"{base}/.{name}.tmp", f"{base}/{name}")
    if remote is None:
        shutil.rmtree(_local(out_dir) / "_parts", ignore_errors=True)
    elif remote[0].exists(f"{remote[1]}/_parts"):
        remote[0].rm(f"{remote[1]}/_parts", recursive=True)


def prepare_out_dir(out_dir: str | os.PathLike[str]) -> None:
    """Create ``out_dir`` if needed and remove its ``summary.json`` (the old result is no
    longer claimed complete)."""
    remote = _remote(out_dir)
    if remote is None:
        out = _local(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        (out / "summary.json").unlink(missing_ok=True)
        return
    fs, root = remote
    fs.makedirs(root, exist_ok=True)
    if fs.exists(f"{root}/summary.json"):
        fs.rm(f"{root}/summary.json")


def write_summary(out_dir: str | os.PathLike[str], summary: dict[str, Any]) -> None:
    """Write ``OUT/summary.json`` (indented :func:`json_text`), last: the result complete."""
    text = json_text(summary, indent=2) + "\n"
    remote = _remote(out_dir)
    if remote is None:
        out = _local(out_dir)
        _atomic_write(out / "summary.json", text)
        _fsync_dir(out)
        return
    fs, root = remote
    with fs.open(f"{root}/.summary.json.tmp", "w", encoding="utf-8") as fh:
        fh.write(text)
    fs.mv(f"{root}/.summary.json.tmp", f"{root}/summary.json")


def mark_stale(out_dir: str | os.PathLike[str]) -> None:
    """Remove ``out_dir/summary.json`` (if any) before a job writes its other outputs
    (``--kept``, ``--removed``), so a job killed meanwhile leaves no summary claiming them."""
    stale = Path(out_dir) / "summary.json"
    stale.unlink(missing_ok=True)


def _remove_temporaries(out: Path) -> None:
    """Temporary files a killed job left behind (``.NAME.XXXXXXXX``, see :func:`_atomic_write`)."""
    for name in (*FILES, "summary.json"):
        for tmp in out.glob(f".{name}.*"):
            tmp.unlink(missing_ok=True)


def _fsync_dir(path: Path) -> None:
    """Make the renames in ``path`` durable (POSIX; a no-op where directories cannot be opened)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


#: ``json.dumps(obj, ensure_ascii=False)`` without making its encoder at each call (a third
#: of the time of a row of ``dropped.jsonl``).
_UNICODE = json.JSONEncoder(ensure_ascii=False)


def json_text(obj: Any, **kwargs: Any) -> str:
    """JSON text with non-ASCII characters as themselves; a value holding lone surrogates
    (ids of documents built in Python, never UTF-8-encodable) is written with ``\\uXXXX``
    escapes instead, which any JSON reader turns back into the same string."""
    text = _UNICODE.encode(obj) if not kwargs else json.dumps(obj, ensure_ascii=False, **kwargs)
    if _SURROGATE.search(text):
        return json.dumps(obj, ensure_ascii=True, **kwargs)
    return text


def write_lines(fh: IO[str], lines: Iterable[str]) -> int:
    """Write ``lines`` (each with its ``\\n``) to ``fh`` in blocks of :data:`_BLOCK` lines,
    so memory stays one block however many lines; returns the number of lines."""
    count = 0
    it = iter(lines)
    while block := list(islice(it, _BLOCK)):
        fh.write("".join(block))
        count += len(block)
    return count


def current_umask() -> int:
    """The process umask (read from ``/proc/self/status`` where there is one, else by setting
    and restoring it), so files written through a temporary name get the mode ``open`` gives."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _atomic_write(path: Path, text: str) -> None:
    _atomic_write_lines(path, (text,))


def _atomic_write_lines(path: Path, lines: Iterable[str]) -> int:
    """Write ``lines`` to ``path`` (:func:`_atomic_file`) in blocks of :data:`_BLOCK` lines;
    memory stays one block however many lines. Returns the number of lines."""
    with _atomic_file(path, "w") as fh:
        return write_lines(fh, lines)


@contextmanager
def _atomic_file(path: Path, mode: str) -> Iterator[IO[Any]]:
    """A temporary file beside ``path`` (``mode`` ``"w"``: UTF-8 text, ``"wb"``), fsynced
    and renamed onto ``path`` when the ``with`` block ends; removed if it raises."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        os.fchmod(fd, 0o666 & ~current_umask())  # mkstemp makes 0600; a plain open would not
        encoding = None if "b" in mode else "utf-8"
        with os.fdopen(fd, mode, encoding=encoding) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
