"""Compact storage for collections of millions of documents.

* ``nd_index`` gets the primary key ``(collection_id, key, document_id, band)``, which
  replaces ``ix_nd_index_lookup``; ``ix_nd_index_document`` is dropped (``remove`` finds a
  document's rows from its keys). On SQLite the table is rebuilt ``WITHOUT ROWID`` (the
  rows are the lookup B-tree: no rowid column and no second copy of every key).
* ``ix_nd_documents_hash`` is dropped: no query reads it, every insert paid for it.
* ``nd_index_pending``: index rows of ``add`` batches not yet moved into ``nd_index``
  (appended in batch order, merged sorted by key; see :mod:`neardup.store.schema`).
* New ``nd_shingles`` rows are written in format 2 (:mod:`neardup.index.codec`); rows written
  before stay in format 1 and are read as they are. New documents of methods that sign
  from the shingle set keep no ``nd_signatures`` row (existing rows stay and are used).

Revision ID: 0004_compact
Revises: 0003
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004_compact"
down_revision = "0003"
branch_labels = None
depends_on = None

_COLUMNS = "collection_id, key, band, document_id"


def upgrade() -> None:
    """Primary key on ``nd_index`` (SQLite: ``WITHOUT ROWID`` rebuild); ``nd_index_pending``."""
    op.drop_index("ix_nd_documents_hash", table_name="nd_documents")
    op.create_table(
        "nd_index_pending",
        sa.Column("collection_id", sa.Integer, nullable=False),
        sa.Column("key", sa.BigInteger, nullable=False),
        sa.Column("band", sa.SmallInteger, nullable=False),
        sa.Column("document_id", sa.BigInteger, nullable=False),
    )
    if op.get_bind().dialect.name == "sqlite":
        op.execute(
            "CREATE TABLE nd_index_new (collection_id INTEGER NOT NULL, key BIGINT NOT NULL, "
            "band SMALLINT NOT NULL, document_id BIGINT NOT NULL, CONSTRAINT pk_nd_index "
            "PRIMARY KEY (collection_id, key, document_id, band)) WITHOUT ROWID"
        )
        op.execute(
            f"INSERT OR IGNORE INTO nd_index_new ({_COLUMNS}) SELECT {_COLUMNS} FROM nd_index "
            "ORDER BY collection_id, key, document_id, band"
        )
        op.execute("DROP TABLE nd_index")
        op.execute("ALTER TABLE nd_index_new RENAME TO nd_index")
        return
    op.execute(
        "DELETE FROM nd_index a USING nd_index b WHERE a.ctid < b.ctid "
        "AND a.collection_id = b.collection_id AND a.key = b.key "
        "AND a.document_id = b.document_id AND a.band = b.band"
    )
    op.execute(
        "ALTER TABLE nd_index ADD CONSTRAINT pk_nd_index "
        "PRIMARY KEY (collection_id, key, document_id, band)"
    )
    op.execute("DROP INDEX ix_nd_index_lookup")
    op.execute("DROP INDEX ix_nd_index_document")


def downgrade() -> None:
    """Back to the rowid table with its lookup index (data kept, pending rows merged)."""
    op.create_index("ix_nd_documents_hash", "nd_documents", ["collection_id", "content_hash"])
    op.execute(f"INSERT INTO nd_index ({_COLUMNS}) SELECT {_COLUMNS} FROM nd_index_pending")
    op.drop_table("nd_index_pending")
    if op.get_bind().dialect.name == "sqlite":
        op.execute(
            "CREATE TABLE nd_index_old (collection_id INTEGER NOT NULL, key BIGINT NOT NULL, "
            "band SMALLINT NOT NULL, document_id BIGINT NOT NULL)"
        )
        op.execute(f"INSERT INTO nd_index_old ({_COLUMNS}) SELECT {_COLUMNS} FROM nd_index")
        op.execute("DROP TABLE nd_index")
        op.execute("ALTER TABLE nd_index_old RENAME TO nd_index")
    else:
        op.execute("ALTER TABLE nd_index DROP CONSTRAINT pk_nd_index")
    op.execute("CREATE INDEX ix_nd_index_lookup ON nd_index (collection_id, key)")
    op.execute("CREATE INDEX ix_nd_index_document ON nd_index (document_id)")
