"""Word statistics in the database and their set-wise recomputation (seed 004 §4.3).

During ``add`` each batch keeps the statistics current the way seed 004 does: the batch's
terms are upserted with ``INSERT ... ON CONFLICT DO UPDATE SET df = df + excluded.df,
cf = cf + excluded.cf`` and its per-document counts go to ``nd_doc_terms``
(``article_word``). Signatures of lexical methods depend on the statistics of the whole
collection, so after adding (or removing) documents they are recomputed set-wise
(:func:`recompute`), never row by row:

1. ``df``/``cf`` are rebuilt from ``nd_doc_terms`` with one ``INSERT INTO tmp SELECT ...
   GROUP BY`` into a temporary table and one ``UPDATE nd_terms ... FROM tmp`` (repairs any
   drift; terms no document has any more are deleted);
2. the method is fitted on the statistics (:class:`DbStats`, a ``CorpusStats``), every
   document is re-signed from its term counts (bag of words: TF-RIDF, I-Match and anchor
   words only need counts), the signatures and index keys go to temporary tables (COPY on
   PostgreSQL), then one ``UPDATE nd_signatures ... FROM tmp`` / ``INSERT ... SELECT`` and
   one ``DELETE`` + ``INSERT ... SELECT`` of the index rows.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import chain, repeat

import numpy as np
from sqlalchemy import Connection, text

from neardup.methods.base import Method, Prepared
from neardup.store.methods import index_keys

_SIGN_BATCH = 2000
_FETCH = 200_000


class DbStats:
    """Collection statistics read from ``nd_terms`` (implements ``CorpusStats``).

    Args:
        num_docs: ``N``, documents in the collection.
        df, cf: term -> document frequency / collection frequency (``df > 0`` only).
    """

    def __init__(self, num_docs: int, df: dict[str, int], cf: dict[str, int]) -> None:
        self._n = num_docs
        self._df = df
        self._cf = cf

    @property
    def num_docs(self) -> int:
        """``N``."""
        return self._n

    def df(self, term: str) -> int:
        """Document frequency of ``term`` (0 if unseen)."""
        return self._df.get(term, 0)

    def cf(self, term: str) -> int:
        """Collection frequency of ``term`` (0 if unseen)."""
        return self._cf.get(term, 0)

    def terms(self) -> list[str]:
        """Terms with ``df > 0``, sorted."""
        return sorted(self._df)

    @property
    def vocabulary_size(self) -> int:
        """Number of terms with ``df > 0``."""
        return len(self._df)


@dataclass(frozen=True, slots=True)
class RecomputeReport:
    """Timings and sizes of one recomputation.

    Attributes:
        documents: documents re-signed; terms: terms with ``df > 0``;
        seconds: per step (``counts``, ``load``, ``sign``, ``write``) and ``total``.
    """

    documents: int
    terms: int
    seconds: dict[str, float]

    def as_dict(self) -> dict[str, object]:
        """JSON-ready mapping."""
        return {"documents": self.documents, "terms": self.terms, "seconds": self.seconds}


def load_stats(conn: Connection, collection_id: int) -> tuple[DbStats, dict[int, str]]:
    """The collection's statistics and its term-id -> term map."""
    n = conn.execute(
        text("SELECT COUNT(*) FROM nd_documents WHERE collection_id = :c"), {"c": collection_id}
    ).scalar_one()
    rows = conn.execute(
        text("SELECT id, term, df, cf FROM nd_terms WHERE collection_id = :c AND df > 0"),
        {"c": collection_id},
    ).all()
    df = {r[1]: int(r[2]) for r in rows}
    cf = {r[1]: int(r[3]) for r in rows}
    return DbStats(int(n), df, cf), {int(r[0]): r[1] for r in rows}


def recompute_counts(conn: Connection, collection_id: int) -> None:
    """Rebuild ``df``/``cf`` of the collection's terms set-wise (temporary table + UPDATE FROM)."""
    _temp_table(conn, "tmp_nd_counts", "term_id BIGINT PRIMARY KEY, df BIGINT, cf BIGINT")
    c = {"c": collection_id}
    conn.execute(
        text(
            "INSERT INTO tmp_nd_counts (term_id, df, cf) SELECT term_id, COUNT(*), SUM(count) "
            "FROM nd_doc_terms WHERE collection_id = :c GROUP BY term_id"
        ),
        c,
    )
    conn.execute(
        text(
            "UPDATE nd_terms SET df = t.df, cf = t.cf FROM tmp_nd_counts AS t "
            "WHERE nd_terms.id = t.term_id AND (nd_terms.df <> t.df OR nd_terms.cf <> t.cf)"
        )
    )
    conn.execute(
        text(
            "DELETE FROM nd_terms WHERE collection_id = :c AND NOT EXISTS "
            "(SELECT 1 FROM tmp_nd_counts AS t WHERE t.term_id = nd_terms.id)"
        ),
        c,
    )


