"""RFC 9457 problem details (``application/problem+json``) for every error the API returns.

Bad input always gets a 4xx: request validation 422, neardup ``UsageError``/``InputError``
400/422, missing collection/document/library 404, existing collection 409, body too large 413,
missing/wrong token 401; a database outage is 503. Anything unexpected is a 500 problem
without internals.
"""

from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from neardup.crawl.status import LibraryNotFound
from neardup.errors import InputError, NeardupError, UsageError
from neardup.store.errors import (
    CollectionExists,
    CollectionNotFound,
    DocumentNotFound,
    StoreError,
)

PROBLEM = "application/problem+json"
log = logging.getLogger("neardup.service")


def problem(status: int, detail: str, **extra: Any) -> JSONResponse:
    """A problem-details response: ``{type, title, status, detail, ...}``."""
    body = {
        "type": "about:blank",
        "title": HTTPStatus(status).phrase,
        "status": status,
        "detail": detail,
        **extra,
    }
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    return JSONResponse(body, status_code=status, media_type=PROBLEM, headers=headers)


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


def install(app: FastAPI) -> None:
    """Register the exception handlers on ``app``."""

    @app.exception_handler(NeardupError)
    async def _neardup(_request: Request, exc: NeardupError) -> JSONResponse:
        return problem(status_of(exc), str(exc))

    @app.exception_handler(RequestValidationError)
    async def _validation(_request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = [
            {"loc": [str(x) for x in e.get("loc", ())], "msg": str(e.get("msg", ""))}
            for e in exc.errors()
        ]
        return problem(422, "request validation failed", errors=errors)

    @app.exception_handler(StarletteHTTPException)
    async def _http(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        return problem(exc.status_code, str(exc.detail))

    @app.exception_handler(Exception)
    async def _unexpected(_request: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error", exc_info=exc)
        return problem(500, "internal error")
