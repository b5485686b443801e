"""``neardup crawl URL --clarification post --collection NAME``: crawl a digital library.

Runs the crawler of :mod:`neardup.crawl` (Romanov 2019 section 3.1) in this process, with a
progress bar on a terminal. The library is kept in the crawl queue of the database: running
the same command again after an interruption (Ctrl-C, a crash, ``kill -9``) resumes the
crawl where it stopped; running it after the crawl is done looks for new pages. Exit codes:
0 done, 1 failed/interrupted (or a database error), 2 usage error.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer

from neardup.cli.shared_options import COLLECTION_METHOD, THRESHOLD, DbOpt
from neardup.errors import NeardupError

if TYPE_CHECKING:
    import asyncio

POLL_SECONDS = 0.25
MAX_LISTED_FAILURES = 20


def crawl_command(
    url: Annotated[str, typer.Argument(help="The library's home page (http or https).")],
    clarification: Annotated[
        list[str],
        typer.Option(
            "--clarification",
            "-c",
            help="URL substring that marks article pages, e.g. post (repeatable).",
        ),
    ],
    collection: Annotated[
        str | None,
        typer.Option(help="Collection for the documents (default: the host name)."),
    ] = None,
    db: DbOpt = None,
    allow_private: Annotated[
        bool,
        typer.Option("--allow-private", help="Allow private, loopback and link-local addresses."),
    ] = False,
    delay: Annotated[float, typer.Option(help="Seconds between two requests to the host.")] = 1.0,
    concurrency: Annotated[int, typer.Option(help="Requests in flight per host.")] = 2,
    timeout: Annotated[float, typer.Option(help="Seconds per request.")] = 10.0,
    retries: Annotated[int, typer.Option(help="Retries after 5xx/timeouts.")] = 3,
    max_pages: Annotated[int, typer.Option(help="At most this many pages.")] = 100_000,
    method: Annotated[
        str,
        typer.Option(
            "--method",
            "-m",
            help=(
                "Method of a collection created here (any method with index keys: "
                "tf-ridf, minhash-lsh, shingles-*, megashingles, imatch, ...); default: "
                "TF-RIDF signature, as Romanov 2019 indexes libraries."
            ),
        ),
    ] = COLLECTION_METHOD,
    threshold: Annotated[
        float, typer.Option("--threshold", "-t", help="Threshold of a collection created here.")
    ] = THRESHOLD,
    morphology: Annotated[
        str | None,
        typer.Option(
            help="Word forms of a collection created here: none | stem | lemma (pymorphy3, "
            "Russian, as Romanov 2019 lemmatizes; default: the method's own, TF-RIDF stems)."
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Crawl a digital library into a collection (Romanov 2019): link search, address pattern,
    range walk or recursive crawl; resumable."""
    from neardup.cli.common import fail, warn_unused_threshold
    from neardup.crawl import CrawlSettings

    try:
        settings = CrawlSettings(
            delay=delay,
            concurrency=concurrency,
            timeout=timeout,
            retries=retries,
            max_pages=max_pages,
            allow_private=allow_private,
        )
        warn_unused_threshold(method, threshold, None)
    except NeardupError as exc:
        raise fail(exc) from None
    with _queue(db, settings) as queue:
        try:
            lib = _library(queue, url, clarification, collection, method, threshold, morphology)
            final = _run(queue, lib.id, show=not (quiet or as_json))
            failures = queue.pages(lib.id, "failed")
            used = queue.store.collection(final.collection).method
        except NeardupError as exc:
            raise fail(_with_flag(exc)) from None
    _report(final, failures, as_json, used)
    if final.stage != "done":
        raise typer.Exit(1)


def _with_flag(exc: NeardupError) -> NeardupError:
    """``exc``, or for a URL refused for its non-public address the same error naming
    ``--allow-private`` (the option that lifts it)."""
    from neardup.crawl.safety import UnsafeURLError

    if not (isinstance(exc, UnsafeURLError) and exc.private):
        return exc
    reason = (
        f"{exc.reason}; --allow-private crawls private, loopback and link-local addresses "
        "(a library on this machine or network)"
    )
    return UnsafeURLError(exc.url, reason, private=True)


