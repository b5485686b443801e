"""The database access the store and the crawler share (neardup.store.database), and the
store functions the crawler reads the store's tables through (neardup.store.documents)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import literal, select, text
from sqlalchemy.exc import IntegrityError, OperationalError, ProgrammingError

from neardup.errors import StoreError
from neardup.store import Store
from neardup.store import schema as s
from neardup.store.database import Database, first_line, store_errors
from neardup.store.documents import ids_with_prefix, stored
from neardup.text.types import Document
from store._db import unique


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    with Store(db_url) as st:
        yield st


def test_store_errors_says_unavailable_or_error() -> None:
    unavailable = r"^database unavailable: \(builtins.Exception\) no server$"
    with pytest.raises(StoreError, match=unavailable), store_errors():
        raise OperationalError("SELECT 1", {}, Exception("no server\nmore"))
    error = r"^database error: \(builtins.Exception\) bad$"
    with pytest.raises(StoreError, match=error), store_errors():
        raise ProgrammingError("SELECT 1", {}, Exception("bad"))
    with pytest.raises(KeyError), store_errors():  # not a database error: left as it is
        raise KeyError("x")


def test_first_line() -> None:
    assert first_line(ValueError("one\ntwo")) == "one"
    assert first_line(ValueError("")) == "ValueError"
    assert first_line(ValueError("x" * 400)) == "x" * 300


def test_a_write_keeps_integrity_errors_and_translates_the_others(db_url: str) -> None:
    db = Database(db_url)
    try:
        name = unique("tx")
        row = {"name": name, "method": "m", "params": "{}", "canonical": "{}"}
        values = {**row, "measure": "resemblance", "threshold": 0.5, "min_tokens": 1}
        insert = text(
            "INSERT INTO nd_collections (name, method, params, canonical, measure, threshold, "
            "min_tokens, stats_dirty, created_at) VALUES (:name, :method, :params, :canonical, "
            ":measure, :threshold, :min_tokens, false, CURRENT_TIMESTAMP)"
        )
        with db.write() as conn:
            conn.execute(insert, values)
        with pytest.raises(IntegrityError), db.write() as conn:  # the caller's to name
            conn.execute(insert, values)
        with pytest.raises(StoreError, match=r"^database error: "), db.read() as conn:
            conn.execute(text("SELECT nope FROM nd_collections"))
        with db.read() as conn:
            rows = conn.execute(
                select(s.collections.c.id).where(s.collections.c.name == name)
            ).all()
        assert len(rows) == 1
    finally:
        db.close()


def test_document_lookups_for_the_crawler(store: Store) -> None:
    name = unique("crawl")
    store.create_collection(name, "minhash-lsh", min_tokens=1)
    ids = ["http://h/a_1", "http://h/ab1", "http://h/a%1", "http://other/a_1"]
    store.add(name, [Document(i, f"text number {n} of the site") for n, i in enumerate(ids)])
    with store._read() as conn:
        # LIKE's wildcards in the prefix are plain characters
        assert ids_with_prefix(conn, name, "http://h/a_") == {"http://h/a_1"}
        assert ids_with_prefix(conn, name, "http://h/a%") == {"http://h/a%1"}
        assert ids_with_prefix(conn, name, "http://h/") == set(ids[:3])
        assert ids_with_prefix(conn, unique("none"), "http://h/") == set()
        probe = [
            conn.execute(select(stored(name, literal(u)))).scalar()
            for u in ("http://h/ab1", "http://h/nope")
        ]
        assert probe == [True, False]
        assert not conn.execute(select(stored(unique("none"), literal("http://h/ab1")))).scalar()
