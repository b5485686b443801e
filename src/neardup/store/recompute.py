"""Word statistics in the database and their set-wise recomputation (seed 004 §4.3).

During ``add`` each batch keeps the statistics current the way seed 004 does: the batch's
terms are upserted with ``INSERT ... ON CONFLICT DO UPDATE SET df = df + excluded.df,
cf = cf + excluded.cf`` and its per-document counts go to ``nd_doc_terms``
(``article_word``). Signatures of lexical methods depend on the statistics of the whole
collection, so after adding (or removing) documents they are recomputed set-wise
(:func:`recompute`), never row by row:

1. ``read``: the collection's ``nd_doc_terms`` rows are read in one vectorised pass into
   numpy arrays ``(document, term, count)`` (one aggregated text per document, SQLite
   ``group_concat`` / PostgreSQL ``string_agg``, parsed by numpy);
2. ``counts``: ``df``/``cf`` are counted from those arrays (``bincount``), loaded into a
   temporary table and applied with one ``UPDATE nd_terms ... FROM tmp`` (repairs any
   drift; terms no document has any more are deleted);
3. ``fit``: the method is fitted on the statistics (:class:`DbStats`, a ``CorpusStats``);
4. ``sign``: every document is re-signed from its bag of words in batches and keyed, by
   the collection core's :func:`neardup.index.core.refit` (the memory Index's refit too),
   with the method's ``sign_counts`` hook (:class:`~neardup.methods.base.TermBags`):
   TF-RIDF vectorised (:meth:`~neardup.methods.tfridf.TFRIDF.sign_counts`), other lexical
   methods (I-Match, anchor words) by signing the bags' tokens (they only need counts);
5. ``write``: signatures and index keys go to temporary tables (COPY on PostgreSQL);
   ``apply``: one ``INSERT INTO nd_signatures ... SELECT FROM tmp ON CONFLICT DO UPDATE``
   and one ``DELETE`` + ``INSERT ... SELECT`` of the index rows.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np
from sqlalchemy import Connection, text

from neardup.index.core import refit
from neardup.methods.base import Method, Signatures, TermBags
from neardup.store.bulk import sqlite_insert

_FETCH_DOCS = 5000


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
        seconds: per step (``read``, ``counts``, ``fit``, ``sign``, ``write`` to temporary
            tables, ``apply`` UPDATE/INSERT ... FROM them) and ``total``.
    """

    documents: int
    terms: int
    seconds: dict[str, float]

    def as_dict(self) -> dict[str, object]:
        """JSON-ready mapping."""
        return {"documents": self.documents, "terms": self.terms, "seconds": self.seconds}


@dataclass(frozen=True, slots=True)
class TermCounts:
    """A collection's term counts as arrays (rows of ``nd_doc_terms``, grouped by document).

    Attributes:
        doc_ids: int64 (n,), every document's primary key, ascending.
        names: the collection's terms (``nd_terms``), position = term index.
        term_ids: int64 (m,), their primary keys, ascending.
        row_doc: int64 (r,), index into ``doc_ids`` of each row, non-decreasing.
        row_term: int64 (r,), index into ``names`` of each row (-1: term row missing).
        row_count: int64 (r,), the term's count in the document.
    """

    doc_ids: np.ndarray
    names: list[str]
    term_ids: np.ndarray
    row_doc: np.ndarray
    row_term: np.ndarray
    row_count: np.ndarray

    def df_cf(self) -> tuple[np.ndarray, np.ndarray]:
        """Document and collection frequency per term index: int64 (len(names),) each."""
        ok = self.row_term >= 0
        t = self.row_term[ok]
        m = len(self.names)
        df = np.bincount(t, minlength=m).astype(np.int64)
        cf = np.bincount(t, weights=self.row_count[ok], minlength=m).astype(np.int64)
        return df, cf

    def bags(self) -> TermBags:
        """The documents as :class:`~neardup.methods.base.TermBags` (position = index into
        ``doc_ids``)."""
        return TermBags(self.names, self.row_doc, self.row_term, self.row_count, len(self.doc_ids))


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


