"""The bulk path of ``Store.add``: preparing a batch outside the database, writing it fast.

A batch is signed by the collection core (:func:`neardup.index.core.prepare`) and put in
the database's form (compressed texts, encoded sets, keys sorted) by :func:`encode`, with
no database connection held, in a worker thread while the previous batch is written. It is
written in one transaction (:mod:`neardup.store.storage`):

* documents first with ``ON CONFLICT DO NOTHING`` (only rows this transaction inserted get
  any other row, as before: re-adding adds nothing, two writers lose nothing);
* SQLite: multi-row ``INSERT ... VALUES`` statements (:func:`sqlite_insert`) on the DB-API
  connection with plain values (no per-row SQLAlchemy compilation); the documents this
  transaction inserted are the rows above the largest ``id`` read under the write lock
  (``BEGIN IMMEDIATE``: SQLite gives a new row the largest rowid plus one);
* PostgreSQL: documents with one ``INSERT ... SELECT FROM unnest(...) ON CONFLICT DO NOTHING
  RETURNING``, texts, shingle sets and index rows with ``COPY ... (FORMAT BINARY)`` (the
  index rows built as numpy record arrays, :func:`pg_copy_index`);
* index rows are stored as one run a batch (:mod:`neardup.store.runs`: no index to
  update, one value to write) and moved into the lookup B-tree ``nd_index`` sorted by key
  by :func:`merge_pending`: a first bulk load builds it in key order, later ones walk it
  once per merge instead of once per batch.
"""

from __future__ import annotations

import sqlite3
import struct
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any

import numpy as np
from sqlalchemy import Connection

from neardup.index.codec import encode_sets, encode_texts, fingerprint_shift, scrub
from neardup.index.core import Ready, Signed
from neardup.index.methods import KeyRows
from neardup.methods.base import Method
from neardup.store import runs

_PG_HEADER = b"PGCOPY\n\xff\r\n\x00" + struct.pack(">ii", 0, 0)
_PG_TRAILER = struct.pack(">h", -1)
_PG_BLOB_ROW = struct.Struct(">hiqi")  # 2 fields; int8 document id; bytea length
_PG_INDEX = np.dtype(
    [
        ("n", ">i2"),
        ("l1", ">i4"),
        ("collection", ">i4"),
        ("l2", ">i4"),
        ("key", ">i8"),
        ("l3", ">i4"),
        ("band", ">i2"),
        ("l4", ">i4"),
        ("document", ">i8"),
    ]
)


@dataclass(frozen=True, eq=False)
class Batch:
    """A signed batch in the database's form: everything :func:`insert_rows` needs, no
    database access left to do, and nothing more: a batch waiting in the add's queue
    (:data:`neardup.store.adding.AHEAD_DOCUMENTS`) holds no text, shingle set or key array
    but its stored form, 3.2 KB a document instead of 7.8 (minhash-lsh, the 1M planted
    corpus, tracemalloc, 2026-12-04).

    Attributes:
        docs: ``(id, source, title, content_hash, length)`` of each document to insert, in
            input order (source and title scrubbed: the ``nd_documents`` columns of
            :func:`document_rows`).
        bodies: ``nd_texts.body`` of each.
        sets: ``nd_shingles.fingerprints`` of each (format 2, :mod:`neardup.index.codec`).
        keys: index keys sorted by key (``row``, int32, indexes ``docs``; ``band`` int16;
            ``key`` int64), or ``None`` for methods whose keys come from the recompute
            (lexical methods).
        signatures: ``nd_signatures.payload`` of each (``Signature.to_bytes``), or ``None``
            for methods that keep no signature at add
            (:attr:`~neardup.methods.plan.MethodPlan.keeps_signature`).
        tokens: each document's canonical tokens for methods fitted on word statistics
            (``needs_fit``), else ``None``.
    """

    docs: list[tuple[str, str, str, bytes, int]]
    bodies: list[bytes]
    sets: list[bytes]
    keys: KeyRows | None
    signatures: list[bytes] | None = None
    tokens: list[list[str]] | None = None