def _queue(db: str | None, settings: Any) -> Any:
    """The crawl queue on the store (a context manager closing both)."""
    from contextlib import contextmanager

    from neardup.cli.common import fail
    from neardup.crawl import CrawlQueue
    from neardup.store import Store

    @contextmanager
    def opened() -> Any:
        try:
            store = Store(db)
        except NeardupError as exc:
            raise fail(exc) from None
        try:
            queue = CrawlQueue(store, settings)
        except NeardupError as exc:
            store.close()
            raise fail(exc) from None
        try:
            yield queue
        finally:
            queue.close()
            store.close()

    return opened()


def _library(
    queue: Any,
    url: str,
    clarifications: list[str],
    collection: str | None,
    method: str,
    threshold: float,
    morphology: str | None = None,
) -> Any:
    """The queued library for this URL and collection: resumed if known, else added."""
    from neardup.crawl import check_url
    from neardup.crawl.queue import clean_clarifications, collection_name
    from neardup.crawl.status import FINISHED

    s = queue.settings
    home = check_url(url, allow_private=s.allow_private, allow_hosts=s.allow_hosts)
    name = collection or collection_name(home)
    known = queue.find(home, name)
    if known is None or tuple(known.clarifications) != clean_clarifications(clarifications):
        return queue.add(
            home,
            clarifications,
            collection=name,
            method=method,
            threshold=threshold,
            morphology=morphology,
        )
    if known.stage in FINISHED:
        return queue.resume(known.id)
    return known  # queued, or left running by a process that died: resume it


def _run(queue: Any, library_id: int, *, show: bool) -> Any:
    """Crawl with a progress bar; Ctrl-C leaves the library resumable."""
    import asyncio

    from neardup.cli.common import err
    from neardup.crawl import crawl

    async def main() -> Any:
        task = asyncio.create_task(crawl(queue, library_id))
        if show and err.is_terminal:
            await _progress(queue, library_id, task)
        return await task

    try:
        return asyncio.run(main())
    except KeyboardInterrupt:
        err.print("[yellow]interrupted[/yellow]: run the same command again to resume")
        return queue.library(library_id)


async def _progress(queue: Any, library_id: int, task: asyncio.Task[Any]) -> None:
    import asyncio

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from neardup.cli.common import err

    bars = Progress(
        TextColumn("[bold]{task.description:<18}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("pages  {task.fields[docs]} documents"),
        TimeElapsedColumn(),
        console=err,
    )
    with bars:
        bar = bars.add_task("queued", total=None, docs=0)
        while not task.done():
            lib = await asyncio.to_thread(queue.library, library_id)
            bars.update(
                bar,
                description=lib.stage,
                total=max(lib.pages_found, 1),
                completed=lib.pages_fetched + lib.pages_failed,
                docs=lib.documents_added,
            )
            await asyncio.wait([task], timeout=POLL_SECONDS)
        if not task.cancelled() and task.exception() is None and task.result().stage == "done":
            final = task.result()
            total = max(final.pages_found, 1)
            bars.update(bar, description="done", total=total, completed=total,
                        docs=final.documents_added)  # fmt: skip


def _report(lib: Any, failures: list[Any], as_json: bool, method: str) -> None:
    from rich.table import Table

    from neardup.cli.common import err, out
    from neardup.crawl.queue import method_label

    if as_json:
        row = lib.as_dict()
        row["method"] = method
        row["method_label"] = method_label(method)
        row["failed_pages"] = [p.as_dict() for p in failures]
        import json  # here: `neardup --help` does not load json

        sys.stdout.write(json.dumps(row, ensure_ascii=False, indent=2) + "\n")
    else:
        table = Table(title=f"crawl of {lib.url}", show_header=False)
        for key in ("stage", "collection", "mode", "pattern", "range", "pages_found",
                    "pages_fetched", "pages_failed", "documents_added", "error"):  # fmt: skip
            value = getattr(lib, key)
            if value not in (None, ""):
                table.add_row(key.replace("_", " "), str(value))
            if key == "collection":
                table.add_row("method", f"{method} ({method_label(method)})")
        out.print(table)
        for page in failures[:MAX_LISTED_FAILURES]:
            err.print(f"[yellow]failed page[/yellow] {page.url}: {page.error}")
        if len(failures) > MAX_LISTED_FAILURES:
            err.print(f"... and {len(failures) - MAX_LISTED_FAILURES} more failed pages")
    if lib.stage == "failed":
        err.print(f"[red]error:[/red] crawl failed: {lib.error}")


def register(app: typer.Typer) -> None:
    """Add ``neardup crawl`` to the CLI."""
    app.command("crawl")(crawl_command)
