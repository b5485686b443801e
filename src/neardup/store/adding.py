"""Adding documents to a collection: batches prepared in a reader thread, each written in
one transaction, pending index rows merged, word statistics counted.

Each batch is one transaction, and a document is inserted with ``INSERT ... ON CONFLICT DO
NOTHING RETURNING``: only documents this transaction really inserted get signature,
shingle, index and statistics rows. Re-adding the same input adds nothing; an interrupted
add resumes where it stopped; two processes adding to one collection lose nothing. The
writing itself is :mod:`neardup.store.bulk`.
"""

from __future__ import annotations

import contextlib
import queue
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, bindparam, insert, select, text
from sqlalchemy.exc import SQLAlchemyError

from neardup.errors import UsageError
from neardup.index.codec import MAX_TERM_BYTES, content_hash, term_key
from neardup.index.collection import chunks, screen
from neardup.index.results import AddReport, CollectionInfo, SkippedDoc
from neardup.methods.base import Method
from neardup.methods.plan import plan_for, too_short_detail
from neardup.store import schema as s
from neardup.store.bulk import (
    Batch,
    document_rows,
    insert_documents,
    insert_rows,
    merge_pending,
    prepare,
)
from neardup.store.catalog import mark_dirty
from neardup.store.database import Database
from neardup.text.types import Document, Skipped
from neardup.text.units import UniqueIds

#: Documents per ``add`` transaction by default (the bulk path: fewer, larger transactions).
DEFAULT_BATCH = 2000
#: ``add`` moves pending index rows into ``nd_index`` after at least this many (and at its
#: end); until then ``check`` finds them by scanning ``nd_index_pending``.
MERGE_ROWS = 2_000_000
#: ... and, later in a long add, after this share of the rows it has merged so far
#: (:func:`merge_after`): a merge walks the whole ``nd_index`` B-tree (random keys touch
#: nearly every leaf page), so merging every :data:`MERGE_ROWS` would cost the square of
#: the add's size; a geometric schedule costs a constant times its size.
MERGE_SHARE = 0.5
#: ... but never more than this many pending rows: ``check`` scans them (no index), 0.21 s
#: at 2M rows, 0.43 s at 4M, 0.92 s at 8M (2026-11-27).
MERGE_MAX_ROWS = 4_000_000
#: Batches of fewer documents write their index rows straight into ``nd_index`` (a few
#: random B-tree inserts cost less than a second transaction for the merge).
DIRECT_BELOW = 64
#: Prepared batches the reader thread may hold ahead of the writer.
_AHEAD = 2
#: Seconds an ``add`` that ends early waits for its reader thread to stop.
_JOIN_S = 30


def add(
    db: Database,
    info: CollectionInfo,
    meth: Method,
    items: Iterable[Document | Skipped],
    *,
    batch_size: int,
    on_batch: Callable[[AddReport], None] | None,
) -> AddReport:
    """Add documents to the collection ``info`` (method ``meth``), one transaction per batch,
    then merge the pending index rows (:meth:`neardup.store.Store.add` documents the
    arguments; the caller recomputes statistics).

    Raises:
        StoreError: the database failed (batches committed before stay committed).
    """
    report = AddReport(0)
    unmerged = merged = 0
    # a reader thread iterates ``items`` and prepares each batch (hash, shingle, sign,
    # compress) while this thread writes the one before; batches commit in input order
    feed = _Feed(lambda: _prepared_batches(db, info, meth, items, batch_size))
    with feed:
        for prepared in feed:
            part, keys = _write_batch(db, info, meth, prepared)
            report = report + part
            if on_batch is not None:
                on_batch(part)
            unmerged += keys
            if unmerged >= merge_after(merged):
                merge(db, info.id)
                merged, unmerged = merged + unmerged, 0
    if unmerged or _has_pending(db, info.id):  # this add's, or an interrupted one's
        merge(db, info.id)
    return report


