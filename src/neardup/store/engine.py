"""Opening the store's database: URL choice, engines, SQLite pragmas and migrations.

URL resolution (:func:`resolve_url`): the ``url`` argument (CLI ``--db``), else the
``NEARDUP_DB`` environment variable, else a SQLite file ``neardup.db`` in the user data
directory (``platformdirs.user_data_dir("neardup")``, i.e. ``$XDG_DATA_HOME/neardup`` or
``~/.local/share/neardup`` on Linux). ``postgresql://`` URLs use psycopg 3.

SQLite: WAL journal, ``synchronous=NORMAL``, foreign keys on, a 60 s busy timeout, pages of
:data:`PAGE_SIZE` bytes in a file this creates (an existing file keeps its page size), and
writes begin with ``BEGIN IMMEDIATE`` (writers queue instead of failing on lock upgrade);
writer connections get a larger page cache and rarer checkpoints (:data:`WRITE_PRAGMAS`).
An in-memory database (``sqlite://``, ``sqlite:///:memory:``) is one connection, shared by
the write and read engines (a second connection would open a second, empty database): for
tests and throw-away stores, used by one thread at a time.
"""

from __future__ import annotations

import math
import os
import sqlite3
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError
from sqlalchemy.pool import StaticPool

from neardup.errors import StoreError, UsageError

ENV_VAR = "NEARDUP_DB"
#: The store's migrations: package holding ``migrations/``, and Alembic's version table.
STORE_MIGRATIONS = ("neardup.store", "nd_alembic_version")
BUSY_TIMEOUT_S = 60


def default_url() -> str:
    """``sqlite:///<user data dir>/neardup/neardup.db`` (see the module docstring)."""
    try:
        from platformdirs import user_data_dir

        base = Path(user_data_dir("neardup", appauthor=False))
    except ImportError:  # pragma: no cover - platformdirs is a dependency
        xdg = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
        base = Path(xdg) / "neardup"
    return f"sqlite:///{base / 'neardup.db'}"


def resolve_url(url: str | None = None) -> str:
    """The database URL to use: ``url``, else ``$NEARDUP_DB``, else :func:`default_url`.

    ``postgresql://`` and ``postgres://`` are rewritten to ``postgresql+psycopg://``.

    Raises:
        UsageError: the URL is malformed or names an unsupported database.
    """
    raw = url or os.environ.get(ENV_VAR) or default_url()
    try:
        parsed = make_url(raw)
    except ArgumentError as exc:
        raise UsageError(f"--db {raw!r} is not a database URL: {exc}") from None
    backend = parsed.get_backend_name()
    if parsed.drivername in ("postgres", "postgresql", "postgresql+psycopg2"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    elif backend != "sqlite" and backend != "postgresql":
        raise UsageError(f"--db {raw!r}: only sqlite:// and postgresql:// are supported")
    return parsed.render_as_string(hide_password=False)


#: Connections each engine keeps open, and how many more it may open under a burst. The
#: server answers requests in a thread pool of 40 (Starlette's default); with SQLAlchemy's
#: default of 5 + 10, a burst of 16 concurrent checks closed and reopened connections on
#: every request above the fifth (measured: p99 176 ms -> 144 ms at ~200 requests/s with
#: this change and one transaction per check). PostgreSQL's default ``max_connections``
#: is 100: two server processes stay below it.
POOL_SIZE = 20
POOL_OVERFLOW = 20


@dataclass(frozen=True, slots=True)
class Engines:
    """The engines of one database: ``write`` and ``read`` (the same one for PostgreSQL).

    Attributes:
        write: engine for writing transactions (SQLite: ``BEGIN IMMEDIATE``).
        read: engine for reads (SQLite: deferred transactions, readers never wait).
        dialect: ``sqlite`` or ``postgresql``.
    """

    write: Engine
    read: Engine
    dialect: str

    def dispose(self) -> None:
        """Close every pooled connection."""
        self.write.dispose()
        if self.read is not self.write:
            self.read.dispose()


def open_engines(url: str) -> Engines:
    """Create the engines for ``url`` (already resolved) and run the migrations.

    Raises:
        StoreError: the database cannot be reached or migrated.
    """
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        engines = _sqlite_engines(url, parsed.database)
    else:
        engine = create_engine(
            url, pool_pre_ping=True, pool_size=POOL_SIZE, max_overflow=POOL_OVERFLOW
        )
        engines = Engines(engine, engine, "postgresql")
    migrate(engines, url)
    return engines


def migrate(engines: Engines, url: str, migrations: tuple[str, str] = STORE_MIGRATIONS) -> None:
    """Apply ``migrations`` (:func:`upgrade`); on failure the engines are disposed.

    Raises:
        StoreError: the database cannot be reached or migrated.
    """
    try:
        upgrade(engines.write, migrations)
    except SQLAlchemyError as exc:
        engines.dispose()
        raise StoreError(f"cannot open database {_safe(url)}: {_short(exc)}") from exc


def _sqlite_engines(url: str, database: str | None) -> Engines:
    if not database or database == ":memory:":
        # one connection for every use: each new connection would be a new empty database
        engine = create_engine(url, poolclass=StaticPool, connect_args={"check_same_thread": False})
        _sqlite_events(engine, "BEGIN IMMEDIATE", WRITE_PRAGMAS)
        return Engines(engine, engine, "sqlite")
    if database and database != ":memory:" and not database.startswith("file:"):
        Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)
    file_db = bool(database) and database != ":memory:" and "mode=memory" not in url
    pool = {"pool_size": POOL_SIZE, "max_overflow": POOL_OVERFLOW} if file_db else {}
    write = create_engine(url, **pool)
    read = create_engine(url, **pool)
    _sqlite_events(write, "BEGIN IMMEDIATE", WRITE_PRAGMAS)
    _sqlite_events(read, "BEGIN", ())
    return Engines(write, read, "sqlite")


