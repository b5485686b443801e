"""The collection store: collections of documents kept with their signatures in a database.

One :class:`Store` per database URL (see :mod:`neardup.store.engine`). Thread-safe: every
call takes its own pooled connection. Each ``add`` batch is one transaction, and a
document is inserted with ``INSERT ... ON CONFLICT DO NOTHING RETURNING``: only documents
this transaction really inserted get signature, shingle, index and statistics rows. Re-adding
the same input adds nothing; an interrupted add resumes where it stopped; two processes
adding to one collection lose nothing.

Each document's text is kept too (``nd_texts``, zlib-compressed, written in the document's
transaction, deleted with it) and read back by :meth:`Store.document_text`.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import queue
import threading
import time
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import islice
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import xxhash
from sqlalchemy import (
    Connection,
    bindparam,
    delete,
    func,
    insert,
    select,
    text,
    update,
)
from sqlalchemy.exc import IntegrityError, OperationalError, SQLAlchemyError

from neardup._array import sorted_unique
from neardup.errors import (
    FormatError,
    IncompatibleSignatureError,
    InputError,
    NeardupError,
    UsageError,
    check_choice,
    check_float,
    check_int,
)
from neardup.methods.base import Method, Prepared, Signature
from neardup.methods.decision import check_decision, own_accepts, resolve_decision
from neardup.methods.measures import MEASURES, overlap
from neardup.methods.registry import method_class
from neardup.methods.sets import ShingleSets
from neardup.store import schema as s
from neardup.store.bulk import (
    TEXT_FORMAT,
    UNPAIRED,
    Batch,
    content_hash,
    document_rows,
    encode_text,
    insert_documents,
    insert_rows,
    merge_pending,
    prepare,
    scrub,
)
from neardup.store.bulk import title as first_line
from neardup.store.codec import decode_set, set_size, verification_set
from neardup.store.engine import open_engines, resolve_url
from neardup.store.errors import (
    CollectionExists,
    CollectionNotFound,
    DocumentNotFound,
    StoreError,
    TextNotStored,
)
from neardup.store.lookup import candidates, collection_row
from neardup.store.methods import (
    build_method,
    canonical_of,
    creation_params,
    index_keys,
    shingling_of,
    signs_from_sets,
    slot_keys,
)
from neardup.store.results import (
    AddReport,
    CheckResult,
    CollectionInfo,
    DocumentInfo,
    Match,
    SkippedDoc,
)
from neardup.store.sizes import table_bytes
from neardup.store.stats import RecomputeReport, load_stats, recompute
from neardup.text.types import Document, Skipped

if TYPE_CHECKING:
    from neardup.store.maintenance import VacuumReport

#: Documents per ``add`` transaction by default (the bulk path: fewer, larger transactions).
DEFAULT_BATCH = 2000
#: ``add`` moves pending index rows into ``nd_index`` after this many (and at its end);
#: until then ``check`` finds them by scanning ``nd_index_pending``.
MERGE_ROWS = 2_000_000
#: Batches of fewer documents write their index rows straight into ``nd_index`` (a few
#: random B-tree inserts cost less than a second transaction for the merge).
DIRECT_BELOW = 64
_NAME_MAX = 200
#: Collections whose parsed row and method :meth:`Store.check` keeps (cleared when full).
_CHECKED_MAX = 256


__all__ = ["TEXT_FORMAT", "Store", "content_hash", "decode_text", "encode_text", "scrub"]


@dataclass(frozen=True, slots=True)
class _Prepared:
    """A batch prepared for writing (``None``: nothing to write) and its skipped documents."""

    batch: Batch | None
    skipped: list[SkippedDoc]


def _screen(
    chunk: list[Document | Skipped], seen: set[str]
) -> tuple[list[Document], list[SkippedDoc]]:
    """Documents of a chunk to consider, and the skipped ones (text-stage skips, unstorable
    or repeated ids); ``seen`` collects the ids of this ``add`` call."""
    skipped: list[SkippedDoc] = []
    docs: list[Document] = []
    for item in chunk:
        if isinstance(item, Skipped):
            skipped.append(SkippedDoc(item.id, item.source, item.reason, item.detail))
        elif (why := bad_doc_id(item.id)) is not None:
            skipped.append(SkippedDoc(scrub(item.id), scrub(item.source), "unreadable", why))
        elif item.id in seen:
            skipped.append(SkippedDoc(item.id, item.source, "duplicate-id", "repeated"))
        else:
            seen.add(item.id)
            docs.append(item)
    return docs, skipped


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


#: Prepared batches the reader thread may hold ahead of the writer.
_AHEAD = 2
#: Seconds an ``add`` that ends early waits for its reader thread to stop.
_JOIN_S = 30


class Store:
    """Collections in one SQLite or PostgreSQL database.

    Args:
        url: database URL (``sqlite:///path``, ``postgresql://user@host/db``); ``None``:
            ``$NEARDUP_DB`` or the default SQLite file (:func:`~.engine.resolve_url`).

    Raises:
        UsageError: a malformed URL.
        StoreError: the database cannot be opened or migrated.
    """

    def __init__(self, url: str | None = None) -> None:
        self.url = resolve_url(url)
        self._engines = open_engines(self.url)
        self._methods: dict[tuple[int, str], Method] = {}
        self._fitted: dict[int, tuple[tuple[int, int], Method]] = {}
        self._checked: dict[str, tuple[tuple[Any, ...], CollectionInfo, Method]] = {}
        self._lock = threading.Lock()

    @property
    def dialect(self) -> str:
        """``sqlite`` or ``postgresql``."""
        return self._engines.dialect

    def close(self) -> None:
        """Release the database connections."""
        self._engines.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- collections ------------------------------------------------------------------------
    def create_collection(
        self,
        name: str,
        method: str = "minhash-lsh",
        params: dict[str, Any] | None = None,
        *,
        threshold: float = 0.5,
        measure: str = "resemblance",
        min_tokens: int = 3,
        decision: str | None = None,
    ) -> CollectionInfo:
        """Create a collection; its method and parameters are fixed from now on.

        Args:
            name: unique name, 1-200 characters, no control characters.
            method: registry name (default ``minhash-lsh``).
            params: the method's parameters (``canonical`` may be a ``CanonicalForm``).
            threshold: decision threshold in (0, 1]; also the method's own threshold (LSH
                tuning) unless ``params`` sets one.
            measure: ``resemblance`` or ``containment`` (max of both directions).
            min_tokens: documents with fewer canonical tokens are skipped, >= 1.
            decision: ``own`` (the method's own rule decides a check), ``verified`` (the
                exact shingle sets) or None (the method's default,
                :mod:`neardup.methods.decision`).

        Raises:
            ParameterError / UnsupportedMethod: bad name, method, parameters or options
                (``measure`` the method's own rule cannot decide on included).
            CollectionExists: the name is taken.
        """
        check_name(name)
        check_float("threshold", threshold, low=0.0, high=1.0, low_open=True)
        check_choice("measure", measure, MEASURES)
        check_int("min_tokens", min_tokens, low=1, high=1_000_000)
        init, canonical = creation_params(method, dict(params or {}), threshold)
        mode = resolve_decision(method_class(method), check_decision(decision), measure)
        row = {
            "name": name,
            "method": method,
            "params": _dumps(init),
            "canonical": _dumps(canonical),
            "measure": measure,
            "threshold": float(threshold),
            "min_tokens": min_tokens,
            "stats_dirty": False,
            "created_at": datetime.now(UTC),
            "decision": mode,
        }
        try:
            with self._write() as conn:
                conn.execute(insert(s.collections).values(**row))
        except IntegrityError:
            raise CollectionExists(name) from None
        return self.collection(name)

    def collection(self, name: str) -> CollectionInfo:
        """The collection ``name``.

        Raises:
            CollectionNotFound: no such collection.
        """
        with self._read() as conn:
            return self._info(conn, name)

    def collections(self) -> list[CollectionInfo]:
        """All collections, by name."""
        with self._read() as conn:
            rows = conn.execute(select(s.collections).order_by(s.collections.c.name)).all()
        return [_info(r) for r in rows]

    def stats(self, name: str, *, sizes: bool = False) -> dict[str, Any]:
        """Counts of a collection: documents, tokens, index rows, terms, last addition.

        Args:
            name: the collection.
            sizes: also ``storage``: rows and bytes on disk per table and per document
                (:func:`neardup.store.sizes.table_bytes`; SQLite reads every page).

        Raises:
            CollectionNotFound: no such collection.
        """
        with self._read() as conn:
            info = self._info(conn, name)
            c = {"c": info.id}
            d = s.documents.c
            docs = conn.execute(
                select(
                    func.count(), func.coalesce(func.sum(d.length), 0), func.max(d.added_at)
                ).where(d.collection_id == info.id)
            ).one()
            index = conn.execute(
                text(
                    "SELECT (SELECT COUNT(*) FROM nd_index WHERE collection_id = :c) + "
                    "(SELECT COUNT(*) FROM nd_index_pending WHERE collection_id = :c)"
                ),
                c,
            ).scalar_one()
            terms = conn.execute(
                text("SELECT COUNT(*) FROM nd_terms WHERE collection_id = :c AND df > 0"), c
            ).scalar_one()
            storage = table_bytes(conn, info.id, int(docs[0])) if sizes else None
        last = docs[2]
        out = {
            **info.as_dict(),
            "documents": int(docs[0]),
            "tokens": int(docs[1]),
            "index_rows": int(index),
            "terms": int(terms),
            "last_added_at": None if last is None else _utc(last).isoformat(),
        }
        if storage is not None:
            out["storage"] = storage
        return out

    def delete_collection(self, name: str) -> None:
        """Delete a collection with all its documents and rows.

        Raises:
            CollectionNotFound: no such collection.
        """
        with self._write() as conn:
            info = self._info(conn, name, lock=True)
            c = {"c": info.id}
            docs = "SELECT id FROM nd_documents WHERE collection_id = :c"
            for table in ("nd_index", "nd_index_pending", "nd_doc_terms", "nd_terms"):
                conn.execute(text(f"DELETE FROM {table} WHERE collection_id = :c"), c)
            for table in ("nd_signatures", "nd_shingles", "nd_texts"):
                conn.execute(text(f"DELETE FROM {table} WHERE document_id IN ({docs})"), c)
            conn.execute(text("DELETE FROM nd_documents WHERE collection_id = :c"), c)
            conn.execute(delete(s.collections).where(s.collections.c.id == info.id))
        self._forget(info.id)

    # -- documents --------------------------------------------------------------------------
    def add(
        self,
        name: str,
        items: Iterable[Document | Skipped],
        *,
        batch_size: int = DEFAULT_BATCH,
        on_batch: Callable[[AddReport], None] | None = None,
        recompute_stats: bool = True,
    ) -> AddReport:
        """Add documents to a collection, one transaction per batch.

        Args:
            name: the collection.
            items: documents (and text-stage skips, reported back), e.g.
                :func:`neardup.text.read_corpus`.
            batch_size: documents per transaction, >= 1.
            on_batch: called after each committed batch with that batch's report.
            recompute_stats: lexical methods: recompute statistics and signatures at the
                end (:meth:`recompute`) when this call added documents or the collection is
                ``stats_dirty`` (an earlier add stopped before its recompute, so re-running
                an interrupted add finishes it); otherwise the collection stays
                ``stats_dirty`` until the next :meth:`recompute` or :meth:`check`.

        Returns:
            :class:`AddReport` (documents added by this call, skipped ones with reasons).

        Raises:
            CollectionNotFound: no such collection.
            StoreError: the database failed (batches committed before stay committed).
        """
        check_int("batch_size", batch_size, low=1, high=100_000)
        info = self.collection(name)
        meth = self._method(info)
        report = AddReport(0)
        unmerged = 0
        # a reader thread iterates ``items`` and prepares each batch (hash, shingle, sign,
        # compress) while this thread writes the one before; batches commit in input order
        feed = _Feed(lambda: self._prepared_batches(info, meth, items, batch_size))
        with feed:
            for prepared in feed:
                part, keys = self._write_batch(info, meth, prepared)
                report = report + part
                if on_batch is not None:
                    on_batch(part)
                unmerged += keys
                if unmerged >= MERGE_ROWS:
                    self._merge(info.id)
                    unmerged = 0
        if unmerged or self._has_pending(info.id):  # this add's, or an interrupted one's
            self._merge(info.id)
        if meth.needs_fit and recompute_stats and (report.added or self._dirty(name)):
            self._recompute_after_add(name)  # also an add killed before its recompute
        return report

    def _dirty(self, name: str) -> bool:
        return self.collection(name).stats_dirty

    def _recompute_after_add(self, name: str) -> None:
        """Recompute after an add whose batches are committed; a method that cannot fit yet
        (I-Match needs >= 2 documents) leaves the collection ``stats_dirty`` instead of
        failing an add that did store its documents."""
        with contextlib.suppress(UsageError):
            self.recompute(name)

    def _prepared_batches(
        self, info: CollectionInfo, meth: Method, items: Iterable[Document | Skipped], size: int
    ) -> Iterator[_Prepared]:
        seen: set[str] = set()
        for chunk in _chunks(items, size):
            docs, skipped = _screen(chunk, seen)
            yield self._prepare_batch(info, meth, docs, skipped)

    def _prepare_batch(
        self, info: CollectionInfo, meth: Method, docs: list[Document], skipped: list[SkippedDoc]
    ) -> _Prepared:
        """Documents not stored yet and long enough, prepared for writing (no write lock)."""
        if not docs:
            return _Prepared(None, skipped)
        stored = self._stored_hashes(info.id, [d.id for d in docs])
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
            detail = f"{n} canonical tokens < min_tokens={info.min_tokens}"
            skipped.append(SkippedDoc(doc.id, doc.source, "too-short", detail))
        return _Prepared(batch if batch.ready else None, skipped)

    def _stored_hashes(self, collection_id: int, ids: list[str]) -> dict[str, bytes]:
        stmt = select(s.documents.c.doc_id, s.documents.c.content_hash).where(
            s.documents.c.collection_id == collection_id,
            s.documents.c.doc_id.in_(bindparam("ids", expanding=True)),
        )
        with self._read() as conn:
            if conn.dialect.name == "postgresql":
                # The statement is the same for every batch, so it is prepared and PostgreSQL
                # caches a generic plan made while the table was small (a sequential scan
                # against a 2,000-item IN list: 12-15 s per batch at 250k documents). A plan
                # made for each call uses the (collection_id, doc_id) index.
                conn.exec_driver_sql("SET LOCAL plan_cache_mode = force_custom_plan")
            return {r[0]: bytes(r[1]) for r in conn.execute(stmt, {"ids": ids})}

    def _write_batch(
        self, info: CollectionInfo, meth: Method, prepared: _Prepared
    ) -> tuple[AddReport, int]:
        """One transaction: documents first (ON CONFLICT DO NOTHING), then their rows.

        Returns:
            The batch's report and the number of index rows it wrote (pending rows)."""
        skipped = list(prepared.skipped)
        batch = prepared.batch
        if batch is None:
            return AddReport(0, tuple(skipped), 0), 0
        rows = document_rows(info.id, batch.ready, datetime.now(UTC))
        with self._write() as conn:
            if meth.needs_fit:  # serialise with recompute() on the collection row
                self._mark_dirty(conn, info.id)
            pks = insert_documents(conn, rows)
            fresh = [i for i, r in enumerate(batch.ready) if r.doc.id in pks]
            pk = [pks[batch.ready[i].doc.id] for i in fresh]
            keys = insert_rows(
                conn, info.id, batch, fresh, pk, pending=len(batch.ready) >= DIRECT_BELOW
            )
            if fresh and meth.needs_fit:
                tokens = [batch.ready[i].tokens or [] for i in fresh]
                self._insert_terms(conn, info.id, tokens, pk)
        skipped.extend(
            SkippedDoc(r.doc.id, r.doc.source, "exists", "added concurrently")
            for r in batch.ready
            if r.doc.id not in pks
        )
        return AddReport(len(fresh), tuple(skipped), 1), keys

    def _has_pending(self, collection_id: int) -> bool:
        with self._read() as conn:
            return (
                conn.execute(
                    text("SELECT 1 FROM nd_index_pending WHERE collection_id = :c LIMIT 1"),
                    {"c": collection_id},
                ).first()
                is not None
            )

    def _merge(self, collection_id: int) -> None:
        """Move the collection's pending index rows into ``nd_index`` (one transaction).

        PostgreSQL: then ``VACUUM`` the pending table (its deleted rows would otherwise be
        read by every check's scan of it until autovacuum runs) and ``ANALYZE`` the index
        table; best effort, outside any transaction, no lock that blocks readers or writers.
        """
        with self._write() as conn:
            merge_pending(conn, collection_id)
        if self.dialect != "postgresql":
            return
        with (
            contextlib.suppress(SQLAlchemyError),
            self._engines.write.connect() as raw,
        ):
            auto = raw.execution_options(isolation_level="AUTOCOMMIT")
            auto.exec_driver_sql("VACUUM (ANALYZE) nd_index_pending")
            auto.exec_driver_sql("ANALYZE nd_index")

    def _insert_terms(
        self, conn: Connection, collection_id: int, token_lists: list[list[str]], pk: list[int]
    ) -> None:
        """Seed 004 §4.3: upsert df/cf of the batch's terms, then per-document counts."""
        counts = [_term_counts(Counter(tokens)) for tokens in token_lists]
        df: Counter[str] = Counter()
        cf: Counter[str] = Counter()
        for c in counts:
            df.update(c.keys())
            cf.update(c)
        ins = self._dialect_insert(s.terms)
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

    def document(self, name: str, doc_id: str) -> DocumentInfo:
        """Metadata of one stored document.

        Raises:
            CollectionNotFound, DocumentNotFound: no such collection or document.
        """
        if bad_doc_id(doc_id) is not None:  # never stored (PostgreSQL refuses NUL in a query)
            self.collection(name)
            raise DocumentNotFound(name, doc_id)
        d, sh, t = s.documents, s.shingles, s.texts
        with self._read() as conn:
            info = self._info(conn, name)
            row = conn.execute(
                select(d, t.c.body, func.length(sh.c.fingerprints))
                .join(sh, sh.c.document_id == d.c.id)
                .outerjoin(t, t.c.document_id == d.c.id)
                .where(d.c.collection_id == info.id, d.c.doc_id == doc_id)
            ).first()
        if row is None:
            raise DocumentNotFound(name, doc_id)
        m = row._mapping
        return DocumentInfo(
            m["doc_id"],
            m["source"],
            shown_title(m["title"], m["body"]),
            bytes(m["content_hash"]).hex(),
            int(m["length"]),
            set_size(int(row[-1])),
            _utc(m["added_at"]),
        )

    def document_text(self, name: str, doc_id: str) -> str:
        """The text of one stored document, exactly as it was added.

        Returns:
            The text (``str``; equal to the added ``Document.text``, lone surrogates included).

        Raises:
            CollectionNotFound: no such collection.
            DocumentNotFound: no such document; :class:`TextNotStored` (a subclass): the
                document was added before the store kept texts (migration 0003).
            FormatError: the stored bytes are of an unknown format version, corrupt, or do not
                match the document's content hash.
        """
        if bad_doc_id(doc_id) is not None:  # never stored (PostgreSQL refuses NUL in a query)
            self.collection(name)
            raise DocumentNotFound(name, doc_id)
        d, t = s.documents, s.texts
        with self._read() as conn:
            info = self._info(conn, name)
            row = conn.execute(
                select(d.c.content_hash, t.c.body)
                .outerjoin(t, t.c.document_id == d.c.id)
                .where(d.c.collection_id == info.id, d.c.doc_id == doc_id)
            ).first()
        if row is None:
            raise DocumentNotFound(name, doc_id)
        if row[1] is None:
            raise TextNotStored(name, doc_id)
        return decode_text(bytes(row[1]), expected_hash=bytes(row[0]))

    def remove(self, name: str, doc_id: str) -> None:
        """Remove one document (and its rows; statistics are decremented set-wise).

        Raises:
            CollectionNotFound, DocumentNotFound: no such collection or document.
        """
        if bad_doc_id(doc_id) is not None:  # never stored (PostgreSQL refuses NUL in a query)
            self.collection(name)
            raise DocumentNotFound(name, doc_id)
        with self._write() as conn:
            info = self._info(conn, name, lock=True)
            pk = conn.execute(
                select(s.documents.c.id).where(
                    s.documents.c.collection_id == info.id, s.documents.c.doc_id == doc_id
                )
            ).scalar()
            if pk is None:
                raise DocumentNotFound(name, doc_id)
            d = {"d": pk}
            meth = self._method(info)
            if meth.needs_fit:
                self._uncount(conn, info.id, pk)
            self._remove_keys(conn, info, meth, pk)
            for table in (
                "nd_index_pending",
                "nd_doc_terms",
                "nd_signatures",
                "nd_shingles",
                "nd_texts",
            ):
                conn.execute(text(f"DELETE FROM {table} WHERE document_id = :d"), d)
            conn.execute(delete(s.documents).where(s.documents.c.id == pk))

    def _remove_keys(self, conn: Connection, info: CollectionInfo, meth: Method, pk: int) -> None:
        """Delete a document's ``nd_index`` rows by their keys (the table has no index by
        document): keys recomputed from the stored text (methods signing from the shingle
        set) or signature (lexical methods); without either, a scan of the collection."""
        keys = self._stored_keys(conn, meth, pk)
        params: dict[str, Any] = {"c": info.id, "d": pk}
        if keys is None:
            conn.execute(_DELETE_INDEX_SCAN, params)
        elif keys.size:
            conn.execute(_DELETE_INDEX_KEYS, {**params, "keys": np.unique(keys).tolist()})

    def _stored_keys(self, conn: Connection, meth: Method, pk: int) -> np.ndarray | None:
        if signs_from_sets(meth):
            row = conn.execute(
                select(s.documents.c.content_hash, s.texts.c.body)
                .join(s.texts, s.texts.c.document_id == s.documents.c.id)
                .where(s.documents.c.id == pk)
            ).first()
            if row is None:
                return None
            text_ = decode_text(bytes(row[1]), expected_hash=bytes(row[0]))
            sets = shingling_of(meth).batch([canonical_of(meth).tokens(text_)])
            return index_keys(meth, meth.from_sets(sets)).key
        payload = conn.execute(
            select(s.signatures.c.payload).where(s.signatures.c.document_id == pk)
        ).scalar()
        if payload is None:
            return np.zeros(0, np.int64)  # lexical, never signed: no index rows either
        try:
            return slot_keys([Signature.from_bytes(bytes(payload)).payload]).key
        except (NeardupError, ValueError):
            return None

    def _uncount(self, conn: Connection, collection_id: int, pk: int) -> None:
        conn.execute(
            text(
                "UPDATE nd_terms SET df = nd_terms.df - 1, cf = nd_terms.cf - dt.count "
                "FROM nd_doc_terms AS dt WHERE dt.document_id = :d AND nd_terms.id = dt.term_id"
            ),
            {"d": pk},
        )
        self._mark_dirty(conn, collection_id)

    def vacuum(self) -> VacuumReport:
        """Reclaim the space of removed rows (``VACUUM``; see :mod:`neardup.store.maintenance`):
        run it after removing many documents. Covers every collection (they share tables).

        Raises:
            StoreError: the database refused or is unreachable.
        """
        from neardup.store.maintenance import vacuum

        return vacuum(self._engines)

    # -- statistics -------------------------------------------------------------------------
    def recompute(self, name: str) -> RecomputeReport | None:
        """Recompute word statistics and lexical signatures set-wise (seed 004).

        Returns:
            The :class:`RecomputeReport`, or ``None`` for a method without statistics.

        Raises:
            CollectionNotFound: no such collection.
        """
        with self._write() as conn:
            info = self._info(conn, name, lock=True)
            meth = self._method(info)
            if not meth.needs_fit:
                return None
            fresh = build_method(info.method, info.params, info.canonical)
            report = recompute(conn, info.id, fresh)
            conn.execute(
                update(s.collections).where(s.collections.c.id == info.id).values(stats_dirty=False)
            )
        with self._lock:
            self._fitted.pop(info.id, None)
        return report

    # -- check ------------------------------------------------------------------------------
    def check(self, name: str, text_: str, *, limit: int = 100) -> CheckResult:
        """Which stored documents does ``text_`` duplicate?

        Candidates come from the index (keys looked up in SQL, at most
        :data:`~neardup.store.lookup.MAX_CANDIDATES`, most shared keys first, one statement
        with their stored rows); each is verified on the exact shingle sets: a match has
        ``resemblance >= threshold`` (measure ``resemblance``) or
        ``max(containment both ways) >= threshold`` (``containment``) when the collection's
        decision is ``verified``; under ``own`` the method's own rule on the stored signature
        decides (equal TF-RIDF signature, one shared mega-shingle, ...). An identical
        document (resemblance 1) always matches. Each match's ``evidence["decision"]`` says
        which rule accepted it (``own``, ``verified`` or ``identical``).

        Args:
            name: the collection.
            text_: clean text of the document.
            limit: at most this many matches, best first (>= 1).

        Raises:
            CollectionNotFound: no such collection.
            InputError: the text has fewer canonical tokens than the collection's
                ``min_tokens``.
        """
        check_int("limit", limit, low=1, high=100_000)
        t0 = time.perf_counter()
        with self._check_reads() as conn:  # one pooled connection per check
            info, meth = self._checked_collection(conn, name)
            if not meth.needs_fit:
                query = _Query.of(info, meth, text_)
                hits, rows = self._lookup(conn, info, query.keys)
        if meth.needs_fit:  # lexical: fitted on current statistics (may recompute them first)
            meth = self._query_method(info)
            query = _Query.of(info, meth, text_)
            with self._read() as conn:
                hits, rows = self._lookup(conn, info, query.keys)
        matches = self._verify(info, meth, query.set, query.signature, hits, len(query.keys), rows)
        return CheckResult(
            info.name,
            info.method,
            info.measure,
            info.threshold,
            query.tokens,
            len(hits),
            tuple(matches[:limit]),
            time.perf_counter() - t0,
        )

    def _lookup(
        self, conn: Connection, info: CollectionInfo, keys: np.ndarray
    ) -> tuple[dict[int, int], list[Any]]:
        """Candidates (``{document pk: shared keys}``) and their stored rows, in one
        statement (one round trip): the most-shared-keys candidates joined to their
        documents, shingle sets and (when stored) signatures."""
        if keys.size == 0:
            return {}, []
        rows = candidates(conn, info.id, sorted_unique(keys).tolist())
        return {int(r[0]): int(r[6]) for r in rows}, rows

    def _checked_collection(self, conn: Connection, name: str) -> tuple[CollectionInfo, Method]:
        """The collection and its method for a check: one raw query for the row; the
        parsed info and built method are reused while the row stays the same (a collection
        deleted and created again under the same name has another row).

        Raises:
            CollectionNotFound: no such collection.
        """
        if not _valid_name(name):  # never stored; and PostgreSQL refuses NUL in a query
            raise CollectionNotFound(name)
        raw = collection_row(conn, name)
        if raw is None:
            raise CollectionNotFound(name)
        with self._lock:
            cached = self._checked.get(name)
        if cached is not None and cached[0] == raw:
            return cached[1], cached[2]
        info = self._info(conn, name)
        meth = self._method(info)
        with self._lock:
            if len(self._checked) >= _CHECKED_MAX:
                self._checked.clear()
            self._checked[name] = (raw, info, meth)
        return info, meth

    def _verify(
        self,
        info: CollectionInfo,
        meth: Method,
        query: np.ndarray,
        query_sig: Signature,
        hits: dict[int, int],
        nkeys: int,
        rows: Sequence[Any],
    ) -> list[Match]:
        out: list[Match] = []
        cands = []
        bodies: dict[int, Any] = {}
        for pk, doc_id, source, title, blob, payload, _hits, body in rows:
            stored = decode_set(blob)
            cands.append((pk, doc_id, source, title, stored, payload, overlap(query, stored)))
            bodies[pk] = body
        # Documents of methods that sign from the shingle set keep no signature row: their
        # signatures are made from the stored sets, with the query's from its set the same way.
        own = info.decision == "own"
        unsigned = [i for i, c in enumerate(cands) if c[5] is None]
        if own and unsigned:
            made = _signatures_from_sets(meth, query, [cands[i][4] for i in unsigned])
        else:
            made = None
        for i, (pk, doc_id, source, title, stored, payload, ov) in enumerate(cands):
            q_sig, stored_sig = query_sig, payload
            if payload is None and made is not None:
                q_sig, stored_sig = made[0], made[1 + unsigned.index(i)]
            score = _score(meth, q_sig, stored_sig) if own else None
            rule = _decide(info, meth, ov, q_sig, stored_sig, score)
            if rule is None:
                continue
            if not own and payload is not None:
                score = _score(meth, query_sig, payload)
            evidence: dict[str, Any] = {
                "index_hits": hits[int(pk)],
                "index_keys": nkeys,
                "score": score,
                "decision": rule,
            }
            if score is None and payload is None:
                evidence["_set"] = stored
            out.append(
                Match(
                    doc_id,
                    source,
                    shown_title(title, bodies[pk]),
                    ov.resemblance,
                    ov.containment_ab,
                    ov.containment_ba,
                    ov.shared,
                    ov.size_a,
                    ov.size_b,
                    evidence,
                )
            )
        pending = [(k, m.evidence.pop("_set")) for k, m in enumerate(out) if "_set" in m.evidence]
        if pending:
            scores = _scores_from_sets(meth, query, [st for _, st in pending])
            for (k, _), score in zip(pending, scores, strict=True):
                out[k].evidence["score"] = score
        out.sort(
            key=lambda m: (-m.resemblance, -max(m.containment_query, m.containment_doc), m.doc_id)
        )
        return out

    # -- internals --------------------------------------------------------------------------
    def _method(self, info: CollectionInfo) -> Method:
        key = (info.id, _dumps(info.params) + _dumps(info.canonical))
        with self._lock:
            meth = self._methods.get(key)
        if meth is None:
            meth = build_method(info.method, info.params, info.canonical)
            with self._lock:
                self._methods[key] = meth
        return meth

    def _query_method(self, info: CollectionInfo) -> Method:
        """The collection's method, fitted on current statistics for lexical methods."""
        meth = self._method(info)
        if not meth.needs_fit:
            return meth
        if info.stats_dirty:
            self.recompute(info.name)
        with self._read() as conn:
            marker = _marker(conn, info.id)
            with self._lock:
                cached = self._fitted.get(info.id)
            if cached is not None and cached[0] == marker:
                return cached[1]
            stats, _ = load_stats(conn, info.id)
        fitted = build_method(info.method, info.params, info.canonical)
        fitted.fit(stats)
        with self._lock:
            self._fitted[info.id] = (marker, fitted)
        return fitted

    def _forget(self, collection_id: int) -> None:
        with self._lock:
            self._fitted.pop(collection_id, None)
            self._checked.clear()
            for key in [k for k in self._methods if k[0] == collection_id]:
                del self._methods[key]

    def _info(self, conn: Connection, name: str, *, lock: bool = False) -> CollectionInfo:
        if not _valid_name(name):  # never stored; and PostgreSQL refuses NUL in a query
            raise CollectionNotFound(name)
        stmt = _COLLECTION_FOR_UPDATE if lock and conn.dialect.name == "postgresql" else _COLLECTION
        row = conn.execute(stmt, {"name": name}).first()
        if row is None:
            raise CollectionNotFound(name)
        return _info(row)

    def _mark_dirty(self, conn: Connection, collection_id: int) -> None:
        conn.execute(
            update(s.collections)
            .where(s.collections.c.id == collection_id)
            .values(stats_dirty=True)
        )

    def _dialect_insert(self, table: Any) -> Any:
        # the dialect's module only: importing both loads asyncio and the async drivers
        mod = importlib.import_module(f"sqlalchemy.dialects.{self.dialect}")
        return mod.insert(table)

    def _write(self) -> _Tx:
        return _Tx(self._engines.write, self.url)

    def _read(self) -> _Tx:
        return _Tx(self._engines.read, self.url)

    def _check_reads(self) -> _Tx:
        """The connection of a check: SQLite, one read transaction (no round trips to save);
        PostgreSQL, autocommit (the two statements without ``BEGIN`` and ``COMMIT``: two
        network round trips of five fewer; psycopg sets autocommit on the client side)."""
        return _Tx(self._engines.read, self.url, autocommit=self.dialect == "postgresql")


class _Tx:
    """``with``: a connection in one transaction; database errors become :class:`StoreError`."""

    def __init__(self, engine: Any, url: str, *, autocommit: bool = False) -> None:
        self._engine = engine
        self._url = url
        self._autocommit = autocommit
        self._cm: Any = None

    def __enter__(self) -> Connection:
        try:
            if self._autocommit:  # each statement its own transaction (reads only)
                self._cm = self._engine.connect()
                conn = self._cm.__enter__()
                return conn.execution_options(isolation_level="AUTOCOMMIT")
            self._cm = self._engine.begin()
            return self._cm.__enter__()
        except OperationalError as exc:
            raise StoreError(f"database unavailable: {_first_line(exc)}") from exc

    def __exit__(self, et: Any, ev: Any, tb: Any) -> Literal[False]:
        try:
            self._cm.__exit__(et, ev, tb)
        except IntegrityError:
            raise
        except SQLAlchemyError as exc:
            if ev is None or not isinstance(ev, NeardupError):
                raise StoreError(f"database error: {_first_line(exc)}") from exc
        if isinstance(ev, IntegrityError):
            return False
        if isinstance(ev, SQLAlchemyError):
            raise StoreError(f"database error: {_first_line(ev)}") from ev
        return False


#: Longest document id, UTF-8 bytes: PostgreSQL's B-tree entries (the unique index on
#: collection and id) hold at most 2704 bytes.
MAX_ID_BYTES = 2000
#: Longest term kept as itself in the statistics tables, UTF-8 bytes (see :func:`term_key`).
MAX_TERM_BYTES = 1000


def bad_doc_id(doc_id: object) -> str | None:
    """Why ``doc_id`` cannot be stored (``None``: it can): not a string, NUL characters
    (PostgreSQL text cannot hold them), lone surrogates (not encodable), over
    :data:`MAX_ID_BYTES` UTF-8 bytes."""
    if not isinstance(doc_id, str):
        return f"document id is a {type(doc_id).__name__}, not a string"
    if UNPAIRED.search(doc_id):
        return "document id holds NUL or lone surrogate characters"
    if len(doc_id.encode("utf-8")) > MAX_ID_BYTES:
        return f"document id over {MAX_ID_BYTES} UTF-8 bytes"
    return None


def term_key(term: str) -> str:
    """The statistics tables' form of a term: the term itself, or for a term over
    :data:`MAX_TERM_BYTES` UTF-8 bytes (a 'word' no index can hold: PostgreSQL's B-tree
    entries stop at 2704 bytes) ``#`` and its XXH3-128 in hex. Canonical tokens are letters
    and digits only, so the stand-in never equals a real term; documents and queries map
    their terms the same way, so signatures stay comparable."""
    if len(term) * 4 <= MAX_TERM_BYTES or len(term.encode("utf-8")) <= MAX_TERM_BYTES:
        return term
    return "#" + xxhash.xxh3_128_hexdigest(term.encode("utf-8"))


def _term_counts(counts: Counter[str]) -> Counter[str]:
    if all(len(t) * 4 <= MAX_TERM_BYTES for t in counts):
        return counts
    out: Counter[str] = Counter()
    for t, n in counts.items():
        out[term_key(t)] += n
    return out


def _valid_name(name: object) -> bool:
    try:
        check_name(name)
    except NeardupError:
        return False
    return True


# The statements of the check path, built once (building a select per call cost ~0.3 ms;
# SQLAlchemy caches only the compiled form). All values are bound parameters.
_COLLECTION = select(s.collections).where(s.collections.c.name == bindparam("name"))
_COLLECTION_FOR_UPDATE = _COLLECTION.with_for_update()
_DELETE_INDEX_KEYS = text(
    "DELETE FROM nd_index WHERE collection_id = :c AND key IN :keys AND document_id = :d"
).bindparams(bindparam("keys", expanding=True))
_DELETE_INDEX_SCAN = text("DELETE FROM nd_index WHERE collection_id = :c AND document_id = :d")


@dataclass(frozen=True, slots=True)
class _Query:
    """A checked text made ready for lookup: its shingle set, signature and index keys."""

    tokens: int
    set: np.ndarray
    signature: Signature
    keys: np.ndarray

    @classmethod
    def of(cls, info: CollectionInfo, meth: Method, text_: str) -> _Query:
        """Raises:
        InputError: fewer canonical tokens than the collection's ``min_tokens``."""
        tokens = canonical_of(meth).tokens(text_)
        if len(tokens) < info.min_tokens:
            raise InputError(
                f"document too short to check: {len(tokens)} canonical tokens "
                f"< min_tokens={info.min_tokens}"
            )
        sets = shingling_of(meth).batch([tokens])
        sigs = (
            meth.from_sets(sets)
            if signs_from_sets(meth)
            else meth.sign([Prepared("query", text_, [term_key(t) for t in tokens])])
        )
        keys = index_keys(meth, sigs).for_row(0)
        return cls(len(tokens), verification_set(sets.get(0)), meth.signature(sigs, 0), keys)


def check_name(name: object) -> str:
    """Validate a collection name: 1-200 characters, printable, not only spaces.

    Raises:
        ParameterError: the name is not allowed.
    """
    from neardup.errors import ParameterError

    if (
        not isinstance(name, str)
        or not name.strip()
        or len(name) > _NAME_MAX
        or not name.isprintable()
        or "/" in name
    ):
        raise ParameterError("name", name, f"1-{_NAME_MAX} printable characters, no '/'")
    return name


def decode_text(body: bytes, *, expected_hash: bytes | None = None) -> str:
    """The text of an ``nd_texts.body`` (:func:`encode_text`).

    Args:
        body: the stored bytes.
        expected_hash: the document's ``content_hash``; checked when given.

    Raises:
        FormatError: empty, an unknown format byte, bad zlib data, or a hash mismatch.
    """
    if not body or body[0] != TEXT_FORMAT:
        found = "no format byte" if not body else f"format byte {body[0]}"
        raise FormatError(f"stored text: {found}, this neardup reads format {TEXT_FORMAT}")
    try:
        raw = zlib.decompress(body[1:])
    except zlib.error as exc:
        raise FormatError(f"stored text: corrupt zlib data ({exc})") from None
    if expected_hash is not None and xxhash.xxh3_128_digest(raw) != expected_hash:
        raise FormatError("stored text does not match the document's content hash")
    return raw.decode("utf-8", "surrogatepass")


def shown_title(stored: str, body: bytes | None) -> str:
    """A document's title: the stored one, or (stored empty, the text kept) the first
    non-blank line of its text (:func:`neardup.store.bulk.title`). Since migration 0006
    ``add`` stores no title for documents whose text it keeps: it was a copy of that line
    (316 bytes a document on the scale corpus)."""
    if stored or body is None:
        return stored
    try:
        return scrub(first_line(decode_text(bytes(body))))
    except FormatError:
        return ""


def _rank(m: Match) -> tuple[float, float, str]:
    return (-m.resemblance, -max(m.containment_query, m.containment_doc), m.doc_id)


def _decide(
    info: CollectionInfo,
    meth: Method,
    ov: Any,
    query: Signature,
    payload: bytes | Signature | None,
    score: float | None,
) -> str | None:
    """The rule that accepts a stored document for a check (``own``, ``verified``,
    ``identical``), or None: the collection's decision, then identical content."""
    if info.decision == "own":
        value = _own_value(info, meth, query, payload, score)
        if value is not None and bool(own_accepts(meth, np.array([value]), info.threshold)[0]):
            return "own"
    else:
        value = ov.resemblance
        if info.measure == "containment":
            value = max(ov.containment_ab, ov.containment_ba)
        if value >= info.threshold:
            return "verified"
    return "identical" if ov.size_a and ov.shared == ov.size_a == ov.size_b else None


def _own_value(
    info: CollectionInfo,
    meth: Method,
    query: Signature,
    payload: bytes | Signature | None,
    score: float | None,
) -> float | None:
    """The method's own score; for containment (the mod-m sample, formula 2) the larger
    containment of the stored sample and the query's."""
    if info.measure != "containment" or payload is None:
        return score
    try:
        stored = payload if isinstance(payload, Signature) else Signature.from_bytes(bytes(payload))
    except (NeardupError, ValueError):
        return None
    ov = overlap(query.payload, stored.payload)
    return max(ov.containment_ab, ov.containment_ba)


def _score(meth: Method, query: Signature, payload: bytes | Signature | None) -> float | None:
    if payload is None:
        return None
    try:
        stored = payload if isinstance(payload, Signature) else Signature.from_bytes(bytes(payload))
        return round(float(meth.compare(query, stored)), 6)
    except (IncompatibleSignatureError, NeardupError, ValueError):
        return None


def _signatures_from_sets(
    meth: Method, query: np.ndarray, stored: list[np.ndarray]
) -> list[Signature] | None:
    """Signatures of the query's set and of each stored set, made alike from their stored
    form (:mod:`~neardup.store.codec`); ``None`` for a method that does not sign from sets."""
    try:
        sets = ShingleSets.from_arrays([a.astype(np.uint64) for a in (query, *stored)])
        sigs = meth.from_sets(sets)
        return [meth.signature(sigs, i) for i in range(len(stored) + 1)]
    except (AttributeError, IncompatibleSignatureError, NeardupError, ValueError):
        return None


def _scores_from_sets(meth: Method, query: np.ndarray, stored: list[np.ndarray]) -> list[Any]:
    """The method's score of the query against each stored set, all signed from their
    stored form (:mod:`~neardup.store.codec`) in one batch: for documents that keep no
    signature row (methods signing from the shingle set). ``None`` where not comparable."""
    try:
        sets = ShingleSets.from_arrays([a.astype(np.uint64) for a in (query, *stored)])
        sigs = meth.from_sets(sets)
        first = meth.signature(sigs, 0)
        return [
            round(float(meth.compare(first, meth.signature(sigs, i))), 6)
            for i in range(1, len(stored) + 1)
        ]
    except (AttributeError, IncompatibleSignatureError, NeardupError, ValueError):
        return [None] * len(stored)


def _info(row: Any) -> CollectionInfo:
    m = row._mapping
    return CollectionInfo(
        int(m["id"]),
        m["name"],
        m["method"],
        json.loads(m["params"]),
        json.loads(m["canonical"]),
        m["measure"],
        float(m["threshold"]),
        int(m["min_tokens"]),
        bool(m["stats_dirty"]),
        _utc(m["created_at"]),
        m.get("decision") or "verified",
    )


def _marker(conn: Connection, collection_id: int) -> tuple[int, int]:
    row = conn.execute(
        text("SELECT COUNT(*), COALESCE(MAX(id), 0) FROM nd_documents WHERE collection_id = :c"),
        {"c": collection_id},
    ).one()
    return int(row[0]), int(row[1])


def _utc(value: datetime) -> datetime:
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def _dumps(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _chunks(items: Iterable[Any], size: int) -> Iterator[list[Any]]:
    it = iter(items)
    while chunk := list(islice(it, size)):
        yield chunk


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0][:300] if str(exc).strip() else type(exc).__name__