def encode(meth: Method, signed: Signed) -> Batch:
    """The rows of a batch signed by the collection core
    (:func:`neardup.index.core.prepare`): document columns, compressed texts, encoded
    shingle sets, index keys sorted by key, signature bytes."""
    keys = signed.keys
    if keys is not None:
        order = np.argsort(keys.key, kind="stable")
        keys = KeyRows(
            keys.row[order].astype(np.int32), keys.band[order].astype(np.int16), keys.key[order]
        )
    signatures = None
    if signed.signatures is not None:
        signatures = [sig.to_bytes() for sig in signed.signatures]
    ready = signed.ready
    bodies = encode_texts([r.doc.text for r in ready])
    shift = fingerprint_shift(meth.shingling.fingerprint)
    stored = encode_sets(signed.sets.values, signed.sets.offsets, shift=shift)
    tokens = None
    if any(r.tokens is not None for r in ready):
        tokens = [r.tokens or [] for r in ready]
    return Batch(_columns(ready), bodies, stored, keys, signatures, tokens)


def _columns(ready: list[Ready]) -> list[tuple[str, str, str, bytes, int]]:
    """``(id, source, title, content_hash, length)`` of each document (:class:`Batch`); the
    title is the document's own (``Document.title``: a file's title or name), left empty
    for the others, whose text's first non-blank line
    (:func:`~neardup.index.codec.title`) is the title shown (migration 0006)."""
    return [
        (r.doc.id, scrub(r.doc.source or ""), scrub(r.doc.title), r.content_hash, r.length)
        for r in ready
    ]


# -- writing ---------------------------------------------------------------------------------
def document_rows(
    collection_id: int, docs: list[tuple[str, str, str, bytes, int]], now: datetime
) -> list[tuple[Any, ...]]:
    """``nd_documents`` rows: (collection_id, doc_id, source, title, content_hash, length,
    added_at) of a batch's documents (:attr:`Batch.docs`)."""
    return [(collection_id, *d, now) for d in docs]


def insert_documents(conn: Connection, rows: list[tuple[Any, ...]]) -> dict[str, int]:
    """Insert ``rows`` (:func:`document_rows`), skipping ids stored already.

    Returns:
        ``{doc_id: primary key}`` of the documents this transaction inserted.
    """
    raw = conn.connection.driver_connection
    cur = raw.cursor()  # type: ignore[union-attr]
    try:
        if conn.dialect.name == "postgresql":
            cur.execute(_PG_DOCUMENTS, _pg_columns(rows))
            return {r[1]: int(r[0]) for r in cur.fetchall()}
        before = cur.execute("SELECT COALESCE(MAX(id), 0) FROM nd_documents").fetchone()[0]
        flat = [v for r in rows for v in (*r[:6], _sqlite_time(r[6]))]
        sqlite_insert(cur, _SQLITE_DOCUMENTS, 7, flat, tail=_SQLITE_DOCUMENTS_TAIL)
        got = cur.execute("SELECT id, doc_id FROM nd_documents WHERE id > ?", (before,))
        return {r[1]: int(r[0]) for r in got}
    finally:
        cur.close()


def insert_rows(
    conn: Connection,
    collection_id: int,
    batch: Batch,
    fresh: list[int],
    pks: list[int],
    *,
    pending: bool = True,
) -> int:
    """Texts, shingle sets, signatures (when kept at add) and index rows of the batch rows
    ``fresh`` (their primary keys ``pks``), one statement per table.

    Args:
        pending: index rows go to a run (:mod:`neardup.store.runs`: bulk batches) rather
            than straight into ``nd_index`` (small batches, e.g. one document over the API).

    Returns:
        The number of index rows written to the run.
    """
    if not fresh:
        return 0
    texts = [(p, batch.bodies[i]) for p, i in zip(pks, fresh, strict=True)]
    sets = [(p, batch.sets[i]) for p, i in zip(pks, fresh, strict=True)]
    sigs = (
        []
        if batch.signatures is None
        else [(p, batch.signatures[i]) for p, i in zip(pks, fresh, strict=True)]
    )
    keys = _key_columns(batch.keys, fresh, pks)
    raw = conn.connection.driver_connection
    cur = raw.cursor()  # type: ignore[union-attr]
    try:
        if conn.dialect.name == "postgresql":
            _pg_copy_blobs(cur, "nd_texts (document_id, body)", texts)
            _pg_copy_blobs(cur, "nd_shingles (document_id, fingerprints)", sets)
            if sigs:
                _pg_copy_blobs(cur, "nd_signatures (document_id, payload)", sigs)
            if keys is not None and not pending:
                pg_copy_index(cur, collection_id, *keys)
        else:
            sqlite_insert(cur, "nd_texts (document_id, body)", 2, _flat(texts))
            sqlite_insert(cur, "nd_shingles (document_id, fingerprints)", 2, _flat(sets))
            if sigs:
                sqlite_insert(cur, "nd_signatures (document_id, payload)", 2, _flat(sigs))
            if keys is not None and not pending:
                sqlite_index_rows(cur, collection_id, *keys)
    finally:
        cur.close()
    return runs.write(conn, collection_id, *keys) if keys is not None and pending else 0


