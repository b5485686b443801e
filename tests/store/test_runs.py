"""Pending index rows as runs (migration 0008, :mod:`neardup.store.runs`): the stored format,
checks and removal while rows are pending, and the migration both ways, on SQLite and
PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import create_engine, text

from neardup.errors import StoreError
from neardup.store import Store
from neardup.store.runs import RUN_FORMAT, decode_run, encode_run
from store._db import unique
from store.test_compact import _index_rows, _rows_each
from store.test_texts import _alembic, _real_docs, _tables_and_version, empty_url  # noqa: F401

_I64 = st.integers(min_value=-(2**63), max_value=2**63 - 1)


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    st_ = Store(db_url)
    yield st_
    st_.close()


@pytest.fixture
def unmerged(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every batch a bulk batch, and no merge: rows stay in runs, as after a killed add."""
    import neardup.store.adding as adding
    import neardup.store.storage as storage

    monkeypatch.setattr(storage, "DIRECT_BELOW", 1)
    monkeypatch.setattr(adding, "merge", lambda db, cid, background: None)


# -- the format --------------------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(_I64, st.integers(0, 2**15 - 1), _I64), max_size=50))
def test_run_round_trip(rows: list[tuple[int, int, int]]) -> None:
    rows.sort(key=lambda r: r[0])
    key = np.array([r[0] for r in rows], dtype=np.int64)
    band = np.array([r[1] for r in rows], dtype=np.int64)
    doc = np.array([r[2] for r in rows], dtype=np.int64)
    payload = encode_run(key, band, doc)
    assert len(payload) == 1 + 18 * len(rows)
    run = decode_run(payload)
    assert run.key.tolist() == key.tolist()
    assert run.band.tolist() == band.tolist()
    assert run.document.tolist() == doc.tolist()


def test_run_exact_bytes() -> None:
    payload = encode_run(np.array([-1, 2]), np.array([3, 40]), np.array([7, 2**40]))
    assert payload == (
        bytes([RUN_FORMAT])
        + (-1).to_bytes(8, "little", signed=True)
        + (2).to_bytes(8, "little")
        + (7).to_bytes(8, "little")
        + (2**40).to_bytes(8, "little")
        + (3).to_bytes(2, "little")
        + (40).to_bytes(2, "little")
    )


def test_bad_runs_are_refused() -> None:
    with pytest.raises(ValueError, match="sorted"):
        encode_run(np.array([5, 1]), np.array([0, 0]), np.array([1, 2]))
    with pytest.raises(ValueError, match="one length"):
        encode_run(np.array([1, 5]), np.array([0]), np.array([1, 2]))
    good = encode_run(np.array([1]), np.array([0]), np.array([9]))
    with pytest.raises(StoreError, match="version byte 2"):
        decode_run(b"\x02" + good[1:])
    with pytest.raises(StoreError, match="18 bytes"):
        decode_run(good[:-1])
    with pytest.raises(StoreError, match="0 bytes"):
        decode_run(b"")


# -- a collection with pending runs ------------------------------------------------------------
def test_checks_find_documents_in_several_runs(store: Store, unmerged: None) -> None:
    docs = _real_docs()[:7]
    name = unique("runs")
    info = store.create_collection(name, "minhash-lsh", threshold=0.5)
    assert store.add(name, docs, batch_size=3).added == len(docs)  # runs of 3, 3, 1
    assert _index_rows(store, name) == (0, len(docs) * _rows_each(info))
    for doc in docs:
        got = store.check(name, doc.text).matches
        assert got[0].doc_id == doc.id and got[0].resemblance == 1.0
    edited = docs[4].text.replace(" ", "  ", 3) + " and one more sentence at the end."
    assert store.check(name, edited).matches[0].doc_id == docs[4].id


def test_remove_while_rows_are_pending_merges_them_first(store: Store, unmerged: None) -> None:
    docs = _real_docs()[:5]
    name = unique("runs")
    info = store.create_collection(name, "minhash-lsh", threshold=0.5)
    each = _rows_each(info)
    store.add(name, docs, batch_size=2)
    store.remove(name, docs[1].id)
    assert _index_rows(store, name) == ((len(docs) - 1) * each, 0)
    assert store.stats(name)["index_rows"] == (len(docs) - 1) * each
    assert store.check(name, docs[1].text).matches == ()
    assert store.check(name, docs[3].text).matches[0].doc_id == docs[3].id


def test_stats_count_pending_rows_and_their_bytes(store: Store, unmerged: None) -> None:
    docs = _real_docs()[:4]
    name = unique("runs")
    info = store.create_collection(name, "minhash-lsh", threshold=0.5)
    store.add(name, docs, batch_size=2)
    stats = store.stats(name, sizes=True)
    runs = stats["storage"]["tables"]["nd_index_runs"]
    assert runs["rows"] == stats["index_rows"] == len(docs) * _rows_each(info)
    assert stats["storage"]["tables"]["nd_index"]["rows"] == 0
    assert runs["bytes"] > 18 * runs["rows"]


def test_delete_collection_drops_its_runs(store: Store, unmerged: None) -> None:
    docs = _real_docs()[:3]
    keep, drop = unique("keep"), unique("drop")
    for n in (keep, drop):
        store.create_collection(n, "minhash-lsh", threshold=0.5)
        store.add(n, docs, batch_size=2)
    cid = store.collection(drop).id
    store.delete_collection(drop)
    with store._read() as conn:
        left = conn.execute(
            text("SELECT COUNT(*) FROM nd_index_runs WHERE collection_id = :c"), {"c": cid}
        ).scalar_one()
    assert left == 0
    assert store.check(keep, docs[2].text).matches[0].doc_id == docs[2].id


# -- migration 0008 ----------------------------------------------------------------------------
def test_downgrade_moves_runs_into_the_index_and_upgrade_back(
    empty_url: str,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import neardup.store.adding as adding
    import neardup.store.storage as storage

    docs = _real_docs()[:5]
    with Store(empty_url) as st_:
        info = st_.create_collection("old", "minhash-lsh", threshold=0.5)
        each = _rows_each(info)
        with monkeypatch.context() as m:
            m.setattr(storage, "DIRECT_BELOW", 1)
            m.setattr(adding, "merge", lambda db, cid, background: None)
            st_.add("old", docs, batch_size=2)
    _alembic(empty_url, "downgrade", "0007")
    tables, version = _tables_and_version(empty_url)
    assert version == "0007" and "nd_index_runs" not in tables and "nd_index_pending" in tables
    engine = create_engine(empty_url)
    try:
        with engine.connect() as conn:
            merged = conn.execute(text("SELECT COUNT(*) FROM nd_index")).scalar_one()
            pending = conn.execute(text("SELECT COUNT(*) FROM nd_index_pending")).scalar_one()
    finally:
        engine.dispose()
    assert (merged, pending) == (len(docs) * each, 0)
    with Store(empty_url) as st_:
        assert _tables_and_version(empty_url)[1] == "0008"
        assert st_.stats("old")["index_rows"] == len(docs) * each
        for doc in docs:
            assert st_.check("old", doc.text).matches[0].doc_id == doc.id
