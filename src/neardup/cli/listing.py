"""``neardup methods``: the detection methods (built-in and plugins of the
``neardup.methods`` entry-point group) with their parameters, decision rule and source."""

from __future__ import annotations

import sys

import typer

from neardup.cli.common import console, escape
from neardup.cli.shared_options import JsonOpt


def methods(as_json: JsonOpt = False) -> None:
    """List the detection methods with their parameters and sources."""
    from neardup.methods.registry import describe, method_names

    rows = [describe(n) for n in method_names()]
    if as_json:
        import json

        sys.stdout.write(json.dumps(rows, ensure_ascii=False, indent=2, default=str) + "\n")
        return
    from rich.table import Table

    table = Table("method", "parameters", "decision (default)", "source")
    for r in rows:
        params = ", ".join(f"{k}={v['default']}" for k, v in r["parameters"].items())
        rule = r["decision"]
        decision = f"{rule['rule']} ({rule['default']})"
        table.add_row(escape(r["name"]), escape(params), escape(decision), escape(r["source"]))
    console("out").print(table)


def register(app: typer.Typer) -> None:
    """Add ``methods`` to the ``neardup`` app."""
    app.command("methods")(methods)
