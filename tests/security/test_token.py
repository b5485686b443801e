"""The API token: every write route needs it, and it is compared in constant time.

The comparison test records the calls of :func:`hmac.compare_digest`: a token check
rewritten as ``==`` (whose time depends on the length of the common prefix, which lets a
client find the token byte by byte) records nothing and fails the test.
"""

from __future__ import annotations

import hmac
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from security._app import AUTH, TOKEN, client
from shared_data import paragraphs

#: Every route that changes state, with a body that would otherwise be accepted.
WRITES: list[tuple[str, str, dict[str, Any]]] = [
    ("post", "/collections", {"json": {"name": "w"}}),
    ("delete", "/collections/c", {}),
    ("post", "/collections/c/recompute", {}),
    ("post", "/collections/c/documents", {"json": {"id": "x", "text": "a b c d e f"}}),
    ("post", "/collections/c/documents/batch", {"json": {"documents": [{"id": "y", "text": "a"}]}}),
    ("delete", "/collections/c/documents/d0", {}),
    ("post", "/libraries", {"json": {"url": "https://example.org/"}}),
    ("delete", "/libraries/1", {}),
    ("post", "/libraries/1/stop", {}),
    ("post", "/libraries/1/resume", {}),
]
WRONG = [
    None,
    "",
    "Bearer",
    "Bearer ",
    "Bearer wrong",
    f"Bearer {TOKEN[:-1]}",
    f"Bearer {TOKEN}x",
    f"Bearer {TOKEN.lower()}",
    f"Bearer  {TOKEN} extra",
    f"Basic {TOKEN}",
    TOKEN,
]


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """One app for the module: the tests that write clean up after themselves."""
    tmp_path = tmp_path_factory.mktemp("token")
    # 110+ wrong tokens from one client: the guessing throttle (issue 27, tested in
    # tests/service/test_hostile_service.py) is set out of the way
    with client(f"sqlite:///{tmp_path / 'db.sqlite'}", auth_failures=100_000) as c:
        assert c.post("/collections", json={"name": "c"}, headers=AUTH).status_code == 201
        text = paragraphs("progit-ru-revisions", 1)[0]
        doc = {"id": "d0", "text": text}
        assert c.post("/collections/c/documents", json=doc, headers=AUTH).status_code == 201
        yield c


def _problem_401(resp) -> None:  # type: ignore[no-untyped-def]
    assert resp.status_code == 401, resp.text
    assert resp.headers["content-type"].startswith("application/problem+json")
    assert resp.headers["www-authenticate"] == "Bearer"
    assert TOKEN not in resp.text


@pytest.mark.parametrize("route", WRITES, ids=[f"{m} {p}" for m, p, _ in WRITES])
@pytest.mark.parametrize("header", WRONG, ids=range(len(WRONG)))
def test_writes_refuse_a_missing_or_wrong_token(api: TestClient, route, header) -> None:  # type: ignore[no-untyped-def]
    method, path, kwargs = route
    headers = {} if header is None else {"Authorization": header}
    _problem_401(getattr(api, method)(path, headers=headers, **kwargs))


def test_nothing_was_written_without_the_token(api: TestClient) -> None:
    for method, path, kwargs in WRITES:
        getattr(api, method)(path, headers={"Authorization": "Bearer nope"}, **kwargs)
    assert [c["name"] for c in api.get("/collections").json()] == ["c"]
    stats = api.get("/collections/c").json()
    assert stats["documents"] == 1
    assert api.get("/collections/c/documents/d0").status_code == 200
    assert api.get("/libraries").json() == []


def test_every_state_changing_route_is_covered(api: TestClient) -> None:
    """A new API write route must be added to WRITES (checks are reads; UI forms have their
    own token field, tested below)."""
    covered = {(m.upper(), p) for m, p, _ in WRITES}
    routes = {
        (method, r.path)
        for r in api.app.fastapi.routes  # type: ignore[attr-defined]  # create_app's wrapper
        for method in getattr(r, "methods", None) or ()
        if method in ("POST", "PUT", "PATCH", "DELETE")
        and r.path.startswith(("/collections", "/libraries"))
        and not r.path.endswith(("/check", "/check/file"))
        and getattr(r.endpoint, "__module__", "") != "neardup.service.ui"  # UI forms: below
    }
    normalised = {
        (m, p.replace("{name}", "c").replace("{doc_id:docid}", "d0").replace("{library_id}", "1"))
        for m, p in routes
    }
    assert normalised <= covered, normalised - covered


def test_the_right_token_is_accepted(api: TestClient) -> None:
    r = api.post("/collections", json={"name": "w"}, headers=AUTH)
    assert r.status_code == 201
    assert api.delete("/collections/w", headers=AUTH).status_code == 204


def test_token_compared_with_compare_digest(
    api: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[tuple[bytes, bytes]] = []
    real = hmac.compare_digest

    def recording(a, b):  # type: ignore[no-untyped-def]
        calls.append((bytes(a), bytes(b)))
        return real(a, b)

    monkeypatch.setattr(hmac, "compare_digest", recording)
    _problem_401(
        api.post("/collections", json={"name": "z"}, headers={"Authorization": "Bearer guess"})
    )
    assert (b"guess", TOKEN.encode()) in calls
    calls.clear()
    assert api.post("/collections", json={"name": "z"}, headers=AUTH).status_code == 201
    assert (TOKEN.encode(), TOKEN.encode()) in calls


def test_missing_token_is_compared_too(api: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """No early return on a missing header whose timing would differ from a wrong one's."""
    calls: list[object] = []
    real = hmac.compare_digest
    monkeypatch.setattr(
        hmac,
        "compare_digest",
        lambda a, b: calls.append(1) or real(a, b),  # type: ignore[func-returns-value]
    )
    _problem_401(api.delete("/collections/c"))
    assert calls


def test_ui_forms_need_the_token_and_compare_it_in_constant_time(
    api: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[tuple[bytes, bytes]] = []
    real = hmac.compare_digest

    def recording(a, b):  # type: ignore[no-untyped-def]
        calls.append((bytes(a), bytes(b)))
        return real(a, b)

    monkeypatch.setattr(hmac, "compare_digest", recording)
    html = {"Accept": "text/html"}
    form = {"url": "https://example.org/", "clarifications": "post", "token": "guess"}
    r = api.post("/queue/add", data=form, headers=html, follow_redirects=False)
    assert r.status_code == 401
    assert (b"guess", TOKEN.encode()) in calls
    assert api.get("/libraries").json() == []
    r = api.post("/token", data={"token": "guess"}, headers=html, follow_redirects=False)
    assert r.status_code == 401 and "neardup_session" not in r.headers.get("set-cookie", "")
