"""A collection of a :class:`~neardup.store.Store` bound to its name: the SQLite and
PostgreSQL backends of the collection API (:class:`neardup.index.collection.Collection`),
beside the memory backend :class:`neardup.Index`."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from neardup.index.results import AddReport, CheckResult, CollectionInfo, DocumentInfo
from neardup.store.adding import DEFAULT_BATCH
from neardup.text.types import Document, Skipped

if TYPE_CHECKING:
    from neardup.store.store import Store


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
        batch_size: int = DEFAULT_BATCH,
        on_batch: Callable[[AddReport], None] | None = None,
        **options: Any,
    ) -> AddReport:
        """:meth:`Store.add` to this collection."""
        return self.store.add(self.name, items, batch_size=batch_size, on_batch=on_batch, **options)

    def check(self, text_: str, *, limit: int = 100, k: int | None = None) -> CheckResult:
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