#: Rows of one multi-row ``INSERT ... VALUES`` statement on SQLite at most (a power of two;
#: fewer where the library allows fewer than ``columns * _SQLITE_ROWS`` parameters, 32,766
#: since SQLite 3.32).
_SQLITE_ROWS = 4096


def sqlite_insert(
    cur: Any, into: str, width: int, values: list[Any], *, tail: str = "", first: int | None = None
) -> None:
    """Insert rows on a SQLite DB-API cursor by multi-row ``INSERT INTO {into} VALUES
    (...), (...){tail}`` statements of 2**k rows, in order (at most 13 statement shapes,
    each compiled once and kept in the connection's statement cache).

    One statement steps once for thousands of rows where ``executemany`` steps once a row
    and, each time, gives the GIL up and waits to take it back from the reader thread that
    prepares the next batch: 64,000 index rows took 53-58 ms alone and 166-180 ms beside a
    busy thread by ``executemany``, 23-39 and 69-90 ms this way (2026-11-27).

    Args:
        cur: a ``sqlite3`` cursor; into: ``table (columns)``; width: columns a row.
        values: the rows' values one after another (``width`` each).
        tail: what follows the values (an ``ON CONFLICT`` clause).
        first: an integer written in the statement as every row's first column, before the
            ``width`` bound values (an index row's collection id: a quarter fewer values to
            make and bind, 41 index rows a document).
    """
    rows = len(values) // width
    most = _SQLITE_ROWS
    limit = cur.connection.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER)
    while most > 1 and most * width > limit:
        most //= 2
    at = 0
    while at < rows:
        while most > rows - at:
            most //= 2
        sql = _values_sql(into, width, most, None if first is None else int(first)) + tail
        cur.execute(sql, values[at * width : (at + most) * width])
        at += most


@lru_cache(maxsize=64)
def _values_sql(into: str, width: int, rows: int, first: int | None = None) -> str:
    row = "(" + ("" if first is None else f"{first}, ") + ", ".join(["?"] * width) + ")"
    return f"INSERT INTO {into} VALUES " + ", ".join([row] * rows)


def _flat(rows: list[tuple[int, bytes]]) -> list[Any]:
    """``[a0, b0, a1, b1, ...]`` of ``[(a0, b0), (a1, b1), ...]``."""
    return [v for row in rows for v in row]


def merge_pending(conn: Connection, collection_id: int) -> int:
    """Move the collection's runs (:mod:`neardup.store.runs`) into ``nd_index`` in key
    order, in the caller's transaction. SQLite: rows ``nd_index`` holds already are left as
    they are (``ON CONFLICT DO NOTHING``); PostgreSQL's ``nd_index`` has no unique key since
    migration 0006, and a run is taken exactly once.

    Returns:
        The number of rows moved.
    """
    run = runs.take(conn, collection_id)
    if run is None:
        return 0
    cur = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
    try:
        if conn.dialect.name == "postgresql":
            pg_copy_index(cur, collection_id, run.key, run.band, run.document)
        else:
            sqlite_index_rows(cur, collection_id, run.key, run.band, run.document)
    finally:
        cur.close()
    return int(run.key.shape[0])


#: Index rows bound per piece by :func:`sqlite_index_rows` (a merge's millions of rows
#: would otherwise be one Python list of three ints a row: 0.9 GB at 8M rows).
_INDEX_PIECE = 1 << 16


