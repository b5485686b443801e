"""The web UI in a real browser (Debian's chromium under Playwright), against the running
service and the fake digital libraries of ``tests/fake_library.py``.

Full-page screenshots of every page are saved in ``tests/browser/artifacts/``.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest

from browser._support import Service, screenshot
from fake_library import Site, serve_library
from neardup.text.types import Document

COLLECTION = "vestnik"
N_ARTICLES = 80
#: Seconds a crawl of the fake library may take on a loaded 2-core machine.
CRAWL_TIMEOUT = 300.0


@pytest.fixture(scope="module")
def first_site() -> Iterator[Site]:
    """The first fake library (articles at /post/{n}); its slow page keeps the crawl going
    for a few seconds, so progress is seen moving."""
    with serve_library(kind="first", n_articles=N_ARTICLES, slow_seconds=3.0) as site:
        yield site


@pytest.fixture(scope="module")
def second_site(first_site: Site) -> Iterator[Site]:
    """The second fake library, some of whose articles are light edits of the first's."""
    with serve_library(kind="second", n_articles=N_ARTICLES, first=first_site) as site:
        yield site


def crawled(service: Service, site: Site) -> dict[str, Any]:
    """The first library's queue entry once crawled into ``COLLECTION`` (queued through the
    JSON API when the queue test did not run first)."""
    with httpx.Client(base_url=service.base_url, timeout=30) as http:
        libs = [x for x in http.get("/libraries").json() if x["collection"] == COLLECTION]
        if not libs:
            body = {"url": site.base_url + "/", "clarifications": ["post"]}
            body["collection"] = COLLECTION
            body["method"] = "minhash-lsh"  # light edits found by resemblance
            libs = [http.post("/libraries", json=body).raise_for_status().json()]
        deadline = time.monotonic() + CRAWL_TIMEOUT
        lib = libs[0]
        while lib["stage"] not in ("done", "failed") and time.monotonic() < deadline:
            time.sleep(0.5)
            lib = http.get(f"/libraries/{lib['id']}").json()
    assert lib["stage"] == "done", lib
    return lib


# -- 1. queue -------------------------------------------------------------------------------------
@pytest.mark.slow
def test_add_library_and_watch_progress_reach_done(
    page: Any, service: Service, first_site: Site
) -> None:
    page.goto(service.base_url + "/")
    page.fill("#url", first_site.base_url + "/")
    page.fill("#clarifications", first_site.clarification)
    page.fill("#collection", COLLECTION)
    page.select_option("#method", "minhash-lsh")  # light edits found by resemblance
    page.click("#add-form button[type=submit]")
    page.wait_for_url(re.compile(r"/\?done=added&id=\d+$"))
    assert "added to the queue" in page.locator(".notice").inner_text()
    page.evaluate("window.__same_page = 'yes'")

    row = page.locator("tr[data-stage]", has_text=first_site.base_url)
    seen: list[tuple[str, str]] = []
    deadline = time.monotonic() + CRAWL_TIMEOUT
    stage = ""
    while time.monotonic() < deadline:
        stage = row.get_attribute("data-stage") or ""
        fetched = row.locator("td.n").nth(1).inner_text()
        if not seen or seen[-1] != (stage, fetched):
            seen.append((stage, fetched))
        if stage == "in work" and not any(s == "in work" for s, _ in seen[:-1]):
            screenshot(page, "queue-in-progress")
        if stage in ("done", "failed", "stopped"):
            break
        time.sleep(0.25)

    assert stage == "done", seen
    assert page.evaluate("window.__same_page") == "yes"  # updated live, never reloaded
    assert len(seen) >= 3, seen  # the numbers moved while we watched
    assert seen[0][0] in ("queued", "link search", "pattern detection", "in work"), seen
    cells = row.locator("td.n").all_inner_texts()
    assert int(cells[2].replace("\u202f", "")) == len(first_site.articles)
    assert "/post/{n}" in row.inner_text()  # the detected pattern is shown
    summary = page.locator("#queue-live .summary").inner_text()
    assert "0 crawling" in summary
    screenshot(page, "queue")


# -- 2. check -------------------------------------------------------------------------------------
def test_check_a_planted_duplicate_shows_passages_side_by_side(
    page: Any, service: Service, first_site: Site, second_site: Site
) -> None:
    crawled(service, first_site)
    second_url, source_url = sorted(second_site.planted.items())[0]
    page.goto(service.base_url + "/check")
    page.select_option("#collection", COLLECTION)
    assert first_site.base_url in page.locator("#about").inner_text()
    page.fill("#text", second_site.articles[second_url])
    page.click("#check-form button[type=submit]")
    verdict = page.locator(".verdict").inner_text()
    assert re.fullmatch(r"\d+ duplicates? found", verdict), verdict

    match = page.locator("#match-1")
    assert match.locator("a.source-url").get_attribute("href") == source_url
    ours = match.locator("[data-side=q] mark")
    theirs = match.locator("[data-side=s] mark")
    assert ours.count() >= 1 and theirs.count() == ours.count()
    numbers = {m.get_attribute("data-p") for m in ours.all()}
    assert numbers == {m.get_attribute("data-p") for m in theirs.all()}
    shared = sum(len(t) for t in ours.all_inner_texts())
    assert shared > 0.5 * len(second_site.articles[second_url])  # most of it is marked
    page.locator("#m1-q-1").click()  # the twin passage is shown and flashes
    assert "flash" in (page.locator("#m1-s-1").get_attribute("class") or "")
    screenshot(page, "check")


