"""Alembic environment of the collection store, run programmatically by
:func:`neardup.store.engine.upgrade` on an open connection (``config.attributes``).

Concurrent openers are serialised: PostgreSQL takes a transaction-level advisory lock,
SQLite's writer engine begins every transaction with ``BEGIN IMMEDIATE``.
"""

from __future__ import annotations

from alembic import context

from neardup.store.engine import STORE_MIGRATIONS
from neardup.store.migrations import run_migrations_online
from neardup.store.schema import metadata

if context.is_offline_mode():  # pragma: no cover - offline SQL generation is not supported
    raise RuntimeError("neardup migrations run online only")
run_migrations_online(metadata, STORE_MIGRATIONS[1])
