"""The crawler's migrations make its tables exactly as neardup.crawl.db declares them, in
their own version table; a database made before the crawler had its own migrations (the
tables made by the store's migration 0002, no crawl version table) opens and is kept."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect, text

from neardup.crawl import CrawlQueue, CrawlSettings
from neardup.crawl.db import MIGRATIONS, metadata
from neardup.store import Store
from neardup.store.engine import head_revisions
from neardup.store.schema import metadata as store_metadata


def test_crawl_tables_match_the_schema(store: Store) -> None:
    CrawlQueue(store).close()  # opening the crawler's database runs its migrations
    engine = store._engines.write
    with engine.connect() as conn:
        version = conn.execute(text(f"SELECT version_num FROM {MIGRATIONS[1]}")).scalar()
        ctx = MigrationContext.configure(
            conn, opts={"compare_type": True, "version_table": MIGRATIONS[1]}
        )
        diff = [d for d in compare_metadata(ctx, metadata) if "nd_crawl" in repr(d)]
    assert {version} == head_revisions(MIGRATIONS[0])
    assert {"nd_crawl_libraries", "nd_crawl_pages"} <= set(inspect(engine).get_table_names())
    assert diff == []


def test_the_store_and_the_crawler_declare_their_own_tables() -> None:
    assert set(metadata.tables) == {"nd_crawl_libraries", "nd_crawl_pages"}
    assert not any(t.startswith("nd_crawl") for t in store_metadata.tables)


def test_a_database_made_before_the_crawl_migrations_opens(tmp_path: Path) -> None:
    """As main left it: store at its head, crawl tables from store migration 0002 holding a
    library, no crawl version table. The crawler stamps its baseline and keeps the rows."""
    url = f"sqlite:///{tmp_path / 'old.db'}"
    with Store(url) as store:
        queue = CrawlQueue(store, CrawlSettings(allow_private=True))
        lib = queue.add("http://127.0.0.1:9/", ["post"], collection="lib")
        queue.close()
    with sqlite3.connect(tmp_path / "old.db") as conn:  # what main's neardup left
        conn.execute(f"DROP TABLE {MIGRATIONS[1]}")
    with Store(url) as store:
        queue = CrawlQueue(store)
        assert [(s.id, s.url) for s in queue.libraries()] == [(lib.id, lib.url)]
        queue.close()
    with sqlite3.connect(tmp_path / "old.db") as conn:
        stamped = conn.execute(f"SELECT version_num FROM {MIGRATIONS[1]}").fetchall()
    assert {v for (v,) in stamped} == head_revisions(MIGRATIONS[0])
