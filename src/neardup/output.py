"""Writing a dedup result to a directory: JSONL files, then ``summary.json`` last.

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
import tempfile
from collections.abc import Iterable
from itertools import islice
from pathlib import Path
from typing import IO, Any

from neardup.job.pairs import PairTable
from neardup.job.pipeline import DedupResult

FILES: tuple[str, ...] = ("pairs.jsonl", "clusters.jsonl", "dropped.jsonl", "skipped.jsonl")
_SURROGATE = re.compile("[\ud800-\udfff]")
_BLOCK = 8192  # lines per write


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
    out.mkdir(parents=True, exist_ok=True)
    stale = out / "summary.json"
    if stale.exists():
        stale.unlink()  # the old result is no longer claimed complete
    _remove_temporaries(out)
    if tables:
        _write_tables(result, out)
    _atomic_write(out / "summary.json", json_text(result.summary, indent=2) + "\n")
    _fsync_dir(out)
    return out


def _write_tables(result: DedupResult, out: Path) -> None:
    pairs = result.pairs
    if isinstance(pairs, PairTable):
        _atomic_write_lines(out / "pairs.jsonl", pairs.lines())
    else:
        _write_jsonl(out / "pairs.jsonl", (p.as_dict() for p in pairs))
    _write_jsonl(out / "clusters.jsonl", result.cluster_rows())
    _write_jsonl(out / "dropped.jsonl", (d.as_dict() for d in result.dropped))
    _write_jsonl(out / "skipped.jsonl", (s.as_dict() for s in result.skipped))


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


def _write_jsonl(path: Path, rows: Iterable[dict[str, Any]]) -> None:
    _atomic_write_lines(path, (json_text(r) + "\n" for r in rows))


def json_text(obj: Any, **kwargs: Any) -> str:
    """JSON text with non-ASCII characters as themselves; a value holding lone surrogates
    (ids of documents built in Python, never UTF-8-encodable) is written with ``\\uXXXX``
    escapes instead, which any JSON reader turns back into the same string."""
    text = json.dumps(obj, ensure_ascii=False, **kwargs)
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


def _atomic_write_lines(path: Path, lines: Iterable[str]) -> None:
    """Write ``lines`` to a temporary file beside ``path`` in blocks of :data:`_BLOCK`
    lines, fsync, rename onto ``path``; memory stays one block however many lines."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        os.fchmod(fd, 0o666 & ~current_umask())  # mkstemp makes 0600; a plain open would not
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            write_lines(fh, lines)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
