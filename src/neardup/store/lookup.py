"""The check path's SQL, run on the DB-API connection: one statement for the collection row
and one for the candidates with everything verification needs (issue 20), after one that
reads the collection's pending runs (none once an add has merged them).

SQLAlchemy compiles a cached statement in ~0.3 ms per call (the expanding ``IN`` list is
rendered again each time) and wraps every row; a check at a million documents has ~5 ms
in all. Here the SQL text is built once per dialect, and the rows come back as the
driver's tuples. All values are bound parameters.

The keys are one bound value whatever their number (issue 27): an ``int8[]`` array on
PostgreSQL, a JSON array read by ``json_each`` on SQLite. One statement shape per dialect
means a bounded statement cache on every pooled connection (a statement per key count grew
a server by 1.7 GiB over 150 checks), and no limit on the number of keys (a 130k-word text
passed SQLite's 32,766 variables and failed with "too many SQL variables").
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
from sqlalchemy import Connection

from neardup.index.verify import MAX_CANDIDATES
from neardup.store import runs

__all__ = ["COLLECTION_COLUMNS", "MAX_CANDIDATES", "candidates", "collection_row"]


#: ``nd_collections`` columns read by a check, in :func:`collection_row`'s order.
COLLECTION_COLUMNS = (
    "id, name, method, params, canonical, measure, threshold, min_tokens, stats_dirty, "
    "created_at, decision, max_df"
)

_ROWS = (
    "SELECT d.id, d.doc_id, d.source, d.title, s.fingerprints, g.payload, h.hits, "
    "CASE WHEN d.title = '' THEN t.body END FROM h "
    "JOIN nd_documents d ON d.id = h.document_id "
    "JOIN nd_shingles s ON s.document_id = d.id "
    "LEFT JOIN nd_signatures g ON g.document_id = d.id "
    "LEFT JOIN nd_texts t ON t.document_id = d.id"
)
_HITS = (
    "h AS (SELECT document_id, COUNT(*) AS hits FROM p {cut}"
    f"GROUP BY document_id ORDER BY hits DESC, document_id LIMIT {MAX_CANDIDATES}) {_ROWS}"
)
#: Keys of more than ``max_df`` rows (documents) give no candidates (``nd_collections.max_df``).
_CUT = "WHERE key NOT IN (SELECT key FROM p GROUP BY key HAVING COUNT(*) > {m}) "
_PG_POSTINGS = (
    "WITH p AS {mat}(SELECT key, document_id FROM nd_index "
    "WHERE key = ANY(%(k)s::int8[]) AND collection_id = %(c)s "
    "UNION ALL SELECT * FROM unnest(%(rk)s::int8[], %(rd)s::int8[]) AS r(key, document_id)), "
)
_SQLITE_POSTINGS = (
    "WITH q AS MATERIALIZED (SELECT value AS key FROM json_each(?)), "
    "p AS {mat}(SELECT key, document_id FROM nd_index "
    "WHERE collection_id = ? AND key IN (SELECT key FROM q) "
    "UNION ALL SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') "
    "FROM json_each(?)), "
)
# the postings are read once (inlined), or twice with the cut (materialized once)
_PG_CANDIDATES = _PG_POSTINGS.format(mat="") + _HITS.format(cut="")
_PG_CANDIDATES_CUT = _PG_POSTINGS.format(mat="MATERIALIZED ") + _HITS.format(
    cut=_CUT.format(m="%(m)s")
)
_SQLITE_CANDIDATES = _SQLITE_POSTINGS.format(mat="") + _HITS.format(cut="")
_SQLITE_CANDIDATES_CUT = _SQLITE_POSTINGS.format(mat="MATERIALIZED ") + _HITS.format(
    cut=_CUT.format(m="?")
)


def collection_row(conn: Connection, name: str) -> tuple[Any, ...] | None:
    """The raw row of collection ``name`` (:data:`COLLECTION_COLUMNS`), or ``None``.

    The driver's values (no type processing): equal rows mean an unchanged collection.
    """
    pg = conn.dialect.name == "postgresql"
    mark = "%s" if pg else "?"
    cur = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
    try:
        cur.execute(f"SELECT {COLLECTION_COLUMNS} FROM nd_collections WHERE name = {mark}", (name,))
        row = cur.fetchone()
    finally:
        cur.close()
    return None if row is None else tuple(row)


def candidates(
    conn: Connection, collection_id: int, keys: list[int], max_df: int | None = None
) -> list[tuple[Any, ...]]:
    """The documents sharing index keys with a query, joined to their stored rows: those of
    ``nd_index`` and those of the collection's runs (pending rows of an add,
    :func:`neardup.store.runs.postings`), passed into the statement.

    Args:
        conn: an open connection (read transaction).
        collection_id: the collection.
        keys: the query's distinct index keys (signed 64-bit).
        max_df: keys of more documents than this give no candidates; ``None``: no cut.

    Returns:
        At most :data:`MAX_CANDIDATES` rows ``(pk, doc_id, source, title, fingerprints,
        signature payload or None, shared keys, text body or None)``, most shared keys
        first; the body (``nd_texts.body``) only where the stored title is empty (the title
        is then the text's first line, :func:`neardup.index.codec.shown_title`).
    """
    if not keys:
        return []
    pending = runs.postings(conn, collection_id, np.asarray(keys, dtype=np.int64))
    cur = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
    try:
        if conn.dialect.name == "postgresql":
            params: dict[str, Any] = {
                "k": keys,
                "c": collection_id,
                "rk": [k for k, _ in pending],
                "rd": [d for _, d in pending],
            }
            if max_df is None:
                cur.execute(_PG_CANDIDATES, params)
            else:
                cur.execute(_PG_CANDIDATES_CUT, {**params, "m": max_df})
        else:
            packed = json.dumps([int(k) for k in keys], separators=(",", ":"))
            found = json.dumps(pending, separators=(",", ":"))
            args: tuple[Any, ...] = (packed, collection_id, found)
            if max_df is None:
                cur.execute(_SQLITE_CANDIDATES, args)
            else:
                cur.execute(_SQLITE_CANDIDATES_CUT, (*args, max_df))
        return [tuple(r) for r in cur.fetchall()]
    finally:
        cur.close()
