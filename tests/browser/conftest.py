"""Browser test fixtures: Debian's chromium driven by Playwright, the real server under uvicorn.

Chromium is the system package (``/usr/bin/chromium``, installed by ``.ci/run`` with
``apt-get install chromium``); Playwright never downloads a browser here. Without it the
tests are skipped on a developer machine and fail under ``CI``.

The service runs in a background thread (uvicorn on a free 127.0.0.1 port) on a temporary
SQLite store, with the crawler allowed to reach private addresses (the fake libraries of
``tests/fake_library.py`` are on 127.0.0.1) and no delay between requests.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from browser._support import Service
from shared_data import unavailable

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
#: Milliseconds Playwright waits for a page or an element (a loaded 2-core machine).
TIMEOUT_MS = 60_000
VIEWPORT = {"width": 1280, "height": 900}


def _require_chromium() -> None:
    if CHROMIUM.exists():
        return
    unavailable(f"{CHROMIUM} is missing (apt-get install chromium; .ci/run does it)")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """A headless Debian chromium under Playwright, per module: a live ``sync_playwright``
    loop would make ``asyncio.run`` fail in the tests that follow."""
    _require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh browser page (own cookies), 1280 px wide."""
    context = browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(TIMEOUT_MS)
    pg = context.new_page()
    yield pg
    context.close()


@pytest.fixture
def page_no_js(browser: Any) -> Iterator[Any]:
    """A browser page with JavaScript off."""
    context = browser.new_context(viewport=VIEWPORT, java_script_enabled=False)
    context.set_default_timeout(TIMEOUT_MS)
    pg = context.new_page()
    yield pg
    context.close()


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    """The neardup service (API, UI and crawl dispatcher) under uvicorn on 127.0.0.1."""
    _require_chromium()
    import uvicorn

    from neardup.crawl import CrawlSettings
    from neardup.service import ServiceConfig, create_app
    from neardup.store import Store

    db = tmp_path_factory.mktemp("browser") / "service.db"
    store = Store(f"sqlite:///{db}")
    settings = CrawlSettings(allow_private=True, delay=0)
    app = create_app(ServiceConfig(crawl=True, crawl_settings=settings), store=store)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the service did not start")
        time.sleep(0.05)
    try:
        yield Service(f"http://127.0.0.1:{port}", app)
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()
        store.close()
