"""The collection store's schema (SQLAlchemy Core), one for SQLite and PostgreSQL.

Tables (``nd_`` prefix):

* ``nd_collections``: name (unique), method and its parameters (JSON, fixed at creation),
  canonical-form parameters (JSON), decision ``measure``/``threshold``, ``min_tokens``,
  ``stats_dirty`` (lexical methods: signatures older than the statistics), created time.
* ``nd_documents``: collection, ``doc_id`` (unique per collection), source, title (empty
  for documents added since migration 0006 with their text: the first non-blank line of
  the text is shown),
  ``content_hash`` (XXH3-128 of the text, 16 bytes; not indexed since migration 0004,
  no query looks documents up by it), ``length`` (canonical tokens), added time.
* ``nd_signatures``: ``Signature.to_bytes()`` of each document (neardup.methods.base), for
  methods whose signature needs the word statistics (``needs_fit``: written by the
  recompute). Methods that sign from the shingle set (minhash-lsh, shingles-*,
  megashingles) keep no signature row since migration 0004: it is derived from the stored
  shingle set when needed.
* ``nd_shingles``: the shingle set of each document used for verification, format in
  :mod:`neardup.index.codec` (since migration 0004: one version byte ``2``, then the
  sorted unique high 32 bits of each 64-bit shingle fingerprint, uint32 little-endian).
* ``nd_index``: ``(collection, key) -> document`` rows: LSH band keys (minhash-lsh) or
  exact keys, 64-bit values stored as signed int64 (never text); ``band`` is the band or
  slot number. SQLite: primary key ``(collection_id, key, document_id, band)`` of a
  ``WITHOUT ROWID`` table (the rows are the lookup B-tree itself, migration 0004).
  PostgreSQL (migration 0006): columns in alignment order ``(collection_id, band, key,
  document_id)``, no primary key, a B-tree ``ix_nd_index_key`` on ``key`` alone (the
  tables are made by the migrations, not from this metadata). No index by document (since
  0004): ``remove`` recomputes a document's keys from its stored text or signature.
* ``nd_index_runs`` (migration 0008): index rows of bulk ``add`` batches not yet in
  ``nd_index``, one row a batch, sorted by key (format in :mod:`neardup.store.runs`).
* ``nd_terms`` (term, df, cf per collection) and ``nd_doc_terms`` (per-document term
  counts, seed 004's ``article_word``; no foreign keys, for fast set-wise updates): word
  statistics, filled for lexical methods (``needs_fit``) only.
* ``nd_texts`` (migration 0003): the text of each document, for showing matched passages
  (``Store.document_text``). Written in the transaction that inserts the document, deleted
  with it. ``body`` format: one version byte, then the payload, the text's UTF-8 bytes
  (lone surrogates kept, ``surrogatepass``) compressed; the decompressed bytes hash to the
  document's ``content_hash``. Version ``2`` (written since 2026-11-27): one Zstandard
  frame (RFC 8878) with its content size (any level; neardup writes level 3). Version
  ``1`` (written before; still read): a zlib stream (RFC 1950, any level). Documents added
  before migration 0003 have no row.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    PrimaryKeyConstraint,
    SmallInteger,
    String,
    Table,
    Text,
    UniqueConstraint,
)

metadata = MetaData()

#: Big integer primary keys that are still SQLite's rowid alias.
BigId = BigInteger().with_variant(Integer(), "sqlite")

collections = Table(
    "nd_collections",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(200), nullable=False, unique=True),
    Column("method", String(64), nullable=False),
    Column("params", Text, nullable=False),
    Column("canonical", Text, nullable=False),
    Column("measure", String(16), nullable=False),
    Column("threshold", Float, nullable=False),
    Column("min_tokens", Integer, nullable=False),
    Column("stats_dirty", Boolean, nullable=False, default=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    # migration 0004: own | verified; NULL (collections made before it) = verified
    Column("decision", String(16), nullable=True),
    # migration 0007: keys of more documents give no candidates; NULL (made before) = no cut
    Column("max_df", Integer, nullable=True),
)

documents = Table(
    "nd_documents",
    metadata,
    Column("id", BigId, primary_key=True, autoincrement=True),
    Column(
        "collection_id",
        Integer,
        ForeignKey("nd_collections.id", ondelete="CASCADE"),
        nullable=False,
    ),
    Column("doc_id", Text, nullable=False),
    Column("source", Text, nullable=False, default=""),
    Column("title", Text, nullable=False, default=""),
    Column("content_hash", LargeBinary(16), nullable=False),
    Column("length", Integer, nullable=False),
    Column("added_at", DateTime(timezone=True), nullable=False),
    UniqueConstraint("collection_id", "doc_id", name="uq_nd_documents_collection_doc"),
)

signatures = Table(
    "nd_signatures",
    metadata,
    Column(
        "document_id",
        BigId,
        ForeignKey("nd_documents.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    Column("payload", LargeBinary, nullable=False),
)

shingles = Table(
    "nd_shingles",
    metadata,
    Column(
        "document_id",
        BigId,
        ForeignKey("nd_documents.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    Column("fingerprints", LargeBinary, nullable=False),
)

index_rows = Table(
    "nd_index",
    metadata,
    Column("collection_id", Integer, nullable=False),
    Column("key", BigInteger, nullable=False),
    Column("band", SmallInteger, nullable=False),
    Column("document_id", BigInteger, nullable=False),
    PrimaryKeyConstraint("collection_id", "key", "document_id", "band", name="pk_nd_index"),
    sqlite_with_rowid=False,
)

#: ``nd_index_runs`` (migration 0008): index rows written by bulk ``add`` batches and not
#: yet in ``nd_index``, one row a batch: ``rows`` index rows sorted by key in ``payload``
#: (format in :mod:`neardup.store.runs`). Moved into ``nd_index`` in key order at the end of
#: each ``add`` call, after :func:`neardup.store.adding.merge_after` rows, and on the next
#: ``add`` after an interrupted one; ``check`` searches both.
index_runs = Table(
    "nd_index_runs",
    metadata,
    Column("id", BigId, primary_key=True, autoincrement=True),
    Column("collection_id", Integer, nullable=False),
    Column("rows", Integer, nullable=False),
    Column("payload", LargeBinary, nullable=False),
    Index("ix_nd_index_runs_collection", "collection_id"),
)

terms = Table(
    "nd_terms",
    metadata,
    Column("id", BigId, primary_key=True, autoincrement=True),
    Column("collection_id", Integer, nullable=False),
    Column("term", Text, nullable=False),
    Column("df", BigInteger, nullable=False),
    Column("cf", BigInteger, nullable=False),
    UniqueConstraint("collection_id", "term", name="uq_nd_terms_collection_term"),
)

doc_terms = Table(
    "nd_doc_terms",
    metadata,
    Column("collection_id", Integer, nullable=False),
    Column("document_id", BigInteger, nullable=False),
    Column("term_id", BigInteger, nullable=False),
    Column("count", Integer, nullable=False),
    Index("ix_nd_doc_terms_document", "document_id"),
)

# -- document texts (migration 0003) -----------------------------------------------------------
#: ``nd_texts``: the text of each document (format in the module docstring), one row per
#: document, absent for documents added before migration 0003.
texts = Table(
    "nd_texts",
    metadata,
    Column(
        "document_id",
        BigId,
        ForeignKey("nd_documents.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    Column("body", LargeBinary, nullable=False),
)