def merge_after(merged: int) -> int:
    """Pending index rows after which ``add`` merges, once it has merged ``merged`` rows:
    ``MERGE_SHARE * merged`` clipped to ``[MERGE_ROWS, MERGE_MAX_ROWS]``. At a million
    documents (26M index rows, batches of 52,000) that is 9 merges instead of 13, and their
    walks of ``nd_index`` (the rows already there at each merge) sum to 98M rows, not 158M.
    """
    return int(min(max(MERGE_ROWS, MERGE_SHARE * merged), MERGE_MAX_ROWS))


def recompute_after_add(recompute: Callable[[str], object], name: str) -> None:
    """Recompute after an add whose batches are committed; a method that cannot fit yet
    (I-Match needs >= 2 documents) leaves the collection ``stats_dirty`` instead of
    failing an add that did store its documents."""
    with contextlib.suppress(UsageError):
        recompute(name)


def merge(db: Database, collection_id: int) -> None:
    """Move the collection's pending index rows into ``nd_index`` (one transaction).

    PostgreSQL: then ``VACUUM`` the pending table (its deleted rows would otherwise be
    read by every check's scan of it until autovacuum runs) and ``ANALYZE`` the index
    table; best effort, outside any transaction, no lock that blocks readers or writers.
    """
    with db.write() as conn:
        merge_pending(conn, collection_id)
    if db.dialect != "postgresql":
        return
    with (
        contextlib.suppress(SQLAlchemyError),
        db.engines.write.connect() as raw,
    ):
        auto = raw.execution_options(isolation_level="AUTOCOMMIT")
        auto.exec_driver_sql("VACUUM (ANALYZE) nd_index_pending")
        auto.exec_driver_sql("ANALYZE nd_index")


# -- preparing (the reader thread) ------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class _Prepared:
    """A batch prepared for writing (``None``: nothing to write) and its skipped documents."""

    batch: Batch | None
    skipped: list[SkippedDoc]


def _prepared_batches(
    db: Database,
    info: CollectionInfo,
    meth: Method,
    items: Iterable[Document | Skipped],
    size: int,
) -> Iterator[_Prepared]:
    seen = UniqueIds()
    for chunk in chunks(items, size):
        docs, skipped = screen(chunk, seen)
        yield _prepare_batch(db, info, meth, docs, skipped)


def _prepare_batch(
    db: Database,
    info: CollectionInfo,
    meth: Method,
    docs: list[Document],
    skipped: list[SkippedDoc],
) -> _Prepared:
    """Documents not stored yet and long enough, prepared for writing (no write lock)."""
    if not docs:
        return _Prepared(None, skipped)
    stored = _stored_hashes(db, info.id, [d.id for d in docs])
    todo: list[tuple[Document, bytes]] = []
    for doc in docs:
        digest = content_hash(doc.text)
        if doc.id in stored:
            same = stored[doc.id] == digest
            reason, detail = ("exists", "") if same else ("changed", "remove it first")
            skipped.append(SkippedDoc(doc.id, doc.source, reason, detail))
            continue
        todo.append((doc, digest))
    if not todo:
        return _Prepared(None, skipped)
    batch, short = prepare(meth, todo, info.min_tokens)
    for doc, n in short:
        detail = too_short_detail(n, info.min_tokens)
        skipped.append(SkippedDoc(doc.id, doc.source, "too-short", detail))
    return _Prepared(batch if batch.ready else None, skipped)


def _stored_hashes(db: Database, collection_id: int, ids: list[str]) -> dict[str, bytes]:
    stmt = select(s.documents.c.doc_id, s.documents.c.content_hash).where(
        s.documents.c.collection_id == collection_id,
        s.documents.c.doc_id.in_(bindparam("ids", expanding=True)),
    )
    with db.read() as conn:
        if conn.dialect.name == "postgresql":
            # The statement is the same for every batch, so it is prepared and PostgreSQL
            # caches a generic plan made while the table was small (a sequential scan
            # against a 2,000-item IN list: 12-15 s per batch at 250k documents). A plan
            # made for each call uses the (collection_id, doc_id) index.
            conn.exec_driver_sql("SET LOCAL plan_cache_mode = force_custom_plan")
        return {r[0]: bytes(r[1]) for r in conn.execute(stmt, {"ids": ids})}