def read_counts(conn: Connection, collection_id: int) -> TermCounts:
    """All ``nd_doc_terms`` rows of a collection as arrays, in one vectorised pass.

    One row per document comes back, its ``(term_id, count)`` pairs aggregated into one
    text (SQLite ``group_concat``, PostgreSQL ``string_agg``), and numpy parses the texts
    of a few thousand documents at a time (no Python object per term row).
    """
    c = {"c": collection_id}
    doc_ids = np.fromiter(
        conn.execute(
            text("SELECT id FROM nd_documents WHERE collection_id = :c ORDER BY id"), c
        ).scalars(),
        dtype=np.int64,
    )
    term_rows = conn.execute(
        text("SELECT id, term FROM nd_terms WHERE collection_id = :c ORDER BY id"), c
    ).all()
    term_ids = np.fromiter((int(r[0]) for r in term_rows), dtype=np.int64, count=len(term_rows))
    names = [r[1] for r in term_rows]
    group_docs, sizes, term, count = _read_rows(conn, collection_id)
    at = np.searchsorted(doc_ids, group_docs)
    known = at < doc_ids.size
    known[known] = doc_ids[at[known]] == group_docs[known]
    row_doc = np.repeat(np.where(known, at, -1), sizes)
    if not known.all():  # rows of documents that are gone: ignore them
        keep = row_doc >= 0
        row_doc, term, count = row_doc[keep], term[keep], count[keep]
    return TermCounts(doc_ids, names, term_ids, row_doc, _term_index(term_ids, term), count)


def _term_index(term_ids: np.ndarray, term: np.ndarray) -> np.ndarray:
    """Position of each ``term`` id in the sorted ``term_ids`` (-1: not there)."""
    if term_ids.size == 0:
        return np.full(term.size, -1, dtype=np.int64)
    lo, hi = int(term_ids[0]), int(term_ids[-1])
    if hi - lo < 4 * term_ids.size + 1_000_000:  # dense enough: a lookup table
        table = np.full(hi - lo + 1, -1, dtype=np.int64)
        table[term_ids - lo] = np.arange(term_ids.size)
        inside = (term >= lo) & (term <= hi)
        out = np.full(term.size, -1, dtype=np.int64)
        out[inside] = table[term[inside] - lo]
        return out
    at = np.searchsorted(term_ids, term)
    hit = at < term_ids.size
    hit[hit] = term_ids[at[hit]] == term[hit]
    return np.where(hit, at, -1).astype(np.int64)


def _read_rows(
    conn: Connection, collection_id: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(document ids, rows per document, term ids, counts) of ``nd_doc_terms``, int64,
    grouped by document in ascending document id."""
    pair = (
        "string_agg(term_id::text || ' ' || count::text, ' ')"
        if conn.dialect.name == "postgresql"
        else "group_concat(term_id || ' ' || count, ' ')"
    )
    result = conn.execute(
        text(
            f"SELECT document_id, COUNT(*), {pair} FROM nd_doc_terms "
            "WHERE collection_id = :c GROUP BY document_id ORDER BY document_id"
        ),
        {"c": collection_id},
    )
    docs: list[np.ndarray] = []
    sizes: list[np.ndarray] = []
    pairs: list[np.ndarray] = []
    while block := result.fetchmany(_FETCH_DOCS):
        n = len(block)
        size = np.fromiter((r[1] for r in block), dtype=np.int64, count=n)
        values = np.fromstring(" ".join(r[2] for r in block), dtype=np.int64, sep=" ")
        if values.size != 2 * int(size.sum()):
            raise ValueError("nd_doc_terms: unexpected aggregate text")
        docs.append(np.fromiter((r[0] for r in block), dtype=np.int64, count=n))
        sizes.append(size)
        pairs.append(values.reshape(-1, 2))
    if not docs:
        empty = np.zeros(0, np.int64)
        return empty, empty, empty, empty
    both = np.concatenate(pairs)
    return (
        np.concatenate(docs),
        np.concatenate(sizes),
        np.ascontiguousarray(both[:, 0]),
        np.ascontiguousarray(both[:, 1]),
    )


def write_counts(conn: Connection, collection_id: int, counts: TermCounts) -> DbStats:
    """Apply ``df``/``cf`` counted from ``counts`` set-wise (temporary table + UPDATE FROM);
    delete terms no document has any more. Returns the statistics."""
    df, cf = counts.df_cf()
    live = np.flatnonzero(df > 0)
    _temp_table(conn, "tmp_nd_counts", "term_id BIGINT PRIMARY KEY, df BIGINT, cf BIGINT")
    rows = list(
        zip(counts.term_ids[live].tolist(), df[live].tolist(), cf[live].tolist(), strict=True)
    )
    _copy_rows(conn, "tmp_nd_counts", ("term_id", "df", "cf"), rows)
    if conn.dialect.name == "postgresql":
        conn.execute(text("ANALYZE tmp_nd_counts"))
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
        {"c": collection_id},
    )
    names = counts.names
    dfs = {names[i]: int(df[i]) for i in live.tolist()}
    cfs = {names[i]: int(cf[i]) for i in live.tolist()}
    return DbStats(len(counts.doc_ids), dfs, cfs)


def recompute(conn: Connection, collection_id: int, meth: Method) -> RecomputeReport:
    """Recompute statistics, then every signature and index key of a lexical collection.

    Runs inside the caller's transaction (the caller holds the collection's row lock).
    """
    t0 = time.perf_counter()
    laps = _Laps()
    counts = read_counts(conn, collection_id)
    laps.lap("read")
    stats = write_counts(conn, collection_id, counts)
    laps.lap("counts")
    batches = refit(meth, stats, counts.bags())
    laps.lap("fit")
    dialect = conn.dialect.name
    blob = "BYTEA" if dialect == "postgresql" else "BLOB"
    _temp_table(conn, "tmp_nd_sigs", f"document_id BIGINT PRIMARY KEY, payload {blob}")
    _temp_table(conn, "tmp_nd_keys", "document_id BIGINT, band INTEGER, key BIGINT")
    laps.lap("write")
    for lo, sigs, keys in batches:
        ids = counts.doc_ids[lo : lo + sigs.count].tolist()
        payloads = _payloads(meth, sigs)
        laps.lap("sign")
        _copy_rows(
            conn, "tmp_nd_sigs", ("document_id", "payload"), list(zip(ids, payloads, strict=True))
        )
        doc_ids = np.asarray(ids, dtype=np.int64)[keys.row]
        stored = list(zip(doc_ids.tolist(), keys.band.tolist(), keys.key.tolist(), strict=True))
        _copy_rows(conn, "tmp_nd_keys", ("document_id", "band", "key"), stored)
        laps.lap("write")
    _apply(conn, collection_id)
    laps.lap("apply")
    seconds = {k: round(v, 3) for k, v in laps.seconds.items()}
    seconds["total"] = round(time.perf_counter() - t0, 3)
    return RecomputeReport(len(counts.doc_ids), stats.vocabulary_size, seconds)


class _Laps:
    """Seconds per step, accumulated."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self._t = time.perf_counter()

    def lap(self, step: str) -> None:
        now = time.perf_counter()
        self.seconds[step] = self.seconds.get(step, 0.0) + now - self._t
        self._t = now


