"""The UI at a phone's width (390 px) and a desktop's (1280 px): no page scrolls sideways;
the check page preselects a collection that holds documents; /docs and /redoc render with
the network cut off (everything they load is served by neardup). Screenshots of each page
at both widths are saved in ``tests/browser/artifacts/``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from browser._support import Service, screenshot
from neardup.text.types import Document

CORPUS = Path(__file__).resolve().parents[2] / "examples" / "corpus"
WIDTHS = (390, 1280)
#: The widest element sticking out past the right edge, for the failure message.
OVERFLOW_JS = """() => {
  const width = document.documentElement.clientWidth;
  let worst = null;
  for (const el of document.querySelectorAll("body *")) {
    const r = el.getBoundingClientRect();
    if (r.right > width + 1 && (!worst || r.right > worst.right)) {
      worst = {tag: el.tagName, cls: el.className, id: el.id, right: r.right};
    }
  }
  return {scroll: document.documentElement.scrollWidth, width, worst};
}"""


@pytest.fixture(scope="module")
def stories(service: Service) -> str:
    """A collection ``stories`` of the Chekhov stories, created after an empty one (as a
    failed crawl leaves) so that the empty one sorts first."""
    store = service.app.store
    names = {c.name for c in store.collections()}
    if "a-empty" not in names:
        store.create_collection("a-empty", "minhash-lsh")
    if "stories" not in names:
        store.create_collection("stories", "minhash-lsh")
        docs = [
            Document(p.name, p.read_text(encoding="utf-8"))
            for p in sorted((CORPUS / "chekhov").glob("*.txt"))
        ]
        store.add("stories", docs)
    return "stories"


@pytest.fixture(params=WIDTHS, ids=lambda w: f"{w}px")
def sized(browser: Any, request: pytest.FixtureRequest) -> Iterator[tuple[Any, int]]:
    width = request.param
    context = browser.new_context(viewport={"width": width, "height": 844 if width < 500 else 900})
    context.set_default_timeout(60_000)
    yield context.new_page(), width
    context.close()


def _no_sideways_scroll(page: Any) -> None:
    found = page.evaluate(OVERFLOW_JS)
    assert found["scroll"] <= found["width"], found


@pytest.mark.parametrize("path", ["/", "/check", "/collections", "/collections/stories"])
def test_no_page_scrolls_sideways(
    sized: tuple[Any, int], service: Service, stories: str, path: str
) -> None:
    page, width = sized
    page.goto(service.base_url + path)
    page.wait_for_load_state("networkidle")
    _no_sideways_scroll(page)
    name = path.strip("/").replace("/", "-") or "queue"
    screenshot(page, f"width-{width}-{name}")


def test_check_result_fits_a_phone(sized: tuple[Any, int], service: Service, stories: str) -> None:
    page, width = sized
    page.goto(service.base_url + "/check")
    text = (CORPUS / "web" / "vanka.html").read_text(encoding="utf-8")
    page.fill("textarea[name=text]", text)
    page.get_by_role("button", name="Check").click()
    page.wait_for_load_state("networkidle")
    assert "Ванька.txt" in page.content()
    _no_sideways_scroll(page)
    screenshot(page, f"width-{width}-check-result")


def test_check_page_preselects_a_collection_with_documents(
    page: Any, service: Service, stories: str
) -> None:
    page.goto(service.base_url + "/check")
    assert page.locator("select#collection").input_value() == stories


@pytest.mark.slow
@pytest.mark.parametrize(("path", "ready"), [("/docs", ".opblock"), ("/redoc", "h1")])
def test_api_docs_render_offline(
    sized: tuple[Any, int], service: Service, path: str, ready: str
) -> None:
    page, width = sized
    outside: list[str] = []

    def only_local(route: Any) -> None:
        if route.request.url.startswith(service.base_url):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    page.route("**/*", only_local)
    page.goto(service.base_url + path)
    page.wait_for_selector(ready)
    assert "neardup" in page.inner_text("body")
    assert "/health" in page.inner_text("body") or path == "/redoc"
    assert outside == []
    screenshot(page, f"width-{width}-api{path.replace('/', '-')}")