# -- writing ----------------------------------------------------------------------------------
def _write_batch(
    db: Database, info: CollectionInfo, meth: Method, prepared: _Prepared
) -> tuple[AddReport, int]:
    """One transaction: documents first (ON CONFLICT DO NOTHING), then their rows.

    Returns:
        The batch's report and the number of index rows it wrote (pending rows)."""
    skipped = list(prepared.skipped)
    batch = prepared.batch
    if batch is None:
        return AddReport(0, tuple(skipped), 0), 0
    rows = document_rows(info.id, batch.ready, datetime.now(UTC))
    with db.write() as conn:
        if plan_for(meth, info).needs_fit:  # serialise with recompute() on the collection row
            mark_dirty(conn, info.id)
        pks = insert_documents(conn, rows)
        fresh = [i for i, r in enumerate(batch.ready) if r.doc.id in pks]
        pk = [pks[batch.ready[i].doc.id] for i in fresh]
        keys = insert_rows(
            conn, info.id, batch, fresh, pk, pending=len(batch.ready) >= DIRECT_BELOW
        )
        if fresh and plan_for(meth, info).needs_fit:
            tokens = [batch.ready[i].tokens or [] for i in fresh]
            _insert_terms(db, conn, info.id, tokens, pk)
    skipped.extend(
        SkippedDoc(r.doc.id, r.doc.source, "exists", "added concurrently")
        for r in batch.ready
        if r.doc.id not in pks
    )
    return AddReport(len(fresh), tuple(skipped), 1), keys


def _has_pending(db: Database, collection_id: int) -> bool:
    with db.read() as conn:
        return (
            conn.execute(
                text("SELECT 1 FROM nd_index_pending WHERE collection_id = :c LIMIT 1"),
                {"c": collection_id},
            ).first()
            is not None
        )


def _insert_terms(
    db: Database,
    conn: Connection,
    collection_id: int,
    token_lists: list[list[str]],
    pk: list[int],
) -> None:
    """Seed 004 §4.3: upsert df/cf of the batch's terms, then per-document counts."""
    counts = [_term_counts(Counter(tokens)) for tokens in token_lists]
    df: Counter[str] = Counter()
    cf: Counter[str] = Counter()
    for c in counts:
        df.update(c.keys())
        cf.update(c)
    ins = db.insert(s.terms)
    stmt = ins.on_conflict_do_update(
        index_elements=["collection_id", "term"],
        set_={"df": s.terms.c.df + ins.excluded.df, "cf": s.terms.c.cf + ins.excluded.cf},
    ).returning(s.terms.c.id, s.terms.c.term)
    term_rows = [
        {"collection_id": collection_id, "term": t, "df": df[t], "cf": cf[t]}
        for t in sorted(df)  # one lock order for concurrent writers
    ]
    ids = {r[1]: int(r[0]) for r in conn.execute(stmt, term_rows)}
    doc_rows = [
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


# -- the reader thread --------------------------------------------------------------------------
class _Feed:
    """Runs a generator in a daemon thread, at most :data:`_AHEAD` items ahead of the
    consumer (``with feed: for item in feed``). An exception in the generator is raised in
    the consumer; leaving the ``with`` block early stops the generator at its next item."""

    _DONE = object()

    def __init__(self, make: Callable[[], Iterator[Any]]) -> None:
        self._make = make
        self._queue: queue.Queue[Any] = queue.Queue(maxsize=_AHEAD)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="neardup-add-reader", daemon=True)

    def __enter__(self) -> _Feed:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=_JOIN_S)  # a reader blocked in its input is left (daemon)

    def __iter__(self) -> Iterator[Any]:
        while True:
            item = self._queue.get()
            if item is self._DONE:
                return
            if isinstance(item, _Raised):
                raise item.exc
            yield item

    def _run(self) -> None:
        try:
            for item in self._make():
                if not self._put(item):
                    return
        except BaseException as exc:  # handed to the consumer, raised there
            self._put(_Raised(exc))
            return
        self._put(self._DONE)

    def _put(self, item: Any) -> bool:
        while not self._stop.is_set():
            try:
                self._queue.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False


@dataclass(frozen=True, slots=True)
class _Raised:
    exc: BaseException
