"""Database maintenance after large removals: ``VACUUM`` of the store's tables.

Removing a document deletes its index, shingle, signature, term and text rows. PostgreSQL
keeps the deleted rows as dead tuples until a vacuum; autovacuum starts only when a
table's dead rows pass 20 % of its live ones, so removing a few hundred thousand index rows
from a table of millions left them in place, and checks (index scans over the dead entries)
ran 35 % slower until a manual ``VACUUM ANALYZE``. SQLite frees the rows at once but keeps
the pages, scattered through the file, until a ``VACUUM`` rebuilds it.

:func:`vacuum` (``Store.vacuum``, ``neardup collection vacuum``) runs ``VACUUM (ANALYZE)``
on every ``nd_*`` table on PostgreSQL (outside a transaction, as ``VACUUM`` requires;
readers and writers go on meanwhile), and ``VACUUM`` on SQLite (it rewrites the file and
waits for, then blocks, writers while it runs).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError

from neardup.errors import StoreError
from neardup.store import schema as s
from neardup.store.engine import Engines


@dataclass(frozen=True, slots=True)
class VacuumReport:
    """What :func:`vacuum` did.

    Attributes:
        dialect: ``sqlite`` or ``postgresql``.
        tables: the tables vacuumed (all of them on SQLite, where ``VACUUM`` is per file).
        bytes_before: size of those tables (PostgreSQL: ``pg_total_relation_size``, indexes
            included) or of the database file (SQLite: pages x page size) before, bytes.
        bytes_after: the same after, bytes.
        seconds: wall time, seconds.
    """

    dialect: str
    tables: tuple[str, ...]
    bytes_before: int
    bytes_after: int
    seconds: float

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return {
            "dialect": self.dialect,
            "tables": list(self.tables),
            "bytes_before": self.bytes_before,
            "bytes_after": self.bytes_after,
            "seconds": round(self.seconds, 3),
        }


def vacuum(engines: Engines) -> VacuumReport:
    """Vacuum the store's tables (see the module docstring).

    Raises:
        StoreError: the database refused or is unreachable (message without the password).
    """
    tables = tuple(t.name for t in s.metadata.sorted_tables if t.name.startswith("nd_"))
    start = time.perf_counter()
    try:
        if engines.dialect == "postgresql":
            before, after = _vacuum_postgresql(engines, tables)
        else:
            before, after = _vacuum_sqlite(engines)
    except SQLAlchemyError as exc:
        first = str(exc).strip().splitlines()[0][:300] if str(exc).strip() else type(exc).__name__
        raise StoreError(f"vacuum failed: {first}") from exc
    return VacuumReport(engines.dialect, tables, before, after, time.perf_counter() - start)


def _vacuum_postgresql(engines: Engines, tables: tuple[str, ...]) -> tuple[int, int]:
    size = text(
        "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
        "WHERE c.relname = ANY(:names) AND c.relkind = 'r'"
    )
    engine = engines.write.execution_options(isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        before = int(conn.execute(size, {"names": list(tables)}).scalar_one())
        for name in tables:  # names from our own schema, never from a caller
            conn.exec_driver_sql(f'VACUUM (ANALYZE) "{name}"')
        after = int(conn.execute(size, {"names": list(tables)}).scalar_one())
    return before, after


def _vacuum_sqlite(engines: Engines) -> tuple[int, int]:
    # The store's SQLite connections run in autocommit mode (BEGIN is emitted by an event
    # on Connection.begin), so the DB-API cursor can run VACUUM outside a transaction.
    raw = engines.write.raw_connection()
    try:
        cur = raw.cursor()
        before = _sqlite_bytes(cur)
        cur.execute("VACUUM")
        after = _sqlite_bytes(cur)
        cur.close()
    except Exception as exc:  # sqlite3.Error: wrap like SQLAlchemy would
        raise StoreError(f"vacuum failed: {exc}") from exc
    finally:
        raw.close()
    return before, after


def _sqlite_bytes(cur: Any) -> int:
    cur.execute("PRAGMA page_count")
    pages = int(cur.fetchone()[0])
    cur.execute("PRAGMA page_size")
    return pages * int(cur.fetchone()[0])
