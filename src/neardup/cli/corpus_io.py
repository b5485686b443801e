"""What ``neardup lines``, ``substrings`` and ``contamination`` share: progress bars on a
terminal, ``--out DIR`` (JSONL files, then ``summary.json`` last, each renamed into place
when complete) and JSON on standard output."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import typer

from neardup.cli.common import console


def with_progress(fn: Callable[[Any], Any], silent: bool) -> Any:
    """``fn(progress)``: Rich bars on stderr when it is a terminal and not ``silent``."""
    err = console("err")
    if silent or not err.is_terminal:
        return fn(None)
    from neardup.cli.progress_bars import RichProgress

    with RichProgress(err) as prog:
        return fn(prog)


def dumps(value: Any) -> str:
    """One line of JSON (UTF-8 kept, numpy scalars as numbers)."""
    import json  # here: `neardup --help` does not load json

    return json.dumps(value, ensure_ascii=False, default=_plain)


def _plain(value: Any) -> Any:
    if hasattr(value, "item"):
        return value.item()
    return str(value)


def write_out(
    out_dir: str, files: dict[str, Iterable[dict[str, Any]]], summary: dict[str, Any]
) -> Path:
    """Write each ``NAME.jsonl`` of ``files`` into ``out_dir``, then ``summary.json``.

    Raises:
        OSError: the directory cannot be written.
    """
    out = Path(out_dir).resolve()
    out.mkdir(parents=True, exist_ok=True)
    (out / "summary.json").unlink(missing_ok=True)
    for name, rows in files.items():
        _atomic(out / name, (dumps(r) + "\n" for r in rows))
    import json

    _atomic(out / "summary.json", [json.dumps(summary, ensure_ascii=False, indent=2) + "\n"])
    return out


def _atomic(path: Path, chunks: Iterable[str]) -> None:
    import tempfile  # here: the commands' module is imported by `neardup --help` too

    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            for chunk in chunks:
                f.write(chunk)
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def print_json(value: dict[str, Any]) -> None:
    """``value`` as indented JSON on stdout."""
    import json

    sys.stdout.write(json.dumps(value, ensure_ascii=False, indent=2, default=_plain) + "\n")


def clip(text: str, width: int = 70) -> str:
    """``text`` on one line, at most ``width`` characters (an ellipsis when clipped)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def report(
    doc: dict[str, Any],
    show: Callable[[], None],
    *,
    as_json: bool,
    skipped: Sequence[Any],
    out_dir: str | None,
    read: int,
    what: str = "document",
    code: int = 1,
) -> None:
    """The end of ``lines``, ``substrings`` and ``contamination``: ``doc`` as JSON, or
    ``show()`` (the tables) and the skipped inputs summed up by reason on stderr (as
    ``dedup`` does: a line per reason, not per file); then exit ``code`` when no ``what``
    could be read (``read == 0``)."""
    if as_json:
        print_json(doc)
    else:
        show()
        from rich.markup import escape

        from neardup.cli.dedup_output import skipped_lines

        for line in skipped_lines(skipped, out_dir):
            console("err").print(escape(line), style="yellow", highlight=False)
    if read == 0:
        console("err").print(f"[red]error:[/red] no {what} could be read")
        raise typer.Exit(code)
