"""The web UI's HTML routes through FastAPI's TestClient (no browser): pages, no-JS forms,
token, escaping, the check page's verdicts and side-by-side passages, the JSON queue API."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from html import unescape
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from neardup.crawl import CrawlSettings
from neardup.service import ServiceConfig, create_app
from neardup.store import AddReport, Store
from neardup.text.types import Document, Skipped
from shared_data import load_docs, paragraphs

HTML = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
TOKEN = "ui-s3cret"
SETTINGS = CrawlSettings(allow_private=True, delay=0)


def _client(
    store: Store,
    *,
    token: str | None = None,
    settings: CrawlSettings = SETTINGS,
    crawl: bool = False,
) -> TestClient:
    cfg = ServiceConfig(token=token, crawl=crawl, crawl_settings=settings)
    return TestClient(create_app(cfg, store=store))


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    st = Store(f"sqlite:///{tmp_path / 'ui.db'}")
    yield st
    st.close()


@pytest.fixture
def client(store: Store) -> Iterator[TestClient]:
    with _client(store) as c:
        yield c


@pytest.fixture
def progit(store: Store) -> list[Document]:
    """A collection ``progit`` of 30 Pro Git chapters (Russian), first revision only."""
    docs = [d for d in load_docs("progit-ru-revisions") if len(d.text) > 2000][:30]
    store.create_collection("progit", "minhash-lsh", threshold=0.5)
    store.add("progit", docs)
    return docs


def _text(html: str) -> str:
    """Visible text of a page, tags dropped, entities decoded, spaces squeezed."""
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def _alert(html: str) -> str:
    found = re.search(r'role="alert"[^>]*>(.*?)</p>', html, re.S)
    assert found, "no error message on the page"
    return unescape(found.group(1))


# -- pages and content negotiation ------------------------------------------------------------
def test_pages_render_with_security_headers(client: TestClient, progit: list[Document]) -> None:
    for path in ("/", "/check", "/collections", "/collections/progit"):
        r = client.get(path, headers=HTML)
        assert r.status_code == 200, path
        assert r.headers["content-type"].startswith("text/html")
        csp = r.headers["content-security-policy"]
        assert "script-src 'self'" in csp and "unsafe-inline" not in csp
        assert '<html lang="en">' in r.text and "<h1>" in r.text
    page = _text(client.get("/collections/progit", headers=HTML).text)
    assert "30 documents" in page and "minhash-lsh" in page
    assert "exact resemblance of the full shingle sets ≥ 0.5" in page


def test_json_api_unchanged_for_api_clients(client: TestClient, progit: list[Document]) -> None:
    body = client.get("/collections/progit").json()
    assert body["documents"] == 30 and body["method"] == "minhash-lsh"
    assert "progit" in [c["name"] for c in client.get("/collections").json()]
    as_json = client.get("/collections/progit?format=json", headers=HTML)
    assert as_json.headers["content-type"] == "application/json"
    missing = client.get("/collections/nope")
    assert missing.status_code == 404
    assert missing.headers["content-type"].startswith("application/problem+json")
    page = client.get("/collections/nope", headers=HTML)
    assert page.status_code == 404 and "No collection" in page.text


def test_static_files_are_served(client: TestClient) -> None:
    css = client.get("/static/style.css")
    assert css.status_code == 200 and css.headers["content-type"].startswith("text/css")
    assert "mark" in css.text
    js = client.get("/static/app.js")
    assert js.status_code == 200 and "/queue/live" not in js.text  # the URL comes from the page
    assert 'data-poll="/queue/live"' in client.get("/", headers=HTML).text


def test_accessible_labels(client: TestClient, progit: list[Document]) -> None:
    for path in ("/", "/check"):
        html = client.get(path, headers=HTML).text
        inputs = re.findall(r"<(?:input|textarea|select)\b[^>]*\bid=\"([^\"]+)\"", html)
        hidden = set(re.findall(r'<input type="hidden"[^>]*id="([^"]+)"', html))
        labels = set(re.findall(r'<label for="([^"]+)"', html))
        assert inputs and set(inputs) - hidden <= labels, (path, set(inputs) - labels)
    assert 'aria-live="polite"' in client.get("/queue/live").text


# -- queue forms --------------------------------------------------------------------------------
def test_add_library_form_then_stop_resume_remove(client: TestClient, store: Store) -> None:
    form = {
        "url": "http://127.0.0.1:9/library/",
        "clarifications": "post, article\nid=",
        "collection": "lib-one",
    }
    r = client.post("/queue/add", data=form, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"].startswith("/?done=added&id=")
    lib_id = int(r.headers["location"].rsplit("=", 1)[1])
    queue = client.app.queue  # type: ignore[attr-defined]
    lib = queue.library(lib_id)
    assert lib.clarifications == ("post", "article", "id=")
    assert lib.collection == "lib-one" and lib.stage == "queued"
    assert store.collection("lib-one").name == "lib-one"
    page = client.get(r.headers["location"], headers=HTML).text
    assert f"Library #{lib_id} added to the queue." in page
    assert "http://127.0.0.1:9/library/" in page and "queued" in page

    client.post(f"/queue/{lib_id}/stop", data={})
    assert queue.library(lib_id).stage == "stopped"
    row = _row(client.get("/queue/live").text, lib_id)
    assert "Resume" in row and ">Stop<" not in row
    client.post(f"/queue/{lib_id}/resume", data={})
    assert queue.library(lib_id).stage == "queued"
    r = client.post(f"/queue/{lib_id}/remove", data={}, follow_redirects=False)
    assert r.status_code == 303
    assert lib_id not in [x.id for x in queue.libraries()]
    assert store.collection("lib-one").name == "lib-one"  # the collection stays


def _row(fragment: str, lib_id: int) -> str:
    found = re.search(rf'<tr id="lib-{lib_id}".*?</tr>', fragment, re.S)
    assert found, f"no row for library {lib_id}"
    return found.group(0)


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("file:///etc/passwd", "only http:// and https://"),
        ("http://127.0.0.1:8080/", "loopback"),
        ("http://10.1.2.3/lib/", "private"),
        ("http://localhost/", "local machine"),
    ],
)
def test_unsafe_library_url_is_refused_in_the_form(store: Store, url: str, reason: str) -> None:
    with _client(store, settings=CrawlSettings(allow_private=False)) as c:
        r = c.post("/queue/add", data={"url": url, "clarifications": "post", "collection": ""})
        assert r.status_code == 422
        message = _alert(r.text)
        assert "refused" in message and reason in message
        assert f'value="{url}"' in r.text  # what was typed is kept
        assert 'aria-invalid="true"' in r.text
        assert c.app.queue.libraries() == []  # type: ignore[attr-defined]


def test_empty_url_no_clarification_and_bad_collection_name(client: TestClient) -> None:
    url = "http://127.0.0.1:9/"
    r = client.post("/queue/add", data={"url": " ", "clarifications": "post", "collection": ""})
    assert r.status_code == 422 and "home page address" in _alert(r.text)
    r = client.post("/queue/add", data={"url": url, "clarifications": " ,\n", "collection": ""})
    assert r.status_code == 400 and "clarifications" in _alert(r.text)
    form = {"url": url, "clarifications": "post", "collection": "a/b"}
    r = client.post("/queue/add", data=form)
    assert r.status_code == 400 and "name='a/b'" in _alert(r.text)
    assert client.app.queue.libraries() == []  # type: ignore[attr-defined]


def test_unknown_library_action_shows_message(client: TestClient) -> None:
    r = client.post("/queue/999/stop", data={})
    assert r.status_code == 404 and "999" in _alert(r.text)


def test_forms_need_the_token_when_configured(store: Store) -> None:
    form = {"url": "http://127.0.0.1:9/", "clarifications": "post", "collection": ""}
    with _client(store, token=TOKEN) as c:
        page = c.get("/", headers=HTML).text
        assert 'name="token"' in page
        r = c.post("/queue/add", data=form)
        assert r.status_code == 401 and "token" in _alert(r.text)
        r = c.post("/queue/add", data={**form, "token": "wrong"})
        assert r.status_code == 401
        assert c.app.queue.libraries() == []  # type: ignore[attr-defined]
        r = c.post("/queue/add", data={**form, "token": TOKEN}, follow_redirects=False)
        assert r.status_code == 303
        cookie = r.headers["set-cookie"]
        assert "neardup_session=" in cookie and "HttpOnly" in cookie
        assert "samesite=strict" in cookie.lower() and TOKEN not in cookie
        lib_id = c.app.queue.libraries()[0].id  # type: ignore[attr-defined]
        # the session cookie and the page's CSRF token authorise the buttons
        page = c.get("/", headers=HTML).text
        assert 'name="token"' not in page
        csrf = re.search(r'name="csrf" value="([0-9a-f]{64})"', page)
        assert csrf, "no CSRF token in the page"
        assert c.post(f"/queue/{lib_id}/stop", follow_redirects=False).status_code == 403
        r = c.post(f"/queue/{lib_id}/stop", data={"csrf": csrf[1]}, follow_redirects=False)
        assert r.status_code == 303
        # the JSON API still wants the Bearer header, the cookie is not enough
        assert c.post(f"/libraries/{lib_id}/resume").status_code == 401
        c.cookies.clear()
        assert c.post(f"/queue/{lib_id}/resume", data={}).status_code == 401


def test_token_bar_remembers_the_token(store: Store) -> None:
    with _client(store, token=TOKEN) as c:
        assert c.post("/token", data={"token": "nope", "next": "/"}).status_code == 401
        r = c.post(
            "/token", data={"token": TOKEN, "next": "//evil.example/"}, follow_redirects=False
        )
        assert r.status_code == 303 and r.headers["location"] == "/"
        assert "neardup_session=" in r.headers["set-cookie"]


# -- check page ---------------------------------------------------------------------------------
def test_check_finds_the_duplicate_and_names_it(client: TestClient, progit: list[Document]) -> None:
    doc = progit[4]
    edited = doc.text.replace(".", "!", 3) + "\n\nЕщё один абзац в конце."
    r = client.post("/check", data={"collection": "progit", "text": edited}, headers=HTML)
    assert r.status_code == 200
    page = _text(r.text)
    assert re.search(r"\d+ duplicates? found", page)
    assert doc.id in page and "Resemblance" in page
    assert "No duplicates" not in page


def test_check_unrelated_text_says_no_duplicates(
    client: TestClient, progit: list[Document]
) -> None:
    r = client.post("/check", data={"collection": "progit", "text": _ruslit_text()}, headers=HTML)
    assert r.status_code == 200
    assert "No duplicates" in r.text and "duplicate found" not in r.text


def _ruslit_text() -> str:
    from shared_data import data_path

    folder = data_path("ruslit", "prose", "Chekhov")
    path = sorted(folder.glob("*.txt"))[0]
    return path.read_text(encoding="utf-8")[:4000]


def test_check_uploaded_file(client: TestClient, progit: list[Document]) -> None:
    doc = progit[7]
    files = {"file": ("chapter.txt", doc.text.encode("cp1251", "replace"), "text/plain")}
    r = client.post("/check", data={"collection": "progit", "text": ""}, files=files)
    assert r.status_code == 200 and doc.id in r.text
    r = client.post("/check", data={"collection": "progit", "text": "x y z"}, files=files)
    assert r.status_code == 422 and "not both" in _alert(r.text)


@pytest.mark.parametrize(
    ("text", "message"),
    [("", "paste the document"), ("два слова", "too short")],
)
def test_check_errors_are_shown_in_the_form(
    client: TestClient, progit: list[Document], text: str, message: str
) -> None:
    r = client.post("/check", data={"collection": "progit", "text": text})
    assert r.status_code == 422
    assert message in _alert(r.text)


def test_check_unknown_collection(client: TestClient, progit: list[Document]) -> None:
    r = client.post("/check", data={"collection": "nope", "text": progit[0].text})
    assert r.status_code == 404 and "nope" in _alert(r.text)


def test_upload_over_the_limit_is_an_html_page(store: Store) -> None:
    cfg = ServiceConfig(crawl=False, crawl_settings=SETTINGS, max_body_bytes=5000)
    with TestClient(create_app(cfg, store=store)) as c:
        big = {"collection": "x", "text": "слово " * 2000}
        r = c.post("/check", data=big, headers=HTML)
        assert r.status_code == 413 and r.headers["content-type"].startswith("text/html")
        assert "too large" in r.text and "5000 bytes" in r.text
        r = c.post("/collections/x/check", json={"text": "слово " * 2000})
        assert r.status_code == 413
        assert r.headers["content-type"].startswith("application/problem+json")


class TextStore(Store):
    """A store that also keeps every text (what ``Store.document_text`` would give)."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.texts: dict[tuple[str, str], str] = {}

    def add(self, name: str, items: Iterable[Document | Skipped], **kw: Any) -> AddReport:
        items = list(items)
        for d in items:
            if isinstance(d, Document):
                self.texts[(name, d.id)] = d.text
        return super().add(name, items, **kw)

    # None for a text it never saw (the base raises): the tests look for a missing one
    def document_text(self, name: str, doc_id: str) -> str | None:  # type: ignore[override]
        return self.texts.get((name, doc_id))


