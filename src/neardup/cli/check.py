"""``neardup collection check NAME INPUT...`` (alias ``neardup check``): record by record.

Every input record (a file, a file of a folder, a JSONL/CSV line, ``-`` for standard input;
whatever :func:`neardup.text.read.read_corpus` reads) is checked against the collection on
its own, and one result is printed per record as soon as it is known: a line of text, or with
``--json`` one JSON object per line. Exit codes, as grep's: 0 no record matched, 1 at least
one record is a duplicate, 2 a usage or other error (no such collection, unreadable input).
A record that cannot be checked (too short, empty, binary...) is reported as ``skipped`` and
does not change the exit code.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from neardup.cli.shared_options import (
    CHECK_LIMIT,
    CONTENT_TYPE,
    ID_FIELD,
    MAX_BYTES,
    TEXT_FIELD,
    CheckLimitOpt,
    ContentTypeOpt,
    DbOpt,
    ExcludeOpt,
    IdFieldOpt,
    IncludeOpt,
    MaxBytesOpt,
    RecursiveOpt,
    TextFieldOpt,
    TopOpt,
    check_declared,
    read_inputs,
)
from neardup.errors import NeardupError

#: Exit codes of ``check``: nothing matched, a duplicate found, an error.
EXIT_UNIQUE, EXIT_DUPLICATE, EXIT_ERROR = 0, 1, 2


def check(
    name: Annotated[str, typer.Argument(help="Collection name.")],
    inputs: Annotated[
        list[Path],
        typer.Argument(
            help="Files, folders, JSONL/CSV record files or - (standard input); every "
            "record is checked on its own."
        ),
    ],
    id_field: IdFieldOpt = ID_FIELD,
    text_field: TextFieldOpt = TEXT_FIELD,
    content_type: ContentTypeOpt = CONTENT_TYPE,
    max_bytes: MaxBytesOpt = MAX_BYTES,
    include: IncludeOpt = None,
    exclude: ExcludeOpt = None,
    recursive: RecursiveOpt = True,
    limit: CheckLimitOpt = CHECK_LIMIT,
    top: TopOpt = None,
    db: DbOpt = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="One JSON object per record on stdout.")
    ] = False,
    passages: Annotated[
        bool,
        typer.Option("--passages", help="Also give each match's aligned passages (offsets)."),
    ] = False,
    quiet: Annotated[
        bool,
        typer.Option("--quiet", "-q", help="Print nothing; the exit code tells (as grep -q)."),
    ] = False,
) -> None:
    """Is each record of INPUT a duplicate of documents in the collection, and of which?
    Exit 0: none is; 1: at least one is; 2: usage or other error.

    Example: `neardup check library new-paper.pdf drafts/ --json` (`--top 3`: the three
    best by score)"""
    from neardup.cli.gc_pause import imports_without_gc

    with imports_without_gc():
        from neardup.store import Store
        from neardup.text.types import Document

    try:
        check_declared("limit", "limit", limit)
        check_declared("--top", "k", top)
        items = read_inputs(
            inputs,
            id_field=id_field,
            text_field=text_field,
            content_type=content_type,
            max_bytes=max_bytes,
            include=include,
            exclude=exclude,
            recursive=recursive,
        )
        store = Store(db)
    except NeardupError as exc:
        raise _error(exc) from None
    counts = {"duplicate": 0, "unique": 0, "skipped": 0}
    warned: set[str] = set()
    try:
        store.collection(name)  # no such collection: an error before any record is read
        for item in items:
            row = _check_one(store, name, item, limit, top)
            _warn_once(row.get("warnings", ()), warned)
            if passages and row["status"] == "duplicate" and isinstance(item, Document):
                _add_passages(store, name, item.text, row)
            counts[row["status"]] += 1
            if not quiet:
                _emit(row, as_json)
    except NeardupError as exc:
        raise _error(exc) from None
    finally:
        store.close()
    if not quiet and not as_json:
        typer.echo(closing_line(counts), err=True)
    raise typer.Exit(EXIT_DUPLICATE if counts["duplicate"] else EXIT_UNIQUE)


def closing_line(counts: dict[str, int]) -> str:
    """``N checked: D duplicates, U unique, S skipped`` (on stderr after the results)."""
    total = sum(counts.values())
    return (
        f"{total} checked: {counts['duplicate']} duplicate(s), {counts['unique']} unique, "
        f"{counts['skipped']} skipped"
    )


def _error(exc: NeardupError) -> typer.Exit:
    """Print the error on stderr (Rich's console is made only now: start-up)."""
    from rich.markup import escape

    from neardup.cli.common import err

    err.print(f"[red]error:[/red] {escape(str(exc))}")
    return typer.Exit(EXIT_ERROR)


def _check_one(
    store: Any, name: str, item: Any, limit: int, top: int | None = None
) -> dict[str, Any]:
    """One JSON-ready result: ``{id, source, status, ...}`` with ``status`` ``duplicate``,
    ``unique`` or ``skipped`` (then ``reason`` and ``detail``)."""
    from neardup.errors import InputError
    from neardup.text.types import Skipped

    head = {"id": item.id, "source": item.source}
    if isinstance(item, Skipped):
        return {**head, "status": "skipped", "reason": item.reason, "detail": item.detail}
    try:
        result = store.check(name, item.text, limit=limit, k=top)
    except InputError as exc:
        if type(exc) is not InputError:  # a subclass: no such collection, a store failure
            raise
        return {**head, "status": "skipped", "reason": "too-short", "detail": str(exc)}
    status = "duplicate" if result.duplicate else "unique"
    return {**head, "status": status, **result.as_dict()}


def _add_passages(store: Any, name: str, text: str, row: dict[str, Any]) -> None:
    """``align_passages(text, stored text)`` of each match as ``passages`` rows
    (``{a_start, a_end, b_start, b_end}``: A is the record, B the stored document); a match
    whose text is not stored has none."""
    from neardup.errors import DocumentNotFound
    from neardup.passages import align_passages

    for match in row.get("matches", []):
        try:
            stored = store.document_text(name, match["id"])
        except DocumentNotFound:
            continue
        match["passages"] = [
            {"a_start": p.a_start, "a_end": p.a_end, "b_start": p.b_start, "b_end": p.b_end}
            for p in align_passages(text, stored)
        ]


#: Further matches a text line names by id (the rest are counted; ``--json`` has them all).
OTHERS_SHOWN = 5


def _others(matches: list[dict[str, Any]]) -> str:
    """``; also of B (resemblance 0.61), C (0.55) and 3 more`` for the matches after the best."""
    if not matches:
        return ""
    named = ", ".join(f"{m['id']} ({m['resemblance']:.3f})" for m in matches[:OTHERS_SHOWN])
    rest = len(matches) - OTHERS_SHOWN
    return f"; also of {named}" + (f" and {rest} more (--json lists them)" if rest > 0 else "")


def _warn_once(warnings: Any, warned: set[str]) -> None:
    """Print each warning (an empty lexicon, ...) on stderr the first time it is seen (Rich's
    console is made only when there is one: start-up)."""
    for warning in warnings:
        if warning not in warned:
            from neardup.cli.common import err

            warned.add(warning)
            err.print(f"warning: {warning}", markup=False, highlight=False, soft_wrap=True)


def _emit(row: dict[str, Any], as_json: bool) -> None:
    if as_json:
        import json  # here: `neardup --help` does not load json

        sys.stdout.write(json.dumps(row, ensure_ascii=False, default=str) + "\n")
        sys.stdout.flush()
        return
    typer.echo(result_line(row))


def result_line(row: dict[str, Any]) -> str:
    """One line of text for a result of :func:`_check_one` (plain text, no markup)."""
    doc = row["id"]
    if row["status"] == "skipped":
        return f"{doc}: skipped ({row['reason']}: {row['detail']})".replace(": )", ")")
    if row["status"] == "unique":
        return f"{doc}: no duplicate ({row['candidates']} candidates)"
    best = row["matches"][0]
    tail = _others(row["matches"][1:])
    line = (
        f"{doc}: duplicate of {best['id']} (resemblance {best['resemblance']:.3f}, "
        f"{best['containment_query']:.3f} of it in that document, "
        f"{best['containment_doc']:.3f} of that document in it){tail}"
    )
    for p in best.get("passages", []):
        line += (
            f"\n  passage: {doc} [{p['a_start']}, {p['a_end']}) = "
            f"{best['id']} [{p['b_start']}, {p['b_end']})"
        )
    return line
