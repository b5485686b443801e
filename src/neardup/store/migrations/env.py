"""Alembic environment of the collection store, run programmatically by
:func:`neardup.store.engine.upgrade` on an open connection (``config.attributes``).

Concurrent openers are serialised: PostgreSQL takes a transaction-level advisory lock,
SQLite's writer engine begins every transaction with ``BEGIN IMMEDIATE``.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import text

from neardup.store.schema import metadata

_PG_LOCK = 0x6E64_7570  # "ndup"


def run_migrations_online() -> None:
    """Run the pending migrations on ``config.attributes["connection"]``."""
    connection = context.config.attributes["connection"]
    context.configure(
        connection=connection,
        target_metadata=metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        version_table="nd_alembic_version",
    )
    with context.begin_transaction():
        if connection.dialect.name == "postgresql":
            connection.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _PG_LOCK})
        context.run_migrations()


if context.is_offline_mode():  # pragma: no cover - offline SQL generation is not supported
    raise RuntimeError("neardup migrations run online only")
run_migrations_online()