def test_side_by_side_marks_the_shared_passages(tmp_path: Path) -> None:
    store = TextStore(f"sqlite:///{tmp_path / 'text.db'}")
    paras = paragraphs("progit-ru-revisions", 6, min_words=40)
    stored = "\n\n".join(paras[:4])
    store.create_collection("c", "minhash-lsh", threshold=0.3, measure="containment")
    store.add("c", [Document("doc-1", stored, source="book/ch1.asc")])
    query = (
        paras[1]
        + "\n\nСовсем новый абзац, которого в книге нет вовсе, написан для проверки.\n\n"
        + paras[3]
    )
    with _client(store) as c:
        html = c.post("/check", data={"collection": "c", "text": query}, headers=HTML).text
    q_marks = re.findall(r'<mark class="c\d" data-p="(\d+)" id="m1-q-\d+">(.*?)</mark>', html, re.S)
    s_marks = re.findall(r'<mark class="c\d" data-p="(\d+)" id="m1-s-\d+">(.*?)</mark>', html, re.S)
    assert [k for k, _ in q_marks] == ["1", "2"]
    assert sorted(k for k, _ in s_marks) == ["1", "2"]
    shown = {k: unescape(t) for k, t in q_marks}
    for k, para in (("1", paras[1]), ("2", paras[3])):  # the whole paragraph up to its last word
        assert para.startswith(shown[k]) and re.fullmatch(r"\W*", para[len(shown[k]) :])
    assert {k: unescape(t) for k, t in s_marks} == shown
    assert "2 shared passages" in html
    store.close()


