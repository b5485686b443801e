"""Pending index rows as runs: each bulk ``add`` batch's index rows, sorted by key, stored as
one ``nd_index_runs`` row until a merge (:func:`neardup.store.bulk.merge_pending`) moves
them into the lookup B-tree ``nd_index`` (migration 0008).

A million documents have 41 million index rows (minhash-lsh, recall banding). Written one
row each into an unindexed table and moved with SQL's ``INSERT ... SELECT ... ORDER BY key``,
they cost the database a row append each and a sort of every merged row; as runs they cost
one value a batch, and a merge sorts them in numpy (a stable argsort of int64 keys) before
the same sorted insert. A check during an add reads the collection's runs and finds its keys
in each by binary search (:func:`postings`), where it scanned every pending row before.

Run format (``nd_index_runs.payload``), version 1, little-endian, for ``n`` index rows
(``n`` is also stored in ``nd_index_runs.rows``):

* byte 0: the format version, ``1``;
* ``8 * n`` bytes: the keys, int64, sorted ascending (ties in any order);
* ``8 * n`` bytes: the document primary keys (``nd_documents.id``), int64, row for row;
* ``2 * n`` bytes: the bands (``nd_index.band``), int16, row for row.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sqlalchemy import Connection

from neardup.errors import StoreError

__all__ = ["RUN_FORMAT", "Run", "decode_run", "encode_run", "postings", "take", "write"]

#: Version byte of :func:`encode_run`'s bytes.
RUN_FORMAT = 1
_ROW_BYTES = 8 + 8 + 2


@dataclass(frozen=True, eq=False)
class Run:
    """Index rows of one run, sorted by key.

    Attributes:
        key: int64 (n,), ascending.
        document: int64 (n,), the document primary key of each row.
        band: int16 (n,), the band (or slot) of each row.
    """

    key: np.ndarray
    document: np.ndarray
    band: np.ndarray


def encode_run(key: np.ndarray, band: np.ndarray, document: np.ndarray) -> bytes:
    """The stored bytes of index rows (format in the module docstring).

    Args:
        key: int64 (n,), sorted ascending; band: int16-range ints (n,); document: int64 (n,).

    Raises:
        ValueError: the arrays differ in length, or ``key`` is not sorted.
    """
    k = np.asarray(key, dtype="<i8")
    if not (k.shape == np.shape(band) == np.shape(document)) or k.ndim != 1:
        raise ValueError(
            f"key, band and document must be 1-d of one length, got {k.shape}, "
            f"{np.shape(band)}, {np.shape(document)}"
        )
    if k.size > 1 and bool(np.any(k[1:] < k[:-1])):
        raise ValueError("key must be sorted ascending")
    parts = (
        bytes([RUN_FORMAT]),
        k.tobytes(),
        np.asarray(document, dtype="<i8").tobytes(),
        np.asarray(band, dtype="<i2").tobytes(),
    )
    return b"".join(parts)


def decode_run(payload: bytes) -> Run:
    """The rows of stored run bytes (:func:`encode_run`), as read-only views of them.

    Raises:
        StoreError: unknown version byte or a length that is not ``1 + 18 * n``.
    """
    data = memoryview(payload)
    if len(data) < 1 or data[0] != RUN_FORMAT or (len(data) - 1) % _ROW_BYTES:
        head = data[0] if len(data) else None
        raise StoreError(
            f"nd_index_runs: cannot read a run of {len(data)} bytes with version byte {head} "
            f"(this neardup reads version {RUN_FORMAT}, 1 + 18 bytes a row)"
        )
    n = (len(data) - 1) // _ROW_BYTES
    return Run(
        np.frombuffer(data, dtype="<i8", count=n, offset=1),
        np.frombuffer(data, dtype="<i8", count=n, offset=1 + 8 * n),
        np.frombuffer(data, dtype="<i2", count=n, offset=1 + 16 * n),
    )


def write(
    conn: Connection, collection_id: int, key: np.ndarray, band: np.ndarray, doc: np.ndarray
) -> int:
    """Store index rows sorted by ``key`` as one run of the collection, in the caller's
    transaction; returns the number of rows (0 writes nothing)."""
    n = int(np.shape(key)[0])
    if n == 0:
        return 0
    payload = encode_run(key, band, doc)
    mark = "%s" if conn.dialect.name == "postgresql" else "?"
    cur = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
    try:
        cur.execute(
            f"INSERT INTO nd_index_runs (collection_id, rows, payload) VALUES ({mark}, {mark}, "
            f"{mark})",
            (collection_id, n, payload),
        )
    finally:
        cur.close()
    return n


def postings(conn: Connection, collection_id: int, keys: np.ndarray) -> list[tuple[int, int]]:
    """``(key, document pk)`` of the collection's runs whose key is one of ``keys``: a
    binary search of each run, in the caller's (read) transaction.

    Args:
        keys: int64 (q,), sorted ascending, distinct.
    """
    mark = "%s" if conn.dialect.name == "postgresql" else "?"
    cur = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
    try:
        cur.execute(
            f"SELECT payload FROM nd_index_runs WHERE collection_id = {mark}", (collection_id,)
        )
        payloads = [bytes(r[0]) for r in cur.fetchall()]
    finally:
        cur.close()
    out: list[tuple[int, int]] = []
    for payload in payloads:
        run = decode_run(payload)
        lo = np.searchsorted(run.key, keys, side="left")
        hi = np.searchsorted(run.key, keys, side="right")
        for a, b in zip(lo[hi > lo].tolist(), hi[hi > lo].tolist(), strict=True):
            out.extend(zip(run.key[a:b].tolist(), run.document[a:b].tolist(), strict=True))
    return out


def take(conn: Connection, collection_id: int) -> Run | None:
    """All the collection's runs as one run, sorted by key (stable: ties in run order), in
    the caller's (write) transaction, or ``None`` when it has none; the caller inserts the
    rows into ``nd_index`` (:func:`neardup.store.bulk.merge_pending`).

    PostgreSQL: the runs are taken by one ``DELETE ... RETURNING`` (a run another writer
    commits meanwhile is never deleted unread). SQLite: they are read, then deleted; the
    writer holds the database's write lock (``BEGIN IMMEDIATE``), so no run comes between.
    """
    pg = conn.dialect.name == "postgresql"
    cur = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
    try:
        if pg:
            cur.execute(
                "DELETE FROM nd_index_runs WHERE collection_id = %s RETURNING id, payload",
                (collection_id,),
            )
            rows = sorted(cur.fetchall())
        else:
            cur.execute(
                "SELECT id, payload FROM nd_index_runs WHERE collection_id = ? ORDER BY id",
                (collection_id,),
            )
            rows = cur.fetchall()
            cur.execute("DELETE FROM nd_index_runs WHERE collection_id = ?", (collection_id,))
    finally:
        cur.close()
    if not rows:
        return None
    runs = [decode_run(bytes(r[1])) for r in rows]
    del rows
    key = np.concatenate([r.key for r in runs])
    doc = np.concatenate([r.document for r in runs])
    band = np.concatenate([r.band for r in runs])
    del runs  # the stored bytes: at most one copy of the rows besides the sorted one
    order = np.argsort(key, kind="stable")
    return Run(key[order], doc[order], band[order])
