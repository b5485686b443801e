"""Request body size limit (pure ASGI middleware): 413 problem details over the limit (a
small HTML page for a browser).

A declared ``Content-Length`` over the limit is refused before reading; a body without one
is counted while it streams and refused as soon as it passes the limit.

Compressed request bodies (``Content-Encoding: gzip``, ``x-gzip`` or ``deflate``) are
inflated here, at most ``max_bytes + 1`` bytes far, so the limit holds for the body the app
sees: a gzip bomb gets 413 after ``max_bytes`` of output, never more memory. Corrupt
compressed data gets 400; any other content coding (``br``, ``zstd``, a list of codings)
gets 415. Uploaded ``.gz`` files inside a multipart body are not inflated (the check route
refuses them as binary).
"""

from __future__ import annotations

import json
import zlib
from http import HTTPStatus
from typing import Any

#: Content codings :class:`BodyLimit` inflates (lower case).
ENCODINGS = ("gzip", "x-gzip", "deflate")

_PROBLEM = "application/problem+json"


class BodyLimit:
    """ASGI middleware refusing request bodies larger than ``max_bytes`` (HTTP 413).

    Args:
        app: the wrapped ASGI app.
        max_bytes: largest accepted body in bytes (>= 1).
    """

    def __init__(self, app: Any, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = _content_length(scope)
        if length is not None and length > self.max_bytes:
            await _too_large(send, self.max_bytes, _wants_html(scope))
            return
        body = bytearray()
        more = True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > self.max_bytes:
                await _too_large(send, self.max_bytes, _wants_html(scope))
                return
        coding = _header(scope, b"content-encoding").strip().lower()
        if coding not in ("", "identity") and body:
            if coding not in ENCODINGS:
                detail = f"Content-Encoding {coding!r} is not supported: use gzip or deflate"
                await _refuse(send, 415, detail, _wants_html(scope))
                return
            try:
                plain = inflate(bytes(body), self.max_bytes)
            except ValueError as exc:
                await _refuse(send, 400, f"corrupt {coding} body: {exc}", _wants_html(scope))
                return
            if plain is None:
                await _too_large(send, self.max_bytes, _wants_html(scope))
                return
            scope = _decoded_scope(scope, len(plain))
            body = bytearray(plain)
        await self.app(scope, _replay(bytes(body), receive), send)


def inflate(data: bytes, limit: int) -> bytes | None:
    """The gzip (multi-member too), zlib or raw-deflate ``data`` inflated, or ``None`` as
    soon as the output passes ``limit`` bytes (never more than ``limit + 1`` are made).

    Raises:
        ValueError: the data is not valid compressed data (or is truncated).
    """
    try:
        return _inflate(data, limit, zlib.MAX_WBITS | 32)  # gzip or zlib header
    except ValueError as first:
        try:
            return _inflate(data, limit, -zlib.MAX_WBITS)  # raw deflate, as some clients send
        except ValueError:
            raise first from None


def _inflate(data: bytes, limit: int, wbits: int) -> bytes | None:
    out = bytearray()
    rest = data
    while True:
        d = zlib.decompressobj(wbits)
        try:
            out += d.decompress(rest, limit + 1 - len(out))
            while d.unconsumed_tail and len(out) <= limit:
                out += d.decompress(d.unconsumed_tail, limit + 1 - len(out))
        except zlib.error as exc:
            raise ValueError(str(exc)) from None
        if len(out) > limit:
            return None
        if not d.eof:
            raise ValueError("truncated compressed data")
        rest = d.unused_data
        if wbits < 0 or not rest.strip(b"\0"):
            return bytes(out)  # raw deflate is one stream; gzip writers may pad with NULs


def _decoded_scope(scope: dict[str, Any], length: int) -> dict[str, Any]:
    """``scope`` without ``Content-Encoding`` and with the inflated ``Content-Length``."""
    headers = [
        (k, v)
        for k, v in scope.get("headers", ())
        if k not in (b"content-encoding", b"content-length")
    ]
    headers.append((b"content-length", str(length).encode()))
    return {**scope, "headers": headers}


def _header(scope: dict[str, Any], name: bytes) -> str:
    values = [v.decode("latin-1") for k, v in scope.get("headers", ()) if k == name]
    return ",".join(values)


def _wants_html(scope: dict[str, Any]) -> bool:
    """A browser's form post (``Accept: text/html`` first) gets an HTML page, not JSON."""
    for name, value in scope.get("headers", ()):
        if name == b"accept":
            accept = value.decode("latin-1")
            html, json_at = accept.find("text/html"), accept.find("application/json")
            return html >= 0 and (json_at < 0 or html < json_at)
    return False


def _content_length(scope: dict[str, Any]) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


def _replay(body: bytes, upstream: Any) -> Any:
    """A ``receive`` giving the buffered body once, then the client's own messages.

    After the body, ``upstream`` is awaited, so a streaming or file response that listens
    for ``http.disconnect`` waits for the real one instead of being cancelled at once.
    """
    sent = False

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if sent:
            return await upstream()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return receive


async def _refuse(send: Any, status: int, detail: str, html: bool) -> None:
    """A ``status`` answer: problem details, or a small HTML page for a browser."""
    title = HTTPStatus(status).phrase
    if html:
        from html import escape

        body = (
            '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
            f"<title>{title} · neardup</title></head><body><h1>{title}</h1>"
            f"<p>{escape(detail)}</p>"
            '<p><a href="/check">Back to the check page</a></p></body></html>'
        ).encode()
        kind = b"text/html; charset=utf-8"
    else:
        problem = {"type": "about:blank", "title": title, "status": status, "detail": detail}
        body = json.dumps(problem).encode()
        kind = _PROBLEM.encode()
    headers = [(b"content-type", kind), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _too_large(send: Any, limit: int, html: bool = False) -> None:
    if html:
        page = (
            '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
            "<title>Too large · neardup</title></head><body><h1>The upload is too large</h1>"
            f"<p>This service accepts requests of at most {limit} bytes.</p>"
            '<p><a href="/check">Back to the check page</a></p></body></html>'
        ).encode()
        headers = [
            (b"content-type", b"text/html; charset=utf-8"),
            (b"content-length", str(len(page)).encode()),
        ]
        await send({"type": "http.response.start", "status": 413, "headers": headers})
        await send({"type": "http.response.body", "body": page})
        return
    body = json.dumps(
        {
            "type": "about:blank",
            "title": "Content Too Large",
            "status": 413,
            "detail": f"request body over the limit of {limit} bytes",
        }
    ).encode()
    headers = [(b"content-type", _PROBLEM.encode()), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 413, "headers": headers})
    await send({"type": "http.response.body", "body": body})
