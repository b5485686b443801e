"""Stored document texts (``nd_texts``, migration 0003) on SQLite and PostgreSQL: byte-exact
round trips of real Russian and English text, deletion with the document and the collection,
no duplicates on re-add, the upgrade from revision 0002, and the check page's use of them."""

from __future__ import annotations

import asyncio
import uuid
import zlib
from collections.abc import Iterator
from importlib import resources
from pathlib import Path

import pytest
from sqlalchemy import bindparam, create_engine, inspect, text

from neardup.errors import CollectionNotFound, DocumentNotFound, FormatError, TextNotStored
from neardup.index.codec import ZLIB_TEXT_FORMAT, encode_texts
from neardup.store import Store
from neardup.store.store import TEXT_FORMAT, content_hash, decode_text, encode_text
from neardup.text.types import Document
from shared_data import data_path, load_docs, paragraphs
from store._db import PG_ADMIN, unique


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    st = Store(db_url)
    yield st
    st.close()


def _real_docs() -> list[Document]:
    """Russian (Pro Git chapters) and English (kernel docs, student answers) documents."""
    ru = [d for d in load_docs("progit-ru-revisions") if len(d.text) > 3000][:6]
    en = [d for d in load_docs("linux-doc-revisions") if len(d.text) > 3000][:6]
    en += load_docs("clough-stevenson")[:4]
    return ru + en


def _novel() -> Document:
    """Anna Karenina (RusLit, public domain): more than 1 MB, more than 1M characters."""
    path = data_path("ruslit", "prose", "Tolstoy", "Анна Каренина.txt")
    doc = Document("anna-karenina", path.read_text(encoding="utf-8"), source=str(path))
    assert len(doc.text) > 1_000_000 and len(doc.text.encode()) > 1_000_000
    return doc


def _awkward() -> Document:
    """Real paragraphs with CRLF, tabs, trailing spaces, a NUL and a lone surrogate."""
    paras = paragraphs("progit-ru-revisions", 4, min_words=30)
    body = "\r\n\r\n".join(paras) + "\t \r\n\x00 хвост \udc80 end  \n\n"
    return Document("awkward", "Заголовок\r\n" + body, source="mixed.txt")


def _pks(store: Store, name: str) -> dict[str, int]:
    with store._engines.read.connect() as conn:
        rows = conn.execute(
            text(
                "SELECT d.doc_id, d.id FROM nd_documents d JOIN nd_collections c "
                "ON c.id = d.collection_id WHERE c.name = :n"
            ),
            {"n": name},
        )
        return {r[0]: int(r[1]) for r in rows}


def _text_rows(store: Store, pks: list[int]) -> int:
    stmt = text("SELECT COUNT(*) FROM nd_texts WHERE document_id IN :p").bindparams(
        bindparam("p", expanding=True)
    )
    with store._engines.read.connect() as conn:
        return int(conn.execute(stmt, {"p": pks}).scalar_one())


# -- round trip ------------------------------------------------------------------------------------
def test_real_texts_round_trip_byte_exact(store: Store) -> None:
    name = unique("texts")
    store.create_collection(name, "minhash-lsh", threshold=0.5)
    docs = [*_real_docs(), _novel(), _awkward()]
    report = store.add(name, docs, batch_size=7)
    assert report.added == len(docs), report.skipped
    for d in docs:
        got = store.document_text(name, d.id)
        assert got == d.text, d.id
        assert got.encode("utf-8", "surrogatepass") == d.text.encode("utf-8", "surrogatepass")
    pks = _pks(store, name)
    assert _text_rows(store, list(pks.values())) == len(docs)
    with store._engines.read.connect() as conn:
        body = conn.execute(
            text("SELECT body FROM nd_texts WHERE document_id = :d"),
            {"d": pks["anna-karenina"]},
        ).scalar_one()
    body = bytes(body)
    raw = len(docs[-2].text.encode())
    assert body[0] == TEXT_FORMAT and len(body) < raw // 2  # compressed, not raw UTF-8


def test_document_text_errors(store: Store) -> None:
    name = unique("texts")
    store.create_collection(name, "minhash-lsh", threshold=0.5)
    store.add(name, _real_docs()[:2])
    with pytest.raises(DocumentNotFound, match="no document 'nope'") as caught:
        store.document_text(name, "nope")
    assert not isinstance(caught.value, TextNotStored)
    with pytest.raises(CollectionNotFound):
        store.document_text(unique("missing"), "nope")


