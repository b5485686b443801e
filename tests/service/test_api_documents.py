"""REST API: a collection's documents listed page by page, one read with its text, removed
(issue 30, the librarian's journey)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from neardup.service import ServiceConfig, create_app
from neardup.store import Store
from store._db import unique

TOKEN = "s3cret-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
CHEKHOV = (
    "Антон Чехов\n"
    "Толстый и тонкий. На вокзале Николаевской железной дороги встретились два приятеля: "
    "один толстый, другой тонкий. Толстый только что пообедал на вокзале, и губы его, "
    "подернутые маслом, лоснились, как спелые вишни."
)


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    store = Store(db_url)
    app = create_app(ServiceConfig(token=TOKEN, crawl=False), store=store)
    with TestClient(app) as c:
        yield c
    store.close()


def _collection(client: TestClient, n: int) -> str:
    name = unique()
    assert (
        client.post(
            "/collections", json={"name": name, "method": "minhash-lsh"}, headers=AUTH
        ).status_code
        == 201
    )
    docs = [
        {
            "id": f"doc{i:02d}.txt",
            "text": f"{CHEKHOV} Вариант {i}.",
            "source": f"/lib/doc{i:02d}.txt",
        }
        for i in range(n)
    ]
    r = client.post(f"/collections/{name}/documents/batch", json={"documents": docs}, headers=AUTH)
    assert r.json()["added"] == n, r.text
    return name


def test_documents_are_listed_page_by_page(client: TestClient) -> None:
    name = _collection(client, 5)
    r = client.get(f"/collections/{name}/documents", params={"offset": 1, "limit": 3})
    assert r.status_code == 200, r.text
    page = r.json()
    assert (page["total"], page["offset"], page["limit"]) == (5, 1, 3)
    assert [d["id"] for d in page["documents"]] == ["doc01.txt", "doc02.txt", "doc03.txt"]
    first = page["documents"][0]
    assert first["source"] == "/lib/doc01.txt"
    one = client.get(f"/collections/{name}/documents/doc01.txt").json()
    assert first["tokens"] == one["length"] > 0
    assert first["added_at"] == one["added_at"] and first["title"] == one["title"]
    assert set(first) == {"id", "title", "source", "tokens", "added_at"}
    tail = client.get(f"/collections/{name}/documents", params={"offset": 4}).json()
    assert [d["id"] for d in tail["documents"]] == ["doc04.txt"]
    assert client.get(f"/collections/{name}/documents", params={"limit": 0}).status_code == 422
    assert client.get(f"/collections/{unique()}/documents").status_code == 404


def test_a_document_is_read_with_its_text_and_removed(client: TestClient) -> None:
    name = _collection(client, 2)
    got = client.get(f"/collections/{name}/documents/doc01.txt").json()
    assert got["text"] == f"{CHEKHOV} Вариант 1."
    assert got["source"] == "/lib/doc01.txt"
    r = client.delete(f"/collections/{name}/documents/doc01.txt", headers=AUTH)
    assert r.status_code == 204
    assert client.get(f"/collections/{name}/documents/doc01.txt").status_code == 404
    page = client.get(f"/collections/{name}/documents").json()
    assert page["total"] == 1 and [d["id"] for d in page["documents"]] == ["doc00.txt"]