def _payloads(meth: Method, sigs: Signatures) -> list[bytes]:
    """``Signature.to_bytes()`` of every document of ``sigs``."""
    n = sigs.count
    if n == 0:
        return []
    first = meth.signature(sigs, 0)
    data = sigs.data
    if isinstance(data, np.ndarray) and data.ndim == 1 and first.payload.shape == (1,):
        whole = first.to_bytes()  # same key and dtype for all: header + one value
        item = data.dtype.itemsize
        prefix = whole[: len(whole) - item]
        raw = np.ascontiguousarray(data).astype(data.dtype.newbyteorder("<")).tobytes()
        out = [prefix + raw[i * item : (i + 1) * item] for i in range(n)]
        if out[0] == whole:
            return out
    return [meth.signature(sigs, i).to_bytes() for i in range(n)]


def _apply(conn: Connection, collection_id: int) -> None:
    """Signatures and index rows from the temporary tables, set-wise.

    Signatures: one ``INSERT ... SELECT ... ON CONFLICT (document_id) DO UPDATE`` (only
    changed payloads are rewritten). It needs no join plan: an ``UPDATE ... FROM`` plus
    ``INSERT ... WHERE NOT EXISTS`` pair can get a nested-loop anti-join that rescans the
    growing table on PostgreSQL when its statistics say it is empty (seen: 92 s for 100k
    new signatures).
    """
    c = {"c": collection_id}
    if conn.dialect.name == "postgresql":
        conn.execute(text("ANALYZE tmp_nd_sigs"))
        conn.execute(text("ANALYZE tmp_nd_keys"))
    conn.execute(
        text(
            "INSERT INTO nd_signatures (document_id, payload) "
            "SELECT document_id, payload FROM tmp_nd_sigs WHERE true "
            "ON CONFLICT (document_id) DO UPDATE SET payload = excluded.payload "
            "WHERE nd_signatures.payload <> excluded.payload"
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


def _temp_table(conn: Connection, name: str, columns: str) -> None:
    if conn.dialect.name == "postgresql":
        conn.execute(text(f"CREATE TEMP TABLE IF NOT EXISTS {name} ({columns}) ON COMMIT DROP"))
    else:
        conn.execute(text(f"CREATE TEMP TABLE IF NOT EXISTS {name} ({columns})"))
    conn.execute(text(f"DELETE FROM {name}"))


def _copy_rows(
    conn: Connection, table: str, columns: tuple[str, ...], rows: list[tuple[Any, ...]]
) -> None:
    """Bulk-load ``rows`` into a temporary table: COPY on PostgreSQL, multi-row ``INSERT``
    statements on SQLite (:func:`neardup.store.bulk.sqlite_insert`, as ``add`` writes)."""
    if not rows:
        return
    cursor = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
    try:
        if conn.dialect.name == "postgresql":
            with cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
            return
        flat = [v for row in rows for v in row]
        sqlite_insert(cursor, f"{table} ({', '.join(columns)})", len(columns), flat)
    finally:
        cursor.close()
