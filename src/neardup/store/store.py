"""The collection store: collections of documents kept with their signatures in a database.

One :class:`Store` per database URL (see :mod:`neardup.store.engine`). Thread-safe: every
call takes its own pooled connection. Each ``add`` batch is one transaction, and a
document is inserted with ``INSERT ... ON CONFLICT DO NOTHING RETURNING``: only documents
this transaction really inserted get signature, shingle, index and statistics rows. Re-adding
the same input adds nothing; an interrupted add resumes where it stopped; two processes
adding to one collection lose nothing.

Each document's text is kept too (``nd_texts``, zlib-compressed, written in the document's
transaction, deleted with it) and read back by :meth:`Store.document_text`.

:class:`Store` is a facade; the work is done by one module per concern:
:mod:`~neardup.store.database` (transactions, errors; shared with the crawler),
:mod:`~neardup.store.catalog`, :mod:`~neardup.store.adding` (``add``) and
:mod:`~neardup.store.checking` (the collection core's add and check,
:mod:`neardup.index.core`, over the database storage :mod:`~neardup.store.storage`),
:mod:`~neardup.store.documents` (read, remove),
:mod:`~neardup.index.codec` (stored texts and sets) and :mod:`~neardup.store.cache`.
:class:`StoreCollection` is one collection of a :class:`Store` bound to its name: the SQLite
and PostgreSQL backends of the collection API (:class:`neardup.index.core.Collection`),
beside the memory backend :class:`neardup.Index`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from neardup.errors import check_int
from neardup.index.codec import TEXT_FORMAT, content_hash, decode_text, encode_text, scrub
from neardup.index.results import (
    AddReport,
    CheckResult,
    CollectionInfo,
    DocumentInfo,
    DocumentPage,
)
from neardup.methods.base import Method
from neardup.methods.plan import needs_fit, plan_for
from neardup.options import OPTIONS, check_options
from neardup.store import adding, catalog, checking, documents
from neardup.store.cache import MethodCache
from neardup.store.catalog import collection_info
from neardup.store.database import Database, Tx
from neardup.store.engine import Engines, resolve_url
from neardup.store.lexicon import empty_lexicon_warning, query_lexicon_warning
from neardup.store.recompute import RecomputeReport
from neardup.text.types import Document, Skipped

if TYPE_CHECKING:
    from neardup.store.maintenance import VacuumReport


__all__ = [
    "TEXT_FORMAT",
    "Store",
    "StoreCollection",
    "content_hash",
    "decode_text",
    "encode_text",
    "scrub",
]


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
        self._db = Database(self.url)
        self._cache = MethodCache()

    @property
    def dialect(self) -> str:
        """``sqlite`` or ``postgresql``."""
        return self._db.dialect

    def close(self) -> None:
        """Release the database connections."""
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- collections ------------------------------------------------------------------------
    def create_collection(
        self,
        name: str,
        method: str = OPTIONS["collection_method"].default,
        params: dict[str, Any] | None = None,
        *,
        threshold: float = OPTIONS["threshold"].default,
        measure: str = OPTIONS["measure"].default,
        min_tokens: int = OPTIONS["min_tokens"].default,
        decision: str | None = OPTIONS["decision"].default,
        max_df: int = OPTIONS["max_df"].default,
    ) -> CollectionInfo:
        """Create a collection; its method and parameters are fixed from now on.

        Args:
            name: unique name, 1-200 characters, no control characters.
            method: registry name (default TF-RIDF, Romanov 2019:
                :data:`~neardup.options.OPTIONS` ``collection_method``).
            params: the method's parameters (``canonical`` may be a ``CanonicalForm``).
            threshold: decision threshold in (0, 1]; also the method's own threshold (LSH
                tuning) unless ``params`` sets one.
            measure: ``resemblance`` or ``containment`` (max of both directions).
            min_tokens: documents with fewer canonical tokens are skipped, 1 to 1,000,000.
            decision: ``own`` (the method's own rule decides a check), ``verified`` (the
                exact shingle sets) or None (the method's default,
                :mod:`neardup.methods.decision`).
            max_df: index keys shared by more documents than this give a check no
                candidates (>= 2), as :class:`neardup.Index` passes them over.

        Raises:
            ParameterError / UnsupportedMethod: bad name, method, parameters or options
                (``measure`` the method's own rule cannot decide on included; the options
                as :data:`neardup.options.OPTIONS` declares them).
            CollectionExists: the name is taken.
        """
        catalog.create(
            self._db,
            name,
            method,
            params,
            threshold=threshold,
            measure=measure,
            min_tokens=min_tokens,
            decision=decision,
            max_df=max_df,
        )
        return self.collection(name)

    def collection(self, name: str) -> CollectionInfo:
        """The collection ``name``.

        Raises:
            CollectionNotFound: no such collection.
        """
        with self._read() as conn:
            return collection_info(conn, name)

    def open_collection(self, name: str) -> StoreCollection:
        """Collection ``name`` as a :class:`~neardup.index.core.Collection` (the
        API the memory :class:`neardup.Index` shares): ``add``, ``check``, ``remove``,
        ``get``, ``len`` without the name.

        Raises:
            CollectionNotFound: no such collection.
        """
        self.collection(name)
        return StoreCollection(self, name)

    def collections(self) -> list[CollectionInfo]:
        """All collections, by name."""
        return catalog.all_collections(self._db)

    def stats(self, name: str, *, sizes: bool = False) -> dict[str, Any]:
        """Counts of a collection: documents, tokens, index rows, terms, last addition.

        Args:
            name: the collection.
            sizes: also ``storage``: rows and bytes on disk per table and per document
                (:func:`neardup.store.sizes.table_bytes`; SQLite reads every page).

        Raises:
            CollectionNotFound: no such collection.
        """
        return catalog.collection_stats(self._db, name, sizes=sizes)

    def delete_collection(self, name: str) -> None:
        """Delete a collection with all its documents and rows.

        Raises:
            CollectionNotFound: no such collection.
        """
        self._cache.forget(catalog.delete_collection(self._db, name))

    # -- documents --------------------------------------------------------------------------
    def add(
        self,
        name: str,
        items: Iterable[Document | Skipped],
        *,
        batch_size: int = OPTIONS["batch_size"].default,
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
            :class:`AddReport` (documents added by this call, skipped ones with reasons;
            ``warnings``: a lexical collection left without index keys, an empty lexicon).

        Raises:
            CollectionNotFound: no such collection.
            StoreError: the database failed (batches committed before stay committed).
        """
        check_options(batch_size=batch_size)
        info = self.collection(name)
        meth = self._method(info)
        report = adding.add(self._db, info, meth, items, batch_size=batch_size, on_batch=on_batch)
        lexical = plan_for(meth, info).needs_fit
        if lexical and recompute_stats and (report.added or self._dirty(name)):
            adding.recompute_after_add(self.recompute, name)  # also an add killed before it
            warning = empty_lexicon_warning(self._db, info)
            if warning:
                report = dataclasses.replace(report, warnings=(*report.warnings, warning))
        return report

    def _dirty(self, name: str) -> bool:
        return self.collection(name).stats_dirty

    def document(self, name: str, doc_id: str) -> DocumentInfo:
        """Metadata of one stored document.

        Raises:
            CollectionNotFound, DocumentNotFound: no such collection or document.
        """
        return documents.document(self._db, name, doc_id)

    def documents(self, name: str, *, offset: int = 0, limit: int = 50) -> DocumentPage:
        """A page of a collection's documents (id, title, source, tokens, added time), in
        the order they were added.

        Args:
            name: the collection.
            offset: documents to skip, >= 0.
            limit: most documents returned, 1..1000.

        Raises:
            ParameterError: ``offset`` or ``limit`` out of range.
            CollectionNotFound: no such collection.
        """
        check_int("offset", offset, low=0, high=2**62)
        check_int("limit", limit, low=1, high=1000)
        return documents.document_page(self._db, name, offset=offset, limit=limit)

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
        return documents.document_text(self._db, name, doc_id)

    def remove(self, name: str, doc_id: str) -> None:
        """Remove one document (and its rows; statistics are decremented set-wise).

        Raises:
            CollectionNotFound, DocumentNotFound: no such collection or document.
        """
        documents.remove(self._db, self._cache, name, doc_id)

    def vacuum(self) -> VacuumReport:
        """Reclaim the space of removed rows (``VACUUM``; see :mod:`neardup.store.maintenance`):
        run it after removing many documents. Covers every collection (they share tables).

        Raises:
            StoreError: the database refused or is unreachable.
        """
        from neardup.store.maintenance import vacuum

        return vacuum(self._db.engines)

    # -- statistics -------------------------------------------------------------------------
    def recompute(self, name: str) -> RecomputeReport | None:
        """Recompute word statistics and lexical signatures set-wise (seed 004).

        Returns:
            The :class:`RecomputeReport`, or ``None`` for a method without statistics.

        Raises:
            CollectionNotFound: no such collection.
        """
        info, report = catalog.recompute_collection(self._db, name, self._method)
        if report is not None:
            self._cache.drop_fitted(info.id)
        return report

    # -- check ------------------------------------------------------------------------------
    def check(
        self, name: str, text_: str, *, limit: int = OPTIONS["limit"].default, k: int | None = None
    ) -> CheckResult:
        """Which stored documents does ``text_`` duplicate?

        Candidates come from the index (keys looked up in SQL, at most
        :data:`~neardup.store.lookup.MAX_CANDIDATES`, most shared keys first, one statement
        with their stored rows); each is verified on the exact shingle sets: a match has
        ``resemblance >= threshold`` (measure ``resemblance``) or
        ``max(containment both ways) >= threshold`` (``containment``) when the collection's
        decision is ``verified``; under ``own`` the method's own rule on the stored signature
        decides (equal TF-RIDF signature, one shared mega-shingle, ...). An identical
        document (resemblance 1) always matches. The decision is
        :func:`neardup.job.decide.decide`, the dedup job's. Each match's ``evidence["decision"]``
        says which rule accepted it (``own``, ``verified`` or ``identical``),
        ``evidence["rule"]`` names it with its bar and ``evidence["score"]`` is the value it
        decided on (the exact measure, the method's own score, or 1 for identical). A lexical
        collection whose documents have no index key (an empty lexicon) adds a warning to a
        check that found nothing (``CheckResult.warnings``; :mod:`neardup.store.lexicon`).

        Args:
            name: the collection.
            text_: clean text of the document.
            limit: at most this many matches, 1-1,000, best first: by resemblance, then
                the larger containment, then id.
            k: top-k instead of ``limit``: the ``k`` matches with the highest decided score
                (``evidence["score"]``), ties by id, 1-1,000. Only decided matches are
                ranked (the threshold still applies; see :mod:`neardup.index.core`).

        Raises:
            ParameterError: ``limit`` or ``k`` is not an int in range.
            CollectionNotFound: no such collection.
            InputError: the text has fewer canonical tokens than the collection's
                ``min_tokens``.
        """
        result = checking.check(
            self._db, self._cache, name, text_, limit=limit, recompute=self.recompute, k=k
        )
        # from the method's class: plan_for(name) would build the method every check
        if not result.duplicate and needs_fit(result.method):
            info = self.collection(name)
            warning = empty_lexicon_warning(self._db, info)
            if not warning:  # the collection has keys: has the text a lexicon word?
                meth = checking.query_method(self._db, self._cache, info, self.recompute)
                warning = query_lexicon_warning(meth, text_)
            if warning:
                result = dataclasses.replace(result, warnings=(*result.warnings, warning))
        return result

    def check_reads_only(self, name: str) -> bool:
        """Whether a check of ``name`` only reads, as far as the store's last check of it
        saw: its method keeps no word statistics, so no check of it recomputes (writes).
        ``False`` until a check of the collection ran in this store; no database access.
        A server may run such checks of short texts on its event loop
        (:mod:`neardup.service.api`)."""
        return self._cache.reads_only(name)

    # -- internals (the tests reach the database through these) -----------------------------
    @property
    def _engines(self) -> Engines:
        return self._db.engines

    def _method(self, info: CollectionInfo) -> Method:
        return self._cache.method(info)

    def _write(self) -> Tx:
        return self._db.write()

    def _read(self) -> Tx:
        return self._db.read()


