"""One collection API over every storage backend: :class:`Collection`.

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
one check, the collection core (:mod:`neardup.index.core`), over a storage each. The backends
differ only in where the documents, keys and sets live (keys shared by more than the
collection's ``max_df`` documents give no candidates on each).

Top-k (``check(text, k=10)``): the ``k`` decided matches with the highest decided score
(``evidence["score"]``: the exact measure under ``verified``, the method's own score under
``own``, 1 for identical documents), ties by id. Unlike datasketch's ``MinHashLSHForest``,
which ranks every candidate by estimated similarity with no threshold, only matches the
collection's rule accepts are ranked: the candidates come from keys tuned to the threshold
(LSH bands, exact keys), so below it they are an arbitrary sample, not the nearest
documents. Lower the threshold of the collection to rank nearer-but-lower documents.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace
from itertools import islice
from typing import Any, Protocol, runtime_checkable

from neardup.errors import InputError
from neardup.index.codec import bad_doc_id, scrub
from neardup.index.results import AddReport, CheckResult, DocumentInfo, SkippedDoc
from neardup.options import OPTIONS
from neardup.text.types import Document, Skipped
from neardup.text.units import UniqueIds

__all__ = ["Collection", "DocumentNotFound", "chunks", "screen"]


class DocumentNotFound(InputError):
    """No document with that id in the collection (HTTP 404)."""

    def __init__(self, collection: str, doc_id: str) -> None:
        self.collection = collection
        self.doc_id = doc_id
        super().__init__(f"no document {doc_id!r} in collection {collection!r}")


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
