"""Adding documents to a collection of a :class:`neardup.Store`: the collection core's add
(:func:`neardup.index.core.add`, batches prepared in a reader thread) over the database
storage (:mod:`neardup.store.storage`, one transaction a batch), pending index rows merged.

Re-adding the same input adds nothing; an interrupted add resumes where it stopped; two
processes adding to one collection lose nothing (:mod:`neardup.store.storage`).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterable

from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError

from neardup._collector import FEWER_COLLECTIONS, Shared
from neardup.errors import UsageError
from neardup.index import core
from neardup.index.results import AddReport, CollectionInfo
from neardup.methods.base import Method
from neardup.store import checkpoints
from neardup.store.bulk import merge_pending
from neardup.store.database import Database
from neardup.store.storage import DatabaseStorage
from neardup.text.types import Document, Skipped

#: ``add`` moves pending index rows into ``nd_index`` after at least this many (and at its
#: end); until then ``check`` finds them in the runs (:func:`neardup.store.runs.postings`).
MERGE_ROWS = 2_000_000
#: ... and, later in a long add, after this share of the rows it has merged so far
#: (:func:`merge_after`): a merge walks the whole ``nd_index`` B-tree (random keys touch
#: nearly every leaf page), so merging every :data:`MERGE_ROWS` would cost the square of
#: the add's size; a geometric schedule costs a constant times its size.
MERGE_SHARE = 0.5
#: ... but never more than this many pending rows: ``check`` reads every pending run, 0.15 s
#: at 8M rows and 0.29 s at 16M (2026-12-03; it scanned 8M rows in 0.92 s before the runs
#: of migration 0008). 8M, not 4M, since a document has 41 index rows (recall banding) and
#: a merge's walk of a large ``nd_index`` costs more than moving 4M rows (8M rows into 70M:
#: one merge 31-36 s of CPU, two of 4M 43-52 s; load 5-10, 2026-12-02); 16M with a share
#: of 1.0 (6 merges, not 9) added a million documents in 117.7 s against 118.5 s: not
#: worth the slower checks (2026-12-03, load 1.4).
MERGE_MAX_ROWS = 8_000_000
#: Documents the reader thread may have prepared ahead of the writer (at least 2 batches):
#: a merge holds the writer for seconds (8M index rows into 28M: 8-10 s), and a reader
#: that fills the queue early stalls for the rest of it, while deep enough it keeps
#: reading, preparing and signing and the writer catches up after the merge. A waiting
#: batch holds only its stored form (:class:`neardup.store.bulk.Batch`, 3.2 KB a document;
#: 7.8 KB with the text, sets and keys it was made from), so 128,000 documents ahead hold
#: what 48,000 did. A million documents, batches of 2,000, one run each (2026-12-04, load
#: 1.2-1.8): 48,000 ahead of the full batches 100.4 s, peak RSS 1,012 MiB; of the lean ones
#: 89.7 s, 815 MiB; 128,000 lean 80.0 s, 1,010 MiB; 192,000 lean 77.7 s, 1,179 MiB. (2 batches
#: ahead against 48,000: 181.1 / 132.7 s against 197.0 / 199.5 s, 2026-12-02.)
AHEAD_DOCUMENTS = 128_000
#: The interpreter's switch interval (:func:`sys.setswitchinterval`, 5 ms by default) while
#: an add runs, in seconds: the writer gives the GIL up in every SQLite statement (a batch of
#: 2,000 documents runs about 45) and waited up to the interval to take it back from the
#: busy reader thread. A million documents: 131.4 / 135.2 s instead of 151.8 / 159.1 s (two
#: pairs, 2026-12-02, load 2-4.5). Restored when the last add running in the process ends.
ADD_SWITCH_S = 0.0005


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
    arguments; the caller recomputes statistics). While the batches are written, the
    process's switch interval is at most :data:`ADD_SWITCH_S` and the garbage collector's
    first threshold at least :data:`neardup._collector.YOUNG_THRESHOLD`, and a thread of
    its own runs the WAL checkpoints of a SQLite file
    (:func:`neardup.store.checkpoints.in_background`).

    Raises:
        StoreError: the database failed (batches committed before stay committed).
    """
    storage = DatabaseStorage(db, info, meth)
    merged = 0

    def written(part: AddReport) -> None:
        nonlocal merged
        if on_batch is not None:
            on_batch(part)
        if storage.unmerged >= merge_after(merged):
            merge(db, info.id, storage.checkpoints)
            merged, storage.unmerged = merged + storage.unmerged, 0

    with (
        SHORT_SWITCH.applied(),
        FEWER_COLLECTIONS.applied(),
        checkpoints.in_background(db) as storage.checkpoints,
    ):
        report = core.add(
            storage,
            meth,
            items,
            min_tokens=info.min_tokens,
            batch_size=batch_size,
            on_batch=written,
            ahead=ahead_batches(batch_size),
        )
        if storage.unmerged or _has_pending(db, info.id):  # this add's, or an interrupted one's
            merge(db, info.id, storage.checkpoints)
    return report


