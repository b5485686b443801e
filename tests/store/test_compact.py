"""The bulk add path and compact storage (issue 20, migration 0004_compact) on SQLite and
PostgreSQL: the shingle-set format, pending index rows and their merge, removal by
recomputed keys, storage by table, reader errors, and the upgrade from revision 0003."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import text

from neardup.errors import FormatError, InputError
from neardup.index.codec import decode_set, encode_set, encode_sets, set_size, verification_set
from neardup.methods.sets import ShingleSets
from neardup.store import Store
from neardup.store.checkpoints import Checkpoints
from neardup.store.database import Database
from neardup.text.types import Document
from store._db import unique
from store.test_texts import _alembic, _real_docs, _tables_and_version, empty_url  # noqa: F401


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    st_ = Store(db_url)
    yield st_
    st_.close()


def _count(store: Store, sql: str, c: int) -> int:
    with store._read() as conn:
        return int(conn.execute(text(sql), {"c": c}).scalar_one())


def _index_rows(store: Store, name: str) -> tuple[int, int]:
    """(merged, pending) index rows of the collection."""
    c = store.collection(name).id
    merged = _count(store, "SELECT COUNT(*) FROM nd_index WHERE collection_id = :c", c)
    pending = _count(
        store, "SELECT COALESCE(SUM(rows), 0) FROM nd_index_runs WHERE collection_id = :c", c
    )
    return merged, pending


def _rows_each(info: Any) -> int:
    """Index rows of each document of a minhash-lsh collection: a key per band and the
    content-key row (:func:`neardup.index.methods.content_key_rows`)."""
    return int(info.params["bands"]) + 1


# -- the shingle-set format ----------------------------------------------------------------------
_U64 = st.integers(min_value=0, max_value=2**64 - 1)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(_U64, min_size=1, max_size=40), min_size=1, max_size=8))
def test_set_format_round_trip_and_batch_equals_single(sets: list[list[int]]) -> None:
    arrays = [np.unique(np.array(s, dtype=np.uint64)) for s in sets]
    flat = ShingleSets.from_arrays(arrays)
    batch = encode_sets(flat.values, flat.offsets)
    for arr, blob in zip(arrays, batch, strict=True):
        high = np.unique(arr >> np.uint64(32)).astype(np.uint32)
        assert blob == encode_set(arr)
        assert blob[0] == 2 and len(blob) == 1 + 4 * high.shape[0]
        assert np.array_equal(decode_set(blob), high)
        assert set_size(len(blob)) == high.shape[0]
        # format 1 (raw uint64, rows from before migration 0004) reads the same
        legacy = arr.astype("<u8").tobytes()
        assert np.array_equal(decode_set(legacy), high) and set_size(len(legacy)) == arr.shape[0]


def test_set_format_exact_bytes_and_bad_values() -> None:
    values = np.array([0x0000000500000001, 0x0000000500000002, 0xFFFFFFFF00000000], np.uint64)
    assert encode_set(values) == b"\x02" + bytes([5, 0, 0, 0, 255, 255, 255, 255])
    assert np.array_equal(verification_set(values), [5, 0xFFFFFFFF])
    assert decode_set(b"").shape == (0,)  # format 1, the empty set
    for bad in (b"\x07abcd", b"\x02abc", b"\x02" * 7):
        with pytest.raises(FormatError, match="stored shingle set"):
            decode_set(bad)


# -- pending index rows ---------------------------------------------------------------------------
def test_checks_see_pending_rows_and_the_merge_moves_them(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    import neardup.store.adding as module
    import neardup.store.storage as storage

    docs = _real_docs()[:6]
    name = unique("pending")
    info = store.create_collection(name, "minhash-lsh", threshold=0.5)
    bands = _rows_each(info)
    monkeypatch.setattr(storage, "DIRECT_BELOW", 1)  # every batch a bulk batch
    monkeypatch.setattr(module, "merge", lambda db, cid, background: None)  # as if killed before it
    assert store.add(name, docs, batch_size=4).added == len(docs)
    assert _index_rows(store, name) == (0, len(docs) * bands)
    assert store.stats(name)["index_rows"] == len(docs) * bands
    assert store.check(name, docs[2].text).matches[0].doc_id == docs[2].id
    monkeypatch.undo()
    assert store.add(name, docs).added == 0  # a re-run finishes the interrupted merge
    assert _index_rows(store, name) == (len(docs) * bands, 0)
    assert store.check(name, docs[2].text).matches[0].doc_id == docs[2].id


def test_a_merge_leaves_another_collections_pending_rows(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Merging one collection's pending runs moves those and no other's."""
    import neardup.store.adding as module
    import neardup.store.storage as storage

    docs = _real_docs()[:5]
    names = [unique("mine"), unique("other")]
    bands = [_rows_each(store.create_collection(n, "minhash-lsh", threshold=0.5)) for n in names]
    monkeypatch.setattr(storage, "DIRECT_BELOW", 1)
    real = module.merge
    monkeypatch.setattr(module, "merge", lambda db, cid, background: None)
    for n in names:
        assert store.add(n, docs, batch_size=2).added == len(docs)
    monkeypatch.setattr(module, "merge", real)
    assert store.add(names[0], docs).added == 0  # finishes the first collection's merge
    assert _index_rows(store, names[0]) == (len(docs) * bands[0], 0)
    assert _index_rows(store, names[1]) == (0, len(docs) * bands[1])
    assert store.add(names[1], docs).added == 0
    assert _index_rows(store, names[1]) == (len(docs) * bands[1], 0)
    assert store.check(names[1], docs[3].text).matches[0].doc_id == docs[3].id


