"""Fetching: robots.txt, retries, time-outs, size cap, redirects, address checks, politeness."""

from __future__ import annotations

import asyncio
import time

import httpx

from crawl._helpers import FAST, RecordingTransport
from fake_library import Site, serve_library
from neardup.crawl.fetch import Fetcher, FetchResult
from neardup.crawl.settings import CrawlSettings


def fetch_all(settings: CrawlSettings, urls: list[str], **kw: object) -> list[FetchResult]:
    async def main() -> list[FetchResult]:
        async with Fetcher(settings, **kw) as f:  # type: ignore[arg-type]
            return [await f.fetch(u) for u in urls]

    return asyncio.run(main())


def test_robots_txt_is_obeyed(site: Site) -> None:
    site.log.clear()
    blocked = [site.url("/private/drafts"), site.blocked_url]
    results = fetch_all(FAST, [*blocked, site.url("/post/3")])
    assert [r.outcome for r in results] == ["blocked", "blocked", "ok"]
    assert results[0].error == "disallowed by robots.txt"
    assert site.requests() == ["/robots.txt", "/post/3"]  # robots.txt once, nothing blocked


def test_5xx_is_retried_then_reported(site: Site) -> None:
    site.log.clear()
    (broken,) = fetch_all(FAST, [site.broken_url])
    assert broken.outcome == "failed"
    assert broken.status == 500
    assert broken.error == "HTTP 500 (3 attempts)"
    assert site.fetch_count(site.broken_url) == FAST.retries + 1


def test_a_503_then_success_is_retried() -> None:
    with serve_library(n_articles=60) as fresh:
        (flaky,) = fetch_all(FAST, [fresh.flaky_url])
        assert flaky.outcome == "ok"
        assert flaky.attempts == 2
        assert fresh.fetch_count(fresh.flaky_url) == 2


def test_slow_page_times_out_and_is_retried(site: Site) -> None:
    quick = CrawlSettings(allow_private=True, delay=0, timeout=0.1, retries=1, backoff=0.01)
    (slow,) = fetch_all(quick, [site.slow_url])
    assert slow.outcome == "failed"
    assert "timed out after 0.1 s (2 attempts)" in slow.error
    (ok,) = fetch_all(FAST, [site.slow_url])
    assert ok.outcome == "ok"
    assert b"<article>" in ok.body


def test_missing_pages(site: Site) -> None:
    (hole,) = fetch_all(FAST, [site.url(f"/post/{site.holes[0]}")])
    assert (hole.outcome, hole.status) == ("missing", 404)


def test_size_cap_stops_reading(site: Site) -> None:
    capped = CrawlSettings(allow_private=True, delay=0, max_page_bytes=2048)
    (big,) = fetch_all(capped, [site.url("/post/3")])
    assert big.outcome == "failed"
    assert big.error == "larger than max_page_bytes=2048"
    assert big.body == b""


def test_redirects_are_followed_by_hand(site: Site) -> None:
    (moved,) = fetch_all(FAST, [site.url("/go/5")])
    assert moved.outcome == "ok"
    assert moved.final_url == site.url("/post/5")


def test_redirect_to_a_private_address_is_refused(site: Site) -> None:
    """The test site itself is allowed (allow_hosts), the redirect target is not."""
    settings = CrawlSettings(allow_private=False, allow_hosts=("127.0.0.1",), delay=0)
    transport = RecordingTransport()
    for target in ("http://169.254.169.254/latest/meta-data/", "http://10.0.0.1/admin"):
        (result,) = fetch_all(settings, [site.redirect_to(target)], transport=transport)
        assert result.outcome == "failed"
        assert result.error.startswith("redirect from http://127.0.0.1:")
        assert f"refused '{target}'" in result.error
    (metadata,) = fetch_all(
        settings, [site.redirect_to("http://169.254.169.254/")], transport=transport
    )
    assert "169.254.169.254 is a link-local address" in metadata.error
    assert transport.hosts == {"127.0.0.1"}


def test_dns_answers_are_checked_before_connecting() -> None:
    transport = RecordingTransport()
    results = fetch_all(
        CrawlSettings(delay=0),
        ["http://library.test/post/1", "http://public.test/"],
        transport=transport,
        resolver=lambda host: ["10.0.0.7"] if host == "library.test" else [],
    )
    assert results[0].outcome == "failed"
    assert "library.test resolves to 10.0.0.7, a private address" in results[0].error
    assert "public.test does not resolve" in results[1].error
    assert transport.requests == []


def test_file_urls_are_refused() -> None:
    (result,) = fetch_all(FAST, ["file:///etc/passwd"])
    assert result.outcome == "failed"
    assert "scheme file:// is not allowed" in result.error


def test_user_agent_delay_and_concurrency() -> None:
    seen: list[str] = []
    in_flight = 0
    peak = 0

    async def handler(request: httpx.Request) -> httpx.Response:
        nonlocal in_flight, peak
        seen.append(request.headers["user-agent"])
        if request.url.path == "/robots.txt":
            return httpx.Response(404)
        in_flight += 1
        peak = max(peak, in_flight)
        await asyncio.sleep(0.02)
        in_flight -= 1
        return httpx.Response(200, html="<p>x</p>")

    settings = CrawlSettings(delay=0.1, concurrency=2)

    async def main() -> float:
        async with Fetcher(
            settings, transport=httpx.MockTransport(handler), resolver=lambda h: ["93.184.216.34"]
        ) as f:
            start = time.monotonic()
            await asyncio.gather(*(f.fetch(f"http://lib.example/p/{i}") for i in range(6)))
            return time.monotonic() - start

    elapsed = asyncio.run(main())
    assert set(seen) == {settings.user_agent}
    assert "neardup/" in settings.user_agent
    assert peak <= 2
    assert elapsed >= 5 * 0.1  # six request starts, 0.1 s apart at least


def test_robots_agent_rules_and_unreachable_robots() -> None:
    async def handler(request: httpx.Request) -> httpx.Response:
        if request.url.host == "down.example" and request.url.path == "/robots.txt":
            return httpx.Response(503)
        if request.url.path == "/robots.txt":
            return httpx.Response(200, text="User-agent: neardup\nDisallow: /secret\n")
        return httpx.Response(200, text="ok")

    settings = CrawlSettings(delay=0, retries=0)
    results = fetch_all(
        settings,
        ["http://lib.example/secret/1", "http://lib.example/open", "http://down.example/a"],
        transport=httpx.MockTransport(handler),
        resolver=lambda h: ["93.184.216.34"],
    )
    assert [r.outcome for r in results] == ["blocked", "ok", "blocked"]
