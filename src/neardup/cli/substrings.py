"""``neardup substrings INPUT... [--against OTHER...]``: exact repeated spans of at least
``--min-bytes`` bytes (Lee et al. 2022), by suffix array (libdivsufsort, the ``substrings``
extra). Exit codes as ``dedup``'s: 0 when documents were processed, 1 when none could be read
or an error, 2 for a usage error (``pydivsufsort`` missing is one: install the extra).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from neardup.cli.common import console, escape, fail
from neardup.cli.corpus_io import clip, report, with_progress, write_out
from neardup.cli.shared_options import (
    CONTENT_TYPE,
    ID_FIELD,
    MAX_BYTES,
    TEXT_FIELD,
    ContentTypeOpt,
    IdFieldOpt,
    MaxBytesOpt,
    TextFieldOpt,
    check_fields,
    read_options,
)
from neardup.errors import NeardupError, check_int

EXAMPLE = """
Examples: spans of >= 100 bytes repeated in a corpus, the corpus without them; the spans
of a new batch already in an older one:

\b
  neardup substrings crawl.jsonl --kept clean.jsonl --out spans-out
  neardup substrings new.jsonl --against old.jsonl --min-bytes 200 --json
"""


def substrings(
    inputs: Annotated[
        list[str], typer.Argument(help="Files, folders or - (any input `neardup dedup` reads).")
    ],
    against: Annotated[
        list[str] | None,
        typer.Option("--against", help="A second corpus: report the spans of INPUT found in it."),
    ] = None,
    min_bytes: Annotated[
        int, typer.Option("--min-bytes", help="Shortest repeat, in UTF-8 bytes.")
    ] = 100,
    kept: Annotated[
        Path | None,
        typer.Option(
            "--kept",
            help="Write INPUT with every copy of the spans removed (.jsonl[.gz|.zst] or "
            ".parquet; fields kept, the text field rewritten).",
        ),
    ] = None,
    out_dir: Annotated[
        str | None,
        typer.Option("--out", "-o", help="Write spans.jsonl, skipped.jsonl, summary.json."),
    ] = None,
    top: Annotated[int, typer.Option("--top", help="Spans the table shows.")] = 20,
    id_field: IdFieldOpt = ID_FIELD,
    text_field: TextFieldOpt = TEXT_FIELD,
    content_type: ContentTypeOpt = CONTENT_TYPE,
    max_bytes: MaxBytesOpt = MAX_BYTES,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print {summary, spans, skipped} as JSON.")
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bars.")] = False,
) -> None:
    """Exact repeated spans of at least --min-bytes bytes within a corpus or between two
    (suffix array, Lee et al. 2022), and the corpus without them."""
    from neardup.corpus.exact_substrings import repeated_substrings

    try:
        check_int("--top", top, low=0)
        opts = read_options(
            id_field=id_field, text_field=text_field, content_type=content_type, max_bytes=max_bytes
        )
        check_fields([*inputs, *(against or [])], opts)  # a field no file has: exit 2
        result = with_progress(
            lambda prog: repeated_substrings(
                inputs,
                against=against or None,
                min_bytes=min_bytes,
                read_options=opts,
                kept=kept,
                progress=prog,
            ),
            quiet or as_json,
        )
        if out_dir is not None:
            write_out(
                out_dir,
                {
                    "spans.jsonl": (s.as_dict() for s in result.spans),
                    "skipped.jsonl": (s.as_dict() for s in result.skipped),
                },
                result.summary,
            )
    except NeardupError as exc:
        raise fail(exc) from None
    except OSError as exc:
        console("err").print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(1) from None
    doc = {
        "summary": result.summary,
        "spans": [s.as_dict() for s in result.spans],
        "skipped": [s.as_dict() for s in result.skipped],
    }
    report(
        doc,
        lambda: _print(result, top, out_dir, kept),
        as_json=as_json,
        skipped=result.skipped,
        out_dir=out_dir,
        read=result.summary["documents"],
    )


def _print(result: Any, top: int, out_dir: str | None, kept: Path | None) -> None:
    from rich.table import Table

    from neardup.cli.dedup_output import column_header, shared_dir

    s = result.summary
    out = console("out")
    longest = sorted(result.spans, key=lambda sp: sp.byte_start - sp.byte_end)[:top]
    # against a second corpus, ids are paths under two trees: shown without their shared
    # directory, named in the header (as dedup --against's tables)
    under = shared_dir([sp.id for sp in longest]) if s["against_documents"] is not None else ""
    table = Table(
        column_header("id", under),
        "chars [start, end)",
        "bytes [start, end)",
        "copies",
        "text",
        title=f"repeated spans of >= {s['min_bytes']} bytes (longest first)",
    )
    for sp in longest:
        table.add_row(
            escape(sp.id[len(under) :]),
            f"[{sp.start}, {sp.end})",
            f"[{sp.byte_start}, {sp.byte_end})",
            str(sp.copies),
            escape(clip(sp.text, 50)),
        )
    out.print(table)
    pct = 100 * s["removed_chars"] / s["chars"] if s["chars"] else 0.0
    out.print(
        f"{s['documents']} documents ({s['bytes']:,} bytes with separators), {s['skipped']} "
        f"skipped; {s['spans']} spans in {s['documents_with_spans']} documents cover "
        f"{s['removed_chars']:,} of {s['chars']:,} characters ({pct:.1f}%); "
        f"{s['seconds']['total']:.2f} s (suffix array {s['seconds']['suffix_array']:.2f} s), "
        f"peak memory {s['peak_memory_mib']} MiB",
        highlight=False,
    )
    if out_dir is not None:
        out.print(f"all spans in {escape(out_dir)}", highlight=False)
    if kept is not None:
        out.print(f"kept corpus: {s['kept_records']} records in {escape(str(kept))}")


def register(app: typer.Typer) -> None:
    """Add ``substrings`` to the ``neardup`` app."""
    app.command("substrings", epilog=EXAMPLE)(substrings)
