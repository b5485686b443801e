"""One library's crawl, following Romanov 2019 section 3.1 (and 4.2 for the page statuses).

Stages:

1. **link search**: from the home page, pages are fetched breadth first (pages without a
   clarification first: listings lead to articles) and their links within the library
   are collected, until ``link_search_target`` URLs containing a clarification are known
   (the seed: ten) or nothing is left to fetch.
2. **pattern detection**: :func:`~neardup.crawl.pattern.detect_pattern` on those URLs: an
   address pattern with a numeric range (``/post/{n}``, ``?id={n}``), or none.
3. **in work**: with a pattern, the range is walked: upward from its low end until
   ``max_missing`` consecutive numbers past the highest article found are missing, then
   downward from the low end the same way (stopping at 0); every article found is stored.
   Without a pattern, the links are crawled recursively from where the link search
   stopped, and pages whose URL contains a clarification are stored as documents.
4. **done** (or **stopped** by the user, or **failed** with the reason).

Every page is a row of ``nd_crawl_pages`` (unique per library and URL) and moves
new -> reserved -> fetched -> collected (links collected, document stored), or ends
missing/blocked/failed/skipped. A page's links and its ``collected`` status are written in
one transaction, after its document was stored (``Store.add`` is idempotent by id, the page
URL), so a crawl killed at any moment resumes without fetching a collected page again and
never stores a page twice; pages a killed run had reserved go back to ``new``. The range
and the last page walked are remembered (seed: "запоминать как сам диапазон ссылок, так и
последнюю обработанную страницу").

Handshakes (Romanov 2019): when the collection already holds documents from this library's
site that the crawl's own page table does not know (the library was indexed before, by
another queue entry), those pages are not fetched again, except that until ``handshake``
new links have been found, already indexed pages are still fetched for their links
(never stored again), so that the crawl cannot end in a dead end of indexed pages. In
pattern mode, indexed numbers count as found articles without a request: the walk
continues from where they end.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass
from typing import Any

from neardup.crawl.content import read_page
from neardup.crawl.db import CrawlDB, P, now
from neardup.crawl.fetch import Fetcher, FetchResult
from neardup.crawl.links import has_clarification, in_scope
from neardup.crawl.pattern import AddressPattern, detect_pattern
from neardup.crawl.status import PAGE_DONE, RUNNING, LibraryNotFound, LibraryStatus
from neardup.errors import StoreError

log = logging.getLogger("neardup.crawl")

#: how often a running crawl looks at the database for a stop from another process (s)
STOP_POLL_SECONDS = 0.5
#: how often a running crawl touches its library's ``updated_at`` (s)
HEARTBEAT_SECONDS = 10.0


class CrawlFailed(Exception):
    """The crawl cannot go on (home page unreachable, refused or blocked)."""


@dataclass(slots=True)
class _Span:
    """The article numbers found so far in the range walk."""

    low: int
    high: int

    def note(self, numbers: list[int], outcomes: dict[int, str]) -> None:
        for n in numbers:
            if outcomes.get(n) == "found":
                self.low = min(self.low, n)
                self.high = max(self.high, n)


@dataclass(slots=True)
class _Cursor:
    """The last number of a walk direction up to which every number is finished."""

    start: int
    step: int
    last: int = -1

    def __post_init__(self) -> None:
        self.last = self.start

    def advance(self, outcomes: dict[int, str]) -> int:
        while self.last + self.step in outcomes:
            self.last += self.step
        return self.last


async def _finished_write(fn: Any, *args: Any, **kwargs: Any) -> Any:
    """``await asyncio.to_thread(fn, ...)`` for a write that marks pages (``reserved``):
    when the crawl is cancelled meanwhile, the write is let finish before the cancellation
    goes on, so the clean-up that puts reserved pages back (``reset_unfinished``) runs after
    it, not before (a page reserved after the clean-up stayed ``reserved``)."""
    write = asyncio.ensure_future(asyncio.to_thread(fn, *args, **kwargs))
    try:
        return await asyncio.shield(write)
    except asyncio.CancelledError:
        with contextlib.suppress(Exception):
            await write
        raise


async def _cancel(tasks: Any) -> None:
    """Cancel and await unfinished tasks (a crawl ending early or failing)."""
    waiting = [t for t in tasks if not t.done()]
    for task in waiting:
        task.cancel()
    for task in waiting:
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task


@dataclass(frozen=True, slots=True)
class _Page:
    id: int
    url: str
    depth: int
    number: int | None


class Crawler:
    """Crawls one library of a :class:`~neardup.crawl.CrawlQueue` (one run).

    Args:
        queue: the queue (settings, database, store, stop signals).
        library_id: the library.
        fetcher: an open :class:`~neardup.crawl.fetch.Fetcher`.
    """

    def __init__(self, queue: Any, library_id: int, fetcher: Fetcher) -> None:
        self.queue = queue
        self.db: CrawlDB = queue.db
        self.store = queue.store
        self.settings = queue.settings
        self.id = library_id
        self.fetcher = fetcher
        self.lib: LibraryStatus = self.db.status(library_id)
        self.known: set[str] = set()
        self.new_links = 0
        self.added = 0
        self._stop_checked = 0.0
        self._stopped = False
        self._saved = 0.0
        self._budget_spent = False

    # -- the run ------------------------------------------------------------------------------
    async def run(self) -> LibraryStatus:
        """Crawl until done, stopped or failed; returns the final status.

        Cancelling the task (a dispatcher shutting down) puts the library back to
        ``queued``; it resumes later.
        """
        db = self.db
        if self.lib.stage not in ("queued", *RUNNING):
            return self.lib
        await asyncio.to_thread(db.reset_unfinished, self.id)
        heartbeat = asyncio.create_task(self._heartbeat())
        try:
            await self._run()
        except asyncio.CancelledError:
            await asyncio.to_thread(self._requeue_after_cancel)
            raise
        except CrawlFailed as exc:
            await self._end("failed", str(exc))
        except StoreError as exc:
            await self._end("failed", f"database: {exc}")
        except Exception as exc:
            log.exception("crawl of library %s failed", self.id)
            await self._end("failed", f"{type(exc).__name__}: {exc}")
        finally:
            heartbeat.cancel()
            await asyncio.to_thread(db.reset_unfinished, self.id)
            self.queue.clear_stop(self.id)
        try:
            return await asyncio.to_thread(db.status, self.id)
        except LibraryNotFound:  # removed while running
            return self.lib

    async def _heartbeat(self) -> None:
        """Touch the library now and then, so other processes see this crawl is alive."""
        while True:
            await asyncio.sleep(HEARTBEAT_SECONDS)
            with contextlib.suppress(StoreError):
                await asyncio.to_thread(self.db.update, self.id, when=RUNNING)

    async def _run(self) -> None:
        origin = _origin(self.lib.url)
        self.known = await asyncio.to_thread(
            self.db.known_documents, self.lib.collection, origin + "/"
        )
        if not self.lib.mode:
            if not await self._enter("link search"):
                return
            await self._link_search()
            if await self.stopped():
                return
            if not await self._enter("pattern detection"):
                return
            await asyncio.to_thread(self._detect)
        if not await self._enter("in work"):
            return
        self.lib = await asyncio.to_thread(self.db.status, self.id)
        if self.lib.mode == "pattern" and self.lib.pattern and self.lib.range:
            low, high = self.lib.range
            await self._walk(AddressPattern(self.lib.pattern, low, high))
        else:
            await self._traverse(documents=True, until=None)
        if await self.stopped():
            return
        if self.added:
            await asyncio.to_thread(self._recompute)
        await self._end("done", None)

    # -- stage 1: link search ----------------------------------------------------------------
    async def _link_search(self) -> None:
        home = self.lib.url
        await asyncio.to_thread(
            self.db.add_pages,
            self.id,
            [{"url": home, "depth": 0, "clarified": self._clarified(home)}],
            limit=self.settings.max_pages,
        )
        target = self.settings.link_search_target
        await self._traverse(documents=False, until=lambda: self._clarified_count() >= target)
        await asyncio.to_thread(self._check_home)

    def _clarified_count(self) -> int:
        return self.db.count(self.id, P.c.clarified.is_(True))

    def _check_home(self) -> None:
        rows = self.db.page_rows(self.id, where=P.c.url == self.lib.url)
        if rows and rows[0].status in ("failed", "blocked", "missing"):
            raise CrawlFailed(f"home page {self.lib.url}: {rows[0].error}")

    # -- stage 2: pattern detection ------------------------------------------------------------
    def _detect(self) -> None:
        rows = self.db.page_rows(self.id, P.c.url, where=P.c.clarified.is_(True))
        urls = [r.url for r in rows]
        found = detect_pattern(urls) if len(urls) >= 2 else None
        with self.db.write() as conn:
            if found is None:
                # the recursive crawl stores clarified pages: those the search fetched for
                # links only are fetched again as documents
                self._requeue_in(conn, (P.c.clarified.is_(True)) & (P.c.status == "collected"))
                values: dict[str, Any] = {"mode": "links", "pattern": None}
            else:
                numbered = [(r.url, found.number(r.url)) for r in rows]
                article_urls = [u for u, n in numbered if n is not None]
                self._requeue_in(conn, P.c.url.in_(article_urls) & (P.c.status == "collected"))
                skipped = conn.execute(
                    P.update()
                    .where(P.c.library_id == self.id, P.c.status == "new")
                    .values(status="skipped", error="not needed: outside the address pattern")
                ).rowcount
                self.db.bump(conn, self.id, pages_found=-int(skipped or 0))
                revived = 0
                for url, n in numbered:
                    if n is not None:
                        revived += (
                            conn.execute(
                                P.update()
                                .where(P.c.library_id == self.id, P.c.url == url)
                                .values(number=n, status="new", error=None)
                                .where(P.c.status.in_(["new", "skipped"]))
                            ).rowcount
                            or 0
                        )
                self.db.bump(conn, self.id, pages_found=revived)
                values = {
                    "mode": "pattern",
                    "pattern": found.template,
                    "range_low": found.low,
                    "range_high": found.high,
                }
            from neardup.crawl.db import L

            conn.execute(L.update().where(L.c.id == self.id).values(updated_at=now(), **values))

    def _requeue_in(self, conn: Any, where: Any) -> None:
        self.db.requeue(self.id, where & P.c.document.is_(False), conn=conn)

    # -- stage 3a: walking the range ----------------------------------------------------------
    async def _walk(self, pattern: AddressPattern) -> None:
        """Walk up from the range's low end, then down from it (see the module doc)."""
        outcomes = await asyncio.to_thread(self._walk_outcomes)
        found = [n for n, o in outcomes.items() if o == "found"]
        span = _Span(min([pattern.low, *found]), max([pattern.high, *found]))
        await self._walk_direction(pattern, outcomes, span, start=pattern.low, step=1)
        if pattern.low > 0:
            await self._walk_direction(pattern, outcomes, span, start=pattern.low - 1, step=-1)

    async def _walk_direction(
        self,
        pattern: AddressPattern,
        outcomes: dict[int, str],
        span: _Span,
        *,
        start: int,
        step: int,
    ) -> None:
        """Numbers ``start, start+step, ...`` until ``max_missing`` in a row past the last
        article found; up to a window of pages in flight (a slow page stalls nothing)."""
        gap = self.settings.max_missing

        def within(n: int) -> bool:
            if self._budget_spent:
                return False
            return n <= span.high + gap if step > 0 else n >= max(0, span.low - gap)

        pending: dict[asyncio.Task[str], int] = {}
        n = start
        cursor = _Cursor(start - step, step)
        try:
            while True:
                room = self._window() - len(pending)
                if room > 0 and within(n) and not await self.stopped():
                    numbers: list[int] = []
                    while len(numbers) < room and within(n):
                        numbers.append(n)
                        n += step
                    todo = [m for m in numbers if m not in outcomes]
                    pages = []
                    if todo:
                        pages = await _finished_write(
                            self._schedule_numbers, pattern, todo, outcomes
                        )
                    for page in pages:
                        task = asyncio.create_task(self._process(page, documents=True))
                        pending[task] = page.number if page.number is not None else -1
                    span.note(numbers, outcomes)
                    continue
                if not pending:
                    break
                done, _ = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                for task in done:
                    number = pending.pop(task)
                    outcomes[number] = task.result()
                    span.note([number], outcomes)
                await self._save_walk(span, cursor, outcomes, step, force=False)
        finally:
            await _cancel(pending)
        await self._save_walk(span, cursor, outcomes, step, force=True)

    async def _save_walk(
        self, span: _Span, cursor: _Cursor, outcomes: dict[int, str], step: int, *, force: bool
    ) -> None:
        """Remember the range and the last page walked (at most twice a second)."""
        if not force and time.monotonic() - self._saved < STOP_POLL_SECONDS:
            return
        self._saved = time.monotonic()
        last = cursor.advance(outcomes)
        column = "last_page" if step > 0 else "first_page"
        values: dict[str, Any] = {"range_low": span.low, "range_high": span.high}
        if (step > 0 and last >= 0) or (step < 0 and last >= 0 and last != cursor.start):
            values[column] = last
        await asyncio.to_thread(self.db.update, self.id, **values)

    def _walk_outcomes(self) -> dict[int, str]:
        """Numbers already finished: ``found`` (a document), ``missing``, ``other``."""
        rows = self.db.page_rows(
            self.id,
            P.c.number,
            P.c.status,
            P.c.document,
            where=P.c.number.is_not(None) & P.c.status.in_(list(PAGE_DONE)),
        )
        out: dict[int, str] = {}
        for r in rows:
            if r.document:
                out[int(r.number)] = "found"
            elif r.status in ("missing", "collected"):
                out[int(r.number)] = "missing"
            elif r.status != "skipped":
                out[int(r.number)] = "other"
        return out

    def _schedule_numbers(
        self, pattern: AddressPattern, numbers: list[int], outcomes: dict[int, str]
    ) -> list[_Page]:
        rows = []
        for n in numbers:
            url = pattern.url(n)
            if url in self.known:  # indexed before: counts as found, no request
                outcomes[n] = "found"
                row = {"url": url, "number": n, "clarified": True, "status": "collected"}
                rows.append({**row, "document": True})
            else:
                rows.append({"url": url, "number": n, "clarified": True})
        limit = self.settings.max_pages
        self.db.add_pages(self.id, rows, limit=limit)
        if self.db.count(self.id) >= limit:
            self._budget_spent = True
            log.warning("library %s: max_pages=%s reached, the walk ends", self.id, limit)
        urls = [pattern.url(n) for n in numbers if outcomes.get(n) != "found"]
        reserved = self.db.reserve_urls(self.id, urls)
        for n in numbers:
            if n not in outcomes and pattern.url(n) not in {r.url for r in reserved}:
                outcomes[n] = "other"  # over the page budget, or finished meanwhile
        return [_Page(r.id, r.url, r.depth, n) for r in reserved for n in [pattern.number(r.url)]]

    # -- stage 3b / 1: following links --------------------------------------------------------
    async def _traverse(self, *, documents: bool, until: Any) -> None:
        """Fetch new pages breadth first, a window of them in flight, until none is left
        (or ``until()`` holds, or the crawl is stopped)."""
        pending: set[asyncio.Task[str]] = set()
        try:
            while True:
                room = self._window() - len(pending)
                enough = until is not None and await asyncio.to_thread(until)
                if room > 0 and not enough and not await self.stopped():
                    rows = await _finished_write(
                        self.db.reserve, self.id, room, clarified_last=not documents
                    )
                    for r in rows:
                        page = _Page(r.id, r.url, r.depth, r.number)
                        pending.add(asyncio.create_task(self._process(page, documents=documents)))
                    if rows:
                        continue
                if not pending:
                    return
                done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                for task in done:
                    task.result()
        finally:
            await _cancel(pending)

    # -- one page -----------------------------------------------------------------------------
    async def _process(self, page: _Page, *, documents: bool) -> str:
        """Fetch and finish one reserved page; returns ``found``, ``missing`` or ``other``."""
        if documents and page.url in self.known and self.new_links >= self.settings.handshake:
            await asyncio.to_thread(
                self.db.set_page, page.id, "skipped", document=True, error="already indexed"
            )
            return "found"
        result = await self.fetcher.fetch(page.url)
        try:
            return await asyncio.to_thread(self._finish, page, result, documents)
        except StoreError:
            raise
        except Exception as exc:
            log.exception("page %s", page.url)
            await asyncio.to_thread(
                self._fail, page, result.status, f"internal error: {type(exc).__name__}: {exc}"
            )
            return "other"

    def _finish(self, page: _Page, result: FetchResult, documents: bool) -> str:
        db = self.db
        if result.outcome == "blocked":
            db.set_page(page.id, "blocked", error=result.error)
            return "other"
        if result.outcome == "missing":
            with db.write() as conn:
                db.set_page_in(
                    conn, page.id, "missing", http_status=result.status, error=result.error
                )
                db.bump(conn, self.id, pages_fetched=1)
            return "missing"
        if result.outcome == "failed":
            self._fail(page, result.status, result.error)
            return "other"
        db.set_page(page.id, "fetched", http_status=result.status)
        final = in_scope(result.final_url, self.lib.url)
        # a range walk needs no links (seed: link search only to find the pattern)
        walking = documents and self.lib.mode == "pattern"
        follow = not walking and page.depth < self.settings.max_depth and final is not None
        is_article = documents and final is not None and self._is_article(page, final)
        indexed = final in self.known if final else False
        content = read_page(
            result.final_url,
            result.body,
            result.content_type,
            want_links=follow,
            want_text=is_article and not indexed,
        )
        added = 0
        doc = content.document(final, len(result.body)) if is_article and final else None
        if doc is not None and not indexed:
            # "storing" tells a resumed run that a kill may have come after this add
            # committed and before the page is marked below (CrawlDB.reset_unfinished)
            db.set_page(page.id, "storing")
            report = self.store.add(self.lib.collection, [doc], recompute_stats=False)
            added = report.added
            self.added += added
        scoped = (in_scope(x, self.lib.url) for x in content.links) if follow else ()
        links = [u for u in scoped if u]
        rows = [
            {"url": u, "depth": page.depth + 1, "clarified": self._clarified(u)}
            for u in dict.fromkeys(links)
        ]
        stored = doc is not None or indexed
        with db.write() as conn:
            fresh = db.add_pages(self.id, rows, limit=self.settings.max_pages, conn=conn)
            db.set_page_in(
                conn,
                page.id,
                "collected",
                document=stored,
                error=None if stored or not is_article else (content.error or "no text"),
            )
            db.bump(conn, self.id, pages_fetched=1, documents_added=added)
        self.new_links += sum(1 for u in fresh if u not in self.known)
        return "found" if stored else "missing"

    def _fail(self, page: _Page, status: int | None, error: str) -> None:
        with self.db.write() as conn:
            self.db.set_page_in(conn, page.id, "failed", http_status=status, error=error[:2000])
            self.db.bump(conn, self.id, pages_failed=1)

    def _is_article(self, page: _Page, final: str) -> bool:
        if self.lib.mode == "pattern" and self.lib.pattern:
            pattern = AddressPattern(self.lib.pattern, 0, 0)
            return pattern.number(final) is not None or page.number is not None
        return self._clarified(final)

    def _clarified(self, url: str) -> bool:
        return has_clarification(url, self.lib.clarifications)

    # -- stages, stop, end ---------------------------------------------------------------------
    async def _enter(self, stage: str) -> bool:
        """Move to ``stage`` unless the library was stopped or removed meanwhile."""
        if self.queue.stop_requested(self.id):
            return False
        ok = await asyncio.to_thread(
            self.db.update, self.id, when=("queued", *RUNNING), stage=stage, error=None
        )
        if ok:
            self.lib = await asyncio.to_thread(self.db.status, self.id)
        return ok

    async def stopped(self) -> bool:
        """Has the library been stopped or removed (in this process or another)?"""
        if self._stopped or self.queue.stop_requested(self.id):
            self._stopped = True
            return True
        if time.monotonic() - self._stop_checked >= STOP_POLL_SECONDS:
            self._stop_checked = time.monotonic()
            stage = await asyncio.to_thread(self.db.stage, self.id)
            self._stopped = stage not in RUNNING
        return self._stopped

    async def _end(self, stage: str, error: str | None) -> None:
        await asyncio.to_thread(
            self.db.update,
            self.id,
            when=RUNNING,
            stage=stage,
            error=error,
            finished_at=now(),
        )

    def _requeue_after_cancel(self) -> None:
        self.db.reset_unfinished(self.id)
        self.db.update(self.id, when=RUNNING, stage="queued")

    def _recompute(self) -> None:
        """Lexical methods: word statistics after the crawl (Romanov 2019 section 4.3)."""
        self.store.recompute(self.lib.collection)

    def _window(self) -> int:
        return max(4, self.settings.concurrency * 4)


def prepare_recrawl(db: CrawlDB, library_id: int) -> None:
    """Before crawling a ``done`` library again: the pages that may lead to new articles
    (the missing numbers past the range, the pages that were not articles) and the failed
    ones become ``new`` (Romanov 2019: re-indexing goes on from the last page)."""
    lib = db.status(library_id)
    failed = P.c.status == "failed"
    if lib.mode == "pattern" and lib.range is not None:
        tail = P.c.number.is_not(None) & (P.c.number > lib.range[1]) & P.c.document.is_(False)
        db.requeue(library_id, tail | failed)
    elif lib.mode == "links":
        db.requeue(library_id, (P.c.document.is_(False) & (P.c.status == "collected")) | failed)


def _origin(url: str) -> str:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"
