"""``neardup collection create|list|stats|delete|add|check|remove|recompute``; the
top-level ``neardup add``, ``neardup check`` and ``neardup remove`` are aliases.

Collections live in a database (``--db URL`` or ``$NEARDUP_DB``; default a SQLite file in
the user data directory, see :mod:`neardup.store.engine`). Exit codes: 0 ok, 1 failure
(missing collection or document, database error), 2 usage error.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer

from neardup.cli.shared_options import (
    BATCH_SIZE,
    COLLECTION_METHOD,
    CONTENT_TYPE,
    ID_FIELD,
    MAX_BYTES,
    MAX_DF,
    MEASURE,
    MIN_TOKENS,
    TEXT_FIELD,
    THRESHOLD,
    BatchSizeOpt,
    ContentTypeOpt,
    DbOpt,
    DecisionOpt,
    ExcludeOpt,
    IdFieldOpt,
    IncludeOpt,
    JsonOpt,
    LimitOpt,
    MaxBytesOpt,
    MaxDfOpt,
    MeasureOpt,
    MinTokensOpt,
    NoStopOpt,
    PresetOpt,
    RecursiveOpt,
    StopOpt,
    StopSymOpt,
    TextFieldOpt,
    ThresholdOpt,
    check_declared,
    read_inputs,
)
from neardup.errors import NeardupError

collection_app = typer.Typer(
    rich_markup_mode=None,
    name="collection",
    help="Collections: create, list, stats, delete; add, check and remove documents.",
    no_args_is_help=True,
)


@contextmanager
def _store(db: str | None) -> Iterator[Any]:
    """Open the store; NeardupError in the body becomes the CLI exit code."""
    from neardup.cli.common import fail
    from neardup.store import Store

    try:
        store = Store(db)
    except NeardupError as exc:
        raise fail(exc) from None
    try:
        yield store
    except NeardupError as exc:
        raise fail(exc) from None
    finally:
        store.close()


def _print_json(obj: Any) -> None:
    import json  # here: `neardup --help` does not load json

    sys.stdout.write(json.dumps(obj, ensure_ascii=False, indent=2, default=str) + "\n")


@collection_app.command("create")
def create(
    name: Annotated[str, typer.Argument(help="Collection name (unique).")],
    method: Annotated[
        str | None,
        typer.Option(
            "--method",
            "-m",
            help=f"Method (default: the preset's, else {COLLECTION_METHOD}, the TF-RIDF "
            "signature of Romanov 2019).",
        ),
    ] = None,
    param: Annotated[
        list[str] | None, typer.Option("--param", "-p", help="Method parameter KEY=VALUE.")
    ] = None,
    threshold: ThresholdOpt = THRESHOLD,
    measure: MeasureOpt = MEASURE,
    min_tokens: MinTokensOpt = MIN_TOKENS,
    stop_words: StopOpt = None,
    no_stop_words: NoStopOpt = False,
    stop_symbols: StopSymOpt = None,
    preset: PresetOpt = None,
    morphology: Annotated[
        str | None,
        typer.Option(help="none | stem | lemma (default: the method's own canonical form)."),
    ] = None,
    decision: DecisionOpt = None,
    max_df: MaxDfOpt = MAX_DF,
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Create a collection; its method and parameters are fixed from now on. The method's
    own canonical form (TF-RIDF: stop words out, stems; SpotSigs: stop words kept) is kept
    unless --preset/--stop-words/--stop-symbols/--morphology override it."""
    from neardup.cli.common import fail, method_choice, warn_unused_threshold

    try:
        method, params = method_choice(
            method,
            COLLECTION_METHOD,
            stop_words=stop_words,
            no_stop_words=no_stop_words,
            stop_symbols=stop_symbols,
            morphology=morphology,
            preset=preset,
            params=param,
        )
        warn_unused_threshold(method, threshold, decision)
    except NeardupError as exc:
        raise fail(exc) from None
    with _store(db) as store:
        info = store.create_collection(
            name,
            method,
            params,
            threshold=threshold,
            measure=measure,
            min_tokens=min_tokens,
            decision=decision,
            max_df=max_df,
        )
        where = _where(store)
    if as_json:
        _print_json(info.as_dict())
    else:
        shown = ", ".join(f"{k}={v}" for k, v in info.params.items())
        typer.echo(f"created collection {info.name}: {info.method} ({shown}) in {where}")


