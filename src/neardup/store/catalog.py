"""Collections of the store: create, read, list, count, delete; names and rows.

A collection's method, parameters and decision are fixed at creation (``nd_collections``,
:mod:`neardup.store.schema`); deleting one removes its documents and every row of them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, bindparam, delete, func, insert, select, text, update
from sqlalchemy.exc import IntegrityError

from neardup.errors import (
    CollectionExists,
    CollectionNotFound,
    NeardupError,
    ParameterError,
)
from neardup.index.methods import build_method, creation_params
from neardup.index.results import CollectionInfo
from neardup.methods.base import Method
from neardup.methods.decision import resolve_decision
from neardup.methods.plan import plan_for
from neardup.methods.registry import method_class
from neardup.options import check_options
from neardup.store import schema as s
from neardup.store.database import Database, utc
from neardup.store.recompute import RecomputeReport, recompute
from neardup.store.sizes import table_bytes

_NAME_MAX = 200

# The statements of the check path, built once (building a select per call cost ~0.3 ms;
# SQLAlchemy caches only the compiled form). All values are bound parameters.
_COLLECTION = select(s.collections).where(s.collections.c.name == bindparam("name"))
_COLLECTION_FOR_UPDATE = _COLLECTION.with_for_update()


def check_name(name: object) -> str:
    """Validate a collection name: 1-200 characters, printable, not only spaces.

    Raises:
        ParameterError: the name is not allowed.
    """
    if (
        not isinstance(name, str)
        or not name.strip()
        or len(name) > _NAME_MAX
        or not name.isprintable()
        or "/" in name
    ):
        raise ParameterError("name", name, f"1-{_NAME_MAX} printable characters, no '/'")
    return name


def valid_name(name: object) -> bool:
    """Whether ``name`` passes :func:`check_name`."""
    try:
        check_name(name)
    except NeardupError:
        return False
    return True


def create(
    db: Database,
    name: str,
    method: str,
    params: dict[str, Any] | None,
    *,
    threshold: float,
    measure: str,
    min_tokens: int,
    decision: str | None,
    max_df: int,
) -> None:
    """Insert a collection row (:meth:`neardup.store.Store.create_collection` documents the
    arguments).

    Raises:
        ParameterError / UnsupportedMethod: bad name, method, parameters or options.
        CollectionExists: the name is taken.
    """
    check_name(name)
    check_options(
        threshold=threshold,
        measure=measure,
        min_tokens=min_tokens,
        decision=decision,
        max_df=max_df,
    )
    init, canonical = creation_params(method, dict(params or {}), threshold)
    mode = resolve_decision(method_class(method), decision, measure)
    row = {
        "name": name,
        "method": method,
        "params": dumps(init),
        "canonical": dumps(canonical),
        "measure": measure,
        "threshold": float(threshold),
        "min_tokens": min_tokens,
        "stats_dirty": False,
        "created_at": datetime.now(UTC),
        "decision": mode,
        "max_df": max_df,
    }
    try:
        with db.write() as conn:
            conn.execute(insert(s.collections).values(**row))
    except IntegrityError:
        raise CollectionExists(name) from None


def collection_info(conn: Connection, name: str, *, lock: bool = False) -> CollectionInfo:
    """The collection ``name`` (``lock``: PostgreSQL locks its row until the transaction
    ends, ``SELECT ... FOR UPDATE``).

    Raises:
        CollectionNotFound: no such collection.
    """
    if not valid_name(name):  # never stored; and PostgreSQL refuses NUL in a query
        raise CollectionNotFound(name)
    stmt = _COLLECTION_FOR_UPDATE if lock and conn.dialect.name == "postgresql" else _COLLECTION
    row = conn.execute(stmt, {"name": name}).first()
    if row is None:
        raise CollectionNotFound(name)
    return info_of(row)


def all_collections(db: Database) -> list[CollectionInfo]:
    """All collections, by name."""
    with db.read() as conn:
        rows = conn.execute(select(s.collections).order_by(s.collections.c.name)).all()
    return [info_of(r) for r in rows]


def collection_stats(db: Database, name: str, *, sizes: bool = False) -> dict[str, Any]:
    """Counts of a collection (:meth:`neardup.store.Store.stats`).

    Raises:
        CollectionNotFound: no such collection.
    """
    with db.read() as conn:
        info = collection_info(conn, name)
        c = {"c": info.id}
        d = s.documents.c
        docs = conn.execute(
            select(func.count(), func.coalesce(func.sum(d.length), 0), func.max(d.added_at)).where(
                d.collection_id == info.id
            )
        ).one()
        index = conn.execute(
            text(
                "SELECT (SELECT COUNT(*) FROM nd_index WHERE collection_id = :c) + "
                "(SELECT COALESCE(SUM(rows), 0) FROM nd_index_runs WHERE collection_id = :c)"
            ),
            c,
        ).scalar_one()
        terms = conn.execute(
            text("SELECT COUNT(*) FROM nd_terms WHERE collection_id = :c AND df > 0"), c
        ).scalar_one()
        storage = table_bytes(conn, info.id, int(docs[0])) if sizes else None
    last = docs[2]
    out = {
        **info.as_dict(),
        "documents": int(docs[0]),
        "tokens": int(docs[1]),
        "index_rows": int(index),
        "terms": int(terms),
        "last_added_at": None if last is None else utc(last).isoformat(),
    }
    if storage is not None:
        out["storage"] = storage
    return out


def delete_collection(db: Database, name: str) -> int:
    """Delete a collection with all its documents and rows; returns its id.

    Raises:
        CollectionNotFound: no such collection.
    """
    with db.write() as conn:
        info = collection_info(conn, name, lock=True)
        c = {"c": info.id}
        docs = "SELECT id FROM nd_documents WHERE collection_id = :c"
        for table in ("nd_index", "nd_index_runs", "nd_doc_terms", "nd_terms"):
            conn.execute(text(f"DELETE FROM {table} WHERE collection_id = :c"), c)
        for table in ("nd_signatures", "nd_shingles", "nd_texts"):
            conn.execute(text(f"DELETE FROM {table} WHERE document_id IN ({docs})"), c)
        conn.execute(text("DELETE FROM nd_documents WHERE collection_id = :c"), c)
        conn.execute(delete(s.collections).where(s.collections.c.id == info.id))
    return info.id


def recompute_collection(
    db: Database, name: str, method: Callable[[CollectionInfo], Method]
) -> tuple[CollectionInfo, RecomputeReport | None]:
    """Recompute word statistics and lexical signatures set-wise (seed 004), under the
    collection's row lock; ``method(info)`` is the collection's (cached) method.

    Returns:
        The collection and the :class:`RecomputeReport` (``None``: a method without
        statistics).

    Raises:
        CollectionNotFound: no such collection.
    """
    with db.write() as conn:
        info = collection_info(conn, name, lock=True)
        meth = method(info)
        if not plan_for(meth, info).needs_fit:
            return info, None
        fresh = build_method(info.method, info.params, info.canonical)
        report = recompute(conn, info.id, fresh)
        conn.execute(
            update(s.collections).where(s.collections.c.id == info.id).values(stats_dirty=False)
        )
    return info, report


def mark_dirty(conn: Connection, collection_id: int) -> None:
    """Flag the collection ``stats_dirty`` (its statistics are older than its documents)."""
    conn.execute(
        update(s.collections).where(s.collections.c.id == collection_id).values(stats_dirty=True)
    )


def marker(conn: Connection, collection_id: int) -> tuple[int, int]:
    """The collection's document count and largest document key (a fitted method is kept
    while they stay the same)."""
    row = conn.execute(
        text("SELECT COUNT(*), COALESCE(MAX(id), 0) FROM nd_documents WHERE collection_id = :c"),
        {"c": collection_id},
    ).one()
    return int(row[0]), int(row[1])


def info_of(row: Any) -> CollectionInfo:
    """An ``nd_collections`` row as :class:`CollectionInfo` (``decision`` NULL: ``verified``;
    ``max_df`` NULL: no cut)."""
    m = row._mapping
    return CollectionInfo(
        int(m["id"]),
        m["name"],
        m["method"],
        json.loads(m["params"]),
        json.loads(m["canonical"]),
        m["measure"],
        float(m["threshold"]),
        int(m["min_tokens"]),
        bool(m["stats_dirty"]),
        utc(m["created_at"]),
        m.get("decision") or "verified",
        None if m.get("max_df") is None else int(m["max_df"]),
    )


def dumps(obj: Any) -> str:
    """Canonical JSON (sorted keys, compact, UTF-8 kept) of collection parameters."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
