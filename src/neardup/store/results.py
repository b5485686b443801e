"""Values returned by collections: moved to :mod:`neardup.index.results` (one set of values
for every backend: memory, SQLite, PostgreSQL); re-exported here."""

from neardup.index.results import (
    MATCH_COLUMNS,
    AddReport,
    CheckResult,
    CollectionInfo,
    DocumentInfo,
    DocumentPage,
    Match,
    SkippedDoc,
)

__all__ = [
    "MATCH_COLUMNS",
    "AddReport",
    "CheckResult",
    "CollectionInfo",
    "DocumentInfo",
    "DocumentPage",
    "Match",
    "SkippedDoc",
]
