"""``neardup contamination CORPUS... --eval EVALSET...``: corpus documents sharing a word
n-gram (13 words) with an evaluation set (GPT-3's and datatrove's decontamination).

Exit codes as ``check``'s (grep's): 0 no document is contaminated, 1 at least one is,
2 a usage or other error (unreadable input, no corpus document read).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from neardup.cli.common import console, escape
from neardup.cli.corpus_io import report, with_progress, write_out
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

#: Exit codes: nothing found, a contaminated document found, an error.
EXIT_CLEAN, EXIT_FOUND, EXIT_ERROR = 0, 1, 2

EXAMPLE = """
Example: which training documents hold 13-word passages of a benchmark's test items,
and the training set without them:

\b
  neardup contamination train.jsonl --eval test.jsonl --kept train.clean.jsonl
"""


def contamination(
    inputs: Annotated[
        list[str], typer.Argument(help="The corpus: files, folders or - (any `dedup` input).")
    ],
    eval_set: Annotated[
        list[str],
        typer.Option("--eval", help="The evaluation set (repeatable; one document an item)."),
    ],
    ngram: Annotated[int, typer.Option("--ngram", help="Words per shared n-gram.")] = 13,
    kept: Annotated[
        Path | None,
        typer.Option(
            "--kept", help="Write the corpus without the contaminated documents (all fields)."
        ),
    ] = None,
    out_dir: Annotated[
        str | None,
        typer.Option(
            "--out", "-o", help="Write contaminated.jsonl, items.jsonl, skipped.jsonl, summary."
        ),
    ] = None,
    top: Annotated[int, typer.Option("--top", help="Documents and items the tables show.")] = 20,
    id_field: IdFieldOpt = ID_FIELD,
    text_field: TextFieldOpt = TEXT_FIELD,
    content_type: ContentTypeOpt = CONTENT_TYPE,
    max_bytes: MaxBytesOpt = MAX_BYTES,
    as_json: Annotated[
        bool,
        typer.Option("--json", help="Print {summary, contaminated, items, skipped} as JSON."),
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bars.")] = False,
) -> None:
    """Corpus documents sharing an n-gram of --ngram words with an evaluation set, with the
    shared passages located. Exit 0: none; 1: some; 2: error."""
    from neardup.corpus.decontamination import contamination as run

    try:
        check_int("--top", top, low=0)
        opts = read_options(
            id_field=id_field, text_field=text_field, content_type=content_type, max_bytes=max_bytes
        )
        check_fields([*inputs, *eval_set], opts)  # a field no file has: exit 2
        result = with_progress(
            lambda prog: run(
                inputs, eval_set=eval_set, ngram=ngram, read_options=opts, kept=kept, progress=prog
            ),
            quiet or as_json,
        )
        items = [{"eval_id": k, "documents": v} for k, v in result.per_item.items()]
        if out_dir is not None:
            write_out(
                out_dir,
                {
                    "contaminated.jsonl": (c.as_dict() for c in result.documents),
                    "items.jsonl": items,
                    "skipped.jsonl": (s.as_dict() for s in result.skipped),
                },
                result.summary,
            )
    except (NeardupError, OSError) as exc:
        console("err").print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(EXIT_ERROR) from None
    doc = {
        "summary": result.summary,
        "contaminated": [c.as_dict() for c in result.documents],
        "items": items,
        "skipped": [s.as_dict() for s in result.skipped],
    }
    report(
        doc,
        lambda: _print(result, items, top, kept),
        as_json=as_json,
        skipped=result.skipped,
        out_dir=out_dir,
        read=result.summary["documents"],
        what="corpus document",
        code=EXIT_ERROR,
    )
    raise typer.Exit(EXIT_FOUND if result.documents else EXIT_CLEAN)


def _print(result: Any, items: list[dict[str, Any]], top: int, kept: Path | None) -> None:
    """One row a contaminated document (its passages are in ``--json`` and ``--out``), one
    a found evaluation item, then the counts."""
    from rich.table import Table

    s = result.summary
    out = console("out")
    if result.documents:
        table = Table(
            "id",
            "passages",
            f"shared {s['ngram']}-grams",
            "evaluation items",
            title=_title("contaminated documents", min(top, len(result.documents)), s),
        )
        for doc in result.documents[:top]:
            shown = doc.eval_ids[:3]
            more = f", ... (+{len(doc.eval_ids) - 3})" if len(doc.eval_ids) > 3 else ""
            table.add_row(
                escape(doc.id),
                str(len(doc.matches)),
                str(doc.ngrams),
                escape(", ".join(shown) + more),
            )
        out.print(table)
    found = sorted((i for i in items if i["documents"]), key=lambda i: -i["documents"])
    if found:
        table = Table("evaluation item", "documents", title="evaluation items found")
        for i in found[:top]:
            table.add_row(escape(i["eval_id"]), str(i["documents"]))
        out.print(table)
    out.print(
        f"{s['contaminated']} of {s['documents']} documents share a {s['ngram']}-gram with "
        f"{s['eval_items_found']} of {s['eval_items']} evaluation items",
        highlight=False,
    )
    if s["eval_items_too_short"]:
        console("err").print(
            f"warning: {s['eval_items_too_short']} evaluation items are shorter than "
            f"{s['ngram']} words: they cannot be found",
            highlight=False,
            style="yellow",
        )
    if result.documents:
        out.print(
            "each document's passages (offsets in it and in the item): --json, or --out DIR "
            "(contaminated.jsonl)",
            highlight=False,
        )
    if kept is not None:
        out.print(
            f"kept corpus: {s['kept_records']} records in {escape(str(kept))}", highlight=False
        )


def _title(what: str, shown: int, summary: dict[str, Any]) -> str:
    total = summary["contaminated"]
    return f"{what} ({shown} of {total})" if shown < total else what


def register(app: typer.Typer) -> None:
    """Add ``contamination`` to the ``neardup`` app."""
    app.command("contamination", epilog=EXAMPLE)(contamination)
