"""``neardup serve``: the web UI and the REST service (FastAPI under uvicorn; OpenAPI at
``/docs``), with the crawl dispatcher of Romanov 2019 running in the same process."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Annotated, Any

import typer

from neardup.cli.options import DbOpt
from neardup.errors import NeardupError

if TYPE_CHECKING:
    from neardup.service.api import ServiceConfig

#: environment variable carrying the settings to ``--workers`` processes (JSON)
_WORKER_CONFIG = "_NEARDUP_SERVE_CONFIG"
_FACTORY = "neardup.cli.serve:worker_app"


def serve(
    db: DbOpt = None,
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port.")] = 8000,
    token: Annotated[
        str | None,
        typer.Option(
            "--token",
            envvar="NEARDUP_TOKEN",
            help="API token required by write routes (an empty one is a usage error).",
        ),
    ] = None,
    max_body_bytes: Annotated[int, typer.Option(help="Largest request body or upload, bytes.")] = 10
    * 1024
    * 1024,
    crawl: Annotated[
        bool,
        typer.Option(
            "--crawl/--no-crawl",
            help="Crawl queued libraries in this process (--no-crawl: only show and edit "
            "the queue; `neardup crawl` does the work).",
        ),
    ] = True,
    parallel: Annotated[
        int, typer.Option(help="Libraries crawled at once by the dispatcher (1-64).")
    ] = 1,
    allow_private: Annotated[
        bool,
        typer.Option(
            "--allow-private",
            help="Allow library addresses on private, loopback and link-local networks "
            "(off: refused, as a guard against SSRF).",
        ),
    ] = False,
    workers: Annotated[
        int,
        typer.Option(
            help="Server processes (uvicorn workers, 1-64), each with its own database "
            "connections; more than 1 needs --no-crawl (run `neardup crawl` for the queue).",
        ),
    ] = 1,
) -> None:
    """Serve the web UI (crawl queue, document checks, collection stats; http://HOST:PORT/)
    and the REST API (/docs) over HTTP."""
    import uvicorn

    from neardup.cli.common import fail
    from neardup.crawl import CrawlSettings
    from neardup.service.api import ServiceConfig, create_app

    if port < 1 or port > 65535 or max_body_bytes < 1:
        raise typer.BadParameter("port must be 1-65535 and max-body-bytes >= 1")
    if workers < 1 or workers > 64:
        raise typer.BadParameter(f"--workers {workers}: allowed 1-64")
    if workers > 1 and crawl:
        raise typer.BadParameter(
            f"--workers {workers} needs --no-crawl: each worker would run its own crawl "
            "dispatcher (run `neardup crawl` beside the server instead)"
        )
    if token is None and os.environ.get("NEARDUP_TOKEN") is not None:
        token = os.environ["NEARDUP_TOKEN"]  # Click drops an empty variable: refuse it below
    try:
        settings = CrawlSettings(parallel=parallel, allow_private=allow_private)
        config = ServiceConfig(
            db=db,
            token=token,
            max_body_bytes=max_body_bytes,
            crawl=crawl,
            crawl_settings=settings,
        )
        if workers > 1:
            _run_workers(config, host=host, port=port, workers=workers)
            return
        app = create_app(config)
    except NeardupError as exc:
        raise fail(exc) from None
    uvicorn.run(app, host=host, port=port)


def _run_workers(config: ServiceConfig, *, host: str, port: int, workers: int) -> None:
    """Serve with ``workers`` uvicorn processes (each builds its app in :func:`worker_app`).

    Raises:
        UsageError, StoreError: the database URL is bad or the database cannot be opened.
    """
    import uvicorn

    from neardup.store import Store

    Store(config.db).close()  # check and migrate the database once, before the workers race
    shared = {
        "db": config.db,
        "token": config.token,
        "max_body_bytes": config.max_body_bytes,
        "allow_private": config.crawl_settings.allow_private if config.crawl_settings else False,
    }
    os.environ[_WORKER_CONFIG] = json.dumps(shared)
    uvicorn.run(_FACTORY, factory=True, host=host, port=port, workers=workers)


def worker_app() -> Any:
    """The ASGI app of one ``--workers`` process (a uvicorn factory; the settings come from
    the parent in ``$_NEARDUP_SERVE_CONFIG``). No crawl dispatcher runs in a worker.

    Raises:
        UsageError, StoreError: the database cannot be opened.
    """
    from neardup.crawl import CrawlSettings
    from neardup.service.api import ServiceConfig, create_app

    shared = json.loads(os.environ[_WORKER_CONFIG])
    settings = CrawlSettings(allow_private=bool(shared["allow_private"]))
    return create_app(
        ServiceConfig(
            db=shared["db"],
            token=shared["token"],
            max_body_bytes=int(shared["max_body_bytes"]),
            crawl=False,
            crawl_settings=settings,
        )
    )


def register(app: typer.Typer) -> None:
    """Add ``serve`` to the ``neardup`` app."""
    app.command("serve")(serve)