class StoreCollection:
    """Collection ``name`` of ``store``: ``add`` / ``check`` / ``remove`` / ``get`` /
    ``len`` without the name (:meth:`neardup.Store.open_collection` makes one).

    Every call is the :class:`~neardup.store.Store` method of the same name on this
    collection, with its arguments, results and errors (``CollectionNotFound`` once the
    collection is deleted).
    """

    def __init__(self, store: Store, name: str) -> None:
        self.store = store
        self.name = name

    def __repr__(self) -> str:
        return f"StoreCollection({self.store.url!r}, {self.name!r})"

    @property
    def info(self) -> CollectionInfo:
        """The collection's configuration (:meth:`Store.collection`)."""
        return self.store.collection(self.name)

    def add(
        self,
        items: Iterable[Document | Skipped],
        *,
        batch_size: int = OPTIONS["batch_size"].default,
        on_batch: Callable[[AddReport], None] | None = None,
        **options: Any,
    ) -> AddReport:
        """:meth:`Store.add` to this collection."""
        return self.store.add(self.name, items, batch_size=batch_size, on_batch=on_batch, **options)

    def check(
        self, text_: str, *, limit: int = OPTIONS["limit"].default, k: int | None = None
    ) -> CheckResult:
        """:meth:`Store.check` against this collection."""
        return self.store.check(self.name, text_, limit=limit, k=k)

    def remove(self, doc_id: str) -> None:
        """:meth:`Store.remove` from this collection."""
        self.store.remove(self.name, doc_id)

    def get(self, doc_id: str) -> DocumentInfo:
        """:meth:`Store.document` of this collection."""
        return self.store.document(self.name, doc_id)

    def __len__(self) -> int:
        return self.store.documents(self.name, limit=1).total
