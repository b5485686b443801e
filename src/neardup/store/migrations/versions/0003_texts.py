"""Document texts: ``nd_texts`` (see neardup.store.schema for the stored format).

Documents added before this revision keep no text (``Store.document_text`` raises
``TextNotStored`` for them).

Revision ID: 0003
Revises: 0002
Create Date: 2025-03-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

_BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    """Create ``nd_texts``."""
    op.create_table(
        "nd_texts",
        sa.Column(
            "document_id",
            _BIG_ID,
            sa.ForeignKey("nd_documents.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("body", sa.LargeBinary, nullable=False),
    )


def downgrade() -> None:
    """Drop ``nd_texts`` (the texts are lost)."""
    op.drop_table("nd_texts")