def merge_after(merged: int) -> int:
    """Pending index rows after which ``add`` merges, once it has merged ``merged`` rows:
    ``MERGE_SHARE * merged`` clipped to ``[MERGE_ROWS, MERGE_MAX_ROWS]``. At a million
    documents (41M index rows, batches of 82,000) that is 9 merges instead of 20, and their
    walks of ``nd_index`` (the rows already there at each merge) sum to 122M rows, not 390M
    (with at most 4M pending rows: 12 merges, 199M).
    """
    return int(min(max(MERGE_ROWS, MERGE_SHARE * merged), MERGE_MAX_ROWS))


def ahead_batches(batch_size: int) -> int:
    """Batches of ``batch_size`` documents the reader may prepare ahead of the writer:
    :data:`AHEAD_DOCUMENTS` of them, at least 2 (e.g. 64 batches of 2,000)."""
    return max(2, AHEAD_DOCUMENTS // max(1, batch_size))


def shorten_switch_interval() -> Callable[[], None]:
    """Set the switch interval to :data:`ADD_SWITCH_S` when it is longer; returns what
    restores the one found."""
    found = sys.getswitchinterval()
    if found <= ADD_SWITCH_S:
        return lambda: None
    sys.setswitchinterval(ADD_SWITCH_S)
    return lambda: sys.setswitchinterval(found)


#: The switch interval at most :data:`ADD_SWITCH_S` while adds run (adds of several
#: threads share it; the last to end restores the interval the first found).
SHORT_SWITCH = Shared(shorten_switch_interval)


def recompute_after_add(recompute: Callable[[str], object], name: str) -> None:
    """Recompute after an add whose batches are committed; a method that cannot fit yet
    (I-Match needs >= 2 documents) leaves the collection ``stats_dirty`` instead of
    failing an add that did store its documents."""
    with contextlib.suppress(UsageError):
        recompute(name)


def merge(
    db: Database, collection_id: int, background: checkpoints.Checkpoints | None = None
) -> None:
    """Move the collection's pending index rows into ``nd_index`` (one transaction; its
    commit's WAL checkpoint left to ``background`` when given).

    PostgreSQL: then ``VACUUM`` the pending table (its deleted rows would otherwise be
    read by every check's scan of it until autovacuum runs) and ``ANALYZE`` the index
    table; best effort, outside any transaction, no lock that blocks readers or writers.
    """
    with checkpoints.write(db, background) as conn:
        merge_pending(conn, collection_id)
    if db.dialect != "postgresql":
        return
    with (
        contextlib.suppress(SQLAlchemyError),
        db.engines.write.connect() as raw,
    ):
        auto = raw.execution_options(isolation_level="AUTOCOMMIT")
        auto.exec_driver_sql("VACUUM (ANALYZE) nd_index_runs")
        auto.exec_driver_sql("ANALYZE nd_index")


def _has_pending(db: Database, collection_id: int) -> bool:
    with db.read() as conn:
        return (
            conn.execute(
                text("SELECT 1 FROM nd_index_runs WHERE collection_id = :c LIMIT 1"),
                {"c": collection_id},
            ).first()
            is not None
        )
