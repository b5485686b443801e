"""REST API with FastAPI's TestClient: flow, token, size limit, problem details, fuzzing."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from neardup.cli.main import app as cli
from neardup.service import ServiceConfig, create_app
from neardup.store import Store
from store._db import unique

TOKEN = "s3cret-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
TEXT = " ".join(f"word{i}" for i in range(80))


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    store = Store(db_url)
    app = create_app(ServiceConfig(token=TOKEN, max_body_bytes=20_000), store=store)
    with TestClient(app) as c:
        yield c
    store.close()


# resp: a TestClient response (an httpx2.Response or httpx.Response by starlette's version)
def _problem(resp: Any, status: int) -> dict[str, Any]:
    assert resp.status_code == status, resp.text
    assert resp.headers["content-type"].startswith("application/problem+json")
    body = resp.json()
    assert body["status"] == status and body["title"] and "detail" in body
    return body


def test_methods_publish_their_parameter_constraints(client: TestClient) -> None:
    """GET /methods: what `neardup methods --json` prints, ranges and choices included."""
    rows = client.get("/methods").json()
    by_name = {r["name"]: r for r in rows}
    assert by_name["megashingles"]["parameters"]["supershingles"]["allowed"] == {
        "type": "int",
        "low": 2,
        "high": "num_maps",
        "low_open": False,
        "none": False,
    }
    assert by_name["spotsigs"]["parameters"]["antecedents"]["allowed"] == {"type": "words"}
    printed = CliRunner().invoke(cli, ["methods", "--json"])
    assert printed.exit_code == 0 and json.loads(printed.stdout) == rows


def test_flow(client: TestClient) -> None:
    name = unique()
    r = client.post(
        "/collections", json={"name": name, "method": "minhash-lsh", "threshold": 0.5}, headers=AUTH
    )
    assert r.status_code == 201 and r.json()["method"] == "minhash-lsh"
    _problem(
        client.post("/collections", json={"name": name, "method": "minhash-lsh"}, headers=AUTH), 409
    )
    r = client.post(
        f"/collections/{name}/documents", json={"id": "a/b.txt", "text": TEXT}, headers=AUTH
    )
    assert r.status_code == 201 and r.json()["added"] == 1
    batch = {"documents": [{"id": f"d{i}", "text": f"{TEXT} extra{i}"} for i in range(3)]}
    r = client.post(f"/collections/{name}/documents/batch", json=batch, headers=AUTH)
    assert r.json()["added"] == 3
    assert client.get(f"/collections/{name}/documents/a/b.txt").json()["length"] == 80
    r = client.post(f"/collections/{name}/check", json={"text": TEXT})
    body = r.json()
    assert body["duplicate"] and body["matches"][0]["id"] == "a/b.txt"
    assert body["matches"][0]["resemblance"] == 1.0
    top = client.post(f"/collections/{name}/check", json={"text": TEXT, "k": 2}).json()
    assert [m["id"] for m in top["matches"]] == ["a/b.txt", "d0"]  # score 1, then the next
    scores = [m["evidence"]["score"] for m in top["matches"]]
    assert scores[0] == 1.0 > scores[1]
    _problem(client.post(f"/collections/{name}/check", json={"text": TEXT, "k": 0}), 422)
    files = {"file": ("q.txt", TEXT.encode(), "text/plain")}
    assert client.post(f"/collections/{name}/check/file", files=files).json()["duplicate"]
    other = {"text": " ".join(f"zz{i}" for i in range(50))}
    assert client.post(f"/collections/{name}/check", json=other).json()["matches"] == []
    assert client.get(f"/collections/{name}").json()["documents"] == 4
    assert name in [c["name"] for c in client.get("/collections").json()]
    r = client.delete(f"/collections/{name}/documents/a/b.txt", headers=AUTH)
    assert r.status_code == 204
    _problem(client.get(f"/collections/{name}/documents/a/b.txt"), 404)
    assert client.delete(f"/collections/{name}", headers=AUTH).status_code == 204
    _problem(client.get(f"/collections/{name}"), 404)


def test_token_required_for_writes(client: TestClient) -> None:
    name = unique()
    body = _problem(client.post("/collections", json={"name": name, "method": "minhash-lsh"}), 401)
    assert "token" in body["detail"]
    bad = {"Authorization": "Bearer wrong"}
    r = client.post("/collections", json={"name": name, "method": "minhash-lsh"}, headers=bad)
    _problem(r, 401)
    assert r.headers["www-authenticate"] == "Bearer"
    assert client.get("/collections").status_code == 200  # reads stay open
    assert (
        client.post(
            "/collections", json={"name": name, "method": "minhash-lsh"}, headers=AUTH
        ).status_code
        == 201
    )
    _problem(client.delete(f"/collections/{name}"), 401)


def test_body_over_limit_is_413(client: TestClient) -> None:
    name = unique()
    client.post("/collections", json={"name": name, "method": "minhash-lsh"}, headers=AUTH)
    big = {"text": "word " * 10_000}
    _problem(client.post(f"/collections/{name}/check", json=big), 413)
    files = {"file": ("big.txt", b"word " * 10_000, "text/plain")}
    _problem(client.post(f"/collections/{name}/check/file", files=files), 413)


@pytest.mark.parametrize(
    ("path", "payload", "status"),
    [
        ("/collections", {"name": "x", "method": "simhash"}, 400),
        ("/collections", {"name": "x", "params": {"num_perm": -1}}, 400),
        ("/collections", {"name": "x", "params": {"bogus": 1}}, 400),
        ("/collections", {"name": "x", "threshold": 2}, 422),
        ("/collections", {"name": "a/b"}, 422),
        ("/collections", {"nme": "x"}, 422),
        ("/collections", [1, 2], 422),
        ("/collections/none/check", {"text": TEXT}, 404),
    ],
)
def test_bad_input_is_problem_json(
    client: TestClient, path: str, payload: object, status: int
) -> None:
    _problem(client.post(path, json=payload, headers=AUTH), status)


def test_bad_check_inputs(client: TestClient) -> None:
    name = unique()
    client.post("/collections", json={"name": name, "method": "minhash-lsh"}, headers=AUTH)
    _problem(client.post(f"/collections/{name}/check", json={"text": "tiny"}), 422)
    _problem(
        client.post(
            f"/collections/{name}/check",
            content=b"{not json",
            headers={"content-type": "application/json"},
        ),
        422,
    )
    files = {"file": ("x.bin", b"\x00\x01\x02binary", "application/octet-stream")}
    _problem(client.post(f"/collections/{name}/check/file", files=files), 422)
    _problem(client.post(f"/collections/{name}/check/file"), 422)


#: Text of a database driver or of SQL, which no answer may carry.
_DRIVER_TEXT = ("psycopg", "sqlite3", "sqlalchemy", "NumericValueOutOfRange", "SELECT ")
_FUZZ_MAX_BODY = 50_000


@pytest.mark.slow
def test_openapi_fuzz_finds_no_server_error(db_url: str) -> None:
    """Schemathesis over every operation, with the token, on a scratch SQLite file and the
    session's scratch PostgreSQL database. Properties of every answer: no 5xx (a 503 for a
    library id past PostgreSQL's INTEGER was one), no driver text, 4xx answers are small
    problem details (validation errors are capped). Then, per operation: a body over the
    limit gets 413, and a method the path does not have gets 405 with ``Allow`` listing
    the methods it has."""
    import schemathesis
    from hypothesis import HealthCheck, given, settings

    from neardup.text.types import Document

    store = Store(db_url)
    store.create_collection(unique("fuzz"), "minhash-lsh", threshold=0.5)
    store.create_collection(unique("lex"), "tf-ridf", threshold=0.5)
    fuzz = store.collections()[-2].name
    store.add(fuzz, [Document("d1", TEXT)])
    config = ServiceConfig(token=TOKEN, max_body_bytes=_FUZZ_MAX_BODY, crawl=False)
    app = create_app(config, store=store)
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    failures: list[str] = []
    calls: list[int] = []

    def answer_ok(where: str, resp) -> None:  # type: ignore[no-untyped-def]
        calls.append(resp.status_code)
        if resp.status_code >= 500:
            failures.append(f"{where} -> {resp.status_code}: {resp.text[:300]}")
        if any(t in resp.text for t in _DRIVER_TEXT):
            failures.append(f"{where} -> driver text: {resp.text[:300]}")
        if 400 <= resp.status_code < 500:
            kind = resp.headers.get("content-type", "")
            kind = kind[0] if isinstance(kind, list) else kind  # schemathesis: lists
            if not kind.startswith("application/problem+json"):
                failures.append(f"{where} -> {resp.status_code} as {kind}")
            if len(resp.content) > 16_384:
                failures.append(f"{where} -> {resp.status_code} of {len(resp.content)} bytes")

    # an Err (the schema does not load) fails here, as it should
    operations = [op.ok() for op in schema.get_all_operations()]  # type: ignore[union-attr]
    for operation in operations:

        @settings(
            max_examples=25,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            derandomize=True,
        )
        @given(case=operation.as_strategy())
        def run(case) -> None:  # type: ignore[no-untyped-def]
            answer_ok(f"{case.method} {case.formatted_path}", case.call(headers=AUTH))

        run()

    with TestClient(app) as client:  # its lifespan closes the app's crawl queue at exit
        values = {"{name}": fuzz, "{doc_id}": "d1", "{library_id}": "1"}
        templates: dict[str, set[str]] = {}
        for operation in operations:
            templates.setdefault(operation.path, set()).add(operation.method.upper())
        for operation in operations:
            if operation.body:  # body size: over the limit is 413, declared or not
                path = _fill(operation.path, values)
                big = {"text": "word " * (_FUZZ_MAX_BODY // 5)}
                resp = client.request(operation.method.upper(), path, json=big, headers=AUTH)
                answer_ok(f"{operation.method} {path} (big body)", resp)
                if resp.status_code != 413:
                    failures.append(f"{operation.method} {path}: big body -> {resp.status_code}")
        for template in templates:  # 405 names every method the path has
            path = _fill(template, values)
            # ".../documents/batch" is also the path of the document "batch"
            methods = set().union(*(m for t, m in templates.items() if _matches(t, path)))
            for method in {"GET", "POST", "PUT", "PATCH", "DELETE"} - methods:
                resp = client.request(method, path, headers=AUTH)
                answer_ok(f"{method} {path}", resp)
                allow = {m.strip() for m in resp.headers.get("allow", "").split(",") if m.strip()}
                if resp.status_code != 405 or allow != methods:
                    failures.append(f"{method} {path}: {resp.status_code}, Allow {sorted(allow)}")
    store.close()
    assert len(calls) > 300
    assert not failures, failures[:5]


def _fill(template: str, values: dict[str, str]) -> str:
    for key, value in values.items():
        template = template.replace(key, value)
    return template


def _matches(template: str, path: str) -> bool:
    """Does ``path`` match the OpenAPI path ``template`` (a document id may hold ``/``)?"""
    import re

    parts = re.split(r"(\{[^}]+\})", template)
    pattern = "".join(
        (".+" if p == "{doc_id}" else "[^/]+") if p.startswith("{") else re.escape(p) for p in parts
    )
    return re.fullmatch(pattern, path) is not None


def test_collection_with_a_users_stop_words_and_symbols(client: TestClient) -> None:
    name = unique()
    canonical = {"stop_word_list": ["zz", "qq"], "stop_symbols": ".,"}
    body = {"name": name, "method": "shingles-full", "threshold": 0.95, "canonical": canonical}
    r = client.post("/collections", json=body, headers=AUTH)
    assert r.status_code == 201, r.text
    assert r.json()["canonical"]["stop_word_list"] == ["qq", "zz"]
    doc = {"id": "a", "text": TEXT + ". zz zz zz"}
    assert client.post(f"/collections/{name}/documents", json=doc, headers=AUTH).status_code == 201
    match = client.post(f"/collections/{name}/check", json={"text": TEXT + ", qq qq"}).json()
    assert [m["id"] for m in match["matches"]] == ["a"]
    too_long = {**body, "name": unique(), "canonical": {"stop_word_list": ["x" * 101]}}
    _problem(client.post("/collections", json=too_long, headers=AUTH), 422)


@pytest.mark.parametrize("method", ["sl-st", "spotsigs"])
def test_a_paper_method_backs_a_collection_over_the_api(client: TestClient, method: str) -> None:
    """Issue 29: SL+ST and SpotSigs have index keys, so the service runs them too."""
    from pathlib import Path

    corpus = Path(__file__).resolve().parents[2] / "examples" / "corpus" / "progit"
    old = (corpus / "2016" / "rerere.asc").read_text("utf-8")
    new = (corpus / "latest" / "rerere.asc").read_text("utf-8")
    name = unique()
    body = {"name": name, "method": method, "threshold": 0.5}
    assert client.post("/collections", json=body, headers=AUTH).status_code == 201
    doc = {"id": "rerere-2016", "text": old}
    assert client.post(f"/collections/{name}/documents", json=doc, headers=AUTH).status_code == 201
    got = client.post(f"/collections/{name}/check", json={"text": new}).json()
    assert [m["id"] for m in got["matches"]] == ["rerere-2016"]
    assert got["matches"][0]["evidence"]["decision"] == "own"


@pytest.mark.parametrize(("method", "on_loop"), [("minhash-lsh", True), ("tf-ridf", False)])
def test_short_checks_run_on_the_loop_when_they_only_read(
    client: TestClient, db_url: str, monkeypatch: pytest.MonkeyPatch, method: str, on_loop: bool
) -> None:
    """A check of a short text skips the thread-pool hop once the store knows the
    collection's checks only read; a lexical collection's (a check may recompute), a long
    text's and a PostgreSQL store's (a round trip to a server) stay in the pool."""
    from starlette.concurrency import run_in_threadpool as pool

    import neardup.service.api as api

    on_loop = on_loop and db_url.startswith("sqlite")
    hops: list[str] = []

    async def counted(func: Any, *args: Any, **kwargs: Any) -> Any:
        hops.append(getattr(func, "__name__", "?"))
        return await pool(func, *args, **kwargs)

    monkeypatch.setattr(api, "run_in_threadpool", counted)
    name = unique()
    client.post("/collections", json={"name": name, "method": method}, headers=AUTH)
    docs = {"documents": [{"id": f"d{i}", "text": f"{TEXT} extra{i}"} for i in range(3)]}
    assert client.post(f"/collections/{name}/documents/batch", json=docs, headers=AUTH).is_success
    hops.clear()
    for _ in range(2):  # the first check tells the store what the collection's checks do
        r = client.post(f"/collections/{name}/check", json={"text": f"{TEXT} extra1"})
        assert r.status_code == 200 and "d1" in {m["id"] for m in r.json()["matches"]}
    assert hops == (["check"] if on_loop else ["check", "check"])
    hops.clear()
    monkeypatch.setattr(api, "INLINE_CHECK_CHARS", len(TEXT))  # the body limit is 20,000
    long = f"{TEXT} extra1"
    assert client.post(f"/collections/{name}/check", json={"text": long}).status_code == 200
    assert hops == ["check"]
