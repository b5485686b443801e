"""The documentation site opened from disk (``file://``), as the README promises: a nav link
opens its page (not a directory listing) and the search box finds a word of the site.

The site is built by ``mkdocs build --strict`` into a temporary folder (Material's offline
plugin, ``use_directory_urls: false``), then opened in Debian's chromium; or, when the
environment variable ``NEARDUP_DOCS_SITE`` names a folder, the site built there by the same
command (``make docs``: ``.ci/run`` builds it beside lint and sets the variable for the tests).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from browser.conftest import TIMEOUT_MS, VIEWPORT

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    built = os.environ.get("NEARDUP_DOCS_SITE", "")
    if built:
        if not (Path(built) / "index.html").is_file():
            pytest.fail(f"NEARDUP_DOCS_SITE={built!r} holds no built site (index.html)")
        return Path(built)
    out = tmp_path_factory.mktemp("site")
    subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(out)],
        cwd=ROOT,
        check=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    return out


@pytest.fixture
def page(browser: Any) -> Any:
    context = browser.new_context(viewport=VIEWPORT)
    tab = context.new_page()
    tab.set_default_timeout(TIMEOUT_MS)
    yield tab
    context.close()


def test_nav_link_opens_a_page_from_file(site: Path, page: Any) -> None:
    page.goto((site / "index.html").as_uri())
    page.locator("nav.md-nav a", has_text="Which method when").first.click()
    page.wait_for_load_state()
    assert page.url.endswith("/methods.html")
    assert page.locator("h1").first.inner_text().strip().rstrip("¶") == "Which method when"


def test_search_finds_containment_from_file(site: Path, page: Any) -> None:
    page.goto((site / "index.html").as_uri())
    page.keyboard.press("/")
    page.locator("input.md-search__input").first.click()
    page.locator("input.md-search__input").press_sequentially("containment", delay=30)
    results = page.locator(".md-search-result__item")
    results.first.wait_for()
    assert results.count() > 0
    assert "containment" in results.first.inner_text().lower()


def test_api_page_shows_no_sphinx_roles(site: Path) -> None:
    html = (site / "api.html").read_text(encoding="utf-8")
    for role in (":class:", ":func:", ":meth:", ":mod:", ":data:", ":attr:"):
        assert role not in html
    assert 'href="#neardup.index.memory.Index"' in html


def test_site_makes_no_network_request(site: Path) -> None:
    for page in site.glob("*.html"):
        html = page.read_text(encoding="utf-8")
        assert "unpkg.com" not in html and "fonts.googleapis" not in html, page.name
