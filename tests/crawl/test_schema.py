"""The migrations create the crawl tables (0002) exactly as neardup.store.schema declares them."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect, text

from neardup.store import Store
from neardup.store.schema import metadata


def test_crawl_tables_match_the_schema(store: Store) -> None:
    engine = store._engines.write
    with engine.connect() as conn:
        version = conn.execute(text("SELECT version_num FROM nd_alembic_version")).scalar()
        ctx = MigrationContext.configure(conn, opts={"compare_type": True})
        diff = [d for d in compare_metadata(ctx, metadata) if "nd_crawl" in repr(d)]
    assert version >= "0002"  # 0002 made the crawl tables; later ones keep them
    assert {"nd_crawl_libraries", "nd_crawl_pages"} <= set(inspect(engine).get_table_names())
    assert diff == []