def test_stored_bytes_are_checked() -> None:
    sample = paragraphs("linux-doc-revisions", 1)[0]
    body = encode_text(sample)
    assert decode_text(body) == sample
    with pytest.raises(FormatError, match="format byte 3"):
        decode_text(bytes((3,)) + body[1:])
    with pytest.raises(FormatError, match="corrupt Zstandard"):
        decode_text(body[:1] + body[1:-5])
    with pytest.raises(FormatError, match="corrupt zlib"):
        decode_text(bytes((ZLIB_TEXT_FORMAT,)) + body[1:])
    with pytest.raises(FormatError, match="content hash"):
        decode_text(body, expected_hash=bytes(16))
    with pytest.raises(FormatError, match="no format byte"):
        decode_text(b"")


def test_texts_stored_by_the_release_before_are_read() -> None:
    # format 1 (zlib level 1 of the UTF-8 bytes), as 2b454db wrote it, beside format 2
    sample = "Левин, не торопясь, достал десятирублёвую бумажку. Lone \ud800 surrogate. " * 20
    raw = sample.encode("utf-8", "surrogatepass")
    before = bytes((ZLIB_TEXT_FORMAT,)) + zlib.compress(raw, 1)
    assert decode_text(before, expected_hash=content_hash(sample)) == sample
    now = encode_text(sample)
    assert now[0] == TEXT_FORMAT == 2 and now[1:5] == b"\x28\xb5\x2f\xfd"  # a Zstandard frame
    assert decode_text(now, expected_hash=content_hash(sample)) == sample


def test_a_batch_of_texts_is_stored_as_each_text_alone() -> None:
    # the bulk add compresses a batch with Zstandard's threads: byte for byte the frames
    # of encode_text, for real texts, a 1 MB novel, an empty text and a lone surrogate
    texts = [d.text for d in [*_real_docs(), _novel(), _awkward()]] + ["", "\udc80"]
    bodies = encode_texts(texts)
    assert bodies == [encode_text(t) for t in texts]
    assert [decode_text(b) for b in bodies] == texts
    assert encode_texts([]) == [] and encode_texts(["один"]) == [encode_text("один")]


# -- deletion and re-add -------------------------------------------------------------------------
def test_remove_deletes_the_text(store: Store) -> None:
    name = unique("texts")
    store.create_collection(name, "minhash-lsh", threshold=0.5)
    docs = _real_docs()[:3]
    store.add(name, docs)
    pks = _pks(store, name)
    store.remove(name, docs[0].id)
    assert _text_rows(store, [pks[docs[0].id]]) == 0
    with pytest.raises(DocumentNotFound) as caught:
        store.document_text(name, docs[0].id)
    assert not isinstance(caught.value, TextNotStored)
    assert store.document_text(name, docs[1].id) == docs[1].text
    assert _text_rows(store, [pks[d.id] for d in docs[1:]]) == 2
    # added again after removal: the new text is kept
    changed = Document(docs[0].id, docs[0].text + "\n\nДописано позже.", source="v2")
    assert store.add(name, [changed]).added == 1
    assert store.document_text(name, docs[0].id) == changed.text


def test_delete_collection_deletes_the_texts(store: Store) -> None:
    gone, kept = unique("texts"), unique("texts")
    docs = _real_docs()[:4]
    for name in (gone, kept):
        store.create_collection(name, "minhash-lsh", threshold=0.5)
        store.add(name, docs)
    gone_pks, kept_pks = list(_pks(store, gone).values()), list(_pks(store, kept).values())
    assert _text_rows(store, gone_pks) == len(docs)
    store.delete_collection(gone)
    assert _text_rows(store, gone_pks) == 0
    assert _text_rows(store, kept_pks) == len(docs)
    assert [store.document_text(kept, d.id) for d in docs] == [d.text for d in docs]


def test_readd_of_the_same_id_does_not_duplicate(store: Store) -> None:
    name = unique("texts")
    store.create_collection(name, "minhash-lsh", threshold=0.5)
    docs = _real_docs()[:5]
    assert store.add(name, docs).added == len(docs)
    again = store.add(name, docs)
    assert again.added == 0 and {s.reason for s in again.skipped} == {"exists"}
    edited = Document(docs[0].id, docs[0].text.replace("а", "о"), source="edited")
    changed = store.add(name, [edited])
    assert changed.added == 0 and changed.skipped[0].reason == "changed"
    assert store.document_text(name, docs[0].id) == docs[0].text
    assert _text_rows(store, list(_pks(store, name).values())) == len(docs)