def recompute(conn: Connection, collection_id: int, meth: Method) -> RecomputeReport:
    """Recompute statistics, then every signature and index key of a lexical collection.

    Runs inside the caller's transaction (the caller holds the collection's row lock).
    """
    t0 = time.perf_counter()
    seconds: dict[str, float] = {}
    recompute_counts(conn, collection_id)
    seconds["counts"] = _lap(t0)
    stats, names = load_stats(conn, collection_id)
    meth.fit(stats)
    seconds["load"] = _lap(t0) - seconds["counts"]
    dialect = conn.dialect.name
    blob = "BYTEA" if dialect == "postgresql" else "BLOB"
    _temp_table(conn, "tmp_nd_sigs", f"document_id BIGINT PRIMARY KEY, payload {blob}")
    _temp_table(conn, "tmp_nd_keys", "document_id BIGINT, band INTEGER, key BIGINT")
    sign_s = write_s = 0.0
    count = 0
    for ids, docs in _bags(conn, collection_id, names):
        t1 = time.perf_counter()
        sigs = meth.sign(docs)
        keys = index_keys(meth, sigs)
        payloads = [meth.signature(sigs, i).to_bytes() for i in range(len(docs))]
        t2 = time.perf_counter()
        _copy_rows(
            conn, "tmp_nd_sigs", ("document_id", "payload"), list(zip(ids, payloads, strict=True))
        )
        doc_ids = np.asarray(ids, dtype=np.int64)[keys.row]
        key_rows = list(zip(doc_ids.tolist(), keys.band.tolist(), keys.key.tolist(), strict=True))
        _copy_rows(conn, "tmp_nd_keys", ("document_id", "band", "key"), key_rows)
        sign_s += t2 - t1
        write_s += time.perf_counter() - t2
        count += len(ids)
    t3 = time.perf_counter()
    _apply(conn, collection_id)
    write_s += time.perf_counter() - t3
    seconds["sign"] = round(sign_s, 3)
    seconds["write"] = round(write_s, 3)
    seconds["total"] = _lap(t0)
    return RecomputeReport(count, stats.vocabulary_size, seconds)


def _apply(conn: Connection, collection_id: int) -> None:
    c = {"c": collection_id}
    conn.execute(
        text(
            "UPDATE nd_signatures SET payload = t.payload FROM tmp_nd_sigs AS t "
            "WHERE nd_signatures.document_id = t.document_id"
        )
    )
    conn.execute(
        text(
            "INSERT INTO nd_signatures (document_id, payload) SELECT t.document_id, t.payload "
            "FROM tmp_nd_sigs AS t WHERE NOT EXISTS "
            "(SELECT 1 FROM nd_signatures AS s WHERE s.document_id = t.document_id)"
        )
    )
    conn.execute(text("DELETE FROM nd_index WHERE collection_id = :c"), c)
    conn.execute(
        text(
            "INSERT INTO nd_index (collection_id, key, band, document_id) "
            "SELECT :c, key, band, document_id FROM tmp_nd_keys"
        ),
        c,
    )


def _bags(
    conn: Connection, collection_id: int, names: dict[int, str]
) -> Iterator[tuple[list[int], list[Prepared]]]:
    """Documents' bags of words rebuilt from ``nd_doc_terms``, in batches, by document id."""
    query = text(
        "SELECT document_id, term_id, count FROM nd_doc_terms WHERE collection_id = :c "
        "ORDER BY document_id, term_id"
    ).execution_options(stream_results=True, yield_per=_FETCH)
    result = conn.execute(query, {"c": collection_id})
    ids: list[int] = []
    docs: list[Prepared] = []
    current: int | None = None
    bag: list[tuple[str, int]] = []
    for doc, term, cnt in result:
        if doc != current:
            if current is not None:
                ids.append(current)
                docs.append(_prepared(current, bag))
                if len(ids) >= _SIGN_BATCH:
                    yield ids, docs
                    ids, docs = [], []
            current, bag = doc, []
        bag.append((names.get(term, ""), cnt))
    if current is not None:
        ids.append(current)
        docs.append(_prepared(current, bag))
    if ids:
        yield ids, docs


def _prepared(doc: int, bag: list[tuple[str, int]]) -> Prepared:
    tokens = list(chain.from_iterable(repeat(t, c) for t, c in bag if t))
    return Prepared(str(doc), "", tokens)


def _temp_table(conn: Connection, name: str, columns: str) -> None:
    if conn.dialect.name == "postgresql":
        conn.execute(text(f"CREATE TEMP TABLE IF NOT EXISTS {name} ({columns}) ON COMMIT DROP"))
    else:
        conn.execute(text(f"CREATE TEMP TABLE IF NOT EXISTS {name} ({columns})"))
    conn.execute(text(f"DELETE FROM {name}"))


def _copy_rows(conn: Connection, table: str, columns: tuple[str, ...], rows: list[tuple]) -> None:
    """Bulk-load ``rows`` into a temporary table: COPY on PostgreSQL, executemany elsewhere."""
    if not rows:
        return
    if conn.dialect.name == "postgresql":
        cursor = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
        with cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
        cursor.close()
        return
    marks = ", ".join(f":{c}" for c in columns)
    conn.execute(
        text(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})"),
        [dict(zip(columns, r, strict=True)) for r in rows],
    )


def _lap(t0: float) -> float:
    return round(time.perf_counter() - t0, 3)