def _where(store: Any) -> str:
    """The database a store is on, as a person reads it: a SQLite file's path, else the URL
    without its password."""
    from sqlalchemy.engine import make_url

    url = make_url(store.url)
    if url.get_backend_name() == "sqlite" and url.database:
        return url.database
    return url.render_as_string(hide_password=True)


@collection_app.command("list")
def list_(db: DbOpt = None, as_json: JsonOpt = False) -> None:
    """List the collections."""
    from neardup.cli.common import out

    with _store(db) as store:
        rows = [store.stats(c.name) for c in store.collections()]
        where = _where(store)
    if as_json:
        _print_json(rows)
        return
    from rich.table import Table

    table = Table("name", "method", "threshold", "documents", "created", title=where)
    for r in rows:
        table.add_row(
            r["name"], r["method"], str(r["threshold"]), str(r["documents"]), r["created_at"]
        )
    out.print(table)


@collection_app.command("stats")
def stats(
    name: Annotated[str, typer.Argument(help="Collection name.")],
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Show a collection's parameters, counts and storage (bytes per document by table)."""
    from neardup.cli.common import out

    with _store(db) as store:
        row = store.stats(name, sizes=True)
    if as_json:
        _print_json(row)
        return
    from rich.table import Table

    storage = row.pop("storage", None)
    table = Table(title=f"collection {name}", show_header=False)
    for key, value in row.items():
        table.add_row(key, _plain(value))
    out.print(table)
    if storage is not None:
        out.print(_storage_table(storage))


def _plain(value: Any) -> str:
    """A stats value as a person reads it: strings bare, mappings as ``k=v, ...``."""
    if isinstance(value, dict):
        return ", ".join(f"{k}={_plain(v)}" for k, v in value.items())
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _storage_table(storage: dict[str, Any]) -> Any:
    """Rows, bytes on disk and bytes per document of each table (a Rich table)."""
    from rich.table import Table

    table = Table("table", "rows", "bytes", "bytes/document", title="storage")
    for name, t in storage["tables"].items():
        if not t["rows"]:
            continue
        table.add_row(name, str(t["rows"]), _num(t["bytes"]), _num(t["bytes_per_document"]))
    table.add_row("total", "", _num(storage["total_bytes"]), _num(storage["bytes_per_document"]))
    return table


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f}"


YesOpt = Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")]


def interactive() -> bool:
    """Is standard input a terminal (someone who can answer a question)?"""
    return sys.stdin.isatty()


def confirm(question: str, yes: bool) -> None:
    """Go on when ``yes``, or when the user answers yes at the terminal.

    Raises:
        typer.Exit: code 1 when the user says no; code 2 when stdin is not a terminal and
            ``--yes`` was not given (a script must say ``--yes``).
    """
    from neardup.cli.common import err

    if yes:
        return
    if not interactive():
        err.print(f"{question} Not a terminal: pass --yes to confirm.", markup=False)
        raise typer.Exit(2)
    if not typer.confirm(question, default=False, err=True):
        err.print("cancelled", markup=False)
        raise typer.Exit(1)


@collection_app.command("delete")
def delete(
    name: Annotated[str, typer.Argument(help="Collection name.")],
    db: DbOpt = None,
    yes: YesOpt = False,
) -> None:
    """Delete a collection and all its documents (asks first unless --yes)."""
    with _store(db) as store:
        info = store.stats(name)  # no such collection: fail before asking
        confirm(f"Delete collection {name} and its {info['documents']} documents?", yes)
        store.delete_collection(name)
    typer.echo(f"deleted collection {name}")


