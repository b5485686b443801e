"""The crawler's tables where they are missing (the baseline: the store's migration 0002
made them in every database made before the crawler had its own migrations).

Revision ID: crawl_0001
Revises:
Create Date: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "crawl_0001"
down_revision = None
branch_labels = None
depends_on = None

_BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    """Create ``nd_crawl_libraries`` and ``nd_crawl_pages`` unless they exist."""
    tables = set(sa.inspect(op.get_bind()).get_table_names())
    if "nd_crawl_libraries" not in tables:
        _libraries()
    if "nd_crawl_pages" not in tables:
        _pages()


def _libraries() -> None:
    op.create_table(
        "nd_crawl_libraries",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("url", sa.Text, nullable=False),
        sa.Column("clarifications", sa.Text, nullable=False),
        sa.Column("collection", sa.String(200), nullable=False),
        sa.Column("stage", sa.String(32), nullable=False),
        sa.Column("mode", sa.String(16), nullable=False),
        sa.Column("pattern", sa.Text, nullable=True),
        sa.Column("range_low", sa.BigInteger, nullable=True),
        sa.Column("range_high", sa.BigInteger, nullable=True),
        sa.Column("last_page", sa.BigInteger, nullable=True),
        sa.Column("first_page", sa.BigInteger, nullable=True),
        sa.Column("pages_found", sa.Integer, nullable=False),
        sa.Column("pages_fetched", sa.Integer, nullable=False),
        sa.Column("pages_failed", sa.Integer, nullable=False),
        sa.Column("documents_added", sa.Integer, nullable=False),
        sa.Column("error", sa.Text, nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_nd_crawl_libraries_stage", "nd_crawl_libraries", ["stage"])


def _pages() -> None:
    op.create_table(
        "nd_crawl_pages",
        sa.Column("id", _BIG_ID, primary_key=True, autoincrement=True),
        sa.Column(
            "library_id",
            sa.Integer,
            sa.ForeignKey("nd_crawl_libraries.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("url", sa.Text, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("number", sa.BigInteger, nullable=True),
        sa.Column("depth", sa.Integer, nullable=False),
        sa.Column("clarified", sa.Boolean, nullable=False),
        sa.Column("document", sa.Boolean, nullable=False),
        sa.Column("http_status", sa.Integer, nullable=True),
        sa.Column("error", sa.Text, nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("library_id", "url", name="uq_nd_crawl_pages_library_url"),
    )
    op.create_index("ix_nd_crawl_pages_status", "nd_crawl_pages", ["library_id", "status"])
    op.create_index("ix_nd_crawl_pages_number", "nd_crawl_pages", ["library_id", "number"])


def downgrade() -> None:
    """Drop the crawler tables."""
    op.drop_table("nd_crawl_pages")
    op.drop_table("nd_crawl_libraries")