def _merges(
    store: Store,
    monkeypatch: pytest.MonkeyPatch,
    n_docs: int,
    *,
    merge_rows: int,
    max_rows: int | None = None,
    share: float | None = None,
) -> list[int]:
    """Add ``n_docs`` real documents one a batch (every batch a bulk batch) under these
    merge limits, counted in documents' index rows; the pending rows at each merge, also in
    documents. Checks that nothing is left pending after the add."""
    import neardup.store.adding as module
    import neardup.store.storage as storage

    name = unique("merge")
    each = _rows_each(store.create_collection(name, "minhash-lsh", threshold=0.5))
    merges: list[int] = []
    real = module.merge

    def counting(db: Database, cid: int, background: Checkpoints | None) -> None:
        merges.append(_index_rows(store, name)[1] // each)
        real(db, cid, background)

    monkeypatch.setattr(module, "MERGE_ROWS", merge_rows * each)
    if max_rows is not None:
        monkeypatch.setattr(module, "MERGE_MAX_ROWS", max_rows * each)
    if share is not None:
        monkeypatch.setattr(module, "MERGE_SHARE", share)
    monkeypatch.setattr(storage, "DIRECT_BELOW", 1)
    monkeypatch.setattr(module, "merge", counting)
    store.add(name, _real_docs()[:n_docs], batch_size=1)
    assert _index_rows(store, name) == (n_docs * each, 0)
    return merges


def test_merge_every_merge_rows(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    # after every second document; nothing is left pending, so no final merge
    assert _merges(store, monkeypatch, 6, merge_rows=2) == [2, 2, 2]


def test_merges_grow_with_what_the_add_merged(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    # pending rows at each merge: MERGE_ROWS, then the rows merged so far, at most 3
    assert _merges(store, monkeypatch, 7, merge_rows=1, max_rows=3, share=1.0) == [1, 1, 2, 3]


@pytest.mark.parametrize(
    ("merged", "after"),
    [(0, 2_000_000), (3_000_000, 2_000_000), (5_000_000, 2_500_000), (10**9, 8_000_000)],
)
def test_merge_after(merged: int, after: int) -> None:
    from neardup.store.adding import merge_after

    assert merge_after(merged) == after


@pytest.mark.parametrize(
    ("batch_size", "ahead"), [(2000, 64), (1, 128_000), (30_000, 4), (64_000, 2), (10**6, 2)]
)
def test_ahead_batches(batch_size: int, ahead: int) -> None:
    from neardup.store.adding import ahead_batches

    assert ahead_batches(batch_size) == ahead


def test_adds_share_the_short_switch_interval_and_the_last_restores_it() -> None:
    import sys

    from neardup._collector import Shared
    from neardup.store.adding import ADD_SWITCH_S, shorten_switch_interval

    before = sys.getswitchinterval()
    adding = Shared(shorten_switch_interval)
    try:
        sys.setswitchinterval(0.004)
        with adding.applied():
            assert sys.getswitchinterval() == pytest.approx(ADD_SWITCH_S)
            with adding.applied():  # a second add in another thread
                pass
            assert sys.getswitchinterval() == pytest.approx(ADD_SWITCH_S)
        assert sys.getswitchinterval() == pytest.approx(0.004)
        sys.setswitchinterval(0.0002)  # shorter already: kept
        shorter = sys.getswitchinterval()  # as the interpreter rounds it
        with adding.applied():
            assert sys.getswitchinterval() == shorter
        with pytest.raises(RuntimeError), adding.applied():
            raise RuntimeError
        assert sys.getswitchinterval() == shorter
    finally:
        sys.setswitchinterval(before)


def test_an_add_collects_young_objects_less_often(store: Store) -> None:
    """A real add runs under the raised threshold (seen from its batch callback) and puts
    the process's own back."""
    import gc

    from neardup._collector import YOUNG_THRESHOLD

    seen: list[int] = []
    before = gc.get_threshold()
    store.create_collection(name := unique("gc"), "minhash-lsh")
    store.add(name, _real_docs()[:3], on_batch=lambda _: seen.append(gc.get_threshold()[0]))
    assert seen and set(seen) == {max(before[0], YOUNG_THRESHOLD) if before[0] else 0}
    assert gc.get_threshold() == before


def test_small_batches_write_the_index_directly(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = _real_docs()[:3]
    name = unique("direct")
    info = store.create_collection(name, "minhash-lsh", threshold=0.5)
    import neardup.store.adding as module

    merges: list[int] = []
    monkeypatch.setattr(module, "merge", lambda db, cid, background: merges.append(cid))
    assert store.add(name, docs, batch_size=2).added == len(docs)
    assert _index_rows(store, name) == (len(docs) * _rows_each(info), 0) and merges == []
    assert store.check(name, docs[0].text).matches[0].doc_id == docs[0].id


def test_remove_deletes_the_index_rows_by_recomputed_keys(store: Store) -> None:
    docs = _real_docs()[:5]
    name = unique("remove")
    info = store.create_collection(name, "minhash-lsh", threshold=0.5)
    store.add(name, docs)
    c = info.id
    with store._read() as conn:
        pk = conn.execute(
            text("SELECT id FROM nd_documents WHERE collection_id = :c AND doc_id = :d"),
            {"c": c, "d": docs[1].id},
        ).scalar_one()
    store.remove(name, docs[1].id)
    assert _index_rows(store, name) == (4 * _rows_each(info), 0)
    left = "SELECT COUNT(*) FROM nd_index WHERE collection_id = :c AND document_id = " + str(pk)
    assert _count(store, left, c) == 0
    assert docs[1].id not in [m.doc_id for m in store.check(name, docs[1].text).matches]


def test_lexical_remove_uses_the_signature_keys(store: Store) -> None:
    docs = _real_docs()[:4]
    name = unique("lexrm")
    store.create_collection(name, "tf-ridf", threshold=0.3)
    store.add(name, docs)
    before = _index_rows(store, name)[0]
    store.remove(name, docs[0].id)
    after = _index_rows(store, name)[0]
    assert 0 < after < before
    orphans = (
        "SELECT COUNT(*) FROM nd_index i LEFT JOIN nd_documents d ON d.id = i.document_id "
        "WHERE i.collection_id = :c AND d.id IS NULL"
    )
    assert _count(store, orphans, store.collection(name).id) == 0


# -- storage by table -----------------------------------------------------------------------------
def test_stats_storage_by_table(store: Store) -> None:
    docs = _real_docs()[:8]
    name = unique("sizes")
    store.create_collection(name, "minhash-lsh", threshold=0.5)
    store.add(name, docs)
    stats = store.stats(name, sizes=True)
    tables = stats["storage"]["tables"]
    assert tables["nd_documents"]["rows"] == tables["nd_texts"]["rows"] == len(docs)
    assert tables["nd_shingles"]["rows"] == len(docs) and tables["nd_signatures"]["rows"] == 0
    assert tables["nd_index"]["rows"] == stats["index_rows"]
    for t in ("nd_documents", "nd_texts", "nd_shingles", "nd_index"):
        assert tables[t]["bytes"] > 0
        assert tables[t]["bytes_per_document"] == round(tables[t]["bytes"] / len(docs), 1)
    assert stats["storage"]["total_bytes"] == sum(t["bytes"] for t in tables.values())
    assert "storage" not in store.stats(name)


# -- the reader thread ----------------------------------------------------------------------------
def test_a_reader_error_is_raised_after_the_batches_before_it(store: Store) -> None:
    docs = _real_docs()[:3]
    name = unique("reader")
    store.create_collection(name, "minhash-lsh", threshold=0.5)

    def items() -> Iterator[Document]:
        yield from docs
        raise InputError("corpus.jsonl line 4: not JSON")

    with pytest.raises(InputError, match="line 4"):
        store.add(name, items(), batch_size=1)
    assert store.stats(name)["documents"] == len(docs)
    assert store.check(name, docs[2].text).matches[0].doc_id == docs[2].id


# -- migration 0004 ------------------------------------------------------------------------------
def test_upgrade_from_0003_keeps_index_rows_and_old_sets(empty_url: str) -> None:  # noqa: F811
    """Documents stored, the schema taken back to 0003 (rowid index table) and one set
    rewritten in format 1, then upgraded again: rows kept, both formats verified."""
    docs = _real_docs()[:4]
    with Store(empty_url) as st_:
        info = st_.create_collection("old", "minhash-lsh", threshold=0.5)
        st_.add("old", docs)
    _alembic(empty_url, "downgrade", "0003")
    assert "nd_index_pending" not in _tables_and_version(empty_url)[0]
    from sqlalchemy import create_engine

    from neardup.methods.shingles import Shingling
    from neardup.text.canonical import CanonicalForm

    full = Shingling().fingerprints(CanonicalForm().tokens(docs[1].text))
    legacy = np.unique(np.asarray(full, dtype=np.uint64)).astype("<u8").tobytes()
    engine = create_engine(empty_url)
    with engine.begin() as conn:
        conn.execute(
            text(
                "UPDATE nd_shingles SET fingerprints = :b WHERE document_id = "
                "(SELECT id FROM nd_documents WHERE doc_id = :d)"
            ),
            {"b": legacy, "d": docs[1].id},
        )
    engine.dispose()
    with Store(empty_url) as st_:
        tables, version = _tables_and_version(empty_url)
        assert "nd_index_runs" in tables and version != "0003"
        assert st_.stats("old")["index_rows"] == len(docs) * _rows_each(info)
        got = st_.check("old", docs[1].text).matches[0]
        assert got.doc_id == docs[1].id and got.resemblance == 1.0
        assert st_.document("old", docs[1].id).shingles == len(np.unique(full))
        st_.remove("old", docs[1].id)
        assert st_.stats("old")["index_rows"] == (len(docs) - 1) * _rows_each(info)
