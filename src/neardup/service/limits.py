"""The service's limits, as pure ASGI middleware (problem details, or a small HTML page
for a browser): body size, bodies in flight, body time, Host names, token guessing, and
``X-Content-Type-Options: nosniff`` on every answer; plus the HTTP protocol of ``serve``
with a header timeout and a connection limit (:func:`guarded_protocol`), and the CPU
budget of a request's CPU-bound work, run in worker processes off the event loop
(:func:`bounded`; past the budget the worker is killed and the request gets 422).

Body size limit: 413 over the limit.

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

import asyncio
import ipaddress
import json
import time
import zlib
from collections import OrderedDict
from collections.abc import Callable, Iterable
from http import HTTPStatus
from typing import Any, TypeVar

import anyio
import anyio.to_process

from neardup.errors import InputError

#: Content codings :class:`BodyLimit` inflates (lower case).
ENCODINGS = ("gzip", "x-gzip", "deflate")

_PROBLEM = "application/problem+json"


class BodyLimit:
    """ASGI middleware refusing request bodies larger than ``max_bytes`` (HTTP 413).

    Bodies are buffered here before the app sees them, so the memory of bodies in flight
    is bounded too: past ``max_inflight_bytes`` over all requests being received, a
    request gets 503 with ``Retry-After`` (40 unfinished 9.9 MB bodies took a server from
    112 to 505 MiB, issue 27). A body not received within ``body_timeout`` seconds gets
    408 (a client sending one byte a minute held its buffer forever).

    Args:
        app: the wrapped ASGI app.
        max_bytes: largest accepted body in bytes (>= 1).
        max_inflight_bytes: most body bytes buffered over all requests at once
            (``None``: ``4 * max_bytes``).
        body_timeout: seconds a request body may take to arrive.
    """

    def __init__(
        self,
        app: Any,
        max_bytes: int,
        *,
        max_inflight_bytes: int | None = None,
        body_timeout: float = 60.0,
    ) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.max_inflight_bytes = max_inflight_bytes or 4 * max_bytes
        self.body_timeout = body_timeout
        self.inflight = 0

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = _content_length(scope)
        if length is not None and length > self.max_bytes:
            await _too_large(send, self.max_bytes, _wants_html(scope))
            return
        body = bytearray()
        try:  # the body counts as in flight until the app has answered
            status = await self._receive(receive, body)
            if status == 0:
                await self._forward(scope, receive, send, body)
            elif status == 413:
                await _too_large(send, self.max_bytes, _wants_html(scope))
            elif status != 499:
                detail = (
                    f"request body not received within {self.body_timeout:g} s"
                    if status == 408
                    else "too many request bodies in flight: retry in a second"
                )
                await _refuse(send, status, detail, _wants_html(scope), retry_after=status == 503)
        finally:
            self.inflight -= len(body)

    async def _receive(self, receive: Any, body: bytearray) -> int:
        """Read the body into ``body``: 0, or the status of a refusal (499: the client
        left)."""
        deadline = time.monotonic() + self.body_timeout
        more = True
        while more:
            try:
                async with asyncio.timeout(max(deadline - time.monotonic(), 0.0)):
                    message = await receive()
            except TimeoutError:
                return 408
            if message["type"] == "http.disconnect":
                return 499
            chunk = message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) + len(chunk) > self.max_bytes:
                return 413
            if self.inflight + len(chunk) > self.max_inflight_bytes:
                return 503
            body += chunk
            self.inflight += len(chunk)
        return 0

    async def _forward(
        self, scope: dict[str, Any], receive: Any, send: Any, body: bytearray
    ) -> None:
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


async def _refuse(
    send: Any, status: int, detail: str, html: bool, *, retry_after: bool = False
) -> None:
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
    if retry_after:
        headers.append((b"retry-after", b"1"))
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


# -- every answer: nosniff ------------------------------------------------------------------
class NoSniff:
    """ASGI middleware adding ``X-Content-Type-Options: nosniff`` to every answer that lacks
    it (JSON, problem details, static files, the UI's pages): a browser never runs a JSON
    answer or an uploaded text as a script or a page."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_nosniff(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", ()))
                if not any(k.lower() == b"x-content-type-options" for k, _ in headers):
                    headers.append((b"x-content-type-options", b"nosniff"))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_nosniff)


# -- Host names (DNS rebinding) -------------------------------------------------------------
#: Names of the local machine every ``serve`` accepts in ``Host``.
LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1")
_WILDCARD = ("0.0.0.0", "::", "")


