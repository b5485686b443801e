"""Errors of the collection store (all :class:`~neardup.errors.NeardupError` subclasses).

The CLI maps them to exit codes like every ``NeardupError`` (``UsageError`` -> 2, the rest
-> 1); the REST service maps them to HTTP statuses (see :data:`HTTP_STATUS`).
"""

from __future__ import annotations

from neardup.errors import InputError, NeardupError, UsageError
from neardup.index.collection import DocumentNotFound
from neardup.index.methods import UnsupportedMethod

__all__ = [
    "CollectionExists",
    "CollectionNotFound",
    "DocumentNotFound",
    "StoreError",
    "TextNotStored",
    "UnsupportedMethod",
]


class StoreError(NeardupError):
    """The database cannot be opened, migrated or written (HTTP 503)."""


class CollectionNotFound(InputError):
    """No collection of that name (HTTP 404)."""

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"no collection named {name!r}")


class CollectionExists(UsageError):
    """A collection of that name exists already (HTTP 409)."""

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"a collection named {name!r} exists already")


class TextNotStored(DocumentNotFound):
    """The document is stored but its text is not: it was added before the store kept texts
    (migration 0003). A :class:`DocumentNotFound` (HTTP 404); ``remove`` and ``add`` the
    document again to keep its text.
    """

    def __init__(self, collection: str, doc_id: str) -> None:
        super().__init__(collection, doc_id)
        self.args = (
            f"document {doc_id!r} in collection {collection!r} has no stored text: it was "
            "added before the store kept texts (remove it and add it again to keep it)",
        )