@collection_app.command("recompute")
def recompute_cmd(
    name: Annotated[str, typer.Argument(help="Collection name.")],
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Recompute word statistics and lexical signatures set-wise (Kolcz et al. 2004)."""
    with _store(db) as store:
        report = store.recompute(name)
    row = report.as_dict() if report is not None else {"documents": 0, "note": "no statistics"}
    if as_json:
        _print_json(row)
    else:
        typer.echo(f"recomputed {name}: {row}")


def add(
    name: Annotated[str, typer.Argument(help="Collection name.")],
    inputs: Annotated[
        list[Path], typer.Argument(help="Files or directories (txt, md, html, jsonl, csv; .gz).")
    ],
    id_field: IdFieldOpt = ID_FIELD,
    text_field: TextFieldOpt = TEXT_FIELD,
    content_type: ContentTypeOpt = CONTENT_TYPE,
    max_bytes: MaxBytesOpt = MAX_BYTES,
    include: IncludeOpt = None,
    exclude: ExcludeOpt = None,
    recursive: RecursiveOpt = True,
    limit: LimitOpt = None,
    batch_size: BatchSizeOpt = BATCH_SIZE,
    db: DbOpt = None,
    as_json: JsonOpt = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Add documents to a collection (idempotent: re-adding adds nothing; resumable)."""
    from neardup.cli.common import fail

    try:
        check_declared("batch_size", "batch_size", batch_size)
        items = read_inputs(
            inputs,
            id_field=id_field,
            text_field=text_field,
            content_type=content_type,
            max_bytes=max_bytes,
            include=include,
            exclude=exclude,
            recursive=recursive,
            limit=limit,
        )
    except NeardupError as exc:
        raise fail(exc) from None
    with _store(db) as store, _progress(quiet or as_json) as tick:
        report = store.add(name, absolute_sources(items), batch_size=batch_size, on_batch=tick)
    _report_skipped(report.skipped)
    if report.warnings:
        from neardup.cli.common import err

        for warning in report.warnings:
            err.print(f"warning: {warning}", markup=False, highlight=False, soft_wrap=True)
    if as_json:
        _print_json(report.as_dict())
    else:
        typer.echo(f"added {report.added} documents to {name}, skipped {len(report.skipped)}")


def absolute_sources(items: Iterator[Any]) -> Iterator[Any]:
    """``items`` with each local file source made absolute (``os.path.abspath``, so a
    record's ``FILE:LINE`` too): the stored source names the file wherever the collection is
    used from, not the path as typed relative to the working directory of the ``add``. URLs
    (``scheme://``) and ``-`` (standard input) are kept."""
    import dataclasses
    import os

    for item in items:
        src = item.source
        if src and src != "-" and "://" not in src and not os.path.isabs(src):
            item = dataclasses.replace(item, source=os.path.abspath(src))
        yield item


def _report_skipped(skipped: Any) -> None:
    """One line per skipped document; already stored ones are only counted."""
    from neardup.cli.common import err

    exists = 0
    for s in skipped:
        if s.reason == "exists":
            exists += 1
            continue
        err.print(f"[yellow]skipped[/yellow] {s.id}: {s.reason} {s.detail}".rstrip())
    if exists:
        err.print(f"[yellow]skipped[/yellow] {exists} documents already in the collection")


@contextmanager
def _progress(silent: bool) -> Iterator[Callable[[Any], None]]:
    from neardup.cli.common import err

    if silent or not err.is_terminal:
        yield lambda _report: None
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    bars = Progress(
        TextColumn("[bold]add"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("added {task.fields[added]}"),
        TimeElapsedColumn(),
        console=err,
    )
    with bars:
        task = bars.add_task("add", total=None, added=0)
        state = {"added": 0}

        def tick(report: Any) -> None:
            state["added"] += report.added
            bars.update(task, advance=report.added + len(report.skipped), added=state["added"])

        yield tick


def remove(
    name: Annotated[str, typer.Argument(help="Collection name.")],
    doc_id: Annotated[str, typer.Argument(help="Document id.")],
    db: DbOpt = None,
) -> None:
    """Remove one document from a collection."""
    with _store(db) as store:
        store.remove(name, doc_id)
    typer.echo(f"removed {doc_id} from {name}")


@collection_app.command("vacuum")
def vacuum_cmd(db: DbOpt = None, as_json: JsonOpt = False) -> None:
    """Reclaim the space of removed documents (VACUUM; all collections share the tables).

    Run it after removing many documents: on PostgreSQL the removed rows stay as dead
    index entries that slow checks down until a vacuum (autovacuum waits for 20 % of a
    table); on SQLite it rewrites the file without the freed pages.
    """
    with _store(db) as store:
        report = store.vacuum()
    if as_json:
        _print_json(report.as_dict())
        return
    typer.echo(
        f"vacuumed {len(report.tables)} tables ({report.dialect}) in {report.seconds:.1f} s: "
        f"{report.bytes_before:,} -> {report.bytes_after:,} bytes"
    )


def register(app: typer.Typer) -> None:
    """Add ``collection`` (with ``add``, ``check``, ``remove``) to the ``neardup`` app, and
    the top-level aliases ``add``, ``check``, ``remove``."""
    from neardup.cli.check import check

    collection_app.command("add")(add)
    collection_app.command("check")(check)
    collection_app.command("remove")(remove)
    app.add_typer(collection_app, name="collection")
    for command in (add, check, remove):
        name = command.__name__
        app.command(name, help=f"Alias of `neardup collection {name}`.")(command)
