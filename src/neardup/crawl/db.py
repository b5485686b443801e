"""The crawler's tables (``nd_crawl_libraries``, ``nd_crawl_pages``) in the store's database.

SQLAlchemy Core with bound parameters only, the same statements on SQLite and PostgreSQL
(``INSERT ... ON CONFLICT DO NOTHING`` for the pages, unique per library and URL). The
database is opened from the store's URL with :class:`neardup.store.database.Database`
(SQLite: WAL, writers begin with ``BEGIN IMMEDIATE``; the store's migrations applied), then
the crawler's own migrations. The store's tables are read through
:mod:`neardup.store.documents` only.

The crawler owns them (seed 004 section 3.1): their definition is here, their migrations
are ``neardup/crawl/migrations`` with their own Alembic version table
(:data:`MIGRATIONS`), run by :class:`CrawlDB` when it opens the database
(:func:`neardup.store.engine.upgrade`). The tables were first made by the store's migration
0002 (databases made before the crawler had its own migrations have them from there); the
crawler's first migration makes them where they are missing and records the baseline.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Connection,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    and_,
    case,
    delete,
    func,
    select,
    update,
)

from neardup.crawl.status import PAGE_DONE, LibraryNotFound, LibraryStatus, PageInfo
from neardup.store.database import Database, store_errors, utc
from neardup.store.documents import ids_with_prefix, stored
from neardup.store.schema import BigId

#: The package holding the crawler's ``migrations/`` and their Alembic version table.
MIGRATIONS = ("neardup.crawl", "nd_crawl_alembic_version")

metadata = MetaData()

#: ``nd_crawl_libraries``: one digital library in the crawl queue: home URL, clarifications
#: (JSON list), target collection, stage, the address pattern and its range once detected,
#: the walk's cursors (``last_page`` upward, ``first_page`` downward), progress counters.
crawl_libraries = Table(
    "nd_crawl_libraries",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("url", Text, nullable=False),
    Column("clarifications", Text, nullable=False),
    Column("collection", String(200), nullable=False),
    Column("stage", String(32), nullable=False),
    Column("mode", String(16), nullable=False, default=""),
    Column("pattern", Text, nullable=True),
    Column("range_low", BigInteger, nullable=True),
    Column("range_high", BigInteger, nullable=True),
    Column("last_page", BigInteger, nullable=True),
    Column("first_page", BigInteger, nullable=True),
    Column("pages_found", Integer, nullable=False, default=0),
    Column("pages_fetched", Integer, nullable=False, default=0),
    Column("pages_failed", Integer, nullable=False, default=0),
    Column("documents_added", Integer, nullable=False, default=0),
    Column("error", Text, nullable=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    Column("finished_at", DateTime(timezone=True), nullable=True),
    Index("ix_nd_crawl_libraries_stage", "stage"),
)

#: ``nd_crawl_pages``: every page a library's crawl knows, unique per (library, url), with its
#: status (new -> reserved -> fetched -> collected, or missing/blocked/failed/skipped),
#: the walk number (pattern mode), and whether a document was stored from it.
crawl_pages = Table(
    "nd_crawl_pages",
    metadata,
    Column("id", BigId, primary_key=True, autoincrement=True),
    Column(
        "library_id",
        Integer,
        ForeignKey("nd_crawl_libraries.id", ondelete="CASCADE"),
        nullable=False,
    ),
    Column("url", Text, nullable=False),
    Column("status", String(16), nullable=False),
    Column("number", BigInteger, nullable=True),
    Column("depth", Integer, nullable=False, default=0),
    Column("clarified", Boolean, nullable=False, default=False),
    Column("document", Boolean, nullable=False, default=False),
    Column("http_status", Integer, nullable=True),
    Column("error", Text, nullable=True),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    UniqueConstraint("library_id", "url", name="uq_nd_crawl_pages_library_url"),
    Index("ix_nd_crawl_pages_status", "library_id", "status"),
    Index("ix_nd_crawl_pages_number", "library_id", "number"),
)

L = crawl_libraries
P = crawl_pages
_CHUNK = 500
#: Largest library id (``nd_crawl_libraries.id`` is an ``INTEGER``: 32-bit on PostgreSQL).
MAX_LIBRARY_ID = 2**31 - 1


def now() -> datetime:
    """The current UTC time."""
    return datetime.now(UTC)


class CrawlDB:
    """Reads and writes of the crawl tables (thread-safe: a pooled connection per call).

    Args:
        url: the store's resolved database URL.

    Raises:
        StoreError: the database cannot be opened or migrated.
    """

    def __init__(self, url: str) -> None:
        self.url = url
        self._db = Database(url)
        self._db.migrate(MIGRATIONS)
        self.dialect = self._db.dialect

    def close(self) -> None:
        """Release the connections."""
        self._db.close()

    @contextlib.contextmanager
    def write(self) -> Iterator[Connection]:
        """A connection in a write transaction; database errors become StoreError."""
        with store_errors(), self._db.engines.write.begin() as conn:
            yield conn

    @contextlib.contextmanager
    def read(self) -> Iterator[Connection]:
        """A connection in a read transaction; database errors become StoreError."""
        with store_errors(), self._db.engines.read.begin() as conn:
            yield conn

    # -- libraries --------------------------------------------------------------------------
    def insert_library(self, url: str, clarifications: Sequence[str], collection: str) -> int:
        """A new library in stage ``queued``; returns its id."""
        t = now()
        row = {
            "url": url,
            "clarifications": json.dumps(list(clarifications), ensure_ascii=False),
            "collection": collection,
            "stage": "queued",
            "mode": "",
            "pages_found": 0,
            "pages_fetched": 0,
            "pages_failed": 0,
            "documents_added": 0,
            "created_at": t,
            "updated_at": t,
        }
        with self.write() as conn:
            result = conn.execute(L.insert().values(**row).returning(L.c.id))
            return int(result.scalar_one())

    def row(self, library_id: int) -> Any:
        """The library's row.

        Raises:
            LibraryNotFound: no such library (also for ids no library can have: outside
                ``[1, 2**31 - 1]``, the range of the ``INTEGER`` key on PostgreSQL, whose
                driver would refuse the parameter itself).
        """
        if not 1 <= library_id <= MAX_LIBRARY_ID:
            raise LibraryNotFound(library_id)
        with self.read() as conn:
            found = conn.execute(select(L).where(L.c.id == library_id)).first()
        if found is None:
            raise LibraryNotFound(library_id)
        return found

    def status(self, library_id: int) -> LibraryStatus:
        """The library's :class:`LibraryStatus`."""
        return to_status(self.row(library_id))

    def statuses(self) -> list[LibraryStatus]:
        """Every library, oldest first."""
        with self.read() as conn:
            rows = conn.execute(select(L).order_by(L.c.id)).all()
        return [to_status(r) for r in rows]

    def find(self, url: str, collection: str) -> LibraryStatus | None:
        """The newest library with this home URL and collection, if any."""
        with self.read() as conn:
            found = conn.execute(
                select(L)
                .where(L.c.url == url, L.c.collection == collection)
                .order_by(L.c.id.desc())
            ).first()
        return None if found is None else to_status(found)

    def update(self, library_id: int, *, when: Sequence[str] = (), **values: Any) -> bool:
        """Set columns (and ``updated_at``); with ``when``, only in one of those stages.

        Returns:
            Whether the row was changed.
        """
        stmt = update(L).where(L.c.id == library_id)
        if when:
            stmt = stmt.where(L.c.stage.in_(list(when)))
        with self.write() as conn:
            result = conn.execute(stmt.values(updated_at=now(), **values))
        return bool(result.rowcount)

    def stage(self, library_id: int) -> str | None:
        """The library's stage, ``None`` when it was removed."""
        with self.read() as conn:
            return conn.execute(select(L.c.stage).where(L.c.id == library_id)).scalar()

    def delete_library(self, library_id: int) -> None:
        """Delete the library and its pages."""
        with self.write() as conn:
            conn.execute(delete(P).where(P.c.library_id == library_id))
            conn.execute(delete(L).where(L.c.id == library_id))

    def bump(self, conn: Connection, library_id: int, **counts: int) -> None:
        """Add to the progress counters (``pages_found=1`` ...) inside ``conn``'s transaction."""
        values: dict[str, Any] = {k: getattr(L.c, k) + v for k, v in counts.items() if v}
        if values:
            values["updated_at"] = now()
            conn.execute(update(L).where(L.c.id == library_id).values(**values))

    # -- pages ------------------------------------------------------------------------------
    def add_pages(
        self,
        library_id: int,
        rows: Iterable[dict[str, Any]],
        *,
        limit: int,
        conn: Connection | None = None,
    ) -> list[str]:
        """Insert pages as ``new`` (or ``row["status"]``) unless known; at most ``limit`` in all.

        Args:
            library_id: the library.
            rows: ``{"url", "depth", "clarified", "number"?, "status"?}`` mappings.
            limit: the library's page budget (``max_pages``).
            conn: run inside this transaction (default: a new one).

        Returns:
            The URLs that were new.
        """
        items = list(rows)
        if not items:
            return []
        if conn is None:
            with self.write() as own:
                return self.add_pages(library_id, items, limit=limit, conn=own)
        added: list[str] = []
        known = conn.execute(
            select(func.count()).select_from(P).where(P.c.library_id == library_id)
        ).scalar_one()
        room = max(0, limit - int(known))
        items = items[:room]
        t = now()
        for start in range(0, len(items), _CHUNK):
            chunk = [
                {
                    "library_id": library_id,
                    "url": r["url"],
                    "status": r.get("status", "new"),
                    "number": r.get("number"),
                    "depth": r.get("depth", 0),
                    "clarified": bool(r.get("clarified", False)),
                    "document": bool(r.get("document", False)),
                    "updated_at": t,
                }
                for r in items[start : start + _CHUNK]
            ]
            stmt = self._db.insert(P).on_conflict_do_nothing(index_elements=["library_id", "url"])
            added += [r[0] for r in conn.execute(stmt.returning(P.c.url), chunk)]
        self.bump(conn, library_id, pages_found=len(added))
        return added

    def reserve(self, library_id: int, limit: int, *, clarified_last: bool) -> list[Any]:
        """Mark up to ``limit`` new pages ``reserved`` and return them.

        Order: by depth then discovery (breadth first); with ``clarified_last`` the pages
        without a clarification first (the link search looks for links, not articles).
        """
        order: list[Any] = [P.c.depth, P.c.id]
        if clarified_last:
            order.insert(0, case((P.c.clarified, 1), else_=0))
        with self.write() as conn:
            rows = conn.execute(
                select(P.c.id, P.c.url, P.c.depth, P.c.clarified, P.c.number)
                .where(P.c.library_id == library_id, P.c.status == "new")
                .order_by(*order)
                .limit(limit)
            ).all()
            if rows:
                conn.execute(
                    update(P)
                    .where(P.c.id.in_([r.id for r in rows]))
                    .values(status="reserved", updated_at=now())
                )
        return list(rows)

    def reserve_urls(self, library_id: int, urls: Sequence[str]) -> list[Any]:
        """Mark the listed pages ``reserved`` if they are ``new``, and return those."""
        if not urls:
            return []
        with self.write() as conn:
            rows = conn.execute(
                select(P.c.id, P.c.url, P.c.depth, P.c.clarified, P.c.number).where(
                    P.c.library_id == library_id, P.c.status == "new", P.c.url.in_(list(urls))
                )
            ).all()
            if rows:
                conn.execute(
                    update(P)
                    .where(P.c.id.in_([r.id for r in rows]))
                    .values(status="reserved", updated_at=now())
                )
        return list(rows)

    def set_page(self, page_id: int, status: str, **values: Any) -> None:
        """Set a page's status (and columns) in its own transaction."""
        with self.write() as conn:
            self.set_page_in(conn, page_id, status, **values)

    def set_page_in(self, conn: Connection, page_id: int, status: str, **values: Any) -> None:
        """Set a page's status inside ``conn``'s transaction."""
        conn.execute(
            update(P).where(P.c.id == page_id).values(status=status, updated_at=now(), **values)
        )

    def reset_unfinished(self, library_id: int) -> int:
        """Pages left unfinished by a run that ended (``reserved``, ``fetched``, ``storing``)
        go back to ``new``, or are repaired, in one transaction.

        A run killed after a page's document was stored and before the page was marked
        (two transactions) leaves the page ``storing`` with its document in the collection:
        that document counts in ``documents_added`` now. In a range walk (``mode`` pattern)
        an unfinished page whose URL is a stored document is finished as ``collected`` with
        a document, since the walk treats a stored URL as found without a request and would
        never finish it; elsewhere it goes back to ``new`` and is fetched again for its
        links (and found indexed).

        Returns:
            Pages put back to ``new``.
        """
        unfinished = P.c.status.in_(["reserved", "fetched", "storing"])
        with self.write() as conn:
            lib = conn.execute(select(L.c.collection, L.c.mode).where(L.c.id == library_id)).first()
            stored = self._stored_pages(conn, library_id, lib, unfinished)
            added = sum(1 for _, status in stored if status == "storing")
            walking = lib is not None and lib.mode == "pattern"
            ids = [i for i, _ in stored] if walking else []
            for start in range(0, len(ids), _CHUNK):
                conn.execute(
                    update(P)
                    .where(P.c.id.in_(ids[start : start + _CHUNK]))
                    .values(status="collected", document=True, error=None, updated_at=now())
                )
            self.bump(conn, library_id, pages_fetched=len(ids), documents_added=added)
            result = conn.execute(
                update(P)
                .where(P.c.library_id == library_id, unfinished)
                .values(status="new", updated_at=now())
            )
        return int(result.rowcount or 0)

    def _stored_pages(
        self, conn: Connection, library_id: int, lib: Any, unfinished: Any
    ) -> list[tuple[int, str]]:
        """``(page id, status)`` of the unfinished pages whose URL is a stored document id."""
        if lib is None:
            return []
        rows = conn.execute(
            select(P.c.id, P.c.status).where(
                P.c.library_id == library_id, unfinished, stored(lib.collection, P.c.url)
            )
        ).all()
        return [(int(r[0]), str(r[1])) for r in rows]

    def requeue(self, library_id: int, where: Any, *, conn: Connection | None = None) -> int:
        """Finished pages matching ``where`` become ``new`` again (a new crawl round); the
        progress counters forget them (they count again when fetched again)."""
        if conn is None:
            with self.write() as own:
                return self.requeue(library_id, where, conn=own)
        cond = and_(P.c.library_id == library_id, P.c.status.in_(list(PAGE_DONE)), where)
        counts: dict[str, int] = dict(
            conn.execute(select(P.c.status, func.count()).where(cond).group_by(P.c.status)).all()
        )
        result = conn.execute(update(P).where(cond).values(status="new", updated_at=now()))
        fetched = int(counts.get("collected", 0)) + int(counts.get("missing", 0))
        failed = int(counts.get("failed", 0))
        self.bump(conn, library_id, pages_fetched=-fetched, pages_failed=-failed)
        return int(result.rowcount or 0)

    def page_rows(self, library_id: int, *columns: Any, where: Any = None) -> list[Any]:
        """Selected columns of the library's pages (optionally filtered), by id."""
        stmt = select(*(columns or (P,))).where(P.c.library_id == library_id)
        if where is not None:
            stmt = stmt.where(where)
        with self.read() as conn:
            return list(conn.execute(stmt.order_by(P.c.id)).all())

    def count(self, library_id: int, where: Any = None) -> int:
        """How many of the library's pages match ``where``."""
        stmt = select(func.count()).select_from(P).where(P.c.library_id == library_id)
        if where is not None:
            stmt = stmt.where(where)
        with self.read() as conn:
            return int(conn.execute(stmt).scalar_one())

    def pages(self, library_id: int, status: str | None = None) -> list[PageInfo]:
        """The library's pages as :class:`PageInfo` (optionally of one status)."""
        where = None if status is None else P.c.status == status
        return [
            PageInfo(r.url, r.status, r.number, bool(r.document), r.http_status, r.error)
            for r in self.page_rows(library_id, where=where)
        ]

    def known_documents(self, collection: str, prefix: str) -> set[str]:
        """Ids of the collection's documents that start with ``prefix`` (the library's site)."""
        with self.read() as conn:
            return ids_with_prefix(conn, collection, prefix)


def to_status(row: Any) -> LibraryStatus:
    """A ``nd_crawl_libraries`` row as :class:`LibraryStatus`."""
    m = row._mapping
    low, high = m["range_low"], m["range_high"]
    return LibraryStatus(
        id=int(m["id"]),
        url=m["url"],
        clarifications=tuple(json.loads(m["clarifications"])),
        collection=m["collection"],
        stage=m["stage"],
        pattern=m["pattern"],
        range=None if low is None or high is None else (int(low), int(high)),
        pages_found=int(m["pages_found"]),
        pages_fetched=int(m["pages_fetched"]),
        documents_added=int(m["documents_added"]),
        error=m["error"],
        created_at=utc(m["created_at"]),
        updated_at=utc(m["updated_at"]),
        finished_at=None if m["finished_at"] is None else utc(m["finished_at"]),
        pages_failed=int(m["pages_failed"]),
        mode=m["mode"] or "",
    )
