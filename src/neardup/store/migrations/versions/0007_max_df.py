"""The document-frequency cut of each collection: index keys shared by more than ``max_df``
documents give a check no candidates (as :class:`neardup.Index` does).

Collections made before this revision keep ``NULL``: no cut, as before.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add ``nd_collections.max_df``."""
    with op.batch_alter_table("nd_collections") as batch:
        batch.add_column(sa.Column("max_df", sa.Integer, nullable=True))


def downgrade() -> None:
    """Drop ``nd_collections.max_df``."""
    with op.batch_alter_table("nd_collections") as batch:
        batch.drop_column("max_df")
