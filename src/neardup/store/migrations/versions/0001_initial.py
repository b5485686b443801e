"""Initial collection store schema (see neardup.store.schema).

Revision ID: 0001
Revises:
Create Date: 2025-01-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

_BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    """Create the tables and indexes."""
    op.create_table(
        "nd_collections",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(200), nullable=False, unique=True),
        sa.Column("method", sa.String(64), nullable=False),
        sa.Column("params", sa.Text, nullable=False),
        sa.Column("canonical", sa.Text, nullable=False),
        sa.Column("measure", sa.String(16), nullable=False),
        sa.Column("threshold", sa.Float, nullable=False),
        sa.Column("min_tokens", sa.Integer, nullable=False),
        sa.Column("stats_dirty", sa.Boolean, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "nd_documents",
        sa.Column("id", _BIG_ID, primary_key=True, autoincrement=True),
        sa.Column(
            "collection_id",
            sa.Integer,
            sa.ForeignKey("nd_collections.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("doc_id", sa.Text, nullable=False),
        sa.Column("source", sa.Text, nullable=False),
        sa.Column("title", sa.Text, nullable=False),
        sa.Column("content_hash", sa.LargeBinary(16), nullable=False),
        sa.Column("length", sa.Integer, nullable=False),
        sa.Column("added_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("collection_id", "doc_id", name="uq_nd_documents_collection_doc"),
    )
    op.create_index("ix_nd_documents_hash", "nd_documents", ["collection_id", "content_hash"])
    for name, column in (("nd_signatures", "payload"), ("nd_shingles", "fingerprints")):
        op.create_table(
            name,
            sa.Column(
                "document_id",
                _BIG_ID,
                sa.ForeignKey("nd_documents.id", ondelete="CASCADE"),
                primary_key=True,
            ),
            sa.Column(column, sa.LargeBinary, nullable=False),
        )
    op.create_table(
        "nd_index",
        sa.Column("collection_id", sa.Integer, nullable=False),
        sa.Column("key", sa.BigInteger, nullable=False),
        sa.Column("band", sa.SmallInteger, nullable=False),
        sa.Column("document_id", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_nd_index_lookup", "nd_index", ["collection_id", "key"])
    op.create_index("ix_nd_index_document", "nd_index", ["document_id"])
    op.create_table(
        "nd_terms",
        sa.Column("id", _BIG_ID, primary_key=True, autoincrement=True),
        sa.Column("collection_id", sa.Integer, nullable=False),
        sa.Column("term", sa.Text, nullable=False),
        sa.Column("df", sa.BigInteger, nullable=False),
        sa.Column("cf", sa.BigInteger, nullable=False),
        sa.UniqueConstraint("collection_id", "term", name="uq_nd_terms_collection_term"),
    )
    op.create_table(
        "nd_doc_terms",
        sa.Column("collection_id", sa.Integer, nullable=False),
        sa.Column("document_id", sa.BigInteger, nullable=False),
        sa.Column("term_id", sa.BigInteger, nullable=False),
        sa.Column("count", sa.Integer, nullable=False),
    )
    op.create_index("ix_nd_doc_terms_document", "nd_doc_terms", ["document_id"])


def downgrade() -> None:
    """Drop everything."""
    for name in (
        "nd_doc_terms",
        "nd_terms",
        "nd_index",
        "nd_shingles",
        "nd_signatures",
        "nd_documents",
        "nd_collections",
    ):
        op.drop_table(name)