def default_allowed_hosts(bind: str, extra: Iterable[str] = ()) -> tuple[str, ...]:
    """The ``Host`` names a server bound to ``bind`` accepts: ``bind`` itself, the local
    names (:data:`LOCAL_HOSTS`) and ``extra``; bound to every interface (``0.0.0.0``,
    ``::``), also this machine's host names and any literal IP address (a DNS rebinding
    attack needs a name of the attacker's, never an IP literal)."""
    hosts = [bind.strip("[]").lower(), *LOCAL_HOSTS, *(h.strip().lower() for h in extra)]
    if bind.strip("[]") in _WILDCARD:
        import socket

        hosts += [socket.gethostname().lower(), socket.getfqdn().lower(), "ip-literals"]
    return tuple(dict.fromkeys(h for h in hosts if h))


class AllowedHosts:
    """ASGI middleware refusing a request whose ``Host`` is not an allowed name (HTTP 421),
    as a guard against DNS rebinding: a remote page whose name was made to resolve to
    this server's address would otherwise read what the service shows and post its forms
    (issue 27).

    Args:
        app: the wrapped ASGI app.
        hosts: allowed names or addresses (case-insensitive, without port); ``*.example.org``
            allows the subdomains of ``example.org``; ``ip-literals`` allows any IP address;
            ``*`` allows every Host.
    """

    def __init__(self, app: Any, hosts: Iterable[str]) -> None:
        self.app = app
        self.hosts = frozenset(h.strip().strip("[]").lower().rstrip(".") for h in hosts)
        self.suffixes = tuple(h[1:] for h in self.hosts if h.startswith("*."))

    def allows(self, host_header: str) -> bool:
        """Is ``host_header`` (``name[:port]``, ``[v6][:port]``) an allowed host?"""
        if "*" in self.hosts:
            return True
        name = _host_name(host_header)
        if not name:
            return False
        if name in self.hosts or (self.suffixes and name.endswith(self.suffixes)):
            return True
        if "ip-literals" in self.hosts:
            try:
                ipaddress.ip_address(name)
                return True
            except ValueError:
                return False
        return False

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] in ("http", "websocket"):
            host = _header(scope, b"host")
            if not self.allows(host):
                shown = host[:100] or "(none)"
                detail = (
                    f"Host {shown!r} is not served here: allowed are "
                    f"{', '.join(sorted(self.hosts))} (add one with --allowed-host)"
                )
                if scope["type"] == "websocket":
                    await send({"type": "websocket.close", "code": 1008})
                    return
                await _refuse(send, 421, detail, _wants_html(scope))
                return
        await self.app(scope, receive, send)


def _host_name(host_header: str) -> str:
    value = host_header.strip().lower()
    if value.startswith("["):
        return value[1 : value.find("]")] if "]" in value else ""
    if value.count(":") > 1:  # a bare IPv6 address (not valid in Host, but unambiguous)
        return value
    return value.split(":", 1)[0].rstrip(".")


# -- token guessing -------------------------------------------------------------------------
class AuthThrottle:
    """ASGI middleware slowing down token guessing: a client (IP address) with
    ``max_failures`` answers of 401 to a request carrying a token (an ``Authorization``
    header, or a UI form post) within ``window`` seconds gets 429 with
    ``Retry-After`` on every request carrying credentials (an ``Authorization`` header)
    and every write (``POST``, ``PUT``, ``PATCH``, ``DELETE``) until the window has passed
    since its last failure; reads stay open. 684 guesses a second were answered without a
    pause (issue 27). Behind a reverse proxy every client is the proxy's address.

    Args:
        app: the wrapped ASGI app.
        max_failures: 401 answers allowed per client and window (>= 1).
        window: seconds.
        clock: monotonic clock (tests).
    """

    MAX_CLIENTS = 10_000

    def __init__(
        self, app: Any, *, max_failures: int = 10, window: float = 60.0, clock: Any = None
    ) -> None:
        self.app = app
        self.max_failures = max_failures
        self.window = window
        self.clock = clock or time.monotonic
        self.failures: OrderedDict[str, list[float]] = OrderedDict()

    def _recent(self, client: str) -> list[float]:
        now = self.clock()
        times = [t for t in self.failures.get(client, ()) if now - t < self.window]
        if times:
            self.failures[client] = times
        else:
            self.failures.pop(client, None)
        return times

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        client = str((scope.get("client") or ("?",))[0])
        guarded = scope.get("method") in ("POST", "PUT", "PATCH", "DELETE") or bool(
            _header(scope, b"authorization")
        )
        recent = self._recent(client) if guarded else []
        if len(recent) >= self.max_failures:
            wait = max(1, int(self.window - (self.clock() - recent[-1])) + 1)
            detail = (
                f"{len(recent)} wrong or missing API tokens from this address within "
                f"{self.window:g} s: retry in {wait} s"
            )
            await _refuse(send, 429, detail, _wants_html(scope), retry_after=True)
            return

        # a guess carries a token: a bearer header, or a UI form (its token field)
        guess = bool(_header(scope, b"authorization")) or "form" in _header(scope, b"content-type")

        async def watch(message: dict[str, Any]) -> None:
            start = message["type"] == "http.response.start"
            if start and guess and message.get("status") == 401:
                self.failures.setdefault(client, []).append(self.clock())
                self.failures.move_to_end(client)
                while len(self.failures) > self.MAX_CLIENTS:
                    self.failures.popitem(last=False)
            await send(message)

        await self.app(scope, receive, watch)


