"""The command-line reference as Markdown, made from the commands themselves.

:func:`markdown` runs ``neardup ... --help`` for every command and sub-command of the Typer
app and puts each text under a heading; the documentation site builds its CLI page with it
(``docs/hooks/neardup_docs.py``), so the page always says what the installed commands say.
"""

from __future__ import annotations

from typing import Any

#: Width of the rendered help texts (columns).
WIDTH = 100


def commands(app: Any = None) -> list[tuple[str, ...]]:
    """Every command path of the app in the order the help lists them: ``()`` (the program
    itself), then ``("dedup",)``, ..., ``("collection",)``, ``("collection", "create")``...

    Args:
        app: a Typer app; default: the ``neardup`` app.
    """
    import typer

    if app is None:
        from neardup.cli.main import app

    out: list[tuple[str, ...]] = []

    def walk(cmd: Any, path: tuple[str, ...]) -> None:
        out.append(path)
        for name, sub in getattr(cmd, "commands", {}).items():
            walk(sub, (*path, name))

    walk(typer.main.get_command(app), ())
    return out


def help_text(path: tuple[str, ...], app: Any = None) -> str:
    """The ``--help`` output of ``neardup PATH...`` at :data:`WIDTH` columns.

    Raises:
        RuntimeError: the help did not exit with code 0.
    """
    from typer.testing import CliRunner

    if app is None:
        from neardup.cli.main import app

    res = CliRunner().invoke(app, [*path, "--help"], prog_name="neardup", terminal_width=WIDTH)
    if res.exit_code != 0:
        raise RuntimeError(f"neardup {' '.join(path)} --help exited {res.exit_code}")
    return res.output.rstrip() + "\n"


def markdown(app: Any = None, *, level: int = 2) -> str:
    """One section per command, the program itself first: a heading ``neardup PATH``
    (``level`` for the program and the top-level commands, one deeper for sub-commands)
    and its help text in a fenced block.

    Args:
        app: a Typer app; default: the ``neardup`` app.
        level: heading level of the top-level commands, 1-5.
    """
    parts = []
    for path in commands(app):
        heading = "#" * (level + max(len(path) - 1, 0))
        name = " ".join(("neardup", *path))
        parts.append(f"{heading} `{name}`\n\n```text\n{help_text(path, app)}```\n")
    return "\n".join(parts)