#: Writer connections only, for bulk loads (``add`` batches of thousands of documents): a
#: 32 MiB page cache (default 2 MiB) keeps the B-tree pages a batch touches in memory, and
#: checkpoints every 8192 WAL pages (32 MiB; default 1000) rewrite a page once for several
#: batches. ``synchronous = NORMAL`` in WAL mode stays safe against a killed process.
WRITE_PRAGMAS = ("PRAGMA cache_size = -32768", "PRAGMA wal_autocheckpoint = 8192")
#: Page size of a database file the store creates, in bytes (SQLite's default is 4096; it
#: applies only before the first table is made, so files made before keep theirs, and both
#: are read alike). Twice as many index rows a page halve the pages a bulk add's merge walks
#: and splits (:func:`neardup.store.bulk.merge_pending`; 2M pending rows into 8M: 3.8 s
#: instead of 4.6-5.0 s, 2026-12-02) and the B-tree pages of every table: adding 200,000
#: documents 0.92x the wall time of 4096-byte pages (three pairs, load 6-7).
PAGE_SIZE = 8192


def _sqlite_events(engine: Engine, begin: str, pragmas: tuple[str, ...]) -> None:
    @event.listens_for(engine, "connect")
    def _connect(dbapi_conn: sqlite3.Connection, _record: Any) -> None:
        dbapi_conn.isolation_level = None  # we emit BEGIN ourselves
        cur = dbapi_conn.cursor()
        cur.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_S * 1000}")
        cur.execute(f"PRAGMA page_size = {PAGE_SIZE}")  # before WAL: a new file only
        cur.execute("PRAGMA journal_mode = WAL")
        cur.execute("PRAGMA synchronous = NORMAL")
        cur.execute("PRAGMA foreign_keys = ON")
        for pragma in pragmas:
            cur.execute(pragma)
        cur.close()
        dbapi_conn.create_function("ln", 1, _ln, deterministic=True)
        dbapi_conn.create_function("exp", 1, _exp, deterministic=True)

    @event.listens_for(engine, "begin")
    def _begin(conn: Any) -> None:
        conn.exec_driver_sql(begin)

    @event.listens_for(engine, "checkin")
    def _checkin(dbapi_conn: Any, record: Any) -> None:
        pages = record.info.pop(RESTORE_AUTOCHECKPOINT, None)
        if pages is not None and dbapi_conn is not None:
            dbapi_conn.execute(f"PRAGMA wal_autocheckpoint = {int(pages)}")


#: Key of a pooled connection's ``info``: the ``wal_autocheckpoint`` (pages) it gets back
#: when it returns to the pool (a bulk add leaves its commits' checkpoints to a thread of
#: its own until the log is long: :mod:`neardup.store.checkpoints`).
RESTORE_AUTOCHECKPOINT = "neardup_restore_autocheckpoint"


def _ln(x: float | None) -> float | None:
    return math.log(x) if x is not None and x > 0 else None


def _exp(x: float | None) -> float | None:
    return math.exp(x) if x is not None else None


def head_revisions(package: str = STORE_MIGRATIONS[0]) -> set[str]:
    """Revisions no migration builds on, read from the shipped scripts' ``revision`` and
    ``down_revision`` lines (without importing Alembic); ``package`` holds ``migrations/``."""
    import re

    revisions: set[str] = set()
    parents: set[str] = set()
    for script in (resources.files(package) / "migrations" / "versions").iterdir():
        if not script.name.endswith(".py") or script.name.startswith("_"):
            continue
        text = script.read_text(encoding="utf-8")
        if found := re.search(r'^revision\s*=\s*["\']([^"\']+)', text, re.M):
            revisions.add(found.group(1))
        parents.update(re.findall(r'["\']([^"\']+)["\']', _line(text, "down_revision")))
    return revisions - parents


def _line(text: str, name: str) -> str:
    for line in text.splitlines():
        if line.startswith(name):
            return line.partition("=")[2]
    return ""


def _at_head(engine: Engine, package: str, version_table: str) -> bool:
    """Is the database already at the newest migration? (a cheap query; False on doubt)."""
    from sqlalchemy import text
    from sqlalchemy.exc import SQLAlchemyError

    try:
        with engine.connect() as conn:
            query = text(f"SELECT version_num FROM {version_table}")  # see migrations/env.py
            rows = {r[0] for r in conn.execute(query)}
    except SQLAlchemyError:  # no table yet, permissions...: let Alembic decide
        return False
    return bool(rows) and rows == head_revisions(package)


def upgrade(engine: Engine, migrations: tuple[str, str] = STORE_MIGRATIONS) -> None:
    """Bring the schema to the newest migration (Alembic, scripts shipped in the package);
    a database already there is left alone without importing Alembic (faster start-up).

    Args:
        engine: the writer engine.
        migrations: the package holding ``migrations/`` and its Alembic version table
            (default the store's; the crawler has its own, :mod:`neardup.crawl.db`).
    """
    package, version_table = migrations
    if _at_head(engine, package, version_table):
        return
    from alembic import command
    from alembic.config import Config

    cfg = Config()
    location = resources.files(package) / "migrations"
    cfg.set_main_option("script_location", str(location))
    with engine.connect() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")
        conn.commit()


def _safe(url: str) -> str:
    return make_url(url).render_as_string(hide_password=True)


def _short(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0][:300]
