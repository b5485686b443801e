"""Crawling the fake library end to end (seed 004 section 3.1) on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest

from crawl._helpers import RecordingTransport, doc_ids, make_queue
from fake_library import serve_library
from neardup.crawl import CrawlSettings, LibraryNotFound, UnsafeURLError, crawl
from neardup.crawl.queue import collection_name
from neardup.store import Store
from store._db import unique


@pytest.mark.slow
def test_crawl_stores_every_article_once_and_nothing_else(store: Store) -> None:
    with serve_library(n_articles=100) as site:
        queue = make_queue(store)
        name = unique("lib")
        lib = queue.add(site.base_url, ["post"], collection=name)
        assert lib.stage == "queued"
        final = asyncio.run(crawl(queue, lib.id))

        assert final.stage == "done", final.error
        assert final.mode == "pattern"
        assert final.pattern == site.base_url + "/post/{n}" == site.pattern
        assert final.range == (1, 100)
        ids = doc_ids(store, name)
        assert Counter(ids).most_common(1)[0][1] == 1
        assert set(ids) == set(site.articles)  # includes the slow, flaky and PDF articles
        assert not set(ids) & set(site.non_articles)
        assert final.documents_added == len(site.articles)

        requests = site.requests()
        assert not [r for r in requests if r.startswith("/private/")]  # robots.txt obeyed
        assert site.fetch_count(site.blocked_url) == 0
        assert site.fetch_count(site.broken_url) == queue.settings.retries + 1
        blocked_pages = queue.pages(lib.id, "blocked")
        failed = queue.pages(lib.id, "failed")
        assert [(p.url, p.http_status) for p in failed] == [(site.broken_url, 500)]
        assert "HTTP 500" in (failed[0].error or "")
        assert final.pages_failed == 1
        # every page found was fetched, given up on, or refused by robots.txt
        assert final.pages_found == final.pages_fetched + final.pages_failed + len(blocked_pages)
        blocked = {p.url for p in queue.pages(lib.id, "blocked")}
        assert site.blocked_url in blocked
        # the range walk stopped max_missing numbers past the last article
        assert site.fetch_count(f"/post/{100 + queue.settings.max_missing}") == 1
        assert site.fetch_count(f"/post/{101 + queue.settings.max_missing}") == 0
        # titles come from <title>, the PDF article is read as text
        sample = site.url("/post/3")
        assert store.document(name, sample).title == site.titles[sample]
        pdf_words = site.articles[site.pdf_url].split()[:8]
        check = store.check(name, " ".join(site.articles[site.pdf_url].split()))
        assert check.matches[0].doc_id == site.pdf_url
        assert pdf_words


@pytest.mark.slow
def test_library_without_a_pattern_is_crawled_by_links(sqlite_store: Store) -> None:
    with serve_library(n_articles=40, numbered=False) as site:
        queue = make_queue(sqlite_store)
        lib = queue.add(site.base_url, ["post"], collection="slugs")
        final = asyncio.run(crawl(queue, lib.id))
        assert final.stage == "done", final.error
        assert (final.mode, final.pattern, final.range) == ("links", None, None)
        ids = doc_ids(sqlite_store, "slugs")
        assert sorted(ids) == sorted(site.articles)
        assert not [r for r in site.requests() if r.startswith("/private/")]
        assert site.fetch_count(site.blocked_url) == 0


@pytest.mark.slow
def test_second_crawl_of_a_done_library_fetches_no_article_again(sqlite_store: Store) -> None:
    with serve_library(n_articles=30) as site:
        queue = make_queue(sqlite_store)
        lib = queue.add(site.base_url, ["post"], collection="again")
        asyncio.run(crawl(queue, lib.id))
        site.log.clear()
        again = queue.resume(lib.id)
        assert again.stage == "queued"
        final = asyncio.run(crawl(queue, lib.id))
        assert final.stage == "done"
        assert final.documents_added == len(site.articles)  # nothing new, nothing twice
        fetched_articles = {u for u in site.articles if site.fetch_count(u)}
        assert fetched_articles <= {site.go_target}  # only through the home page's redirect
        # the numbers past the end are looked at again (new articles may have appeared)
        assert site.fetch_count("/post/31") == 1
        assert len(doc_ids(sqlite_store, "again")) == len(site.articles)


@pytest.mark.slow
@pytest.mark.parametrize("handshake", [0, 1000])
def test_partly_indexed_library_handshakes(sqlite_store: Store, handshake: int) -> None:
    """Seed 004's handshakes: a library whose articles are in the collection already (from
    an earlier queue entry) is crawled without storing anything twice; indexed pages are
    fetched for their links only until `handshake` new links were found."""
    with serve_library(n_articles=20, numbered=False) as site:
        first = make_queue(sqlite_store)
        lib = first.add(site.base_url, ["post"], collection="hs")
        asyncio.run(crawl(first, lib.id))
        first.remove(lib.id)
        with pytest.raises(LibraryNotFound):
            first.library(lib.id)
        assert len(doc_ids(sqlite_store, "hs")) == len(site.articles)  # the collection stays

        site.log.clear()
        queue = make_queue(sqlite_store, handshake=handshake)
        lib2 = queue.add(site.base_url, ["post"], collection="hs")
        final = asyncio.run(crawl(queue, lib2.id))
        assert final.stage == "done"
        assert final.documents_added == 0
        assert len(doc_ids(sqlite_store, "hs")) == len(site.articles)
        refetched = [u for u in site.articles if site.fetch_count(u)]
        skipped = [p for p in queue.pages(lib2.id, "skipped") if p.error == "already indexed"]
        if handshake == 0:
            # indexed pages are not fetched again (the home page's /go/N redirect aside)
            assert set(refetched) <= {site.go_target}
            assert len(skipped) >= len(site.articles) - 5
        else:
            assert len(refetched) >= len(site.articles) - 5  # fetched for links, not stored


@pytest.mark.slow
def test_pattern_library_partly_indexed_starts_where_the_documents_end(
    sqlite_store: Store,
) -> None:
    with serve_library(n_articles=30) as site:
        first = make_queue(sqlite_store)
        lib = first.add(site.base_url, ["post"], collection="walk")
        asyncio.run(crawl(first, lib.id))
        first.remove(lib.id)
        site.log.clear()
        queue = make_queue(sqlite_store)
        lib2 = queue.add(site.base_url, ["post"], collection="walk")
        final = asyncio.run(crawl(queue, lib2.id))
        assert final.stage == "done"
        assert final.pattern == site.pattern
        assert final.documents_added == 0
        walked = [r for r in site.requests() if r.startswith("/post/")]
        assert {u for u in site.articles if site.fetch_count(u)} <= {site.go_target}
        assert "/post/31" in walked  # the walk went on past the indexed articles


def test_unsafe_libraries_are_refused(sqlite_store: Store) -> None:
    queue = make_queue(sqlite_store, allow_private=False)
    with pytest.raises(UnsafeURLError, match=r"10\.0\.0\.1 is a private address"):
        queue.add("http://10.0.0.1/", ["post"])
    with pytest.raises(UnsafeURLError, match="scheme file:// is not allowed"):
        queue.add("file:///etc/passwd", ["post"])
    with pytest.raises(UnsafeURLError, match="local machine"):
        queue.add("http://localhost:8080/", ["post"])
    assert queue.libraries() == []


def test_library_resolving_to_a_private_address_fails_clearly(sqlite_store: Store) -> None:
    queue = make_queue(sqlite_store, allow_private=False)
    lib = queue.add("http://library.test/", ["post"], collection="dns")
    transport = RecordingTransport()
    final = asyncio.run(
        crawl(queue, lib.id, transport=transport, resolver=lambda host: ["10.0.0.7"])
    )
    assert final.stage == "failed"
    assert "library.test resolves to 10.0.0.7, a private address" in (final.error or "")
    assert transport.requests == []


def test_library_redirecting_to_a_private_address_fails_clearly(sqlite_store: Store) -> None:
    with serve_library(n_articles=20) as site:
        settings = {"allow_private": False, "allow_hosts": ("127.0.0.1",)}
        queue = make_queue(sqlite_store, **settings)
        home = site.redirect_to("http://169.254.169.254/latest/meta-data/")
        lib = queue.add(home, ["post"], collection="redirect")
        transport = RecordingTransport()
        final = asyncio.run(crawl(queue, lib.id, transport=transport))
        assert final.stage == "failed"
        error = final.error or ""
        assert error.startswith("home page http://127.0.0.1:")
        assert "redirect from" in error
        assert "169.254.169.254 is a link-local address" in error
        assert transport.hosts == {"127.0.0.1"}


def test_queue_validation(sqlite_store: Store) -> None:
    from neardup.errors import ParameterError

    queue = make_queue(sqlite_store)
    with pytest.raises(ParameterError, match="clarifications"):
        queue.add("http://127.0.0.1:1/", [])
    with pytest.raises(ParameterError, match="clarifications"):
        queue.add("http://127.0.0.1:1/", "post")
    with pytest.raises(LibraryNotFound, match="no library with id 999"):
        queue.library(999)
    lib = queue.add("http://127.0.0.1:1/", [" post ", "post", "article"])
    assert lib.clarifications == ("post", "article")
    assert lib.collection == "127.0.0.1-1" == collection_name(lib.url)
    assert sqlite_store.collection("127.0.0.1-1").method == "tf-ridf"  # Romanov 2019
    assert lib.as_dict()["range"] is None
    assert CrawlSettings().parallel == 1


@pytest.mark.slow
def test_page_budget_and_missing_home_page(sqlite_store: Store) -> None:
    with serve_library(n_articles=40) as site:
        queue = make_queue(sqlite_store, max_pages=25)
        lib = queue.add(site.base_url, ["post"], collection="budget")
        final = asyncio.run(crawl(queue, lib.id))
        assert final.stage == "done"
        assert final.pages_found == len(queue.pages(lib.id)) <= 25
        assert 0 < len(doc_ids(sqlite_store, "budget")) < len(site.articles)

        gone = queue.add(site.url("/no-such-page"), ["post"], collection="budget")
        failed = asyncio.run(crawl(queue, gone.id))
        assert failed.stage == "failed"
        assert failed.error == f"home page {site.url('/no-such-page')}: HTTP 404"
