"""The collection page's document forms through TestClient (no browser): Add files and
Remove need the token (or the session cookie and the page's CSRF token) and are refused
cross-site; an upload of a JSONL file adds its records; paging (issue 30, item 10)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from neardup.service import ServiceConfig, create_app
from neardup.store import Store
from store._db import unique

HTML = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
TOKEN = "ui-s3cret"
STORY = Path(__file__).resolve().parents[2] / "examples" / "corpus" / "chekhov" / "Ванька.txt"


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    st = Store(db_url)
    yield st
    st.close()


def _client(store: Store, token: str | None = None) -> TestClient:
    return TestClient(create_app(ServiceConfig(token=token, crawl=False), store=store))


def test_upload_and_remove_need_the_token_and_same_origin(store: Store) -> None:
    name = unique()
    store.create_collection(name, "minhash-lsh")
    story = STORY.read_bytes()
    files = [("files", ("Ванька.txt", story, "text/plain"))]
    with _client(store, token=TOKEN) as c:
        assert c.post(f"/collections/{name}/upload", files=files).status_code == 401
        crossed = c.post(
            f"/collections/{name}/upload",
            files=files,
            data={"token": TOKEN},
            headers={"Sec-Fetch-Site": "cross-site"},
        )
        assert crossed.status_code == 403
        assert store.stats(name)["documents"] == 0
        r = c.post(
            f"/collections/{name}/upload",
            files=files,
            data={"token": TOKEN},
            follow_redirects=False,
        )
        assert r.status_code == 303 and r.headers["location"].endswith("added=1&skipped=0")
        page = c.get(f"/collections/{name}", headers=HTML).text
        assert "Ванька.txt" in page
        csrf = re.search(r'name="csrf" value="([0-9a-f]{64})"', page)
        assert csrf, "no CSRF token in the page"
        # the session cookie alone is not enough: the page's CSRF token is needed
        r = c.post(f"/collections/{name}/remove", data={"id": "Ванька.txt"})
        assert r.status_code == 403 and store.stats(name)["documents"] == 1
        r = c.post(
            f"/collections/{name}/remove",
            data={"id": "Ванька.txt", "csrf": csrf[1]},
            follow_redirects=False,
        )
        assert r.status_code == 303 and store.stats(name)["documents"] == 0
        missing = c.post(f"/collections/{name}/remove", data={"id": "nope", "csrf": csrf[1]})
        assert missing.status_code == 404 and "nope" in missing.text


def test_jsonl_upload_adds_records_and_pages(store: Store) -> None:
    name = unique()
    store.create_collection(name, "minhash-lsh")
    words = STORY.read_text("utf-8").split() * 4  # 60 windows of 80 words
    rows = [{"id": f"r{i:02d}", "text": " ".join(words[i * 40 : i * 40 + 80])} for i in range(60)]
    body = "\n".join(json.dumps(r, ensure_ascii=False) for r in rows).encode()
    with _client(store) as c:
        r = c.post(
            f"/collections/{name}/upload",
            files=[("files", ("part.jsonl", body, "application/jsonl"))],
            follow_redirects=False,
        )
        assert r.status_code == 303, r.text
        page = store.documents(name, limit=100)
        assert page.total == 60
        assert page.documents[0].source == "part.jsonl:1"
        first = c.get(f"/collections/{name}", headers=HTML).text
        assert "1–50 of 60" in first and "r49" in first and "r50" not in first
        second = c.get(f"/collections/{name}?offset=50", headers=HTML).text
        assert "51–60 of 60" in second and "r59" in second and "r00" not in second
        doc = c.get(f"/collections/{name}/documents/r03", headers=HTML).text
        assert rows[3]["text"].split()[0] in doc


def test_the_forms_close_their_uploads_temporary_files(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every uploaded file's spooled temporary file is closed when the form's handler ends
    (accepted or refused), not left to the garbage collector (a ResourceWarning)."""
    import tempfile

    from starlette import formparsers

    opened: list[tempfile.SpooledTemporaryFile[bytes]] = []

    class Recorded(tempfile.SpooledTemporaryFile):  # type: ignore[type-arg]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            opened.append(self)

    monkeypatch.setattr(formparsers, "SpooledTemporaryFile", Recorded)
    name = unique()
    store.create_collection(name, "minhash-lsh")
    files = [("files", ("Ванька.txt", STORY.read_bytes(), "text/plain"))]
    with _client(store, token=TOKEN) as c:
        refused = c.post(f"/collections/{name}/upload", files=files)
        upload = f"/collections/{name}/upload"
        added = c.post(upload, files=files, data={"token": TOKEN}, follow_redirects=False)
        checked = c.post(
            "/check", files=[("file", ("Ванька.txt", STORY.read_bytes(), "text/plain"))],
            data={"collection": name, "text": ""}, headers=HTML,
        )  # fmt: skip
    assert (refused.status_code, added.status_code, checked.status_code) == (401, 303, 200)
    assert "Ванька.txt" in checked.text  # the story matched itself
    assert len(opened) == 3
    assert [f.closed for f in opened] == [True, True, True]


