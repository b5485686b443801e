"""Stored documents: read one (metadata, text), remove one, and the look-ups other layers
make on the documents of a collection (the crawler's: which pages are stored already).

A document id is stored as given when :func:`bad_doc_id` allows it; a removed document's
rows go in one transaction, its word statistics decremented set-wise (seed 004).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sqlalchemy import (
    ColumnElement,
    Connection,
    Exists,
    and_,
    bindparam,
    delete,
    func,
    select,
    text,
)

from neardup._array import sorted_unique
from neardup.errors import DocumentNotFound, NeardupError, TextNotStored
from neardup.index.codec import bad_doc_id, decode_text, set_size, shown_title
from neardup.index.methods import collection_keys, slot_keys
from neardup.index.results import CollectionInfo, DocumentInfo, DocumentPage
from neardup.methods.base import Method, Prepared, Signature
from neardup.methods.plan import plan_for
from neardup.store import schema as s
from neardup.store.bulk import merge_pending
from neardup.store.cache import MethodCache
from neardup.store.catalog import collection_info, mark_dirty
from neardup.store.database import Database, utc

_DELETE_INDEX_KEYS = text(
    "DELETE FROM nd_index WHERE collection_id = :c AND key IN :keys AND document_id = :d"
).bindparams(bindparam("keys", expanding=True))
_DELETE_INDEX_SCAN = text("DELETE FROM nd_index WHERE collection_id = :c AND document_id = :d")


def document(db: Database, name: str, doc_id: str) -> DocumentInfo:
    """Metadata of one stored document.

    Raises:
        CollectionNotFound, DocumentNotFound: no such collection or document.
    """
    if bad_doc_id(doc_id) is not None:  # never stored (PostgreSQL refuses NUL in a query)
        _known(db, name)
        raise DocumentNotFound(name, doc_id)
    d, sh, t = s.documents, s.shingles, s.texts
    with db.read() as conn:
        info = collection_info(conn, name)
        row = conn.execute(
            select(d, t.c.body, func.length(sh.c.fingerprints))
            .join(sh, sh.c.document_id == d.c.id)
            .outerjoin(t, t.c.document_id == d.c.id)
            .where(d.c.collection_id == info.id, d.c.doc_id == doc_id)
        ).first()
    if row is None:
        raise DocumentNotFound(name, doc_id)
    m = row._mapping
    return DocumentInfo(
        m["doc_id"],
        m["source"],
        shown_title(m["title"], m["body"]),
        bytes(m["content_hash"]).hex(),
        int(m["length"]),
        set_size(int(row[-1])),
        utc(m["added_at"]),
    )


def document_page(db: Database, name: str, *, offset: int, limit: int) -> DocumentPage:
    """Documents ``offset`` to ``offset + limit`` of a collection, in the order added
    (the database id), with the collection's total.

    Raises:
        CollectionNotFound: no such collection.
    """
    d, t = s.documents, s.texts
    with db.read() as conn:
        info = collection_info(conn, name)
        total = conn.execute(
            select(func.count()).select_from(d).where(d.c.collection_id == info.id)
        ).scalar_one()
        rows = conn.execute(
            select(d.c.doc_id, d.c.source, d.c.title, d.c.length, d.c.added_at, t.c.body)
            .outerjoin(t, t.c.document_id == d.c.id)
            .where(d.c.collection_id == info.id)
            .order_by(d.c.id)
            .offset(offset)
            .limit(limit)
        ).all()
    docs = tuple(
        DocumentInfo(
            r[0],
            r[1],
            shown_title(r[2], None if r[5] is None else bytes(r[5])),
            "",
            int(r[3]),
            0,
            utc(r[4]),
        )
        for r in rows
    )
    return DocumentPage(name, int(total), offset, limit, docs)


def document_text(db: Database, name: str, doc_id: str) -> str:
    """The text of one stored document, exactly as it was added.

    Raises:
        CollectionNotFound: no such collection.
        DocumentNotFound: no such document; :class:`TextNotStored` (a subclass): the
            document was added before the store kept texts (migration 0003).
        FormatError: the stored bytes are of an unknown format version, corrupt, or do not
            match the document's content hash.
    """
    if bad_doc_id(doc_id) is not None:  # never stored (PostgreSQL refuses NUL in a query)
        _known(db, name)
        raise DocumentNotFound(name, doc_id)
    d, t = s.documents, s.texts
    with db.read() as conn:
        info = collection_info(conn, name)
        row = conn.execute(
            select(d.c.content_hash, t.c.body)
            .outerjoin(t, t.c.document_id == d.c.id)
            .where(d.c.collection_id == info.id, d.c.doc_id == doc_id)
        ).first()
    if row is None:
        raise DocumentNotFound(name, doc_id)
    if row[1] is None:
        raise TextNotStored(name, doc_id)
    return decode_text(bytes(row[1]), expected_hash=bytes(row[0]))


def remove(db: Database, cache: MethodCache, name: str, doc_id: str) -> None:
    """Remove one document (and its rows; statistics are decremented set-wise).

    Raises:
        CollectionNotFound, DocumentNotFound: no such collection or document.
    """
    if bad_doc_id(doc_id) is not None:  # never stored (PostgreSQL refuses NUL in a query)
        _known(db, name)
        raise DocumentNotFound(name, doc_id)
    with db.write() as conn:
        info = collection_info(conn, name, lock=True)
        pk = conn.execute(
            select(s.documents.c.id).where(
                s.documents.c.collection_id == info.id, s.documents.c.doc_id == doc_id
            )
        ).scalar()
        if pk is None:
            raise DocumentNotFound(name, doc_id)
        d = {"d": pk}
        meth = cache.method(info)
        if plan_for(meth, info).needs_fit:
            _uncount(conn, info.id, pk)
        merge_pending(conn, info.id)  # an add's pending runs: their rows into nd_index first
        _remove_keys(conn, info, meth, pk)
        for table in (
            "nd_doc_terms",
            "nd_signatures",
            "nd_shingles",
            "nd_texts",
        ):
            conn.execute(text(f"DELETE FROM {table} WHERE document_id = :d"), d)
        conn.execute(delete(s.documents).where(s.documents.c.id == pk))


def _known(db: Database, name: str) -> None:
    """Raises CollectionNotFound unless the collection exists."""
    with db.read() as conn:
        collection_info(conn, name)


def _remove_keys(conn: Connection, info: CollectionInfo, meth: Method, pk: int) -> None:
    """Delete a document's ``nd_index`` rows by their keys (the table has no index by
    document): keys recomputed from the stored text (methods signing from the shingle
    set) or signature (lexical methods); without either, a scan of the collection."""
    keys = _stored_keys(conn, meth, pk)
    params: dict[str, Any] = {"c": info.id, "d": pk}
    if keys is None:
        conn.execute(_DELETE_INDEX_SCAN, params)
    elif keys.size:
        conn.execute(_DELETE_INDEX_KEYS, {**params, "keys": sorted_unique(keys).tolist()})


def _stored_keys(conn: Connection, meth: Method, pk: int) -> np.ndarray | None:
    plan = plan_for(meth)
    if plan.streams or plan.signs_at_add:
        row = conn.execute(
            select(s.documents.c.content_hash, s.texts.c.body)
            .join(s.texts, s.texts.c.document_id == s.documents.c.id)
            .where(s.documents.c.id == pk)
        ).first()
        if row is None:
            return None
        text_ = decode_text(bytes(row[1]), expected_hash=bytes(row[0]))
        tokens = meth.canonical.tokens(text_)
        sets = meth.shingling.batch([tokens])
        if plan.signs_at_add:  # signed again from the text, as add signed it
            return collection_keys(meth, meth.sign([Prepared("", text_, tokens)]), sets).key
        return collection_keys(meth, meth.from_sets(sets), sets).key
    payload = conn.execute(
        select(s.signatures.c.payload).where(s.signatures.c.document_id == pk)
    ).scalar()
    if payload is None:
        return np.zeros(0, np.int64)  # lexical, never signed: no index rows either
    try:
        return slot_keys([Signature.from_bytes(bytes(payload)).payload]).key
    except (NeardupError, ValueError):
        return None


def _uncount(conn: Connection, collection_id: int, pk: int) -> None:
    conn.execute(
        text(
            "UPDATE nd_terms SET df = nd_terms.df - 1, cf = nd_terms.cf - dt.count "
            "FROM nd_doc_terms AS dt WHERE dt.document_id = :d AND nd_terms.id = dt.term_id"
        ),
        {"d": pk},
    )
    mark_dirty(conn, collection_id)


# -- look-ups for other layers (the crawler) --------------------------------------------------
def ids_with_prefix(conn: Connection, collection: str, prefix: str) -> set[str]:
    """Ids of the collection's documents that start with ``prefix`` (none: no such
    collection), inside ``conn``'s transaction."""
    d, c = s.documents, s.collections
    pattern = _like_escape(prefix) + "%"
    rows = conn.execute(
        select(d.c.doc_id)
        .join(c, c.c.id == d.c.collection_id)
        .where(and_(c.c.name == collection, d.c.doc_id.like(pattern, escape="\\")))
    ).all()
    return {r[0] for r in rows}


def stored(collection: str, doc_id: ColumnElement[Any]) -> Exists:
    """``EXISTS``: the collection holds a document whose id is ``doc_id`` (a column of the
    caller's query, e.g. a page's URL), for a ``WHERE`` clause."""
    d, c = s.documents, s.collections
    return (
        select(d.c.doc_id)
        .join(c, c.c.id == d.c.collection_id)
        .where(c.c.name == collection, d.c.doc_id == doc_id)
        .exists()
    )


def _like_escape(text_: str) -> str:
    return text_.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
