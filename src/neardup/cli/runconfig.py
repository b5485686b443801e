"""``--config FILE``: a command's options from a TOML file (every option the command line
takes, by its long name), so a run can be written down, reviewed and repeated.

Keys are option names without the leading dashes, with ``-`` or ``_`` (``shingle-size`` or
``shingle_size``); the file may hold them at the top level or under a table named after the
command (``[dedup]``). Options given on the command line win over the file. Relative paths
in the file (inputs, ``out``, ``kept``, ``against``, a stop-word file...) are relative to
the file's folder, wherever the command runs; ``-`` and URLs stay as they are. A value
given where a list goes (``include = "*.txt"``) is a list of one. Example::

    # run.toml
    inputs = ["crawl/2026-11/", "crawl/2026-12/"]
    method = "minhash-lsh"
    threshold = 0.7
    param = ["num_perm=256"]
    kept = "clean.jsonl.zst"

    neardup dedup --config run.toml --dry-run
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import typer


def keys(command: Any) -> dict[str, str]:
    """File key -> parameter name: each option's long names without dashes (``out`` for
    ``--out``, ``shingle-size``), an argument's name (``inputs``); ``_`` may stand for ``-``."""
    found: dict[str, str] = {}
    for param in command.params:
        if not param.name or param.name == "config":
            continue
        longs = [o[2:] for o in getattr(param, "opts", []) if o.startswith("--")]
        for key in longs or [param.name]:
            found[key] = param.name
    return found


#: Parameters whose strings are paths (``Path`` parameters are found by type), with the
#: words among their values that are not (``-``: standard input; ``snowball``: the lists).
PATH_STRINGS: dict[str, tuple[str, ...]] = {
    "inputs": ("-",),
    "against": ("-",),
    "out_dir": (),
    "stop_words": ("snowball",),
}


def load(path: Path, command: Any) -> dict[str, Any]:
    """The settings of ``command`` (a Click command) in the TOML file at ``path``, keyed by
    parameter name; relative paths made relative to the file's folder, a single value of a
    list parameter made a list.

    Raises:
        typer.BadParameter: the file is missing, is not TOML (or nests deeper than the parser
            goes), or names an option the command does not have (the message lists the ones
            it has). Exit code 2.
    """
    import tomllib  # here, not at import: `neardup --version` does not parse TOML

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise typer.BadParameter(f"cannot read {path}: {exc.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise typer.BadParameter(f"{path} is not TOML: {exc}") from None
    except RecursionError:
        raise typer.BadParameter(
            f"{path}: arrays or tables nested too deep to read (an option's value is a "
            "string, a number, a boolean or a list of them)"
        ) from None
    section = data.get(command.name or "", data)
    if not isinstance(section, dict):
        raise typer.BadParameter(f"[{command.name}] in {path} is not a table")
    known = keys(command)
    params = {p.name: p for p in command.params}
    settings: dict[str, Any] = {}
    for key, value in section.items():
        if isinstance(value, dict):
            continue  # another command's table
        name = known.get(key) or known.get(key.replace("_", "-"))
        if name is None:
            allowed = ", ".join(sorted(known))
            raise typer.BadParameter(f"{path}: unknown option {key!r}; the options are: {allowed}")
        settings[name] = _placed(params[name], value, path.parent)
    return settings


def _placed(param: Any, value: Any, folder: Path) -> Any:
    """``value`` of ``param`` from a file in ``folder``: a list for a list parameter, each
    relative path joined to ``folder`` (:data:`PATH_STRINGS`, ``Path`` parameters)."""
    many = getattr(param, "multiple", False) or getattr(param, "nargs", 1) == -1
    if many and not isinstance(value, list):
        value = [value]
    words = PATH_STRINGS.get(param.name or "")
    if words is None and _is_path(param):
        words = ()
    if words is None:
        return value

    def place(item: Any) -> Any:
        if not isinstance(item, str) or item in words or "://" in item:
            return item  # not a path: left to the option's own check
        return os.path.normpath(folder / Path(item).expanduser()) if item else item

    return [place(v) for v in value] if isinstance(value, list) else place(value)


def _is_path(param: Any) -> bool:
    """Whether ``param`` takes a ``pathlib.Path`` (or a list of them), by Typer's
    annotation of it."""
    from typing import get_args, get_origin

    annotation = getattr(getattr(param, "type_descriptor", None), "annotation", None)
    if get_origin(annotation) is list:
        annotation = get_args(annotation)[0]
    return annotation is Path


def callback(ctx: typer.Context, value: Path | None) -> Path | None:
    """Eager ``--config`` callback: the file's settings become the command's defaults."""
    if value is not None:
        ctx.default_map = {**(ctx.default_map or {}), **load(value, ctx.command)}
    return value