def sqlite_index_rows(
    cur: Any, collection_id: int, key: np.ndarray, band: np.ndarray, doc: np.ndarray
) -> None:
    """Insert index rows into SQLite's ``nd_index`` in the order given (key order walks its
    B-tree once), skipping rows it holds already; the collection id is written in the
    statement, not bound (a quarter fewer values to make and bind)."""
    into = f"nd_index ({_INDEX_COLUMNS})"
    for at in range(0, key.shape[0], _INDEX_PIECE):
        piece = slice(at, at + _INDEX_PIECE)
        flat = np.empty((key[piece].shape[0], 3), dtype=np.int64)
        flat[:, 0], flat[:, 1], flat[:, 2] = key[piece], band[piece], doc[piece]
        sqlite_insert(
            cur, into, 3, flat.ravel().tolist(), first=collection_id, tail=_IGNORE_EXISTING
        )


_IGNORE_EXISTING = " ON CONFLICT DO NOTHING"
_INDEX_COLUMNS = "collection_id, key, band, document_id"


def _key_columns(
    keys: KeyRows | None, fresh: list[int], pks: list[int]
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(key, band, document pk) of the fresh rows' index keys, sorted by key."""
    if keys is None:
        return None
    to_pk = np.full(max(fresh) + 1, -1, dtype=np.int64)
    to_pk[fresh] = pks
    rows = keys.row
    take = rows <= max(fresh)
    take[take] = to_pk[rows[take]] >= 0
    return keys.key[take], keys.band[take], to_pk[rows[take]]


def _pg_copy_blobs(cur: Any, target: str, rows: list[tuple[int, bytes]]) -> None:
    pack = _PG_BLOB_ROW.pack
    data = b"".join(pack(2, 8, p, len(b)) + b for p, b in rows)
    with cur.copy(f"COPY {target} FROM STDIN (FORMAT BINARY)") as copy:
        copy.write(_PG_HEADER + data + _PG_TRAILER)


def pg_copy_index(
    cur: Any, collection_id: int, key: np.ndarray, band: np.ndarray, doc: np.ndarray
) -> None:
    """Copy index rows into PostgreSQL's ``nd_index`` in the order given (``COPY ...
    BINARY``, a numpy record array of :data:`_INDEX_PIECE` rows at a time: a merge's 8M
    rows are 272 MB in that form)."""
    with cur.copy(
        "COPY nd_index (collection_id, key, band, document_id) FROM STDIN (FORMAT BINARY)"
    ) as copy:
        copy.write(_PG_HEADER)
        for at in range(0, key.shape[0], _INDEX_PIECE):
            piece = slice(at, at + _INDEX_PIECE)
            rec = np.empty(key[piece].shape[0], dtype=_PG_INDEX)
            rec["n"], rec["l1"], rec["l2"], rec["l3"], rec["l4"] = 4, 4, 8, 2, 8
            rec["collection"] = collection_id
            rec["key"], rec["band"], rec["document"] = key[piece], band[piece], doc[piece]
            copy.write(rec.tobytes())
        copy.write(_PG_TRAILER)


_SQLITE_DOCUMENTS = (
    "nd_documents (collection_id, doc_id, source, title, content_hash, length, added_at)"
)
_SQLITE_DOCUMENTS_TAIL = " ON CONFLICT (collection_id, doc_id) DO NOTHING"
_PG_DOCUMENTS = (
    "INSERT INTO nd_documents (collection_id, doc_id, source, title, content_hash, length, "
    "added_at) SELECT %(c)s, u.doc_id, u.source, u.title, u.hash, u.length, %(now)s FROM "
    "unnest(%(ids)s::text[], %(sources)s::text[], %(titles)s::text[], %(hashes)s::bytea[], "
    "%(lengths)s::int4[]) WITH ORDINALITY AS u(doc_id, source, title, hash, length, n) "
    "ORDER BY u.n ON CONFLICT (collection_id, doc_id) DO NOTHING RETURNING id, doc_id"
)


def _pg_columns(rows: list[tuple[Any, ...]]) -> dict[str, Any]:
    return {
        "c": rows[0][0],
        "now": rows[0][6],
        "ids": [r[1] for r in rows],
        "sources": [r[2] for r in rows],
        "titles": [r[3] for r in rows],
        "hashes": [r[4] for r in rows],
        "lengths": [r[5] for r in rows],
    }


@lru_cache(maxsize=8)
def _sqlite_time(value: datetime) -> str:
    """SQLAlchemy's SQLite ``DateTime`` storage form (naive, microseconds); kept for the
    last few values (a batch's rows share one: 2.5 % of an add's writer thread was this)."""
    return value.replace(tzinfo=None).isoformat(" ", "microseconds")
