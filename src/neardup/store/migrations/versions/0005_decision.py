"""The decision rule of each collection: ``own`` or ``verified``.

Collections made before this revision keep ``NULL``, read as ``verified`` (the exact
shingle sets decide, as before).

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004_compact"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add ``nd_collections.decision``."""
    with op.batch_alter_table("nd_collections") as batch:
        batch.add_column(sa.Column("decision", sa.String(16), nullable=True))


def downgrade() -> None:
    """Drop ``nd_collections.decision``."""
    with op.batch_alter_table("nd_collections") as batch:
        batch.drop_column("decision")
