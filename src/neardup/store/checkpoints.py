"""WAL checkpoints of a bulk add in a thread of their own (SQLite files only).

A SQLite writer in WAL mode copies the log back into the database file itself when a
commit takes the log past ``wal_autocheckpoint`` pages (:data:`neardup.store.engine.
WRITE_PRAGMAS`): the copy runs in the committing thread, and an add's writer thread is its
critical path (the reader thread prepares the next batches on the other core). While
:func:`in_background` is open, a thread with its own connection runs ``PRAGMA
wal_checkpoint(PASSIVE)`` after the add's commits (it waits for no reader or writer and
copies what they no longer need; ``sqlite3`` lets the GIL go meanwhile), and the add's
transactions leave their commit's checkpoint until the log is :data:`WAL_BOUND_PAGES` long
(:func:`write`; the connection's own setting comes back when it returns to the pool). An
add of 300,000 documents spent 7 % of its writer thread's samples in checkpoints (py-spy,
2026-12-03); with the thread, 25.3 and 26.0 s against 28.6 and 28.0 s.

A process killed meanwhile loses nothing: the log holds every committed page until it is
copied, and the next connection to open the file reads it (SQLite's WAL recovery).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any

from sqlalchemy import Connection

from neardup.store.database import Database
from neardup.store.engine import RESTORE_AUTOCHECKPOINT

#: Seconds between the thread's looks at whether a commit came since its last checkpoint.
PERIOD_S = 0.1
#: The add's commits still checkpoint once the log holds this many pages (128 MiB of 8 KiB
#: pages): by then the thread has copied nearly all of it, and a checkpoint that completes
#: lets the next transaction write the log from its start again. With none (0) the thread,
#: always a little behind, never completed one as a transaction began, and the log grew
#: to 819 MiB in an add of 200,000 documents (221 MiB with the commits' own checkpoints).
WAL_BOUND_PAGES = 16384


class Checkpoints:
    """The checkpoint thread of one :class:`Database` (:func:`in_background` runs it).

    Attributes:
        active: whether checkpoints run in the thread (``False``: SQLite in memory or
            PostgreSQL, where the commit's own behaviour is kept).
        error: what stopped the thread early, or ``None``; the add goes on, its commits
            checkpointing once the log holds :data:`WAL_BOUND_PAGES`.
    """

    def __init__(self, db: Database, *, active: bool) -> None:
        self.db, self.active = db, active
        self._committed = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.error: BaseException | None = None

    def committed(self) -> None:
        """Called after each bulk commit of the add (by its writer thread): the thread,
        started at the first, checkpoints at its next look."""
        self._committed.set()
        if self.active and self._thread is None:
            self._thread = threading.Thread(
                target=self._run, name="neardup-add-checkpoints", daemon=True
            )
            self._thread.start()

    def stop(self) -> None:
        """Stop the thread after one last checkpoint of what the add committed."""
        if self._thread is None:
            return
        self._stop.set()
        self._thread.join()
        self._thread = None

    def _run(self) -> None:
        try:
            raw = self.db.engines.read.raw_connection()
        except Exception as exc:  # the commits checkpoint at WAL_BOUND_PAGES instead
            self.error = exc
            return
        try:
            cur = raw.driver_connection.cursor()  # type: ignore[union-attr]
            while not self._stop.is_set():
                self._stop.wait(PERIOD_S)
                if self._committed.is_set() or self._stop.is_set():
                    self._committed.clear()
                    cur.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
            cur.close()
        except Exception as exc:  # the commits checkpoint at WAL_BOUND_PAGES instead
            self.error = exc
        finally:
            raw.close()


@contextlib.contextmanager
def in_background(db: Database) -> Iterator[Checkpoints]:
    """The add's checkpoints in a thread while the block runs (a SQLite file), from its first
    bulk commit (an add of a few documents, e.g. one over the API, starts none and keeps
    its commits as they were), stopped after one last checkpoint when it ends, however it
    ends."""
    file_db = db.dialect == "sqlite" and db.engines.write is not db.engines.read
    work = Checkpoints(db, active=file_db)
    try:
        yield work
    finally:
        work.stop()


@contextlib.contextmanager
def write(db: Database, background: Checkpoints | None) -> Iterator[Connection]:
    """A write transaction of the add (:meth:`Database.write`) whose commit leaves its
    checkpoint to ``background`` (:func:`skip_commit_checkpoint`), which hears of the commit
    once it is made; ``None``: a plain write transaction.

    Raises:
        StoreError: as :meth:`Database.write` (nothing is then reported committed).
    """
    with db.write() as conn:
        skip_commit_checkpoint(conn, background)
        yield conn
    if background is not None:
        background.committed()


def skip_commit_checkpoint(conn: Connection, checkpoints: Checkpoints | None) -> None:
    """Leave this transaction's commit checkpoint to ``checkpoints`` unless the log holds
    :data:`WAL_BOUND_PAGES` (the connection's ``wal_autocheckpoint`` comes back when it
    returns to the pool); nothing when ``checkpoints`` is ``None`` or not active."""
    if checkpoints is None or not checkpoints.active:
        return
    fairy = conn.connection
    if RESTORE_AUTOCHECKPOINT not in fairy.info:
        raw: Any = fairy.driver_connection
        pages = raw.execute("PRAGMA wal_autocheckpoint").fetchone()[0]
        fairy.info[RESTORE_AUTOCHECKPOINT] = pages
        raw.execute(f"PRAGMA wal_autocheckpoint = {WAL_BOUND_PAGES}")