def _forget_texts(store: Store, name: str) -> None:
    """Drop the collection's stored texts: its documents look added before migration 0003."""
    from sqlalchemy import text as sql

    with store._engines.write.begin() as conn:
        conn.execute(
            sql(
                "DELETE FROM nd_texts WHERE document_id IN (SELECT d.id FROM nd_documents d "
                "JOIN nd_collections c ON c.id = d.collection_id WHERE c.name = :n)"
            ),
            {"n": name},
        )


def test_side_by_side_fetches_a_crawled_source_again(store: Store) -> None:
    from fake_library import serve_library

    with serve_library(kind="first", n_articles=60, slow_seconds=0.0) as site:
        url = sorted(site.articles)[3]
        store.create_collection("lib", "minhash-lsh", threshold=0.5)
        store.add("lib", [Document(url, site.articles[url], source=url)])
        _forget_texts(store, "lib")
        query = site.articles[url].replace(",", "", 5)
        with _client(store) as c:
            html = c.post("/check", data={"collection": "lib", "text": query}, headers=HTML).text
        assert site.fetch_count(url) == 1
    assert f'href="{url}"' in html
    assert 'id="m1-q-1"' in html and 'id="m1-s-1"' in html
    assert f"text fetched again from {url}" in _text(html)


def test_source_fetch_refuses_private_addresses(store: Store) -> None:
    url = "http://127.0.0.1:9/post/1"
    text = "\n\n".join(paragraphs("progit-ru-revisions", 3, min_words=40))
    store.create_collection("lib", "minhash-lsh", threshold=0.5)
    store.add("lib", [Document(url, text, source=url)])
    _forget_texts(store, "lib")
    with _client(store, settings=CrawlSettings(allow_private=False)) as c:
        html = c.post("/check", data={"collection": "lib", "text": text}, headers=HTML).text
    assert "duplicate found" in html and "<mark" not in html
    assert "loopback" in _text(html)


