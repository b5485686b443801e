"""Alembic migrations of the collection store (``versions/``), and the online run every
``env.py`` of neardup shares (the store's here, the crawler's in ``neardup.crawl``)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import MetaData, text

_PG_LOCK = 0x6E64_7570  # "ndup"


def run_migrations_online(metadata: MetaData, version_table: str) -> None:
    """Run the pending migrations on ``config.attributes["connection"]``, recorded in
    ``version_table``; autogenerate compares only the tables of ``metadata`` (the store and
    the crawler keep their tables in one database, each with its own migrations).

    Concurrent openers are serialised: PostgreSQL takes a transaction-level advisory lock,
    SQLite's writer engine begins every transaction with ``BEGIN IMMEDIATE``.
    """
    from alembic import context

    def own(name: str | None, type_: str, _parent: Any) -> bool:
        return type_ != "table" or name in metadata.tables

    connection = context.config.attributes["connection"]
    context.configure(
        connection=connection,
        target_metadata=metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        version_table=version_table,
        include_name=own,
    )
    with context.begin_transaction():
        if connection.dialect.name == "postgresql":
            connection.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _PG_LOCK})
        context.run_migrations()
