"""Crawler tables: the crawl queue and the pages of each library. Kept as it was: since
issue 18 the crawler owns these tables (``neardup.crawl.db``) and their later
migrations (``neardup/crawl/migrations``, version table ``nd_crawl_alembic_version``).

Revision ID: 0002
Revises: 0001
Create Date: 2025-02-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

_BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    """Create ``nd_crawl_libraries`` and ``nd_crawl_pages``."""
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
