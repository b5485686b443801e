"""The dispatcher and the queue: order, parallelism, stop/resume, remove, shutdown."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import pytest

from crawl._helpers import doc_ids, make_queue
from fake_library import serve_library
from neardup.crawl import CrawlQueue, Dispatcher, LibraryNotFound, LibraryStatus
from neardup.crawl.status import RUNNING
from neardup.store import Store
from store._db import unique

WAIT_S = 120.0


async def wait_for(what: Callable[[], bool], message: str) -> None:
    """Poll ``what`` (in a thread) until true; fail after a generous time."""
    deadline = time.monotonic() + WAIT_S
    while not await asyncio.to_thread(what):
        assert time.monotonic() < deadline, f"timed out waiting: {message}"
        await asyncio.sleep(0.05)


@pytest.mark.slow
def test_two_libraries_run_one_after_the_other_and_planted_duplicates_are_found(
    sqlite_store: Store,
) -> None:
    store = sqlite_store
    with (
        serve_library(n_articles=40) as first,
        serve_library(kind="second", n_articles=40, first=first) as second,
    ):
        queue = make_queue(store, parallel=1)
        a, b = unique("first"), unique("second")
        lib_a = queue.add(first.base_url, ["post"], collection=a, method="minhash-lsh")
        lib_b = queue.add(second.base_url, ["article"], collection=b)
        samples: list[tuple[str, str]] = []

        async def main() -> None:
            dispatcher = Dispatcher(queue)
            run = asyncio.create_task(dispatcher.run_until_idle())
            while not run.done():
                libs = {lib.id: lib for lib in await asyncio.to_thread(queue.libraries)}
                samples.append((libs[lib_a.id].stage, libs[lib_b.id].stage))
                await asyncio.sleep(0.02)
            await run

        asyncio.run(main())
        assert not [s for s in samples if s[0] in RUNNING and s[1] in RUNNING]
        assert any(sa in RUNNING and sb == "queued" for sa, sb in samples)
        assert not any(sb in RUNNING and sa not in ("done",) for sa, sb in samples)
        done_a, done_b = queue.library(lib_a.id), queue.library(lib_b.id)
        assert (done_a.stage, done_b.stage) == ("done", "done")
        assert done_b.pattern == second.base_url + "/article?id={n}" == second.pattern
        assert done_a.finished_at is not None and done_b.finished_at is not None
        assert done_a.finished_at <= done_b.finished_at
        assert sorted(doc_ids(store, b)) == sorted(second.articles)

        # seed 004: check a document against a library; the planted near-duplicates of
        # the second library name their source in the first one
        assert len(second.planted) >= 4
        for url, source in second.planted.items():
            result = store.check(a, second.articles[url])
            assert result.matches, url
            assert result.matches[0].doc_id == source
            assert result.matches[0].source == source
        unplanted = next(u for u in second.articles if u not in second.planted)
        assert store.check(a, second.articles[unplanted]).matches == ()


@pytest.mark.slow
def test_stop_and_resume_continue_without_refetching(store: Store) -> None:
    with serve_library(n_articles=70) as site:
        queue = make_queue(store, delay=0.01)
        name = unique("stop")
        lib = queue.add(site.base_url, ["post"], collection=name)
        finished_before: set[str] = set()
        mark = 0

        async def main() -> None:
            nonlocal mark, finished_before
            dispatcher = Dispatcher(queue)
            await dispatcher.start()
            try:
                await wait_for(lambda: queue.library(lib.id).documents_added >= 10, "10 docs")
                stopped = await asyncio.to_thread(queue.stop, lib.id)
                assert stopped.stage == "stopped"
                await wait_for(lambda: not dispatcher.running, "the crawl to end")
                mark = len(site.requests())
                finished_before = {p.url for p in queue.pages(lib.id, "collected") if p.document}
                assert queue.pages(lib.id, "reserved") == []
                assert queue.library(lib.id).stage == "stopped"
                assert 10 <= len(doc_ids(store, name)) < len(site.articles)
                assert (await asyncio.to_thread(queue.resume, lib.id)).stage == "queued"
                dispatcher.wake()
                await wait_for(lambda: queue.library(lib.id).stage == "done", "done")
            finally:
                await dispatcher.stop()

        asyncio.run(main())
        assert sorted(doc_ids(store, name)) == sorted(site.articles)
        after = site.requests()[mark:]
        again = [u for u in finished_before if u.removeprefix(site.base_url) in after]
        assert again == []


def test_remove_stops_the_crawl_and_keeps_the_collection(sqlite_store: Store) -> None:
    store = sqlite_store
    with serve_library(n_articles=70) as site:
        queue = make_queue(store, delay=0.01)
        name = unique("rm")
        lib = queue.add(site.base_url, ["post"], collection=name)

        async def main() -> None:
            dispatcher = Dispatcher(queue)
            await dispatcher.start()
            try:
                await wait_for(lambda: queue.library(lib.id).documents_added >= 5, "5 docs")
                await asyncio.to_thread(queue.remove, lib.id)
                await wait_for(lambda: not dispatcher.running, "the crawl to end")
            finally:
                await dispatcher.stop()

        asyncio.run(main())
        assert lib.id not in [x.id for x in queue.libraries()]
        try:
            queue.library(lib.id)
            raise AssertionError("removed library still there")
        except LibraryNotFound:
            pass
        assert queue.db.count(lib.id) == 0
        kept = doc_ids(store, name)
        assert 5 <= len(kept) < len(site.articles)


@pytest.mark.slow
def test_dispatcher_shutdown_requeues_and_a_new_one_resumes(sqlite_store: Store) -> None:
    with serve_library(n_articles=70) as site:
        queue = make_queue(sqlite_store, delay=0.01)
        lib = queue.add(site.base_url, ["post"], collection="shutdown")

        async def first_run() -> LibraryStatus:
            dispatcher = Dispatcher(queue)
            await dispatcher.start()
            await wait_for(lambda: queue.library(lib.id).documents_added >= 5, "5 docs")
            await dispatcher.stop()
            return await asyncio.to_thread(queue.library, lib.id)

        paused = asyncio.run(first_run())
        assert paused.stage == "queued"
        assert queue.pages(lib.id, "reserved") == []

        fresh = CrawlQueue(sqlite_store, queue.settings)  # e.g. the service restarted
        try:
            asyncio.run(Dispatcher(fresh).run_until_idle())
            assert fresh.library(lib.id).stage == "done"
        finally:
            fresh.close()
        ids = doc_ids(sqlite_store, "shutdown")
        assert sorted(ids) == sorted(site.articles)


@pytest.mark.slow
def test_a_crawl_stopped_while_it_reserves_pages_leaves_none_reserved(
    sqlite_store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reservation runs in a thread; a shutdown that cancels the crawl meanwhile lets it
    commit before the clean-up puts reserved pages back (else a page stayed ``reserved``)."""
    import threading

    with serve_library(n_articles=40) as site:
        queue = make_queue(sqlite_store, delay=0.01)
        lib = queue.add(site.base_url, ["post"], collection="stopped-mid-reserve")
        entered = threading.Event()

        def slowly(real: Callable[..., object]) -> Callable[..., object]:
            def reserve(*args: object, **kwargs: object) -> object:
                entered.set()
                time.sleep(0.3)  # the shutdown lands here
                return real(*args, **kwargs)

            return reserve

        async def main() -> None:
            dispatcher = Dispatcher(queue)
            await dispatcher.start()
            await wait_for(lambda: queue.library(lib.id).documents_added >= 2, "2 docs")
            for name in ("reserve", "reserve_urls"):
                monkeypatch.setattr(queue.db, name, slowly(getattr(queue.db, name)))
            assert await asyncio.to_thread(entered.wait, 10)
            await dispatcher.stop()

        asyncio.run(main())
        assert queue.library(lib.id).stage == "queued"
        assert queue.pages(lib.id, "reserved") == []
