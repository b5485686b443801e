"""Request body size limit (pure ASGI middleware): 413 problem details over the limit.

A declared ``Content-Length`` over the limit is refused before reading; a body without one
is counted while it streams and refused as soon as it passes the limit.
"""

from __future__ import annotations

import json
from typing import Any

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
            await _too_large(send, self.max_bytes)
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
                await _too_large(send, self.max_bytes)
                return
        await self.app(scope, _replay(bytes(body)), send)


def _content_length(scope: dict[str, Any]) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


def _replay(body: bytes) -> Any:
    sent = False

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if sent:
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return receive


async def _too_large(send: Any, limit: int) -> None:
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
