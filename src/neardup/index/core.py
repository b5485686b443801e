"""The collection API over every storage backend (:class:`Collection`) and the collection core
under it: one add path and one check over a storage backend (:class:`Storage`).

A collection holds documents under one method, measure, threshold and decision, and answers
which stored documents a new text duplicates (Zagorulko et al. 2013: keep the signatures of
a collection, check each new document against them). Its backends:

* memory: :class:`neardup.Index` (:mod:`neardup.index.memory`);
* SQLite and PostgreSQL: a collection of a :class:`neardup.Store`, bound by
  :meth:`neardup.Store.open_collection` (:mod:`neardup.store`; Romanov 2019 builds the
  service around a PostgreSQL database).

They share one vocabulary and one set of values: ``add`` takes documents (and text-stage
skips) and returns an :class:`~neardup.index.results.AddReport` whose skipped documents are
:class:`~neardup.index.results.SkippedDoc` values; ``check`` returns a
:class:`~neardup.index.results.CheckResult` of :class:`~neardup.index.results.Match` values;
``remove``, ``get`` and ``len``. Every method with index keys, both measures, both decision
modes (``own``, ``verified``) and identical-document handling work on each: one add path and
one check, the collection core below, over a storage each. The backends
differ only in where the documents, keys and sets live (keys shared by more than the
collection's ``max_df`` documents give no candidates on each).

Top-k (``check(text, k=10)``): the ``k`` decided matches with the highest decided score
(``evidence["score"]``: the exact measure under ``verified``, the method's own score under
``own``, 1 for identical documents), ties by id. Unlike datasketch's ``MinHashLSHForest``,
which ranks every candidate by estimated similarity with no threshold, only matches the
collection's rule accepts are ranked: the candidates come from keys tuned to the threshold
(LSH bands, exact keys), so below it they are an arbitrary sample, not the nearest
documents. Lower the threshold of the collection to rank nearer-but-lower documents.

The core: as datasketch's LSH over its ``Storage`` classes, the core does the work and the
backend keeps the rows. The core screens each batch (ids, text-stage skips; :func:`screen`), asks
the storage which ids it holds already (``exists`` / ``changed``), prepares the rest (the
prepare stage, :func:`neardup.job.prepare.shingle_texts`: canonical tokens, full shingle
sets), leaves out the ``too-short`` ones, signs and keys them (:func:`prepare`: the
method's index keys and each document's content key,
:func:`neardup.index.methods.collection_keys`; the signatures a check decides on,
:attr:`~neardup.methods.plan.MethodPlan.keeps_signature`), and hands the batch to the storage to
write. A check makes the text a :class:`~neardup.index.verify.Query`, asks the storage for
the documents sharing its keys (:class:`~neardup.index.verify.Candidate`), decides them
(:func:`~neardup.index.verify.verify`, :func:`neardup.job.decide.decide`) and ranks them
(:func:`~neardup.index.verify.select`).

A :class:`Storage` stores and fetches: the content hashes of ids, a signed batch (documents,
shingle sets, index keys, signatures), the candidates of a set of keys. Its backends: memory
(:mod:`neardup.index.memory`), SQLite and PostgreSQL (:mod:`neardup.store.storage`).
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from itertools import islice
from typing import Any, Protocol, runtime_checkable

import numpy as np

from neardup.errors import ParameterError
from neardup.index.codec import bad_doc_id, content_hash, scrub
from neardup.index.methods import KeyRows, collection_keys
from neardup.index.results import (
    AddReport,
    CheckResult,
    CollectionInfo,
    DocumentInfo,
    SkippedDoc,
)
from neardup.index.verify import Candidate, Query, select, verify
from neardup.job.decide import Decision
from neardup.methods.base import CorpusStats, Method, Prepared, Signature, Signatures, TermBags
from neardup.methods.keys import key_rows
from neardup.methods.plan import MethodPlan, PlanOptions, plan_for, too_short_detail
from neardup.methods.sets import ShingleSets
from neardup.options import OPTIONS
from neardup.text.types import Document, Skipped
from neardup.text.units import UniqueIds

__all__ = [
    "Collection",
    "Ready",
    "Signed",
    "Storage",
    "add",
    "check",
    "chunks",
    "prepare",
    "refit",
    "screen",
]


@runtime_checkable
class Collection(Protocol):
    """A collection of documents on one storage backend (see the module docstring)."""

    def add(self, items: Iterable[Document | Skipped]) -> AddReport:
        """Store documents; ids stored already are skipped (``exists``, or ``changed`` for
        other content), as are documents with too few canonical tokens (``too-short``) and
        the text-stage skips given."""
        ...

    def check(
        self, text_: str, *, limit: int = OPTIONS["limit"].default, k: int | None = None
    ) -> CheckResult:
        """The stored documents ``text_`` duplicates: at most ``limit`` best first, or the
        top ``k`` by decided score.

        Raises:
            InputError: the text has fewer canonical tokens than ``min_tokens``.
            ParameterError: ``limit`` or ``k`` out of range.
        """
        ...

    def remove(self, doc_id: str) -> None:
        """Remove a stored document.

        Raises:
            DocumentNotFound: no such document.
        """
        ...

    def get(self, doc_id: str) -> DocumentInfo:
        """A stored document's metadata.

        Raises:
            DocumentNotFound: no such document.
        """
        ...

    def __len__(self) -> int: ...


def screen(
    chunk: Iterable[Document | Skipped], seen: UniqueIds
) -> tuple[list[Document], list[SkippedDoc]]:
    """Documents of a chunk to consider, and the skipped ones (text-stage skips, unstorable
    ids). ``seen`` holds the ids of this ``add`` call: a record repeating an earlier
    record's id is stored under its place (``FILE:LINE``) instead, as the dedup job names it
    (:class:`neardup.text.units.UniqueIds`); the same input gives the same ids, so adding it
    again finds them stored (``exists``)."""
    skipped: list[SkippedDoc] = []
    docs: list[Document] = []
    for item in chunk:
        if isinstance(item, Skipped):
            seen.note(item.id)
            skipped.append(SkippedDoc(item.id, item.source, item.reason, item.detail))
            continue
        doc_id = seen.claim(item.id, item.source)
        if (why := bad_doc_id(doc_id)) is not None:
            skipped.append(SkippedDoc(scrub(doc_id), scrub(item.source), "unreadable", why))
        else:
            docs.append(item if doc_id == item.id else replace(item, id=doc_id))
    return docs, skipped


def chunks(items: Iterable[Any], size: int) -> Iterator[list[Any]]:
    """``items`` in lists of ``size`` (the last one shorter)."""
    it = iter(items)
    while chunk := list(islice(it, size)):
        yield chunk


#: Seconds an ``add`` that ends early waits for its reader thread to stop.
_JOIN_S = 30


@dataclass(frozen=True, slots=True)
class Ready:
    """One document prepared for storing: the document, its canonical token count and
    content hash, and (methods fitted on word statistics only) its canonical tokens."""

    doc: Document
    length: int
    content_hash: bytes
    tokens: list[str] | None = None


@dataclass(frozen=True, eq=False)
class Signed:
    """A batch signed and keyed, ready for a storage to write.

    Attributes:
        ready: the documents, in input order.
        sets: their full shingle sets (uint64 fingerprints; set ``j`` is ``ready[j]``'s).
        keys: their index rows (``row`` indexes ``ready``, in
            :func:`~neardup.index.methods.collection_keys` order), or ``None`` for methods
            whose keys come from word statistics (``needs_fit``).
        signatures: each document's signature when the method keeps one
            (:attr:`~neardup.methods.plan.MethodPlan.keeps_signature`), else ``None``.
    """

    ready: list[Ready]
    sets: ShingleSets
    keys: KeyRows | None
    signatures: list[Signature] | None = None


class Storage(Protocol):
    """Where a collection's documents, index keys and signatures live (the core's
    backend; see the module docstring)."""

    def stored_hashes(self, ids: list[str]) -> dict[str, bytes]:
        """``{id: content hash}`` of the ``ids`` stored already."""
        ...

    def encode(self, batch: Signed) -> Any:
        """The batch in the storage's form, all that :meth:`write` needs (run in the
        preparing thread under ``add(ahead=n)``: compression, sorting; what waits in the
        queue is this value alone)."""
        ...

    def write(self, encoded: Any) -> AddReport:
        """Store a batch (``encoded``: :meth:`encode`'s value of it); the report of what
        this write added (documents another writer stored meanwhile skipped as
        ``exists``)."""
        ...

    def candidates(self, keys: np.ndarray) -> list[Candidate]:
        """The stored documents sharing index keys with ``keys`` (int64, any order, repeats
        possible): most shared keys first, at most
        :data:`~neardup.index.verify.MAX_CANDIDATES`."""
        ...


# -- add ------------------------------------------------------------------------------------
def add(
    storage: Storage,
    meth: Method,
    items: Iterable[Document | Skipped],
    *,
    min_tokens: int,
    batch_size: int,
    on_batch: Callable[[AddReport], None] | None = None,
    ahead: int = 0,
) -> AddReport:
    """Add documents to ``storage`` under ``meth``, ``batch_size`` at a time, in input order.

    Args:
        storage: the backend; meth: the collection's method.
        items: documents (and text-stage skips, reported back).
        min_tokens: documents with fewer canonical tokens are skipped (``too-short``).
        batch_size: documents a batch; on_batch: called with each written batch's report.
        ahead: prepare up to this many batches in a reader thread while one is written
            (the database backends: the reader keeps working while the writer merges its
            index rows, :func:`neardup.store.adding.ahead_batches`); 0: no reader thread.

    Raises:
        ParameterError: ``ahead`` is not an int >= 0.

    Returns:
        The :class:`AddReport` of every batch.
    """
    if isinstance(ahead, bool) or not isinstance(ahead, int) or ahead < 0:
        raise ParameterError("ahead", ahead, "an int >= 0 (batches prepared ahead)")
    report = AddReport(0)
    batches = _prepared(storage, meth, items, min_tokens, batch_size)
    feed: _Feed | _Inline = _Feed(lambda: batches, ahead) if ahead else _Inline(batches)
    with feed:
        for encoded, skipped in feed:
            part = AddReport(0, tuple(skipped), 0)
            if encoded is not None:
                part = _with_skips(skipped, storage.write(encoded))
            report = report + part
            if on_batch is not None:
                on_batch(part)
    return report


def _with_skips(skipped: list[SkippedDoc], written: AddReport) -> AddReport:
    return replace(written, skipped=(*skipped, *written.skipped))


def _prepared(
    storage: Storage,
    meth: Method,
    items: Iterable[Document | Skipped],
    min_tokens: int,
    size: int,
) -> Iterator[tuple[Any, list[SkippedDoc]]]:
    """``(the storage's form of the signed batch, or None: nothing to write; skipped
    documents)`` of each chunk."""
    seen = UniqueIds()
    for chunk in chunks(items, size):
        docs, skipped = screen(chunk, seen)
        signed = _new_documents(storage, meth, docs, skipped, min_tokens)
        yield None if signed is None else storage.encode(signed), skipped


def _new_documents(
    storage: Storage,
    meth: Method,
    docs: list[Document],
    skipped: list[SkippedDoc],
    min_tokens: int,
) -> Signed | None:
    """The documents not stored yet and long enough, signed (``None``: none); the others
    appended to ``skipped`` (``exists``, ``changed``, ``too-short``)."""
    if not docs:
        return None
    stored = storage.stored_hashes([d.id for d in docs])
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
        return None
    signed, short = prepare(meth, todo, min_tokens)
    for doc, n in short:
        detail = too_short_detail(n, min_tokens)
        skipped.append(SkippedDoc(doc.id, doc.source, "too-short", detail))
    return signed if signed.ready else None


def prepare(
    meth: Method, todo: list[tuple[Document, bytes]], min_tokens: int
) -> tuple[Signed, list[tuple[Document, int]]]:
    """Prepare, sign and key documents not stored yet.

    Args:
        meth: the collection's method.
        todo: ``(document, content hash)`` of each document to add.
        min_tokens: documents with fewer canonical tokens are left out.

    Returns:
        ``(batch, too_short)``: the signed batch, and ``(document, token count)`` of each
        document shorter than ``min_tokens``.
    """
    from neardup.job.prepare import shingle_texts  # here: a check needs it not

    plan = plan_for(meth, PlanOptions(min_tokens=min_tokens))
    from_sets, at_add = plan.streams, plan.signs_at_add
    # MinHash-LSH: the sketches come from the prepare kernel's sign pass with the sets
    config = plan.prepare_config(rows=True)
    done = shingle_texts([d.text for d, _ in todo], config)
    lengths, sets = done.counts, done.sets
    keep = np.flatnonzero(lengths >= min_tokens)
    too_short = [(todo[i][0], int(lengths[i])) for i in np.flatnonzero(lengths < min_tokens)]
    tokens: Sequence[list[str] | None] = [None] * len(keep) if done.tokens is None else done.tokens
    ready = [
        Ready(todo[i][0], int(lengths[i]), todo[i][1], tokens[j])
        for j, i in enumerate(keep.tolist())
    ]
    sigs = None
    if from_sets:  # from_rows of the rows equals from_sets of the sets (the method's contract)
        sigs = meth.from_sets(sets) if done.rows is None else meth.from_rows(done.rows)
    elif at_add:  # from the text (SL+ST) or the canonical tokens (SpotSigs), as the job signs
        sigs = meth.sign([Prepared(r.doc.id, r.doc.text, r.tokens or []) for r in ready])
        ready = [replace(r, tokens=None) for r in ready]
    keys = None if sigs is None else collection_keys(meth, sigs, sets)
    signatures = None
    if sigs is not None and plan.keeps_signature:
        signatures = [meth.signature(sigs, i) for i in range(len(ready))]
    return Signed(ready, sets, keys, signatures), too_short


# -- refit ----------------------------------------------------------------------------------
#: Documents a refit signs at a time (bounds the signatures and key rows held).
REFIT_BATCH = 5000


def refit(
    meth: Method, stats: CorpusStats, bags: TermBags, *, batch: int = REFIT_BATCH
) -> Iterator[tuple[int, Signatures, KeyRows]]:
    """The refit of a collection whose method fits collection statistics (``needs_fit``:
    I-Match, TF-RIDF, anchor words), written once for every backend: ``meth`` is fitted on
    ``stats`` now (in place), then every document is signed from its term bag
    (``sign_counts``) and keyed (its index keys, as ``add`` keys the other methods),
    ``batch`` documents at a time, as the iterator is read. The backend reads the
    statistics and bags (the memory :class:`~neardup.Index` from its documents' tokens, a
    database from its term counts) and writes what it yields.

    Args:
        meth: the collection's method, built afresh; stats: the collection's statistics;
            bags: every document's term counts (position = the backend's document order).

    Yields:
        ``(lo, signatures, key rows)``: the signatures of documents ``lo .. lo +
        signatures.count - 1`` and their :class:`~neardup.methods.keys.KeyRows` (``row``
        numbered from 0 within the batch).
    """
    meth.fit(stats)
    return _signed_batches(meth, bags, batch)


def _signed_batches(
    meth: Method, bags: TermBags, batch: int
) -> Iterator[tuple[int, Signatures, KeyRows]]:
    for lo in range(0, bags.count, batch):
        sigs = meth.sign_counts(bags.slice(lo, min(lo + batch, bags.count)))
        yield lo, sigs, key_rows(meth.keys(sigs))


# -- check ----------------------------------------------------------------------------------
def check(
    storage: Storage,
    meth: Method,
    info: CollectionInfo,
    text_: str,
    *,
    limit: int,
    k: int | None,
    plan: MethodPlan | None = None,
) -> CheckResult:
    """Which documents of ``storage`` does ``text_`` duplicate? (the rules:
    :meth:`neardup.Store.check`).

    Args:
        storage: the backend; meth: the collection's method (fitted on the current word
            statistics when ``needs_fit``); info: the collection (name, method, measure,
            threshold, ``min_tokens``, decision).
        text_: the text; limit, k: checked by :func:`neardup.options.check_options`.
        plan: ``plan_for(meth, info)`` when the caller keeps it (the store's checks reuse
            their collection's); None: made here when needed.

    Raises:
        ParameterError: ``text_`` is not a string.
        InputError: it has fewer canonical tokens than ``info.min_tokens``.
    """
    if not isinstance(text_, str):
        raise ParameterError("text", type(text_).__name__, "a string")
    t0 = time.perf_counter()
    query = Query.of(meth, text_, min_tokens=info.min_tokens, plan=plan)
    found = storage.candidates(query.keys)
    decision = Decision(
        measure=info.measure,  # type: ignore[arg-type]  # validated when created
        threshold=info.threshold,
        mode=info.decision,  # type: ignore[arg-type]
    )
    verified = verify(meth, decision, query, found)
    return CheckResult(
        info.name,
        info.method,
        info.measure,
        info.threshold,
        query.tokens,
        len(found),
        select(verified, limit=limit, k=k),
        time.perf_counter() - t0,
    )


# -- the reader thread ----------------------------------------------------------------------
class _Inline:
    """The generator run by its consumer (``add(ahead=0)``), as :class:`_Feed` is used."""

    def __init__(self, items: Iterator[Any]) -> None:
        self._items = items

    def __enter__(self) -> _Inline:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def __iter__(self) -> Iterator[Any]:
        return self._items


class _Feed:
    """Runs a generator in a daemon thread, at most ``depth`` items ahead of the
    consumer (``with feed: for item in feed``). An exception in the generator is raised in
    the consumer; leaving the ``with`` block early stops the generator at its next item."""

    _DONE = object()

    def __init__(self, make: Callable[[], Iterator[Any]], depth: int) -> None:
        self._make = make
        self._queue: queue.Queue[Any] = queue.Queue(maxsize=depth)
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
