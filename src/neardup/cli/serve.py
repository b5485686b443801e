"""``neardup serve``: run the REST service (FastAPI under uvicorn; OpenAPI at ``/docs``)."""

from __future__ import annotations

from typing import Annotated

import typer

from neardup.errors import NeardupError


def serve(
    db: Annotated[
        str | None,
        typer.Option("--db", envvar="NEARDUP_DB", help="Database URL (sqlite:///, postgresql://)."),
    ] = None,
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port.")] = 8000,
    token: Annotated[
        str | None,
        typer.Option("--token", envvar="NEARDUP_TOKEN", help="API token required by write routes."),
    ] = None,
    max_body_bytes: Annotated[int, typer.Option(help="Largest request body or upload, bytes.")] = 10
    * 1024
    * 1024,
) -> None:
    """Serve collections over HTTP: create, add, check, remove (see /docs)."""
    import uvicorn

    from neardup.cli.main import _fail
    from neardup.service.api import ServiceConfig, create_app

    if port < 1 or port > 65535 or max_body_bytes < 1:
        raise typer.BadParameter("port must be 1-65535 and max-body-bytes >= 1")
    try:
        app = create_app(ServiceConfig(db=db, token=token, max_body_bytes=max_body_bytes))
    except NeardupError as exc:
        raise _fail(exc) from None
    uvicorn.run(app, host=host, port=port)


def register(app: typer.Typer) -> None:
    """Add ``serve`` to the ``neardup`` app."""
    app.command("serve")(serve)
