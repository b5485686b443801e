"""Collections in a database (SQLite or PostgreSQL): add documents, check new ones.

Zagorulko et al. 2013 keeps the signatures of a collection and checks each new document against
them;
Romanov 2019 builds the service around a PostgreSQL database. :class:`Store` is the entry point.
"""

from neardup.index.results import (
    AddReport,
    CheckResult,
    CollectionInfo,
    DocumentInfo,
    DocumentPage,
    Match,
)
from neardup.store.engine import default_url, resolve_url
from neardup.store.store import Store, StoreCollection

__all__ = [
    "AddReport",
    "CheckResult",
    "CollectionInfo",
    "DocumentInfo",
    "DocumentPage",
    "Match",
    "Store",
    "StoreCollection",
    "default_url",
    "resolve_url",
]
