"""Polite, safe HTTP fetching for the crawler (httpx, asyncio).

Per request: the URL is checked (:func:`~neardup.crawl.safety.check_url`), the host's
addresses are resolved and checked (resolver injectable), robots.txt is obeyed (protego,
fetched once per host; a missing robots.txt allows everything, an unreachable one (5xx,
network error) disallows everything, as RFC 9309 says), then the host's slot is awaited: at
most ``concurrency`` requests in flight per host and ``delay`` seconds between request
starts (robots.txt ``Crawl-delay`` when larger, up to 60 s). Redirects are followed by hand
(at most 10 hops) and every hop is checked again like the first URL. The body is streamed
and abandoned past ``max_page_bytes``: the cap holds for the inflated body, which is
inflated here in bounded steps (at most one step of about 64-100 KiB past the cap, however
small the compressed chunk: a 423-byte brotli bomb made 597 MiB when httpx inflated each
network chunk whole, issue 27). Only the content codings inflated this way are asked for
(``Accept-Encoding: gzip, deflate``, plus ``br`` when the ``brotli`` module can bound its
output); an answer in any other coding (``zstd``, a list of codings) fails with its name.
5xx and 429 answers, timeouts and connection errors are retried ``retries`` times with
exponential back-off (``Retry-After`` honoured up to 60 s).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import zlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, Literal, cast
from urllib.parse import urljoin, urlsplit

import httpx
from protego import Protego

from neardup.crawl.safety import (
    Resolver,
    UnsafeURLError,
    check_addresses,
    check_url,
    default_resolver,
    literal_ip,
)
from neardup.crawl.settings import CrawlSettings

Outcome = Literal["ok", "missing", "blocked", "failed"]
MAX_REDIRECTS = 10
MAX_ROBOTS_BYTES = 512 * 1024
MAX_CRAWL_DELAY = 60.0
MAX_RETRY_AFTER = 60.0
_REDIRECTS = (301, 302, 303, 307, 308)
_RETRY_STATUSES = frozenset({429, 500, 502, 503, 504, 507, 508, 509, 520, 521, 522, 523, 524})
_ACCEPT = "text/html,application/xhtml+xml,application/pdf;q=0.9,text/plain;q=0.8,*/*;q=0.1"
#: Inflate steps: at most this many bytes of output per decompressor call.
_STEP = 64 * 1024


def _bounded_brotli() -> bool:
    """Can the installed ``brotli`` bound its output (``output_buffer_limit``, 1.2+)?"""
    try:
        import brotli  # type: ignore[import-untyped]
    except ImportError:
        return False
    return hasattr(brotli.Decompressor(), "can_accept_more_data")  # 1.2: output_buffer_limit


#: Content codings the crawler asks for: those it inflates in bounded steps.
CODINGS: tuple[str, ...] = ("gzip", "deflate", *(("br",) if _bounded_brotli() else ()))


@dataclass(frozen=True, slots=True)
class FetchResult:
    """The result of fetching one URL.

    Attributes:
        url: the URL asked for.
        final_url: the URL that answered (after redirects).
        outcome: ``ok`` (2xx, body read), ``missing`` (404/410), ``blocked`` (robots.txt)
            or ``failed`` (refused address, too large, other status, errors after retries).
        status: the last HTTP status, ``None`` when no answer came.
        content_type: the ``Content-Type`` header of the answer.
        body: the body (``ok`` only).
        error: what went wrong (``""`` when ok).
        attempts: requests made for the last hop.
    """

    url: str
    final_url: str
    outcome: Outcome
    status: int | None = None
    content_type: str | None = None
    body: bytes = b""
    error: str = ""
    attempts: int = 0


class _TooLarge(Exception):
    pass


class _BadCoding(Exception):
    pass


class _Inflater:
    """Inflates one body in bounded steps; raises :class:`_TooLarge` past ``cap`` bytes.

    ``coding``: ``identity``, ``gzip``/``x-gzip`` (multi-member too), ``deflate`` (zlib or
    raw, as servers send both) or ``br``.
    """

    def __init__(self, coding: str, cap: int) -> None:
        self.coding = coding
        self.cap = cap
        self.made = 0
        self._head = b""
        self._z: Any = None
        self._br: Any = None
        if coding in ("gzip", "x-gzip"):
            self._z = zlib.decompressobj(zlib.MAX_WBITS | 32)
        elif coding == "br":
            import brotli

            self._br = brotli.Decompressor()
        elif coding not in ("identity", "deflate"):
            raise _BadCoding(f"Content-Encoding {coding!r} is not supported")

    def feed(self, data: bytes) -> list[bytes]:
        """The output for ``data`` (in pieces of at most :data:`_STEP` bytes)."""
        if self.coding == "identity":
            return [self._count(data)] if data else []
        if self.coding == "br":
            return self._brotli(data)
        if self._z is None:  # deflate: zlib header or raw deflate, decided on the first bytes
            self._head += data
            if len(self._head) < 2:
                return []
            data, self._head = self._head, b""
            zlib_header = data[0] & 0x0F == 8 and (data[0] << 8 | data[1]) % 31 == 0
            self._z = zlib.decompressobj(zlib.MAX_WBITS if zlib_header else -zlib.MAX_WBITS)
        return self._zlib(data)

    def _zlib(self, data: bytes) -> list[bytes]:
        out: list[bytes] = []
        try:
            while data:
                piece = self._z.decompress(data, _STEP)
                out.append(self._count(piece))
                data = self._z.unconsumed_tail
                if self._z.eof:
                    rest = self._z.unused_data
                    if self.coding == "deflate" or not rest.strip(b"\0"):
                        break
                    self._z = zlib.decompressobj(zlib.MAX_WBITS | 32)  # next gzip member
                    data = rest
        except zlib.error as exc:
            raise _BadCoding(f"corrupt {self.coding} body: {exc}") from None
        return out

    def _brotli(self, data: bytes) -> list[bytes]:
        out: list[bytes] = []
        try:
            piece = self._count(self._br.process(data, output_buffer_limit=_STEP))
            while piece:  # pending output is drained before more input is given
                out.append(piece)
                if self._br.is_finished():
                    break
                piece = self._count(self._br.process(b"", output_buffer_limit=_STEP))
        except _TooLarge:
            raise
        except Exception as exc:  # brotli.error
            raise _BadCoding(f"corrupt br body: {exc}") from None
        return out

    def _count(self, piece: bytes) -> bytes:
        self.made += len(piece)
        if self.made > self.cap:
            raise _TooLarge
        return piece


class _Retryable(Exception):
    def __init__(self, message: str, retry_after: float = 0.0, status: int | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.status = status


@dataclass
class _Host:
    slots: asyncio.Semaphore
    lock: asyncio.Lock
    next_start: float = 0.0
    delay: float = 0.0


class Fetcher:
    """Fetches pages for one crawl run (use as ``async with``).

    Args:
        settings: the crawl settings (user agent, delay, limits, address rules).
        transport: an httpx transport (tests); default: httpx's network transport.
        resolver: host name -> IP addresses (blocking; run in a thread); default
            ``socket.getaddrinfo``.
    """

    def __init__(
        self,
        settings: CrawlSettings,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        resolver: Resolver | None = None,
    ) -> None:
        self.settings = settings
        self._resolver = resolver or default_resolver
        self._transport = transport
        self._client: httpx.AsyncClient | None = None
        self._hosts: dict[str, _Host] = {}
        self._robots: dict[str, Protego | bool] = {}
        self._robots_locks: dict[str, asyncio.Lock] = {}
        self._addresses: dict[str, list[str]] = {}
        self.agent = settings.user_agent.split("/", 1)[0].strip() or settings.user_agent

    async def __aenter__(self) -> Fetcher:
        s = self.settings
        self._client = httpx.AsyncClient(
            transport=self._transport,
            follow_redirects=False,
            timeout=httpx.Timeout(s.timeout),
            headers={
                "User-Agent": s.user_agent,
                "Accept": _ACCEPT,
                "Accept-Encoding": ", ".join(CODINGS),
            },
            trust_env=False,
            limits=httpx.Limits(max_connections=max(4, s.concurrency * s.parallel * 2)),
        )
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    # -- public ---------------------------------------------------------------------------
    async def fetch(self, url: str) -> FetchResult:
        """GET ``url`` politely and safely (see the module doc); never raises on web errors."""
        current = url
        for _ in range(MAX_REDIRECTS + 1):
            try:
                current = await self.check(current)
            except UnsafeURLError as exc:
                hop = "" if current == url else f"redirect from {url}: "
                return FetchResult(url, current, "failed", error=hop + str(exc))
            if not await self.allowed(current):
                return FetchResult(url, current, "blocked", error="disallowed by robots.txt")
            result = await self._get(current)
            location = result.pop("location", None)
            if location is None:
                return FetchResult(url, current, **result)  # type: ignore[arg-type]
            current = urljoin(current, str(location))
        return FetchResult(url, current, "failed", error=f"more than {MAX_REDIRECTS} redirects")

    async def check(self, url: str) -> str:
        """The normalised ``url`` if its address may be fetched.

        Raises:
            UnsafeURLError: a refused scheme or address (literal or resolved).
        """
        s = self.settings
        url = check_url(url, allow_private=s.allow_private, allow_hosts=s.allow_hosts)
        if s.allow_private:
            return url
        host = urlsplit(url).hostname or ""
        if literal_ip(host) is not None:
            return url
        if host not in self._addresses:
            self._addresses[host] = await asyncio.to_thread(self._resolver, host)
        check_addresses(
            url, host, self._addresses[host], allow_private=False, allow_hosts=s.allow_hosts
        )
        return url

    async def allowed(self, url: str) -> bool:
        """Does the host's robots.txt allow this crawler to fetch ``url``?"""
        origin = _origin(url)
        lock = self._robots_locks.setdefault(origin, asyncio.Lock())
        async with lock:
            if origin not in self._robots:
                self._robots[origin] = await self._load_robots(origin)
        rules = self._robots[origin]
        if isinstance(rules, bool):
            return rules
        return bool(rules.can_fetch(url, self.agent))

    # -- robots.txt -----------------------------------------------------------------------
    async def _load_robots(self, origin: str) -> Protego | bool:
        current = origin + "/robots.txt"
        for _ in range(5):
            try:
                current = await self.check(current)
            except UnsafeURLError:
                return True  # a redirect off-site for robots.txt: no rules for this host
            result = await self._get(current)
            location = result.get("location")
            if location is None:
                break
            current = urljoin(current, str(location))
        else:
            return True
        status = result.get("status")
        if result["outcome"] == "ok":
            body = bytes(cast("bytes", result["body"]))[:MAX_ROBOTS_BYTES]
            rules = Protego.parse(body.decode("utf-8", errors="replace"))
            delay = rules.crawl_delay(self.agent)
            if delay:
                self._host(urlsplit(origin).netloc).delay = min(float(delay), MAX_CRAWL_DELAY)
            return rules
        # 4xx: no rules; unreachable (5xx, network errors): complete disallow (RFC 9309)
        return isinstance(status, int) and 400 <= status < 500 and status != 429

    # -- HTTP -----------------------------------------------------------------------------
    async def _get(self, url: str) -> dict[str, object]:
        """One hop with retries: FetchResult fields, plus ``location`` for a redirect."""
        s = self.settings
        last: _Retryable | None = None
        for attempt in range(s.retries + 1):
            if attempt:
                pause = max(s.backoff * 2 ** (attempt - 1), last.retry_after if last else 0.0)
                await asyncio.sleep(pause)
            try:
                async with self._slot(url):
                    async with asyncio.timeout(s.timeout * 3):
                        return await self._once(url, attempt + 1)
            except _Retryable as exc:
                last = exc
            except TimeoutError:
                last = _Retryable(f"timed out after {s.timeout:g} s")
            except _TooLarge:
                msg = f"larger than max_page_bytes={s.max_page_bytes}"
                return {"outcome": "failed", "error": msg, "attempts": attempt + 1}
            except _BadCoding as exc:
                return {"outcome": "failed", "error": str(exc), "attempts": attempt + 1}
        assert last is not None
        tries = s.retries + 1
        error = f"{last} ({tries} attempt{'s' if tries > 1 else ''})"
        return {"outcome": "failed", "status": last.status, "error": error, "attempts": tries}

    async def _once(self, url: str, attempt: int) -> dict[str, object]:
        assert self._client is not None, "use Fetcher as an async context manager"
        try:
            request = self._client.build_request("GET", url)
            response = await self._client.send(request, stream=True)
        except httpx.TimeoutException:
            raise _Retryable(f"timed out after {self.settings.timeout:g} s") from None
        except httpx.TransportError as exc:
            raise _Retryable(f"connection error: {type(exc).__name__}: {exc}") from None
        try:
            return await self._answer(response, attempt)
        except httpx.TimeoutException:
            raise _Retryable(f"timed out after {self.settings.timeout:g} s") from None
        except httpx.TransportError as exc:
            raise _Retryable(f"connection error: {type(exc).__name__}: {exc}") from None
        finally:
            await response.aclose()

    async def _answer(self, response: httpx.Response, attempt: int) -> dict[str, object]:
        status = response.status_code
        ctype = response.headers.get("content-type")
        base: dict[str, object] = {"status": status, "content_type": ctype, "attempts": attempt}
        if status in _REDIRECTS and response.headers.get("location"):
            return {**base, "outcome": "ok", "location": response.headers["location"]}
        if status in _RETRY_STATUSES:
            raise _Retryable(f"HTTP {status}", _retry_after(response), status)
        if status in (404, 410):
            return {**base, "outcome": "missing", "error": f"HTTP {status}"}
        if not 200 <= status < 300:
            return {**base, "outcome": "failed", "error": f"HTTP {status}"}
        body = await self._read(response)
        return {**base, "outcome": "ok", "body": body}

    async def _read(self, response: httpx.Response) -> bytes:
        cap = self.settings.max_page_bytes
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > cap:
            raise _TooLarge
        if response.is_stream_consumed:  # a response built in memory (a mock transport)
            if len(response.content) > cap:
                raise _TooLarge
            return response.content
        coding = response.headers.get("content-encoding", "").strip().lower() or "identity"
        inflater = _Inflater(coding, cap)
        chunks: list[bytes] = []
        wire = 0
        async for chunk in response.aiter_raw():
            wire += len(chunk)
            if wire > cap:
                raise _TooLarge
            chunks.extend(inflater.feed(chunk))
        return b"".join(chunks)

    # -- per-host politeness ----------------------------------------------------------------
    def _host(self, netloc: str) -> _Host:
        host = self._hosts.get(netloc)
        if host is None:
            host = _Host(asyncio.Semaphore(self.settings.concurrency), asyncio.Lock())
            self._hosts[netloc] = host
        return host

    @contextlib.asynccontextmanager
    async def _slot(self, url: str) -> AsyncIterator[None]:
        host = self._host(urlsplit(url).netloc)
        async with host.slots:
            async with host.lock:
                wait = host.next_start - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
                host.next_start = time.monotonic() + max(self.settings.delay, host.delay)
            yield


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def _retry_after(response: httpx.Response) -> float:
    value = response.headers.get("retry-after", "").strip()
    try:
        return min(max(float(value), 0.0), MAX_RETRY_AFTER)
    except ValueError:
        return 0.0
