"""The dispatcher: runs the head of the crawl queue (Romanov 2019 section 4.2, Fig. 3).

The seed's dispatcher is a thread that watches the head of the queue, starts the processing
of new libraries, waits while one is processed and takes the next when it is finished. Here
it is an asyncio task: it starts up to ``settings.parallel`` crawls of the oldest libraries
in stage ``queued`` (or left in a running stage by a process that died: they resume), and
looks again when woken (:meth:`Dispatcher.wake`), when a crawl ends, or every
:data:`POLL_SECONDS` (another process may have queued a library).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import httpx

from neardup.crawl.crawler import HEARTBEAT_SECONDS, Crawler
from neardup.crawl.db import now
from neardup.crawl.fetch import Fetcher
from neardup.crawl.queue import CrawlQueue
from neardup.crawl.safety import Resolver
from neardup.crawl.status import RUNNING, LibraryStatus

log = logging.getLogger("neardup.crawl")

POLL_SECONDS = 2.0
#: a library in a running stage without a heartbeat for this long is resumed here (s)
ORPHAN_SECONDS = 3 * HEARTBEAT_SECONDS


async def crawl(
    queue: CrawlQueue,
    library_id: int,
    *,
    transport: httpx.AsyncBaseTransport | None = None,
    resolver: Resolver | None = None,
) -> LibraryStatus:
    """Crawl one library now, in the running event loop, until it is done/stopped/failed.

    Used by ``neardup crawl`` and by the :class:`Dispatcher`. A library in stage
    ``stopped``, ``failed`` or ``done`` is not crawled (queue it with
    :meth:`CrawlQueue.resume` first).

    Returns:
        The library's final status.

    Raises:
        LibraryNotFound: no such library.
    """
    await asyncio.to_thread(queue.library, library_id)
    async with Fetcher(queue.settings, transport=transport, resolver=resolver) as fetcher:
        crawler = await asyncio.to_thread(Crawler, queue, library_id, fetcher)
        return await crawler.run()


class Dispatcher:
    """Runs the queue's head, ``queue.settings.parallel`` libraries at once.

    Args:
        queue: the crawl queue.
        transport: an httpx transport for every request (tests); default: the network.
        resolver: host name -> addresses for the address check (tests); default DNS.
    """

    def __init__(
        self,
        queue: CrawlQueue,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        resolver: Callable[[str], list[str]] | None = None,
    ) -> None:
        self.queue = queue
        self._transport = transport
        self._resolver = resolver
        self._running: dict[int, asyncio.Task[LibraryStatus]] = {}
        self._loop_task: asyncio.Task[None] | None = None
        self._event: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        queue.on_stop(self._on_stop)

    @property
    def running(self) -> list[int]:
        """Ids of the libraries being crawled now."""
        return sorted(i for i, t in self._running.items() if not t.done())

    async def start(self) -> None:
        """Start dispatching in the background of the running event loop."""
        if self._loop_task is not None and not self._loop_task.done():
            return
        self._bind()
        self._loop_task = asyncio.create_task(self._forever(), name="neardup-crawl-dispatcher")

    async def stop(self) -> None:
        """Stop dispatching; running crawls are cancelled cleanly (back to ``queued``)."""
        task, self._loop_task = self._loop_task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self._cancel_all()

    def wake(self) -> None:
        """Look at the queue now (call after ``CrawlQueue.add``/``resume``); any thread."""
        loop, event = self._loop, self._event
        if loop is None or event is None or loop.is_closed():
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            event.set()
        else:
            loop.call_soon_threadsafe(event.set)

    async def run_until_idle(self) -> None:
        """Crawl until no library is queued or running (tests, the CLI)."""
        self._bind()
        while True:
            await self._fill()
            if not self._running:
                if not await asyncio.to_thread(self._pending):
                    return
                continue
            await asyncio.wait(self._running.values(), return_when=asyncio.FIRST_COMPLETED)
            self._reap()

    # -- internals ---------------------------------------------------------------------------
    def _bind(self) -> None:
        loop = asyncio.get_running_loop()
        if self._loop is not loop:
            self._loop = loop
            self._event = asyncio.Event()

    async def _forever(self) -> None:
        assert self._event is not None
        while True:
            try:
                await self._fill()
            except Exception:
                log.exception("crawl dispatcher")
            self._event.clear()
            waiters: list[asyncio.Future[Any]] = [
                asyncio.ensure_future(self._event.wait()),
                *self._running.values(),
            ]
            await asyncio.wait(waiters, timeout=POLL_SECONDS, return_when=asyncio.FIRST_COMPLETED)
            waiters[0].cancel()
            self._reap()

    async def _fill(self) -> None:
        self._reap()
        free = self.queue.settings.parallel - len(self._running)
        if free <= 0:
            return
        for lib in await asyncio.to_thread(self._candidates):
            if free <= 0:
                break
            if lib.id in self._running:
                continue
            self._running[lib.id] = asyncio.create_task(
                crawl(self.queue, lib.id, transport=self._transport, resolver=self._resolver),
                name=f"neardup-crawl-{lib.id}",
            )
            free -= 1

    def _candidates(self) -> list[LibraryStatus]:
        """Queued libraries and orphans, oldest first.

        An orphan is in a running stage with no crawl in this process and no heartbeat for
        :data:`ORPHAN_SECONDS` (its process died); a crawl alive in another process (e.g.
        ``neardup crawl``) touches its library every few seconds and is left alone.
        """
        stale = now() - timedelta(seconds=ORPHAN_SECONDS)
        return [
            lib
            for lib in self.queue.libraries()
            if lib.id not in self._running
            and (lib.stage == "queued" or (lib.stage in RUNNING and lib.updated_at < stale))
        ]

    def _pending(self) -> bool:
        return bool(self._candidates())

    def _reap(self) -> None:
        for library_id, task in list(self._running.items()):
            if task.done():
                del self._running[library_id]
                if not task.cancelled() and task.exception() is not None:
                    log.error("crawl of library %s: %r", library_id, task.exception())

    async def _cancel_all(self) -> None:
        tasks = list(self._running.values())
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._running.clear()

    def _on_stop(self, library_id: int) -> None:
        """A library was stopped/removed: its crawl notices at its next page; wake up."""
        self.wake()
