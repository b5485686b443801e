"""Helpers of the crawler tests (quick settings, a recording transport, DB queries)."""

from __future__ import annotations

from dataclasses import replace

import httpx
from sqlalchemy import select

from neardup.crawl import CrawlQueue, CrawlSettings
from neardup.store import Store
from neardup.store import schema as s

#: quick settings for the loopback test sites (no delay: politeness has its own tests)
FAST = CrawlSettings(
    allow_private=True, delay=0.0, backoff=0.01, timeout=10.0, retries=2, max_missing=15
)


#: the queues :func:`make_queue` opened, closed after each test (``conftest.close_queues``):
#: a queue holds its own engines, whose psycopg connections were otherwise left to the
#: garbage collector (a ResourceWarning reported in whichever test runs then)
OPENED: list[CrawlQueue] = []


def make_queue(store: Store, **overrides: object) -> CrawlQueue:
    """A crawl queue with :data:`FAST` settings (and overrides), closed after the test."""
    queue = CrawlQueue(store, replace(FAST, **overrides))  # type: ignore[arg-type]
    OPENED.append(queue)
    return queue


def doc_ids(store: Store, collection: str) -> list[str]:
    """Every document id of a collection (duplicates would show twice)."""
    d, c = s.documents, s.collections
    with store._engines.read.connect() as conn:
        rows = conn.execute(
            select(d.c.doc_id).join(c, c.c.id == d.c.collection_id).where(c.c.name == collection)
        ).all()
    return [r[0] for r in rows]


class RecordingTransport(httpx.AsyncBaseTransport):
    """The real network transport, recording every request it is asked to send."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.requests: list[httpx.Request] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()

    @property
    def hosts(self) -> set[str]:
        return {r.url.host for r in self.requests}