def test_stored_markup_is_shown_as_text(store: Store) -> None:
    evil = "<script>window.pwned = 1</script><img src=x onerror=alert(1)>"
    body = "\n\n".join(paragraphs("progit-ru-revisions", 3, min_words=40))
    name = "<b>bold<b> collection"
    store.create_collection(name, "minhash-lsh", threshold=0.5)
    store.add(name, [Document("evil", f"{evil}\n\n{body}", source="javascript:alert(1)")])
    with _client(store) as c:
        r = c.post("/check", data={"collection": name, "text": f"{evil}\n{body}"}, headers=HTML)
        stats = c.get(f"/collections/{name}", headers=HTML).text
        listing = c.get("/collections", headers=HTML).text
    for html in (r.text, stats, listing):
        assert "<script>window" not in html and "<b>bold" not in html
        assert "<img src=x" not in html
    assert "&lt;script&gt;window.pwned = 1&lt;/script&gt;" in r.text
    assert 'href="javascript:' not in r.text  # a non-http source is not a link
    assert "&lt;b&gt;bold&lt;b&gt; collection" in stats


def test_check_about_fragment(client: TestClient, progit: list[Document]) -> None:
    html = client.get("/check/about?collection=progit").text
    assert "<html" not in html and "Documents" in html and "30" in html
    assert "No collection yet" in client.get("/check/about?collection=nope").text


