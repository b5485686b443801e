"""``neardup view OUT [INPUT...]``: a dedup output folder as one HTML page (``OUT/view.html``):
clusters, pairs with the rule that decided them, and both texts of a pair side by side with
the aligned passages highlighted. The page needs no network and opens from ``file://``.
Exit codes: 0 written, 1 not a dedup output folder or not writable, 2 usage.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from neardup.cli.common import console, escape, fail
from neardup.errors import NeardupError

EXAMPLE = """
Examples: write and open the page of a run (the inputs are read again for the texts; the
run's summary.json names them):

\b
  neardup dedup examples/corpus --out out/demo
  neardup view out/demo && xdg-open out/demo/view.html
  neardup view out/big --max-pairs 20000 --texts 500 --output /tmp/big.html
"""


def view(
    out_dir: Annotated[Path, typer.Argument(help="A folder written by `neardup dedup --out`.")],
    inputs: Annotated[
        list[str] | None,
        typer.Argument(
            help="The corpus the run read, for the texts (default: the inputs its summary.json "
            "names)."
        ),
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="The page's file (default: OUT/view.html)."),
    ] = None,
    max_pairs: Annotated[
        int, typer.Option("--max-pairs", help="Pairs listed, highest score first.")
    ] = 100_000,
    texts: Annotated[
        int, typer.Option("--texts", help="Pairs whose texts and passages the page holds.")
    ] = 200,
    max_chars: Annotated[
        int, typer.Option("--max-chars", help="Characters of one text on the page (cut past it).")
    ] = 200_000,
) -> None:
    """Write one self-contained HTML page of a dedup result: clusters, pairs, and both texts
    of a pair with the aligned passages highlighted."""
    from neardup.html_report import ViewLimits, write_view

    try:
        limits = ViewLimits(max_pairs=max_pairs, text_pairs=texts, max_chars=max_chars)
        path = write_view(out_dir, path=output, inputs=inputs or None, limits=limits)
    except NeardupError as exc:
        raise fail(exc) from None
    except OSError as exc:
        console("err").print(f"error: cannot write the page: {escape(str(exc))}")
        raise typer.Exit(1) from None
    console("out").print(f"wrote {escape(str(path))} (open it in a browser; no network needed)")


def register(app: typer.Typer) -> None:
    """Add ``view`` to the ``neardup`` app."""
    app.command("view", epilog=EXAMPLE)(view)
