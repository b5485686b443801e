"""Storage of a collection by table: rows and bytes on disk per document (``collection stats``).

A table's bytes on disk are its pages (SQLite: the ``dbstat`` virtual table, the table's
B-tree and its indexes; PostgreSQL: ``pg_total_relation_size``, heap, TOAST and indexes).
Tables are shared by all collections, so a collection is charged the share of each table
equal to its share of the table's rows. Reading ``dbstat`` walks every page of the file:
seconds for a multi-gigabyte database.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, text
from sqlalchemy.exc import SQLAlchemyError

#: Table -> (SQL counting the collection's rows, indexes whose pages count with it).
_TABLES: dict[str, tuple[str, tuple[str, ...]]] = {
    "nd_documents": (
        "SELECT COUNT(*) FROM nd_documents WHERE collection_id = :c",
        ("sqlite_autoindex_nd_documents_1",),
    ),
    "nd_texts": (
        "SELECT COUNT(*) FROM nd_texts t JOIN nd_documents d ON d.id = t.document_id "
        "WHERE d.collection_id = :c",
        (),
    ),
    "nd_shingles": (
        "SELECT COUNT(*) FROM nd_shingles t JOIN nd_documents d ON d.id = t.document_id "
        "WHERE d.collection_id = :c",
        (),
    ),
    "nd_signatures": (
        "SELECT COUNT(*) FROM nd_signatures t JOIN nd_documents d ON d.id = t.document_id "
        "WHERE d.collection_id = :c",
        (),
    ),
    "nd_index": ("SELECT COUNT(*) FROM nd_index WHERE collection_id = :c", ()),
    "nd_index_runs": (
        "SELECT COALESCE(SUM(rows), 0) FROM nd_index_runs WHERE collection_id = :c",
        ("ix_nd_index_runs_collection",),
    ),
    "nd_terms": (
        "SELECT COUNT(*) FROM nd_terms WHERE collection_id = :c",
        ("sqlite_autoindex_nd_terms_1",),
    ),
    "nd_doc_terms": (
        "SELECT COUNT(*) FROM nd_doc_terms WHERE collection_id = :c",
        ("ix_nd_doc_terms_document",),
    ),
}

#: Tables whose rows are not counted by ``COUNT(*)``: every collection's rows.
_ALL_ROWS = {"nd_index_runs": "SELECT COALESCE(SUM(rows), 0) FROM nd_index_runs"}


def table_bytes(conn: Connection, collection_id: int, documents: int) -> dict[str, Any]:
    """Rows and bytes on disk of a collection, by table.

    Args:
        conn: an open connection (read transaction).
        collection_id: the collection's database id.
        documents: its number of documents (for the per-document figures).

    Returns:
        ``{"tables": {table: {"rows", "bytes", "bytes_per_document"}}, "total_bytes",
        "bytes_per_document"}``; ``bytes`` are ``None`` where the database cannot tell
        (SQLite built without ``dbstat``).
    """
    disk = _disk_bytes(conn)
    out: dict[str, Any] = {}
    total = 0
    known = disk is not None
    for table, (count_sql, _) in _TABLES.items():
        rows = int(conn.execute(text(count_sql), {"c": collection_id}).scalar_one())
        size: int | None = None
        if disk is not None:
            every = _ALL_ROWS.get(table, f"SELECT COUNT(*) FROM {table}")
            all_rows = int(conn.execute(text(every)).scalar_one())
            share = rows / all_rows if all_rows else 0.0
            size = round(disk.get(table, 0) * share)
            total += size
        out[table] = {
            "rows": rows,
            "bytes": size,
            "bytes_per_document": _per(size, documents),
        }
    return {
        "tables": out,
        "total_bytes": total if known else None,
        "bytes_per_document": _per(total if known else None, documents),
    }


def _per(size: int | None, documents: int) -> float | None:
    return None if size is None or not documents else round(size / documents, 1)


def _disk_bytes(conn: Connection) -> dict[str, int] | None:
    """Bytes on disk of each table of :data:`_TABLES`, its indexes included."""
    if conn.dialect.name == "postgresql":
        return {
            t: int(
                conn.execute(
                    text("SELECT COALESCE(pg_total_relation_size(to_regclass(:t)), 0)"), {"t": t}
                ).scalar_one()
            )
            for t in _TABLES
        }
    try:
        rows = conn.execute(text("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name")).all()
        pages: dict[str, int] = {str(name): int(size or 0) for name, size in rows}
    except SQLAlchemyError:  # SQLite built without the dbstat virtual table
        return None
    return {
        t: int(pages.get(t, 0)) + sum(int(pages.get(i, 0)) for i in indexes)
        for t, (_, indexes) in _TABLES.items()
    }