# -- JSON queue API -----------------------------------------------------------------------------
def test_library_json_api(store: Store) -> None:
    auth = {"Authorization": f"Bearer {TOKEN}"}
    with _client(store, token=TOKEN) as c:
        body = {"url": "http://127.0.0.1:9/", "clarifications": ["post"], "collection": "j"}
        assert c.post("/libraries", json=body).status_code == 401
        r = c.post("/libraries", json=body, headers=auth)
        assert r.status_code == 201
        lib = r.json()
        assert lib["stage"] == "queued" and lib["clarifications"] == ["post"]
        assert [x["id"] for x in c.get("/libraries").json()] == [lib["id"]]
        assert c.get(f"/libraries/{lib['id']}").json()["collection"] == "j"
        assert c.post(f"/libraries/{lib['id']}/stop", headers=auth).json()["stage"] == "stopped"
        assert c.post(f"/libraries/{lib['id']}/resume", headers=auth).json()["stage"] == "queued"
        assert c.delete(f"/libraries/{lib['id']}", headers=auth).status_code == 204
        missing = c.get(f"/libraries/{lib['id']}")
        assert missing.status_code == 404
        assert missing.headers["content-type"].startswith("application/problem+json")
        bad = c.post("/libraries", json={**body, "url": "file:///etc/passwd"}, headers=auth)
        assert bad.status_code == 422 and "only http" in bad.json()["detail"]


# -- the dispatcher runs in the app's lifespan ----------------------------------------------------
@pytest.mark.slow
def test_lifespan_dispatcher_crawls_an_added_library(store: Store) -> None:
    from fake_library import serve_library

    with (
        serve_library(kind="first", n_articles=60, slow_seconds=0.0) as site,
        _client(store, crawl=True) as c,
    ):
        form = {"url": site.base_url + "/", "clarifications": "post", "collection": "fake"}
        assert c.post("/queue/add", data=form, follow_redirects=False).status_code == 303
        lib = _wait_finished(c.app.queue)  # type: ignore[attr-defined]
        row = _text(_row(c.get("/queue/live").text, lib.id))
    assert lib.stage == "done", lib
    assert lib.documents_added == len(site.articles)
    assert "done" in row and str(len(site.articles)) in row
    assert store.stats("fake")["documents"] == len(site.articles)


def _wait_finished(queue, timeout: float = 180.0):  # type: ignore[no-untyped-def]
    """The first library once its crawl is done or failed (generous: a loaded machine)."""
    import time

    deadline = time.monotonic() + timeout
    lib = queue.libraries()[0]
    while lib.stage not in ("done", "failed") and time.monotonic() < deadline:
        time.sleep(0.2)
        lib = queue.libraries()[0]
    return lib


# -- neardup serve ------------------------------------------------------------------------------
def test_serve_passes_the_crawl_flags(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import uvicorn
    from typer.testing import CliRunner

    from neardup.cli.main import app as cli

    served: list[object] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: served.append(app))
    db = f"sqlite:///{tmp_path / 'serve.db'}"
    flags = ["serve", "--db", db, "--no-crawl", "--parallel", "3", "--allow-private"]
    result = CliRunner().invoke(cli, flags)
    assert result.exit_code == 0, result.output
    app = served[0]
    assert app.dispatcher is None  # type: ignore[attr-defined]
    settings = app.queue.settings  # type: ignore[attr-defined]
    assert settings.parallel == 3 and settings.allow_private
    result = CliRunner().invoke(cli, ["serve", "--db", db])
    assert result.exit_code == 0 and served[1].dispatcher is not None  # type: ignore[attr-defined]
    assert not served[1].queue.settings.allow_private  # type: ignore[attr-defined]
    result = CliRunner().invoke(cli, ["serve", "--db", db, "--parallel", "0"])
    assert result.exit_code == 2 and "parallel" in result.output