# -- issue 41: items 12 and 24 ------------------------------------------------------------------
def test_the_collections_page_creates_a_collection(store: Store) -> None:
    name = unique()
    with _client(store, token=TOKEN) as c:
        page = c.get("/collections", headers=HTML).text
        assert 'action="/collections/new"' in page and 'value="tf-ridf" selected' in page
        form = {"name": name, "method": "shingles-full", "threshold": "0.7", "token": TOKEN}
        assert c.post("/collections/new", data={**form, "token": "wrong"}).status_code == 401
        r = c.post("/collections/new", data=form, follow_redirects=False)
        assert r.status_code == 303 and r.headers["location"] == f"/collections/{name}"
        info = store.collection(name)
        assert (info.method, info.threshold) == ("shingles-full", 0.7)
        # the store's validation, as POST /collections: each refusal names the value
        again = c.post("/collections/new", data=form)
        assert again.status_code == 409 and name in again.text
        bad = c.post("/collections/new", data={**form, "name": unique(), "threshold": "1.5"})
        assert bad.status_code == 400 and "threshold=1.5" in bad.text
        assert 'value="1.5"' in bad.text  # the form keeps what was typed
        slash = c.post("/collections/new", data={**form, "name": "a/b"})
        assert slash.status_code == 400 and "no &#39;/&#39;" in slash.text
        lemma = {**form, "name": unique(), "method": "", "threshold": "", "morphology": "lemma"}
        assert c.post("/collections/new", data=lemma, follow_redirects=False).status_code == 303
        made = store.collection(lemma["name"])
        assert made.method == "tf-ridf" and made.canonical["morphology"] == "lemma"


def test_an_upload_lists_each_skipped_file_with_its_reason(store: Store) -> None:
    import gzip

    name = unique()
    store.create_collection(name, "minhash-lsh")
    story = STORY.read_bytes()
    text = " ".join(story.decode().split()[500:600])
    record = json.dumps({"id": "rec", "text": text}, ensure_ascii=False).encode()
    files = [
        ("files", ("Ванька.txt.gz", gzip.compress(story), "application/gzip")),
        ("files", ("empty.txt", b"", "text/plain")),
        ("files", ("blob.txt", b"\x00\x01\x02" * 100, "text/plain")),
        ("files", ("x" * 300 + ".txt", story[:4000], "text/plain")),
        ("files", ("y" * 300 + ".jsonl", record, "application/jsonl")),  # was 500
    ]
    with _client(store) as c:
        r = c.post(f"/collections/{name}/upload", files=files)
        assert r.status_code == 200, r.text
        skipped = re.search(r'<ul class="skipped" id="skipped"[^>]*>(.*?)</ul>', r.text, re.S)
        assert skipped, "no list of skipped files"
        rows = re.findall(r"<li>(.*?)</li>", skipped[1], re.S)
        assert len(rows) == 2
        assert "empty.txt" in rows[0] and "<strong>empty</strong>" in rows[0]
        assert "blob.txt" in rows[1] and "<strong>binary</strong>" in rows[1]
        assert "3 file(s) added, 2 skipped" in r.text
    ids = {d.doc_id for d in store.documents(name, limit=10).documents}
    assert ids == {"Ванька.txt.gz", "x" * 300 + ".txt", "rec"}  # .gz read as `neardup add` does
    assert store.document(name, "rec").source == "y" * 300 + ".jsonl:1"
