"""SQL built only with bound parameters: injection strings as names, ids, texts and queries.

Every store entry point that takes a caller's string (collection names, document ids,
sources, texts, check queries, lookups, removal) gets strings that would break or extend a
query built by string formatting: quotes, comment markers, statement separators, dollar
quoting, LIKE wildcards. On SQLite and on PostgreSQL: every call behaves as for any other
string (round trip exact, no error), and afterwards every neardup table still exists with
the row counts it should have. A query assembled with an f-string from any of these values
would raise a syntax error (``StoreError``) or drop a table, and fail the test.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect, text

from neardup.errors import CollectionNotFound, DocumentNotFound
from neardup.store import Store
from neardup.text.types import Document
from security._app import AUTH, client
from shared_data import paragraphs
from store._db import unique

INJECTIONS = [
    "x'); DROP TABLE nd_documents;--",
    "Robert'); DROP TABLE nd_collections; --",
    "'; DELETE FROM nd_index; --",
    "' OR '1'='1",
    '" OR 1=1 --',
    "1; ATTACH DATABASE 'evil.db' AS evil; --",
    "$$; DROP TABLE nd_shingles; $$",
    "\\'; DROP TABLE nd_signatures; --",
    "%",
    "_",
    "a%' --",
    "/* comment */ x",
    "x:name",
    "%(name)s",
    "?",
]
TABLES = {"nd_collections", "nd_documents", "nd_signatures", "nd_shingles", "nd_index",
          "nd_terms", "nd_doc_terms"}  # fmt: skip


def _tables(url: str) -> set[str]:
    engine = create_engine(url)
    try:
        return set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


def _count(url: str, table: str) -> int:
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return int(conn.execute(text(f"SELECT COUNT(*) FROM {table}")).scalar_one())
    finally:
        engine.dispose()


@pytest.mark.parametrize("method", ["minhash-lsh", "tf-ridf"])
def test_store_with_injection_strings(db_url: str, method: str) -> None:
    texts = paragraphs("progit-ru-revisions", len(INJECTIONS))
    with Store(db_url) as store:
        tables = _tables(store.url)
        assert tables >= TABLES
        guard = unique("guard")
        store.create_collection(guard, method)
        store.add(guard, [Document("g", texts[0])])
        made = []
        for i, bad in enumerate(INJECTIONS):
            name = f"{bad} {unique()}".replace("/", "")  # names have no "/"
            store.create_collection(name, method)
            made.append(name)
            docs = [
                Document(bad, f"{texts[i]} {bad}", source=bad),
                Document(f"{bad}2", texts[i - 1]),
            ]
            report = store.add(name, docs)
            assert report.added == 2, report
            assert store.document(name, bad).doc_id == bad
            assert store.document(name, bad).source == bad
            ids = [m.doc_id for m in store.check(name, f"{texts[i]} {bad}").matches]
            assert bad in ids
            assert store.stats(name)["documents"] == 2
            store.remove(name, f"{bad}2")
            with pytest.raises(DocumentNotFound):
                store.document(name, f"{bad}2")
            with pytest.raises(DocumentNotFound):
                store.document(name, "' OR ''='")  # matches nothing, not everything
        for bad in ("%", "_", "' OR '1'='1", f"{guard}' --"):
            with pytest.raises(CollectionNotFound):
                store.stats(bad)
        assert {c.name for c in store.collections()} >= {guard, *made}
        assert store.stats(guard)["documents"] == 1
        for name in made:
            assert store.stats(name)["documents"] == 1
            store.delete_collection(name)
        assert store.stats(guard)["documents"] == 1
        assert _tables(store.url) == tables
        assert _count(store.url, "nd_collections") >= 1
        store.delete_collection(guard)


@pytest.mark.slow
def test_api_with_injection_strings(db_url: str, tmp_path: Path) -> None:
    texts = paragraphs("progit-ru-revisions", len(INJECTIONS))
    from urllib.parse import quote

    with client(db_url) as c:
        url = c.app.store.url  # type: ignore[attr-defined]  # create_app's wrapper
        tables = _tables(url)
        for i, bad in enumerate(INJECTIONS):
            name = f"{bad} {unique()}".replace("/", "")
            r = c.post("/collections", json={"name": name, "method": "minhash-lsh"}, headers=AUTH)
            assert r.status_code == 201, r.text
            path = f"/collections/{quote(name, safe='')}"
            doc = {"id": bad, "text": f"{texts[i]} {bad}", "source": bad}
            assert c.post(f"{path}/documents", json=doc, headers=AUTH).status_code == 201
            r = c.get(f"{path}/documents/{quote(bad, safe='')}")
            assert r.status_code == 200 and r.json()["id"] == bad
            r = c.post(f"{path}/check", json={"text": doc["text"]})
            assert r.status_code == 200 and r.json()["matches"][0]["id"] == bad
            assert c.get(path).json()["documents"] == 1
            assert c.delete(path, headers=AUTH).status_code == 204
        assert _tables(url) == tables


def test_api_nul_and_overlong_names_are_4xx_on_both_databases(db_url: str) -> None:
    """PostgreSQL refuses NUL in any text parameter: such names must never reach a query
    (a 503 'database error' before the fix)."""
    text_ = paragraphs("progit-ru-revisions", 1)[0]
    with client(db_url) as c:
        name = unique()
        assert (
            c.post(
                "/collections", json={"name": name, "method": "minhash-lsh"}, headers=AUTH
            ).status_code
            == 201
        )
        r = c.post(
            f"/collections/{name}/documents", json={"id": "a\x00b", "text": text_}, headers=AUTH
        )
        assert r.status_code == 201 and r.json()["added"] == 0
        assert r.json()["skipped"][0]["reason"] == "unreadable"
        for path, status in [
            (f"/collections/{name}%00", 404),
            (f"/collections/{name}/documents/a%00b", 404),
            (f"/collections/{'n' * 5000}", 422),
            (f"/collections/{name}/documents/{'d' * 5000}", 422),
        ]:
            r = c.get(path)
            assert r.status_code == status, (path[:80], r.status_code, r.text[:200])
            r = c.delete(path, headers=AUTH)
            assert r.status_code == status, (path[:80], r.status_code, r.text[:200])
        r = c.post(f"/collections/{name}%00/check", json={"text": text_})
        assert r.status_code == 404
        assert c.get(f"/collections/{name}").json()["documents"] == 0
