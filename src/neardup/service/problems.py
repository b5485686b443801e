"""RFC 9457 problem details (``application/problem+json``) for every error the API returns.

Bad input always gets a 4xx: request validation 422, neardup ``UsageError``/``InputError``
400/422, missing collection/document/library 404, existing collection 409, body too large 413,
missing/wrong token 401; a database outage is 503. Anything unexpected is a 500 problem
without internals. No answer carries database driver text: a ``StoreError``'s message (which
quotes the driver) goes to the log, the client gets a fixed sentence.

Request validation errors are capped: the first :data:`MAX_ERRORS` are listed, with
``error_count`` the total. Headers an ``HTTPException`` carries (``Allow`` on a 405,
``WWW-Authenticate`` on a 401) are kept.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from neardup.crawl.status import LibraryNotFound
from neardup.errors import (
    CollectionExists,
    CollectionNotFound,
    DocumentNotFound,
    InputError,
    NeardupError,
    StoreError,
    UsageError,
)

PROBLEM = "application/problem+json"
#: Validation errors listed in a 422 answer (``error_count`` gives the total).
MAX_ERRORS = 20
#: The ``detail`` of every 503 (the driver's message is logged, never sent).
STORE_DETAIL = "the database is unavailable or refused the operation; try again later"
log = logging.getLogger("neardup.service")


def problem(
    status: int, detail: str, *, headers: Mapping[str, str] | None = None, **extra: Any
) -> JSONResponse:
    """A problem-details response: ``{type, title, status, detail, ...}`` with ``headers``."""
    body = {
        "type": "about:blank",
        "title": HTTPStatus(status).phrase,
        "status": status,
        "detail": detail,
        **extra,
    }
    sent = dict(headers or {})
    if status == 401:
        sent.setdefault("WWW-Authenticate", "Bearer")
    return JSONResponse(body, status_code=status, media_type=PROBLEM, headers=sent or None)


def status_of(exc: NeardupError) -> int:
    """HTTP status of a neardup error."""
    if isinstance(exc, CollectionNotFound | DocumentNotFound | LibraryNotFound):
        return 404
    if isinstance(exc, CollectionExists):
        return 409
    if isinstance(exc, StoreError):
        return 503
    if isinstance(exc, UsageError):
        return 400
    if isinstance(exc, InputError):
        return 422
    return 400


def public_detail(exc: NeardupError) -> str:
    """The message a client may see for ``exc``: its own, or :data:`STORE_DETAIL` for a
    database error (whose message quotes the driver; it is logged instead)."""
    if isinstance(exc, StoreError):
        log.warning("database error: %s", exc)
        return STORE_DETAIL
    return str(exc)


def allowed_methods(request: Request) -> list[str]:
    """Every method some route of the app answers at the request's path, sorted.

    Starlette's 405 names the methods of the first route matching the path only (``GET``
    for ``/collections``, though ``POST`` is there too); RFC 9110 wants them all in
    ``Allow``.
    """
    from starlette.routing import Match

    router = getattr(request.scope.get("app"), "router", None)
    methods: set[str] = set()
    for route in getattr(router, "routes", ()):
        match, _ = route.matches(request.scope)
        if match is not Match.NONE:
            methods |= set(getattr(route, "methods", None) or ())
    return sorted(methods)


def install(app: FastAPI) -> None:
    """Register the exception handlers on ``app``."""

    @app.exception_handler(NeardupError)
    async def _neardup(_request: Request, exc: NeardupError) -> JSONResponse:
        return problem(status_of(exc), public_detail(exc))

    @app.exception_handler(RequestValidationError)
    async def _validation(_request: Request, exc: RequestValidationError) -> JSONResponse:
        every = exc.errors()
        errors = [
            {"loc": [str(x) for x in e.get("loc", ())], "msg": str(e.get("msg", ""))[:500]}
            for e in every[:MAX_ERRORS]
        ]
        return problem(422, "request validation failed", errors=errors, error_count=len(every))

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        headers = dict(exc.headers or {})
        if exc.status_code == 405:
            allowed = allowed_methods(request)
            if allowed:
                headers["Allow"] = ", ".join(allowed)
        return problem(exc.status_code, str(exc.detail), headers=headers)

    @app.exception_handler(RecursionError)
    async def _too_deep(_request: Request, exc: RecursionError) -> JSONResponse:
        # a JSON body nested thousands deep (an 80 KB body of 40,000 brackets got 500)
        return problem(400, "request body nested too deeply to be read")

    @app.exception_handler(Exception)
    async def _unexpected(_request: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error", exc_info=exc)
        return problem(500, "internal error")
