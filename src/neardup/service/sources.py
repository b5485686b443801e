"""The text of a stored document, for the check page's side-by-side view.

The store keeps each document's text since migration 0003 (``nd_texts``); documents added
before it have fingerprints, signature and metadata only. So the text is looked up, in order:

1. ``Store.document_text(name, doc_id)`` (any store object offering it: a ``str`` is the
   text; ``None`` or :class:`~neardup.errors.TextNotStored` means no text is kept);
2. only when no text is kept, the document's source address when it is ``http(s)://``
   (documents of a crawled library added before migration 0003): the page is fetched again
   now, with the crawler's address checks (no private
   or loopback address, nor a host resolving to one, unless the settings allow them;
   re-checked at every redirect), a timeout, a size cap and the crawler's User-Agent, and
   reduced to text exactly as the crawler stored it (:func:`neardup.crawl.content.read_page`:
   HTML main text, PDF through pypdf);
3. otherwise there is no text to show, and the page says why.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import httpx
from starlette.concurrency import run_in_threadpool

from neardup.errors import InputError, NeardupError, TextNotStored
from neardup.store import Match, Store

Origin = Literal["store", "source", "none"]
_MAX_REDIRECTS = 3
_CACHE = 64


@dataclass(frozen=True, slots=True)
class StoredText:
    """A stored document's text and where it came from.

    Attributes:
        text: the text, or ``None`` when it could not be had.
        origin: ``store`` (kept by the store), ``source`` (fetched again from its address)
            or ``none``.
        note: why there is no text, or a remark on where it came from.
    """

    text: str | None
    origin: Origin
    note: str = ""


class SourceFetcher:
    """Fetches ``http(s)`` sources again, as safely as the crawler does (see module doc).

    Args:
        allow_private: allow private, loopback and link-local addresses (tests).
        allow_hosts: host names or IP networks allowed anyway (``CrawlSettings.allow_hosts``).
        user_agent: the User-Agent header.
        timeout: seconds per request (> 0).
        max_bytes: largest body read, bytes.
        transport: an httpx transport (tests); default: the network.
        resolver: host name -> addresses (tests); default: the crawler's DNS lookup.
    """

    def __init__(
        self,
        *,
        allow_private: bool,
        user_agent: str,
        timeout: float,
        max_bytes: int,
        allow_hosts: tuple[str, ...] = (),
        transport: httpx.AsyncBaseTransport | None = None,
        resolver: Callable[[str], list[str]] | None = None,
    ) -> None:
        from neardup.crawl.safety import default_resolver

        self.allow_private = allow_private
        self.allow_hosts = allow_hosts
        self.user_agent = user_agent
        self.timeout = timeout
        self.max_bytes = max_bytes
        self._transport = transport
        self._resolver = resolver or default_resolver
        self._cache: OrderedDict[str, str] = OrderedDict()

    async def text(self, url: str) -> str:
        """The clean text of the page at ``url``.

        Raises:
            InputError: the address is refused (``UnsafeURLError``), the request failed, the
                answer is not 200, too large, binary or has no text.
        """
        if url in self._cache:
            self._cache.move_to_end(url)
            return self._cache[url]
        headers = {"User-Agent": self.user_agent}
        async with httpx.AsyncClient(
            transport=self._transport, timeout=self.timeout, headers=headers
        ) as client:
            body, ctype = await self._get(client, url)
        text = await run_in_threadpool(_to_text, body, ctype, url)
        self._cache[url] = text
        if len(self._cache) > _CACHE:
            self._cache.popitem(last=False)
        return text

    async def _get(self, client: httpx.AsyncClient, url: str) -> tuple[bytes, str]:
        for _ in range(_MAX_REDIRECTS + 1):
            url = await run_in_threadpool(self._checked, url)
            try:
                async with client.stream("GET", url) as resp:
                    if resp.is_redirect and "location" in resp.headers:
                        url = str(resp.url.join(resp.headers["location"]))
                        continue
                    if resp.status_code != 200:
                        raise InputError(f"{url} answered HTTP {resp.status_code}")
                    return await self._body(resp), resp.headers.get("content-type", "")
            except httpx.HTTPError as exc:
                raise InputError(f"{url} could not be fetched: {type(exc).__name__}") from None
        raise InputError(f"{url}: more than {_MAX_REDIRECTS} redirects")

    def _checked(self, url: str) -> str:
        """``url`` normalised, refused when it or its host's addresses are not public."""
        from urllib.parse import urlsplit

        from neardup.crawl import check_url
        from neardup.crawl.safety import check_addresses

        url = check_url(url, allow_private=self.allow_private, allow_hosts=self.allow_hosts)
        host = urlsplit(url).hostname or ""
        check_addresses(
            url,
            host,
            self._resolver(host),
            allow_private=self.allow_private,
            allow_hosts=self.allow_hosts,
        )
        return url

    async def _body(self, resp: httpx.Response) -> bytes:
        body = bytearray()
        async for chunk in resp.aiter_bytes():
            body += chunk
            if len(body) > self.max_bytes:
                raise InputError(f"page larger than {self.max_bytes} bytes")
        return bytes(body)


def _to_text(body: bytes, content_type: str, url: str) -> str:
    """The page's text as the crawler stored it (:func:`neardup.crawl.content.read_page`)."""
    from neardup.crawl.content import read_page

    page = read_page(url, body, content_type, want_links=False, want_text=True)
    doc = page.document(url, len(body))
    if doc is None:
        raise InputError(page.error or "no text on the page")
    return doc.text


async def stored_text(
    store: Store, collection: str, match: Match, fetcher: SourceFetcher | None
) -> StoredText:
    """The text of a matched stored document (see the module docstring for the order).

    Never raises for a missing text: the reason is in :attr:`StoredText.note`.
    """
    kept = getattr(store, "document_text", None)
    if callable(kept):
        try:
            text = await run_in_threadpool(kept, collection, match.doc_id)
        except TextNotStored:
            text = None  # added before the store kept texts: try its source
        except NeardupError as exc:
            return StoredText(None, "none", str(exc))
        if isinstance(text, str):
            return StoredText(text, "store")
    return await _fetched_again(match, fetcher)


async def _fetched_again(match: Match, fetcher: SourceFetcher | None) -> StoredText:
    """Fallback for a document whose text the store does not keep: its ``http(s)`` source."""
    address = _address(match)
    if address is None:
        why = "the store has no text for this document (added before texts were kept)"
        return StoredText(None, "none", why)
    if fetcher is None:
        return StoredText(None, "none", "no stored text, and fetching sources again is off")
    try:
        text = await fetcher.text(address)
    except NeardupError as exc:
        return StoredText(None, "none", f"the source could not be fetched again: {exc}")
    return StoredText(text, "source", f"text fetched again from {address} (no stored text)")


async def stored_texts(
    store: Store, collection: str, matches: list[Match], fetcher: SourceFetcher | None
) -> list[StoredText]:
    """:func:`stored_text` of several matches, concurrently, in order."""
    jobs: list[Any] = [stored_text(store, collection, m, fetcher) for m in matches]
    return list(await asyncio.gather(*jobs))


def _address(match: Match) -> str | None:
    for value in (match.source, match.doc_id):
        if value.startswith(("http://", "https://")):
            return value
    return None
