"""Issue 29 in a real browser: a library added from the UI without choosing a method is
indexed with Romanov 2019's TF-RIDF signature, and the check page names that rule, both when
it finds a duplicate and when it rejects a text at exact resemblance 0.89."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest

from browser._support import Service, screenshot
from fake_library import Site, serve_library
from neardup.job.compare import compare

COLLECTION = "romanov-library"
CRAWL_TIMEOUT = 300.0


@pytest.fixture(scope="module")
def site() -> Iterator[Site]:
    with serve_library(kind="first", n_articles=30) as s:
        yield s


def edited(text: str, every: int) -> str:
    """``text`` with an invented word after every ``every``-th word (moves the TF-RIDF top
    words while most five-word shingles stay)."""
    out: list[str] = []
    for i, word in enumerate(text.split()):
        out.append(word)
        if i % every == every - 1:
            out.append("квазиморфизм")
    return " ".join(out)


def added_from_the_ui(page: Any, service: Service, site: Site) -> None:
    """Add the library with the UI form, method left at its default; wait until done."""
    store = service.app.store
    if COLLECTION in {c.name for c in store.collections()}:
        return
    page.goto(service.base_url + "/")
    assert page.locator("#method").input_value() == "tf-ridf"
    assert "TF-RIDF signature, Romanov 2019" in page.locator("#method option:checked").inner_text()
    page.fill("#url", site.base_url + "/")
    page.fill("#clarifications", site.clarification)
    page.fill("#collection", COLLECTION)
    page.click("#add-form button[type=submit]")
    page.wait_for_url(re.compile(r"/\?done=added&id=\d+$"))
    queue = service.app.queue
    lib = next(x for x in queue.libraries() if x.collection == COLLECTION)
    deadline = time.monotonic() + CRAWL_TIMEOUT
    while lib.stage not in ("done", "failed") and time.monotonic() < deadline:
        time.sleep(0.5)
        lib = queue.library(lib.id)
    assert lib.stage == "done", lib


def _check(page: Any, service: Service, text: str) -> None:
    page.goto(service.base_url + "/check")
    page.select_option("#collection", COLLECTION)
    page.fill("#text", text)
    page.click("#check-form button[type=submit]")


@pytest.mark.slow
def test_library_from_the_ui_is_a_tf_ridf_collection_and_its_rule_decides(
    page: Any, service: Service, site: Site
) -> None:
    added_from_the_ui(page, service, site)
    assert service.app.store.collection(COLLECTION).method == "tf-ridf"
    page.goto(f"{service.base_url}/collections/{COLLECTION}")
    facts = page.locator("#method-h + .facts").inner_text()
    assert "TF-RIDF signature, Romanov 2019" in facts
    assert "equal TF-RIDF signature: CRC-32 of the top 6 words" in facts
    screenshot(page, "tfridf-collection")

    url = sorted(site.articles)[5]
    _check(page, service, site.articles[url])
    assert page.locator(".verdict").inner_text() == "1 duplicate found"
    decided = page.locator("#match-1 .decided").inner_text()
    assert "equal TF-RIDF signature" in decided and "the signatures are equal" in decided
    assert (
        "compared by its 6 words of highest TF-RIDF weight"
        in page.locator("#text-help").inner_text()
    )
    screenshot(page, "tfridf-check-match")


@pytest.mark.slow
def test_text_at_exact_resemblance_089_is_rejected_with_the_tf_ridf_reason(
    page: Any, service: Service, site: Site
) -> None:
    added_from_the_ui(page, service, site)
    store = service.app.store
    # the first article whose edit keeps ~0.89 of its shingles but moves its signature
    for url in sorted(site.articles):
        original = site.articles[url]
        for every in (60, 70, 80, 90, 100):
            text = edited(original, every)
            near = compare(original, text, method="shingles-full").overlap.resemblance
            if 0.88 <= near < 0.90 and not store.check(COLLECTION, text).duplicate:
                break
        else:
            continue
        break
    else:
        pytest.fail("no article edit at resemblance 0.88-0.90 with a new TF-RIDF signature")
    _check(page, service, text)
    assert page.locator(".verdict").inner_text() == "No duplicates"
    reason = page.locator("#no-match-reason").inner_text()
    assert "no stored document has this text's TF-RIDF signature" in reason, reason
    assert "below" not in reason, reason
    screenshot(page, "tfridf-check-rejected")
