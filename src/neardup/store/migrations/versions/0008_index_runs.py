"""Pending index rows as runs: ``nd_index_runs`` replaces ``nd_index_pending``.

A bulk ``add`` batch's index rows (41 a document for minhash-lsh) were appended one row each
to ``nd_index_pending`` and moved into ``nd_index`` by ``INSERT ... SELECT ... ORDER BY
key``; they are now stored as one ``nd_index_runs`` row a batch, sorted by key (format in
:mod:`neardup.store.runs`), and sorted in numpy when merged. Rows pending at the upgrade
are moved into ``nd_index`` first; a downgrade moves the runs into ``nd_index`` likewise.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-03
"""

from __future__ import annotations

import numpy as np
import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

_COLUMNS = "collection_id, key, band, document_id"


def upgrade() -> None:
    """Merge ``nd_index_pending`` into ``nd_index``, drop it, make ``nd_index_runs``."""
    ignore = "OR IGNORE " if op.get_bind().dialect.name == "sqlite" else ""
    op.execute(
        f"INSERT {ignore}INTO nd_index ({_COLUMNS}) SELECT {_COLUMNS} FROM nd_index_pending "
        "ORDER BY collection_id, key, document_id, band"
    )
    op.drop_table("nd_index_pending")
    op.create_table(
        "nd_index_runs",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            primary_key=True,
            autoincrement=True,
        ),
        sa.Column("collection_id", sa.Integer, nullable=False),
        sa.Column("rows", sa.Integer, nullable=False),
        sa.Column("payload", sa.LargeBinary, nullable=False),
    )
    op.create_index("ix_nd_index_runs_collection", "nd_index_runs", ["collection_id"])


def downgrade() -> None:
    """Move the runs into ``nd_index`` (format 1 read here), drop ``nd_index_runs``, make
    ``nd_index_pending`` again (0004's columns; PostgreSQL: 0006's order)."""
    bind = op.get_bind()
    sqlite = bind.dialect.name == "sqlite"
    insert = sa.text(
        f"INSERT {'OR IGNORE ' if sqlite else ''}INTO nd_index ({_COLUMNS}) VALUES (:c, :k, :b, :d)"
    )
    for collection_id, payload in bind.execute(
        sa.text("SELECT collection_id, payload FROM nd_index_runs ORDER BY id")
    ).all():
        data = bytes(payload)
        n = (len(data) - 1) // 18
        key = np.frombuffer(data, "<i8", n, 1).tolist()
        doc = np.frombuffer(data, "<i8", n, 1 + 8 * n).tolist()
        band = np.frombuffer(data, "<i2", n, 1 + 16 * n).tolist()
        rows = [
            {"c": collection_id, "k": k, "b": b, "d": d}
            for k, b, d in zip(key, band, doc, strict=True)
        ]
        if rows:
            bind.execute(insert, rows)
    op.drop_index("ix_nd_index_runs_collection", table_name="nd_index_runs")
    op.drop_table("nd_index_runs")
    columns = [
        sa.Column("collection_id", sa.Integer, nullable=False),
        sa.Column("key", sa.BigInteger, nullable=False),
        sa.Column("band", sa.SmallInteger, nullable=False),
        sa.Column("document_id", sa.BigInteger, nullable=False),
    ]
    if not sqlite:  # 0006's alignment order
        columns[1], columns[2] = columns[2], columns[1]
    op.create_table("nd_index_pending", *columns)
