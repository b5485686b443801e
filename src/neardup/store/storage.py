"""The SQLite and PostgreSQL storage of a collection: the database backend of the collection
core (:class:`neardup.index.core.Storage`).

A written batch is one transaction, and a document is inserted with ``INSERT ... ON
CONFLICT DO NOTHING RETURNING``: only documents this transaction really inserted get
signature, shingle, index and statistics rows (:mod:`neardup.store.bulk` writes them).
Candidates come from one statement joining the index rows to the stored documents
(:func:`neardup.store.lookup.candidates`).
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from typing import Any

import numpy as np
from sqlalchemy import Connection, bindparam, insert, select

from neardup._array import sorted_unique
from neardup.index.codec import MAX_TERM_BYTES, decode_set, shown_title, term_key
from neardup.index.core import Signed
from neardup.index.results import AddReport, CollectionInfo, SkippedDoc
from neardup.index.verify import Candidate
from neardup.methods.base import Method
from neardup.methods.plan import plan_for
from neardup.store import checkpoints
from neardup.store import schema as s
from neardup.store.bulk import Batch, document_rows, encode, insert_documents, insert_rows
from neardup.store.catalog import mark_dirty
from neardup.store.database import Database
from neardup.store.lookup import candidates

#: Batches of fewer documents write their index rows straight into ``nd_index`` (a few
#: random B-tree inserts cost less than a second transaction for the merge) and their
#: commits checkpoint as they did (no thread for them: :mod:`neardup.store.checkpoints`).
DIRECT_BELOW = 64


class DatabaseStorage:
    """Collection ``info`` (method ``meth``) of the database ``db``.

    Args:
        conn: read through this open connection (a check's); ``None``: a pooled read
            connection per call.

    Attributes:
        unmerged: index rows written to runs (``nd_index_runs``) since the caller last reset it
            (``add`` merges them, :func:`neardup.store.adding.merge`).
        checkpoints: the thread that runs the WAL checkpoints of :meth:`write`'s commits
            of :data:`DIRECT_BELOW` documents or more (:mod:`neardup.store.checkpoints`);
            ``None``: each commit runs its own.
    """

    def __init__(
        self, db: Database, info: CollectionInfo, meth: Method, conn: Connection | None = None
    ) -> None:
        self.db, self.info, self.meth, self.conn = db, info, meth, conn
        self.unmerged = 0
        self.checkpoints: checkpoints.Checkpoints | None = None

    def stored_hashes(self, ids: list[str]) -> dict[str, bytes]:
        """``{id: content hash}`` of the ``ids`` stored already."""
        stmt = select(s.documents.c.doc_id, s.documents.c.content_hash).where(
            s.documents.c.collection_id == self.info.id,
            s.documents.c.doc_id.in_(bindparam("ids", expanding=True)),
        )
        with self.db.read() as conn:
            if conn.dialect.name == "postgresql":
                # The statement is the same for every batch, so it is prepared and PostgreSQL
                # caches a generic plan made while the table was small (a sequential scan
                # against a 2,000-item IN list: 12-15 s per batch at 250k documents). A plan
                # made for each call uses the (collection_id, doc_id) index.
                conn.exec_driver_sql("SET LOCAL plan_cache_mode = force_custom_plan")
            return {r[0]: bytes(r[1]) for r in conn.execute(stmt, {"ids": ids})}

    def encode(self, batch: Signed) -> Batch:
        """The batch's rows (:func:`neardup.store.bulk.encode`)."""
        return encode(self.meth, batch)

    def write(self, encoded: Batch) -> AddReport:
        """One transaction: documents first (ON CONFLICT DO NOTHING), then their rows."""
        info, needs_fit = self.info, plan_for(self.meth, self.info).needs_fit
        docs = encoded.docs
        rows = document_rows(info.id, docs, datetime.now(UTC))
        bulk = len(docs) >= DIRECT_BELOW  # index rows pending, checkpoints apart
        background = self.checkpoints if bulk else None
        with checkpoints.write(self.db, background) as conn:
            if needs_fit:  # serialise with recompute() on the collection row
                mark_dirty(conn, info.id)
            pks = insert_documents(conn, rows)
            fresh = [i for i, d in enumerate(docs) if d[0] in pks]
            pk = [pks[docs[i][0]] for i in fresh]
            self.unmerged += insert_rows(conn, info.id, encoded, fresh, pk, pending=bulk)
            if fresh and needs_fit:
                tokens = [encoded.tokens[i] if encoded.tokens else [] for i in fresh]
                self._insert_terms(conn, tokens, pk)
        raced = tuple(
            SkippedDoc(d[0], d[1], "exists", "added concurrently") for d in docs if d[0] not in pks
        )
        return AddReport(len(fresh), raced, 1)

    def candidates(self, keys: np.ndarray) -> list[Candidate]:
        """The candidates of ``keys``, with their decoded sets, shown titles and stored
        signatures, in one statement (one round trip)."""
        if keys.size == 0:
            return []
        unique = sorted_unique(keys).tolist()
        info = self.info
        if self.conn is not None:
            rows = candidates(self.conn, info.id, unique, info.max_df)
        else:
            with self.db.read() as conn:
                rows = candidates(conn, info.id, unique, info.max_df)
        return [
            Candidate(
                doc_id, source, shown_title(title, body), decode_set(blob), payload, int(hits)
            )
            for _pk, doc_id, source, title, blob, payload, hits, body in rows
        ]

    def _insert_terms(self, conn: Connection, token_lists: list[list[str]], pk: list[int]) -> None:
        """Seed 004 §4.3: upsert df/cf of the batch's terms, then per-document counts."""
        collection_id = self.info.id
        counts = [_term_counts(Counter(tokens)) for tokens in token_lists]
        df: Counter[str] = Counter()
        cf: Counter[str] = Counter()
        for c in counts:
            df.update(c.keys())
            cf.update(c)
        ins = self.db.insert(s.terms)
        stmt = ins.on_conflict_do_update(
            index_elements=["collection_id", "term"],
            set_={"df": s.terms.c.df + ins.excluded.df, "cf": s.terms.c.cf + ins.excluded.cf},
        ).returning(s.terms.c.id, s.terms.c.term)
        term_rows = [
            {"collection_id": collection_id, "term": t, "df": df[t], "cf": cf[t]}
            for t in sorted(df)  # one lock order for concurrent writers
        ]
        ids = {r[1]: int(r[0]) for r in conn.execute(stmt, term_rows)}
        doc_rows: list[dict[str, Any]] = [
            {"collection_id": collection_id, "document_id": p, "term_id": ids[t], "count": n}
            for p, c in zip(pk, counts, strict=True)
            for t, n in c.items()
        ]
        conn.execute(insert(s.doc_terms), doc_rows)


def _term_counts(counts: Counter[str]) -> Counter[str]:
    if all(len(t) * 4 <= MAX_TERM_BYTES for t in counts):
        return counts
    out: Counter[str] = Counter()
    for t, n in counts.items():
        out[term_key(t)] += n
    return out