# -- the HTTP protocol of serve ---------------------------------------------------------------
#: environment variable carrying the protocol limits to ``--workers`` processes (JSON)
PROTOCOL_LIMITS_ENV = "_NEARDUP_SERVE_PROTOCOL"


class _Guard:
    """The header timeout and connection limit shared by both HTTP protocols (mixin)."""

    header_timeout = 10.0
    max_connections = 512
    transport: Any
    loop: Any
    cycle: Any
    connections: Any
    _header_timer: Any = None

    _opened = 0.0

    def _idle(self) -> bool:
        return self.cycle is None or bool(self.cycle.response_complete)

    def _admit(self) -> bool:
        """Over the limit, the oldest idle connection (no request in progress) is closed
        to make room; when every connection is busy, this one is."""
        self._opened = self.loop.time()
        if len(self.connections) > self.max_connections:
            idle = [
                c
                for c in self.connections
                if c is not self
                and isinstance(c, _Guard)
                and c._idle()
                and not c.transport.is_closing()
            ]
            if not idle:
                self.transport.close()
                return False
            min(idle, key=lambda c: c._opened).transport.close()
        self._arm_header_timer()
        return True

    def _arm_header_timer(self) -> None:
        self._cancel_header_timer()
        self._header_timer = self.loop.call_later(self.header_timeout, self._header_expired)

    def _cancel_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _header_expired(self) -> None:
        self._header_timer = None
        if self.cycle is None or self.cycle.response_complete:
            self.transport.close()  # no complete request head in time: slow or idle


def _protocols() -> tuple[type, type | None]:
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class GuardedH11Protocol(_Guard, H11Protocol):
        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._admit()

        def handle_events(self) -> None:
            super().handle_events()
            if self.cycle is not None and not self.cycle.response_complete:
                self._cancel_header_timer()  # a full request head arrived

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm_header_timer()

        def connection_lost(self, exc: Exception | None) -> None:
            self._cancel_header_timer()
            super().connection_lost(exc)

    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    except ImportError:  # uvicorn without httptools
        return GuardedH11Protocol, None

    class GuardedHttpToolsProtocol(_Guard, HttpToolsProtocol):
        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._admit()

        def on_headers_complete(self) -> None:
            super().on_headers_complete()
            self._cancel_header_timer()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm_header_timer()

        def connection_lost(self, exc: Exception | None) -> None:
            self._cancel_header_timer()
            super().connection_lost(exc)

    return GuardedH11Protocol, GuardedHttpToolsProtocol


def _load_limits() -> None:
    import os

    raw = os.environ.get(PROTOCOL_LIMITS_ENV)
    if raw:
        limits = json.loads(raw)
        _Guard.header_timeout = float(limits["header_timeout"])
        _Guard.max_connections = int(limits["max_connections"])


