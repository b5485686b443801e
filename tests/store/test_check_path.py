"""The check path and the storage of migration 0006 (issue 20) on SQLite and PostgreSQL:
titles derived from the stored text, the cached collection row, PostgreSQL's index layout
and the upgrade from revision 0005."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from sqlalchemy import create_engine, inspect, text

from neardup.index.codec import title
from neardup.store import Store
from neardup.text.types import Document
from store._db import unique
from store.test_texts import _alembic, _real_docs, _tables_and_version, empty_url  # noqa: F401


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    st_ = Store(db_url)
    yield st_
    st_.close()


def _stored_titles(store: Store, name: str) -> dict[str, str]:
    with store._read() as conn:
        rows = conn.execute(
            text(
                "SELECT d.doc_id, d.title FROM nd_documents d JOIN nd_collections c "
                "ON c.id = d.collection_id WHERE c.name = :n"
            ),
            {"n": name},
        ).all()
    return {r[0]: r[1] for r in rows}


def test_titles_are_not_stored_but_shown_from_the_text(store: Store) -> None:
    docs = _real_docs()[:4]
    name = unique("title")
    store.create_collection(name, "minhash-lsh", threshold=0.5)
    store.add(name, docs)
    assert set(_stored_titles(store, name).values()) == {""}
    for doc in docs:
        expected = title(doc.text)
        assert expected  # real documents: a non-blank first line
        assert store.document(name, doc.id).title == expected
        match = store.check(name, doc.text).matches[0]
        assert match.doc_id == doc.id and match.title == expected


def test_a_stored_title_is_shown_as_it_is(store: Store) -> None:
    """Rows written before migration 0006 keep their title."""
    doc = _real_docs()[0]
    name = unique("old-title")
    store.create_collection(name, "minhash-lsh", threshold=0.5)
    store.add(name, [doc])
    with store._write() as conn:
        conn.execute(
            text("UPDATE nd_documents SET title = 'Stored' WHERE doc_id = :d"), {"d": doc.id}
        )
    assert store.document(name, doc.id).title == "Stored"
    assert store.check(name, doc.text).matches[0].title == "Stored"


def test_check_sees_a_collection_made_again_under_the_same_name(store: Store) -> None:
    """The parsed collection row is reused only while the row is unchanged."""
    docs = _real_docs()[:3]
    name = unique("again")
    store.create_collection(name, "minhash-lsh", threshold=0.5)
    store.add(name, docs[:1])
    assert [m.doc_id for m in store.check(name, docs[0].text).matches] == [docs[0].id]
    other = Store(store.url)  # another process's store: this one's cache is not told
    try:
        other.delete_collection(name)
        other.create_collection(name, "shingles-full", threshold=0.9)
        other.add(name, docs[1:2])
    finally:
        other.close()
    result = store.check(name, docs[1].text)
    assert result.method == "shingles-full" and result.threshold == 0.9
    assert [m.doc_id for m in result.matches] == [docs[1].id]
    assert store.check(name, docs[0].text).matches == ()


def test_postgresql_index_layout(store: Store) -> None:
    if store.dialect != "postgresql":
        pytest.skip("SQLite keeps its WITHOUT ROWID table")
    engine = create_engine(store.url)
    try:
        insp = inspect(engine)
        columns = [c["name"] for c in insp.get_columns("nd_index")]
        assert columns == ["collection_id", "band", "key", "document_id"]
        assert insp.get_pk_constraint("nd_index")["constrained_columns"] == []
        indexes = {i["name"]: i["column_names"] for i in insp.get_indexes("nd_index")}
        assert indexes == {"ix_nd_index_key": ["key"]}
    finally:
        engine.dispose()


def test_upgrade_from_0005_keeps_index_rows(empty_url: str) -> None:  # noqa: F811
    """Documents stored (some index rows left pending), the schema taken back to 0005 and
    upgraded again: every index row kept, checks and removal work."""
    docs = _real_docs()[:5]
    with Store(empty_url) as st_:
        info = st_.create_collection("old", "minhash-lsh", threshold=0.5)
        st_.add("old", docs)
        bands = info.params["bands"] + 1  # a band key each, and the content-key row
    _alembic(empty_url, "downgrade", "0005")
    engine = create_engine(empty_url)
    with engine.begin() as conn:  # one document's rows pending, as after a killed add
        conn.execute(
            text(
                "INSERT INTO nd_index_pending (collection_id, key, band, document_id) "
                "SELECT collection_id, key, band, document_id FROM nd_index WHERE document_id = "
                "(SELECT id FROM nd_documents WHERE doc_id = :d)"
            ),
            {"d": docs[2].id},
        )
        conn.execute(
            text(
                "DELETE FROM nd_index WHERE document_id = "
                "(SELECT id FROM nd_documents WHERE doc_id = :d)"
            ),
            {"d": docs[2].id},
        )
    engine.dispose()
    with Store(empty_url) as st_:
        assert _tables_and_version(empty_url)[1] == "0008"
        assert "nd_index_pending" not in _tables_and_version(empty_url)[0]
        assert st_.stats("old")["index_rows"] == len(docs) * bands
        for doc in docs:
            got = st_.check("old", doc.text).matches[0]
            assert got.doc_id == doc.id and got.resemblance == 1.0
        st_.remove("old", docs[2].id)
        assert st_.stats("old")["index_rows"] == (len(docs) - 1) * bands
        assert st_.check("old", docs[2].text).matches == ()


def test_add_then_remove_leaves_no_index_rows(store: Store) -> None:
    docs = [Document(d.id, d.text) for d in _real_docs()[:3]]
    name = unique("rm")
    store.create_collection(name, "minhash-lsh", threshold=0.5)
    store.add(name, docs)
    for doc in docs:
        store.remove(name, doc.id)
    assert store.stats(name)["index_rows"] == 0


@pytest.mark.parametrize(
    ("method", "params", "measure"),
    [
        ("minhash-lsh", {}, "resemblance"),
        ("shingles-full", {}, "containment"),
        ("megashingles", {}, "resemblance"),
    ],
)
def test_the_kept_plan_gives_the_check_a_plan_made_afresh_gives(
    store: Store, method: str, params: dict[str, object], measure: str
) -> None:
    """A check reuses its collection's plan (kept with the parsed row): the same matches,
    evidence and token count as the collection core's check making the plan itself, and
    the kept plan is ``plan_for(meth, info)``."""
    from neardup.index import core
    from neardup.methods.plan import plan_for
    from neardup.store.checking import _checked_collection
    from neardup.store.storage import DatabaseStorage

    rng = random.Random(5)
    vocabulary = [f"w{i}" for i in range(3000)]
    docs = [
        Document(f"d{i}", " ".join(rng.choice(vocabulary) for _ in range(200))) for i in range(6)
    ]
    name = unique("plan")
    store.create_collection(name, method, params, threshold=0.5, measure=measure)
    store.add(name, docs)
    info = store.collection(name)
    meth = store._method(info)
    for doc in docs[:3]:
        query = f"{doc.text} an added closing line"
        kept = store.check(name, query)
        again = store.check(name, query)  # the collection's row, method and plan from the cache
        made = core.check(
            DatabaseStorage(store._db, info, meth), meth, info, query, limit=10, k=None
        )
        assert kept.matches and kept.matches[0].doc_id == doc.id
        for got in (again, made):
            assert got.matches == kept.matches
            assert (got.tokens, got.candidates) == (kept.tokens, kept.candidates)
    with store._db.check_reads() as conn:
        c_info, c_meth, c_plan = _checked_collection(store._cache, conn, name)
    assert c_info == info and c_meth is meth
    assert c_plan == plan_for(meth, info)


def test_check_reads_only_is_known_after_a_check(store: Store) -> None:
    """A server runs a check on its event loop only when the collection's checks never
    write (:meth:`Store.check_reads_only`): known from the store's last check of it."""
    docs = _real_docs()[:6]
    banded, lexical = unique("reads"), unique("fits")
    store.create_collection(banded, "minhash-lsh", threshold=0.5)
    store.create_collection(lexical, "tf-ridf")
    for name in (banded, lexical):
        store.add(name, docs)
        assert not store.check_reads_only(name)  # not checked yet: unknown
        assert store.check(name, docs[0].text).matches[0].doc_id == docs[0].id
    assert store.check_reads_only(banded)
    assert not store.check_reads_only(lexical)  # a check may recompute its statistics
    store.delete_collection(banded)
    assert not store.check_reads_only(banded)
