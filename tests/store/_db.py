"""Database fixtures shared by the store, service and CLI tests.

PostgreSQL: a fresh database ``neardup_test_<random>`` on 127.0.0.1:5432 per test session,
dropped at the end. With ``CI`` set an unreachable server fails the tests; otherwise the
PostgreSQL variants are skipped.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest

PG_ADMIN = os.environ.get("NEARDUP_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


def _admin_engine():  # type: ignore[no-untyped-def]
    from sqlalchemy import create_engine

    return create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT")


@pytest.fixture(scope="session")
def pg_database() -> Iterator[str]:
    """URL of a fresh PostgreSQL database for this session."""
    from sqlalchemy import text
    from sqlalchemy.exc import OperationalError

    name = f"neardup_test_{uuid.uuid4().hex[:12]}"
    try:
        engine = _admin_engine()
        with engine.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
    except OperationalError as exc:
        msg = f"PostgreSQL unreachable at {PG_ADMIN}: {exc}"
        if os.environ.get("CI"):
            pytest.fail(msg)
        pytest.skip(msg)
    base = PG_ADMIN.rsplit("/", 1)[0]
    try:
        yield f"{base}/{name}"
    finally:
        with engine.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        engine.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path) -> str:  # type: ignore[no-untyped-def]
    """A database URL: a SQLite file in ``tmp_path``, or the session's PostgreSQL database."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'neardup.db'}"
    return str(request.getfixturevalue("pg_database"))


def unique(prefix: str = "c") -> str:
    """A collection name no other test uses."""
    return f"{prefix}-{uuid.uuid4().hex[:10]}"