def guarded_protocol(*, header_timeout: float, max_connections: int) -> str:
    """uvicorn's HTTP protocol (httptools when installed, else h11) with a header timeout
    and a connection limit (issue 27: 1,500 half-sent requests stayed open past 45 s;
    1,100 idle sockets of one client made ``/health`` fail on a 1,024-file limit):

    * a connection whose request head is not complete within ``header_timeout`` seconds
      of its start (or of the end of the previous answer) is closed (uvicorn's keep-alive
      timeout only starts after an answer);
    * past ``max_connections`` open connections the oldest idle one (no request in
      progress) is closed, or the new one when all are busy, so idle sockets cannot take
      every file descriptor nor keep a new client out.

    The limits also go to ``--workers`` processes (in ``$_NEARDUP_SERVE_PROTOCOL``).

    Returns:
        The protocol class's import path, for ``uvicorn.Config(http=...)``.
    """
    import os

    limits = {"header_timeout": header_timeout, "max_connections": max_connections}
    os.environ[PROTOCOL_LIMITS_ENV] = json.dumps(limits)
    _load_limits()
    h11, httptools = _protocols()
    return f"{__name__}:{(httptools or h11).__name__}"


def __getattr__(name: str) -> Any:
    """The guarded protocol classes, made on first use (uvicorn is imported then only)."""
    if name in ("GuardedH11Protocol", "GuardedHttpToolsProtocol"):
        _load_limits()
        h11, httptools = _protocols()
        found = {"GuardedH11Protocol": h11, "GuardedHttpToolsProtocol": httptools}[name]
        if found is None:
            raise AttributeError(name)
        globals()[name] = found
        return found
    raise AttributeError(name)


# -- CPU-bound work: off the event loop, within a budget -----------------------------------------
# Reading an upload (format sniffing, HTML/office extraction, decoding) and marking the shared
# passages of two texts (sentence splitting, Romanov 2019's side-by-side view) run parsers and
# regular expressions on text a client sent; one holds the GIL for its whole run, so a thread
# pool does not protect the event loop (a 4.6 MB page held it 1.4 s, an 817-byte upload whose
# sniffing backtracked froze every request, /health included: issue 41). The functions run in
# :func:`bounded` take and return picklable values (bytes, text, frozen dataclasses).
T = TypeVar("T")

#: Seconds one piece of CPU-bound work of a request may take (``ServiceConfig.cpu_budget``).
DEFAULT_BUDGET = 30.0


#: Seconds a request may wait for a worker process to start (the interpreter and the
#: readers' imports) or to become free; not counted in its budget.
START_TIMEOUT = 60.0
#: Niceness added to a worker process: the server's event loop comes first on a busy CPU.
WORKER_NICENESS = 5
_ready = False


class WorkTooLong(InputError):
    """A request's CPU-bound work (reading an upload, marking passages) ran past its budget;
    the service answers 422."""


async def bounded(func: Callable[..., T], *args: object, budget: float, what: str) -> T:
    """``func(*args)`` in a worker process, stopped after ``budget`` seconds.

    Args:
        func: a module-level function (pickled by reference); its arguments and result
            must be picklable.
        args: its positional arguments.
        budget: seconds (> 0) the call may take, waiting for a free worker included.
        what: what the work is, for the error ("reading the upload").

    Returns:
        What ``func`` returns; a :class:`~neardup.errors.NeardupError` it raises is raised
        here (any other exception too).

    Raises:
        WorkTooLong: the budget ran out (the worker process was killed).
    """
    try:
        with anyio.fail_after(START_TIMEOUT):  # a worker started and ready: not the budget's
            await anyio.to_process.run_sync(ready, cancellable=True)
    except TimeoutError:
        raise WorkTooLong(
            f"{what} could not start: every worker process stayed busy for {START_TIMEOUT:g} s"
        ) from None
    try:
        with anyio.fail_after(budget):
            return await anyio.to_process.run_sync(func, *args, cancellable=True)
    except TimeoutError:
        raise WorkTooLong(
            f"{what} took longer than the service's budget of {budget:g} s: the input is "
            "too large or too complex to process here (split it, or use the command line)"
        ) from None


# -- the work done here (imported in the worker process only) ---------------------------------
def ready() -> None:
    """Prepare this worker process once: lower its priority (:data:`WORKER_NICENESS`) and
    import the readers and the passage aligner, so a budget counts the work only."""
    global _ready
    if _ready:
        return
    import contextlib
    import os

    with contextlib.suppress(OSError):
        os.nice(WORKER_NICENESS)
    import neardup.service.highlight
    import neardup.text.upload  # noqa: F401

    _ready = True


def upload_text(data: bytes, filename: str | None) -> str:
    """:func:`neardup.text.upload.upload_text`, imported in the worker (its readers are not
    loaded into the server process, whose first upload would pay the import on the loop)."""
    from neardup.text.upload import upload_text as text_of

    return text_of(data, filename)