# -- migration 0003 ------------------------------------------------------------------------------
def _alembic(url: str, command_name: str, revision: str) -> None:
    """Run ``alembic upgrade|downgrade revision`` on ``url`` with the shipped scripts."""
    from alembic import command
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(resources.files("neardup.store") / "migrations"))
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            cfg.attributes["connection"] = conn
            getattr(command, command_name)(cfg, revision)
            conn.commit()
    finally:
        engine.dispose()


def _tables_and_version(url: str) -> tuple[set[str], str]:
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            version = conn.execute(text("SELECT version_num FROM nd_alembic_version")).scalar()
        return set(inspect(engine).get_table_names()), str(version)
    finally:
        engine.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.slow)])
def empty_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty database of its own (PostgreSQL: created for this test, dropped after)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'migrate.db'}"
        return
    request.getfixturevalue("pg_database")  # skips or fails like the other PG tests
    name = f"neardup_mig_{uuid.uuid4().hex[:12]}"
    admin = create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield f"{PG_ADMIN.rsplit('/', 1)[0]}/{name}"
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def test_upgrade_from_0002_adds_the_table(empty_url: str) -> None:
    _alembic(empty_url, "upgrade", "0002")
    tables, version = _tables_and_version(empty_url)
    assert version == "0002" and "nd_crawl_pages" in tables and "nd_texts" not in tables
    with Store(empty_url) as st:  # opening migrates to the head
        tables, version = _tables_and_version(empty_url)
        assert "nd_texts" in tables and version != "0002"
        name = unique("texts")
        st.create_collection(name, "minhash-lsh", threshold=0.5)
        doc = _real_docs()[0]
        st.add(name, [doc])
        assert st.document_text(name, doc.id) == doc.text


def test_documents_from_before_0003_have_no_text(empty_url: str) -> None:
    """Documents added, then the schema taken back to 0002 (texts dropped) and upgraded again:
    exactly the state of a database whose documents predate migration 0003."""
    docs = _real_docs()[:3]
    with Store(empty_url) as st:
        st.create_collection("old", "minhash-lsh", threshold=0.5)
        st.add("old", docs)
    _alembic(empty_url, "downgrade", "0002")
    assert "nd_texts" not in _tables_and_version(empty_url)[0]
    with Store(empty_url) as st:
        assert "nd_texts" in _tables_and_version(empty_url)[0]
        assert st.stats("old")["documents"] == len(docs)
        with pytest.raises(DocumentNotFound, match="added before the store kept texts") as caught:
            st.document_text("old", docs[0].id)
        assert isinstance(caught.value, TextNotStored)
        assert caught.value.doc_id == docs[0].id and caught.value.collection == "old"
        # checking still works on the fingerprints; new documents keep their text
        assert st.check("old", docs[1].text).matches[0].doc_id == docs[1].id
        fresh = _real_docs()[8]
        assert st.add("old", [fresh]).added == 1
        assert st.document_text("old", fresh.id) == fresh.text


# -- the check page's text lookup (neardup.service.sources) ----------------------------------------
class _Fetcher:
    """Stands in for SourceFetcher: records the addresses asked for."""

    def __init__(self, pages: dict[str, str]) -> None:
        self.pages = pages
        self.asked: list[str] = []

    async def text(self, url: str) -> str:
        self.asked.append(url)
        return self.pages[url]


def test_side_by_side_text_comes_from_the_store_first(store: Store) -> None:
    from neardup.service.sources import stored_texts

    url = "https://library.example/post/1"
    docs = _real_docs()[:2]
    page = Document(url, docs[0].text, source=url)
    name = unique("texts")
    store.create_collection(name, "minhash-lsh", threshold=0.5)
    store.add(name, [page, docs[1]])
    fetcher = _Fetcher({url: "the page as it is now"})
    matches = [store.check(name, d.text).matches[0] for d in (page, docs[1])]
    got = asyncio.run(stored_texts(store, name, matches, fetcher))  # type: ignore[arg-type]
    assert [(t.origin, t.text) for t in got] == [("store", page.text), ("store", docs[1].text)]
    assert fetcher.asked == []
    # a document without stored text (added before 0003): its http source is fetched again
    pks = list(_pks(store, name).values())
    with store._engines.write.begin() as conn:
        conn.execute(
            text("DELETE FROM nd_texts WHERE document_id IN :p").bindparams(
                bindparam("p", expanding=True)
            ),
            {"p": pks},
        )
    got = asyncio.run(stored_texts(store, name, matches, fetcher))  # type: ignore[arg-type]
    assert (got[0].origin, got[0].text) == ("source", "the page as it is now")
    assert fetcher.asked == [url]
    assert got[1].origin == "none" and got[1].text is None
    assert "added before texts were kept" in got[1].note
