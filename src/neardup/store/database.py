"""Database access shared by the store and the crawler: transactions, error translation,
the dialect's ``INSERT`` (for ``ON CONFLICT``).

:class:`Database` opens the engines of one URL (:func:`neardup.store.engine.open_engines`:
SQLite pragmas, the store's migrations) and hands out connections in a transaction. Database
errors become :class:`~neardup.errors.StoreError` (the message's first line only).
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any, Literal

from sqlalchemy import Connection
from sqlalchemy.exc import IntegrityError, OperationalError, SQLAlchemyError

from neardup.errors import NeardupError, StoreError
from neardup.store.engine import Engines, migrate, open_engines


class Database:
    """The engines of one database and its transactions (thread-safe: a pooled connection
    per transaction).

    Args:
        url: a resolved database URL (:func:`neardup.store.engine.resolve_url`).

    Raises:
        StoreError: the database cannot be opened or migrated.
    """

    def __init__(self, url: str) -> None:
        self.url = url
        self.engines: Engines = open_engines(url)

    @property
    def dialect(self) -> str:
        """``sqlite`` or ``postgresql``."""
        return self.engines.dialect

    def migrate(self, migrations: tuple[str, str]) -> None:
        """Apply another owner's migrations (package, version table) to this database, e.g.
        the crawler's (:func:`neardup.store.engine.migrate`; on failure the engines are
        closed).

        Raises:
            StoreError: the database cannot be migrated.
        """
        migrate(self.engines, self.url, migrations)

    def close(self) -> None:
        """Release the database connections."""
        self.engines.dispose()

    def write(self) -> Tx:
        """A write transaction (SQLite: ``BEGIN IMMEDIATE``)."""
        return Tx(self.engines.write, self.url)

    def read(self) -> Tx:
        """A read transaction."""
        return Tx(self.engines.read, self.url)

    def check_reads(self) -> Tx:
        """The connection of a check: SQLite, one read transaction (no round trips to save);
        PostgreSQL, autocommit (the two statements without ``BEGIN`` and ``COMMIT``: two
        network round trips of five fewer; psycopg sets autocommit on the client side)."""
        return Tx(self.engines.read, self.url, autocommit=self.dialect == "postgresql")

    def insert(self, table: Any) -> Any:
        """The dialect's ``INSERT`` of ``table`` (it has ``on_conflict_do_nothing``/``_update``)."""
        return dialect_insert(self.dialect, table)


class Tx:
    """``with``: a connection in one transaction; database errors become :class:`StoreError`
    (an :class:`~sqlalchemy.exc.IntegrityError` is left as it is: callers turn it into their
    own error, e.g. ``CollectionExists``)."""

    def __init__(self, engine: Any, url: str, *, autocommit: bool = False) -> None:
        self._engine = engine
        self._url = url
        self._autocommit = autocommit
        self._cm: Any = None

    def __enter__(self) -> Connection:
        try:
            if self._autocommit:  # each statement its own transaction (reads only)
                self._cm = self._engine.connect()
                conn = self._cm.__enter__()
                return conn.execution_options(isolation_level="AUTOCOMMIT")
            self._cm = self._engine.begin()
            return self._cm.__enter__()
        except OperationalError as exc:
            raise StoreError(f"database unavailable: {first_line(exc)}") from exc

    def __exit__(self, et: Any, ev: Any, tb: Any) -> Literal[False]:
        try:
            self._cm.__exit__(et, ev, tb)
        except IntegrityError:
            raise
        except SQLAlchemyError as exc:
            if ev is None or not isinstance(ev, NeardupError):
                raise StoreError(f"database error: {first_line(exc)}") from exc
        if isinstance(ev, IntegrityError):
            return False
        if isinstance(ev, SQLAlchemyError):
            raise StoreError(f"database error: {first_line(ev)}") from ev
        return False


@contextlib.contextmanager
def store_errors() -> Iterator[None]:
    """Every database error inside becomes :class:`StoreError`: ``database unavailable``
    (:class:`~sqlalchemy.exc.OperationalError`) or ``database error`` (any other)."""
    try:
        yield
    except OperationalError as exc:
        raise StoreError(f"database unavailable: {first_line(exc)}") from exc
    except SQLAlchemyError as exc:
        raise StoreError(f"database error: {first_line(exc)}") from exc


def dialect_insert(dialect: str, table: Any) -> Any:
    """``sqlalchemy.dialects.<dialect>.insert(table)``."""
    # the dialect's module only: importing both loads asyncio and the async drivers
    mod = importlib.import_module(f"sqlalchemy.dialects.{dialect}")
    return mod.insert(table)


def utc(value: datetime) -> datetime:
    """A stored time as an aware UTC time (SQLite gives naive ones back)."""
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def first_line(exc: BaseException) -> str:
    """The first line of an error's message (300 characters at most), or its type's name."""
    return str(exc).strip().splitlines()[0][:300] if str(exc).strip() else type(exc).__name__
