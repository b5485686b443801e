"""The crawler's tables (SQLAlchemy Core), in the store's database next to its tables.

The crawler owns them (seed 004 section 3.1): their definition is here, their migrations
are ``neardup/crawl/migrations`` with their own Alembic version table
(:data:`MIGRATIONS`), run by :class:`neardup.crawl.db.CrawlDB` when it opens the database
(:func:`neardup.store.engine.upgrade`). The tables were first made by the store's migration
0002 (databases made before the crawler had its own migrations have them from there); the
crawler's first migration makes them where they are missing and records the baseline.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)

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
