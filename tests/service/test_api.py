"""REST API with FastAPI's TestClient: flow, token, size limit, problem details, fuzzing."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from neardup.service import ServiceConfig, create_app
from neardup.store import Store
from store._db import unique

TOKEN = "s3cret-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
TEXT = " ".join(f"word{i}" for i in range(80))


@pytest.fixture
def client(db_url: str):  # type: ignore[no-untyped-def]
    store = Store(db_url)
    app = create_app(ServiceConfig(token=TOKEN, max_body_bytes=20_000), store=store)
    with TestClient(app) as c:
        yield c
    store.close()


def _problem(resp, status: int) -> dict:  # type: ignore[no-untyped-def]
    assert resp.status_code == status, resp.text
    assert resp.headers["content-type"].startswith("application/problem+json")
    body = resp.json()
    assert body["status"] == status and body["title"] and "detail" in body
    return body


def test_flow(client: TestClient) -> None:
    name = unique()
    r = client.post("/collections", json={"name": name, "threshold": 0.5}, headers=AUTH)
    assert r.status_code == 201 and r.json()["method"] == "minhash-lsh"
    _problem(client.post("/collections", json={"name": name}, headers=AUTH), 409)
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
    body = _problem(client.post("/collections", json={"name": name}), 401)
    assert "token" in body["detail"]
    bad = {"Authorization": "Bearer wrong"}
    r = client.post("/collections", json={"name": name}, headers=bad)
    _problem(r, 401)
    assert r.headers["www-authenticate"] == "Bearer"
    assert client.get("/collections").status_code == 200  # reads stay open
    assert client.post("/collections", json={"name": name}, headers=AUTH).status_code == 201
    _problem(client.delete(f"/collections/{name}"), 401)


def test_body_over_limit_is_413(client: TestClient) -> None:
    name = unique()
    client.post("/collections", json={"name": name}, headers=AUTH)
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
    client.post("/collections", json={"name": name}, headers=AUTH)
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


def test_openapi_fuzz_finds_no_server_error(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Schemathesis: every operation with generated input never answers 5xx."""
    import schemathesis
    from hypothesis import HealthCheck, given, settings

    store = Store(f"sqlite:///{tmp_path / 'fuzz.db'}")
    store.create_collection("fuzz", threshold=0.5)
    store.create_collection("lex", "tf-ridf", threshold=0.5)
    from neardup.text.types import Document

    store.add("fuzz", [Document("d1", TEXT)])
    app = create_app(ServiceConfig(max_body_bytes=50_000), store=store)
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    failures: list[str] = []
    calls: list[int] = []
    for op in schema.get_all_operations():
        operation = op.ok()

        @settings(
            max_examples=25,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            derandomize=True,
        )
        @given(case=operation.as_strategy())
        def run(case) -> None:  # type: ignore[no-untyped-def]
            resp = case.call()
            calls.append(resp.status_code)
            if resp.status_code >= 500:
                failures.append(f"{case.method} {case.path} -> {resp.status_code}: {resp.text}")

        run()
    store.close()
    assert len(calls) > 100
    assert not failures, failures[:5]