def test_check_an_original_text_says_no_duplicates(
    page: Any, service: Service, first_site: Site, second_site: Site
) -> None:
    crawled(service, first_site)
    original = next(u for u in sorted(second_site.articles) if u not in second_site.planted)
    page.goto(service.base_url + "/check")
    page.select_option("#collection", COLLECTION)
    page.fill("#text", second_site.articles[original])
    page.click("#check-form button[type=submit]")
    assert page.locator(".verdict").inner_text() == "No duplicates"
    screenshot(page, "check-no-duplicates")


# -- 3. stats -------------------------------------------------------------------------------------
def test_collection_stats_page(page: Any, service: Service, first_site: Site) -> None:
    lib = crawled(service, first_site)
    page.goto(f"{service.base_url}/collections/{COLLECTION}")
    assert page.locator("h1").inner_text() == COLLECTION
    cards = page.locator(".stat-cards li .big").all_inner_texts()
    assert int(cards[0].replace("\u202f", "")) == len(first_site.articles)
    facts = page.locator(".facts").first.inner_text()
    assert first_site.base_url in facts and "/post/{n}" in facts
    assert "not finished" not in facts and "UTC" in facts  # last crawled time
    assert "minhash-lsh" in page.locator("#method-h + .facts").inner_text()
    assert lib["documents_added"] == len(first_site.articles)
    screenshot(page, "stats")


# -- 4. stored markup is text ---------------------------------------------------------------------
EVIL = '<script>window.pwned = 1</script><img src=x onerror="window.pwned = 2"></textarea>'


@pytest.fixture(scope="module")
def evil_page() -> Iterator[str]:
    """A page whose text contains script markup (escaped in the HTML, so it is text)."""
    from html import escape

    from shared_data import paragraphs

    body = "".join(f"<p>{escape(p)}</p>" for p in paragraphs("progit-ru-revisions", 3))
    head = "<html><head><title>Markup test page</title></head>"
    html = f"{head}<body><article><p>{escape(EVIL)}</p>{body}</article></body></html>"
    payload = html.encode()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: object) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/evil"
    finally:
        server.shutdown()
        server.server_close()


def test_stored_script_is_shown_as_text(page: Any, service: Service, evil_page: str) -> None:
    from neardup.crawl.content import read_page

    text = read_page(
        evil_page, httpx.get(evil_page).content, "text/html", want_links=False, want_text=True
    ).document(evil_page, 0)
    assert text is not None and "<script>" in text.text
    store = service.app.store
    store.create_collection("markup", "minhash-lsh", threshold=0.5)
    store.add("markup", [Document(evil_page, text.text, source=evil_page)])

    page.goto(service.base_url + "/check?collection=markup")
    page.fill("#text", text.text)
    page.click("#check-form button[type=submit]")
    assert page.locator(".verdict").inner_text() == "1 duplicate found"
    assert page.evaluate("typeof window.pwned") == "undefined"
    assert EVIL in page.locator("#match-1 [data-side=q]").inner_text()
    assert EVIL in page.locator("#match-1 [data-side=s]").inner_text()
    assert EVIL in page.locator("#text").input_value()  # the form keeps it, as text
    assert page.locator("script:not([src])").count() == 0
    screenshot(page, "escaping")


# -- 5. no JavaScript -----------------------------------------------------------------------------
def test_forms_work_without_javascript(page_no_js: Any, service: Service) -> None:
    page = page_no_js
    page.goto(service.base_url + "/")
    page.fill("#url", "http://127.0.0.1:9/nothing-here/")
    page.fill("#clarifications", "post, article")
    page.click("#add-form button[type=submit]")
    page.wait_for_url(re.compile(r"/\?done=added&id=\d+$"))
    row = page.locator("tr[data-stage]", has_text="127.0.0.1:9/nothing-here/")
    assert row.count() == 1
    assert "post" in row.inner_text() and "article" in row.inner_text()
    page.goto(service.base_url + "/")  # no live update without JS: reload by hand
    row.get_by_role("button", name=re.compile("^Remove")).click()
    page.wait_for_url(re.compile(r"/\?done=removed&id=\d+$"))
    assert page.locator("tr[data-stage]", has_text="127.0.0.1:9/nothing-here/").count() == 0

    page.fill("#url", "file:///etc/passwd")
    page.fill("#clarifications", "post")
    page.click("#add-form button[type=submit]")
    alert = page.locator("#add-error").inner_text()
    assert "only http:// and https://" in alert
    screenshot(page, "queue-error-nojs")
