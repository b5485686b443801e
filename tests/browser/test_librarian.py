"""The librarian's journey in the browser (issue 30, items 10 and 13): a collection built
from files is listed on the landing page; two files uploaded from its page are listed, one
is opened (its text), one removed; at 390 px the queue's pages, progress and Remove button,
the collections' method column and the documents' Remove button are on screen; the file
pickers offer PDF and DOCX."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from browser._support import Service, screenshot

CORPUS = Path(__file__).resolve().parents[2] / "examples" / "corpus"
PHONE = {"width": 390, "height": 844}


@pytest.fixture
def phone(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport=PHONE)
    context.set_default_timeout(60_000)
    yield context.new_page()
    context.close()


def _on_screen(page: Any, locator: Any) -> None:
    """The element is visible and wholly inside the 390 px viewport (not scrolled out)."""
    assert locator.is_visible()
    box = locator.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"] + 1, box


def test_upload_list_open_and_remove(page: Any, service: Service) -> None:
    service.app.store.create_collection("shelf", "minhash-lsh")
    page.goto(service.base_url + "/")
    built = page.locator("#built-h + .table-scroll")
    assert built.get_by_role("link", name="shelf").is_visible()
    built.get_by_role("link", name="shelf").click()
    page.wait_for_url("**/collections/shelf")
    picker = page.locator("#files")
    assert ".pdf" in picker.get_attribute("accept") and ".docx" in picker.get_attribute("accept")
    picker.set_input_files(
        [str(CORPUS / "chekhov" / "Ванька.txt"), str(CORPUS / "web" / "vanka.html")]
    )
    page.get_by_role("button", name="Add files").click()
    page.wait_for_url("**/collections/shelf?*")
    assert "2 file(s) added, 0 skipped." in page.locator(".notice").inner_text()
    rows = page.locator("table.docs tbody tr")
    assert rows.count() == 2
    sources = rows.locator("td.src").all_inner_texts()
    assert sources == ["Ванька.txt", "vanka.html"]
    titles = rows.locator("td:first-child a").all_inner_texts()
    assert titles == ["Ванька.txt", "А. П. Чехов. Ванька"]  # the file name, the <title>
    page.on("dialog", lambda d: d.accept())
    rows.nth(0).get_by_role("link").click()
    page.wait_for_url("**/collections/shelf/documents/*")
    assert "Ванька Жуков" in page.locator("pre.doc-text").inner_text()
    page.go_back()
    page.get_by_role("button", name="Remove vanka.html").click()
    page.wait_for_url("**/collections/shelf?*")
    assert page.locator(".notice").inner_text() == "Removed vanka.html."
    assert page.locator("table.docs tbody tr").count() == 1
    assert service.app.store.stats("shelf")["documents"] == 1
    screenshot(page, "librarian-collection-1280")


def test_phone_shows_queue_and_collection_columns(phone: Any, service: Service) -> None:
    store = service.app.store
    if "shelf390" not in {c.name for c in store.collections()}:
        store.create_collection("shelf390", method="anchor-words")
    service.app.queue.add("http://127.0.0.1:9/library/", ["post"], collection="lib390")
    phone.goto(service.base_url + "/")
    row = phone.locator("table.queue tbody tr").last
    for column in (3, 4, 6):  # pages found, pages fetched, progress
        _on_screen(phone, row.locator(f"td:nth-child({column})"))
    _on_screen(phone, row.get_by_role("button", name="Remove http://127.0.0.1:9/library/"))
    screenshot(phone, "librarian-queue-390")
    phone.goto(service.base_url + "/collections")
    method = phone.locator("table.list tbody tr", has_text="shelf390").locator("td code")
    _on_screen(phone, method)
    assert method.inner_text() == "anchor-words"
    phone.goto(service.base_url + "/check")
    accept = phone.locator("input[type=file]").get_attribute("accept")
    assert ".pdf" in accept and ".docx" in accept


def test_phone_shows_documents_remove_button(phone: Any, service: Service) -> None:
    store = service.app.store
    if "shelf-docs" not in {c.name for c in store.collections()}:
        from neardup.text.types import Document

        store.create_collection("shelf-docs", "minhash-lsh")
        path = CORPUS / "chekhov" / "Ванька.txt"
        store.add("shelf-docs", [Document(path.name, path.read_text("utf-8"), str(path))])
    phone.goto(service.base_url + "/collections/shelf-docs")
    row = phone.locator("table.docs tbody tr").first
    _on_screen(phone, row.locator("td[data-label='Words']"))
    _on_screen(phone, row.get_by_role("button", name="Remove Ванька.txt"))
    screenshot(phone, "librarian-documents-390")
    row.get_by_role("link").click()
    phone.wait_for_url("**/documents/*")
    assert "Ванька Жуков" in phone.locator("pre.doc-text").inner_text()
    width = phone.evaluate("() => document.documentElement.scrollWidth")
    assert width <= PHONE["width"], width  # the text wraps, nothing scrolls sideways
    screenshot(phone, "librarian-document-390")
