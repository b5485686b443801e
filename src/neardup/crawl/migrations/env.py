"""Alembic environment of the crawler's tables (:mod:`neardup.crawl.db`), run
programmatically by :func:`neardup.store.engine.upgrade` when
:class:`~neardup.crawl.db.CrawlDB` opens the database; versions in their own table."""

from __future__ import annotations

from alembic import context

from neardup.crawl.db import MIGRATIONS, metadata
from neardup.store.migrations import run_migrations_online

if context.is_offline_mode():  # pragma: no cover - offline SQL generation is not supported
    raise RuntimeError("neardup migrations run online only")
run_migrations_online(metadata, MIGRATIONS[1])
