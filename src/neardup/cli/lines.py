"""``neardup lines INPUT...``: lines (or paragraphs) repeated across documents, cut.

One command for both units (``--unit line``, the default, as CCNet and datatrove cut lines;
``--unit paragraph`` for text between blank lines, as Dolma): the job, the outputs and the
options are the same, only the split differs. Exit codes as ``dedup``'s: 0 when documents
were processed (repeated units found or not: cutting them is the job, not a finding),
1 when no document could be read or an error, 2 for a usage error.
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
Example: the most repeated lines of 181 raw HTML pages, the corpus without them:

\b
  neardup lines pages/ --content-type text --min-docs 3 --kept clean.jsonl --out lines-out

Paragraphs that differ from page to page by a date or a name, counted as one:

\b
  neardup lines pages/ --unit paragraph --near --threshold 0.8 --boilerplate
"""


def lines(
    inputs: Annotated[
        list[str],
        typer.Argument(help="Files, folders or - (any input `neardup dedup` reads)."),
    ],
    unit: Annotated[
        str, typer.Option(help="line (split at newlines) | paragraph (split at blank lines).")
    ] = "line",
    min_docs: Annotated[
        int,
        typer.Option(
            "--min-docs", help="A unit is repeated when at least this many documents hold it."
        ),
    ] = 2,
    boilerplate: Annotated[
        bool,
        typer.Option(
            "--boilerplate", help="Cut every copy, the first too (default: keep the first)."
        ),
    ] = False,
    min_chars: Annotated[
        int, typer.Option("--min-chars", help="Shorter units (normal form) are never cut.")
    ] = 1,
    symbols: Annotated[
        bool,
        typer.Option(
            "--symbols",
            help="Count and cut units without a letter or digit too (`};`, `=====`); by "
            "default they are never cut.",
        ),
    ] = False,
    near: Annotated[
        bool,
        typer.Option(
            "--near",
            help="Count near-identical units as one (differing by a date, a name): MinHash "
            "and LSH over character 5-grams, verified exactly. One more pass; the distinct "
            "units are held in memory.",
        ),
    ] = False,
    threshold: Annotated[
        float,
        typer.Option(
            "--threshold", help="With --near: Jaccard of two units' 5-gram sets, in (0, 1]."
        ),
    ] = 0.8,
    kept: Annotated[
        Path | None,
        typer.Option(
            "--kept",
            help="Write the corpus with the units cut (.jsonl[.gz|.zst] or .parquet): all "
            "fields kept, the text field rewritten.",
        ),
    ] = None,
    out_dir: Annotated[
        str | None,
        typer.Option(
            "--out",
            "-o",
            help="Write repeated.jsonl, documents.jsonl, skipped.jsonl, summary.json.",
        ),
    ] = None,
    top: Annotated[int, typer.Option("--top", help="Repeated units the table shows.")] = 20,
    id_field: IdFieldOpt = ID_FIELD,
    text_field: TextFieldOpt = TEXT_FIELD,
    content_type: ContentTypeOpt = CONTENT_TYPE,
    max_bytes: MaxBytesOpt = MAX_BYTES,
    memory_mib: Annotated[
        int,
        typer.Option("--memory-mib", help="Occurrence rows held in memory, MiB; then spilled."),
    ] = 256,
    spill_dir: Annotated[
        Path | None, typer.Option("--spill-dir", help="Directory of the temporary files.")
    ] = None,
    as_json: Annotated[
        bool,
        typer.Option("--json", help="Print {summary, repeated, documents, skipped} as JSON."),
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bars.")] = False,
) -> None:
    """Lines or paragraphs repeated across documents (navigation, banners, footers): a table
    of the most repeated, and the corpus with them cut (Wenzek et al. 2020, CCNet)."""
    from neardup.corpus.paragraphs import repeated_paragraphs

    try:
        check_int("--top", top, low=0)
        check_int("--memory-mib", memory_mib, low=0)
        opts = read_options(
            id_field=id_field, text_field=text_field, content_type=content_type, max_bytes=max_bytes
        )
        check_fields(inputs, opts)  # a field no record file named has: exit 2
        result = with_progress(
            lambda prog: repeated_paragraphs(
                inputs,
                unit=unit,  # type: ignore[arg-type]
                min_docs=min_docs,
                keep="none" if boilerplate else "first",
                min_chars=min_chars,
                symbols=symbols,
                near=near,
                threshold=threshold,
                read_options=opts,
                kept=kept,
                memory_budget=memory_mib << 20,
                spill_dir=spill_dir,
                progress=prog,
            ),
            quiet or as_json,
        )
        if out_dir is not None:
            write_out(
                out_dir,
                {
                    "repeated.jsonl": (u.as_dict() for u in result.units),
                    "documents.jsonl": result.document_rows(),
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
        "repeated": [u.as_dict() for u in result.units],
        "documents": [r for r in result.document_rows() if r["removed_chars"]],
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

    s = result.summary
    out = console("out")
    near = s["near_threshold"] is not None
    columns = ["#", "documents", "copies", *(["variants"] if near else []), "first seen", "text"]
    table = Table(
        *columns,
        title=f"most repeated {s['unit']}s ({s['repeated_units']} held by >= {s['min_docs']} "
        "documents)",
    )
    for i, u in enumerate(result.units[:top], 1):
        where = f"{u.first_id} {s['unit']} {u.first_unit + 1}"
        variants = [str(u.variants)] if near else []
        table.add_row(
            str(i), str(u.documents), str(u.copies), *variants, escape(where), escape(clip(u.text))
        )
    out.print(table)
    pct = 100 * s["removed_chars"] / s["chars"] if s["chars"] else 0.0
    out.print(
        f"{s['documents']} documents, {s['skipped']} skipped; {s['cut_units']} units cut from "
        f"{s['documents_changed']} documents ({s['documents_emptied']} left empty); "
        f"{s['removed_chars']:,} of {s['chars']:,} characters removed ({pct:.1f}%); "
        f"{s['seconds']['total']:.2f} s, peak memory {s['peak_memory_mib']} MiB",
        highlight=False,
    )
    if out_dir is not None:
        out.print(f"full tables in {escape(out_dir)}", highlight=False)
    if kept is not None:
        out.print(
            f"kept corpus: {s['kept_records']} records in {escape(str(kept))}", highlight=False
        )


def register(app: typer.Typer) -> None:
    """Add ``lines`` to the ``neardup`` app."""
    app.command("lines", epilog=EXAMPLE)(lines)
