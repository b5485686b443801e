"""Database fixtures shared by the store, service and CLI tests.

PostgreSQL: a fresh database ``neardup_test_<random>`` on 127.0.0.1:5432 per test session,
dropped at the end. With ``CI`` set an unreachable server fails the tests; otherwise the
PostgreSQL variants are skipped.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from shared_data import unavailable

PG_ADMIN = os.environ.get("NEARDUP_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


def _admin_engine():  # type: ignore[no-untyped-def]
    from sqlalchemy import create_engine

    return create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT")


def create_database(prefix: str) -> str:
    """Create a fresh database ``{prefix}_<random>`` on :data:`PG_ADMIN`'s server; its URL.

    Raises:
        sqlalchemy.exc.OperationalError: the server is unreachable.
    """
    from sqlalchemy import text

    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    engine = _admin_engine()
    try:
        with engine.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
    finally:
        engine.dispose()
    return f"{PG_ADMIN.rsplit('/', 1)[0]}/{name}"


def drop_database(url: str) -> None:
    """Drop the database of ``url`` (made by :func:`create_database`), connections and all."""
    from sqlalchemy import text

    engine = _admin_engine()
    try:
        with engine.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{url.rsplit("/", 1)[1]}" WITH (FORCE)'))
    finally:
        engine.dispose()


@pytest.fixture(scope="session")
def pg_database() -> Iterator[str]:
    """URL of a fresh PostgreSQL database for this session."""
    from sqlalchemy.exc import OperationalError

    try:
        url = create_database("neardup_test")
    except OperationalError as exc:
        unavailable(f"PostgreSQL unreachable at {PG_ADMIN}: {exc}")
    try:
        yield url
    finally:
        drop_database(url)


#: The PostgreSQL variants are marked slow (a server round trip per statement; the SQLite
#: variant runs the same code in `make test-fast`).
@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.slow)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A database URL: a SQLite file in ``tmp_path``, or the session's PostgreSQL database."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'neardup.db'}"
    return str(request.getfixturevalue("pg_database"))


def unique(prefix: str = "c") -> str:
    """A collection name no other test uses."""
    return f"{prefix}-{uuid.uuid4().hex[:10]}"
