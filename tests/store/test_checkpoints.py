"""A bulk add's WAL checkpoints run in a thread of their own (:mod:`neardup.store.checkpoints`)
and every writer connection gets its own setting back."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

from neardup.store import Store
from neardup.store.checkpoints import (
    WAL_BOUND_PAGES,
    Checkpoints,
    in_background,
    skip_commit_checkpoint,
    write,
)
from neardup.store.database import Database
from neardup.text.types import Document

ROWS = 300


def _in_the_file_itself(path: Path) -> int:
    """Rows of ``t`` in the database file, not counting what only the log holds."""
    con = sqlite3.connect(f"file:{path}?immutable=1", uri=True)
    try:
        return int(con.execute("SELECT COUNT(*) FROM t").fetchone()[0])
    finally:
        con.close()


def _insert(db: Database, background: Checkpoints | None) -> None:
    with write(db, background) as conn:
        pages = conn.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar()
        assert pages == (8192 if background is None else WAL_BOUND_PAGES)
        conn.exec_driver_sql(
            f"WITH RECURSIVE n(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM n WHERE v < {ROWS}) "
            "INSERT INTO t SELECT v FROM n"
        )


def _pooled_settings(engine: Engine) -> set[int]:
    """``wal_autocheckpoint`` of three connections of ``engine`` (the pooled one among
    them), read without a transaction."""
    raws = [engine.raw_connection() for _ in range(3)]
    try:
        return {
            int(r.driver_connection.execute("PRAGMA wal_autocheckpoint").fetchone()[0])  # type: ignore[union-attr]
            for r in raws
        }
    finally:
        for r in raws:
            r.close()


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    database = Database(f"sqlite:///{tmp_path / 'x.db'}")
    with database.write() as conn:
        conn.exec_driver_sql("CREATE TABLE t (v INTEGER)")
    raw = database.engines.read.raw_connection()
    raw.driver_connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # type: ignore[union-attr]
    raw.close()
    yield database
    database.close()


def test_the_thread_copies_the_commits_into_the_file(db: Database, tmp_path: Path) -> None:
    """A small commit stays in the log (under ``wal_autocheckpoint`` pages) unless the
    thread copies it: the file itself holds the rows only with the thread."""
    _insert(db, None)
    assert _in_the_file_itself(tmp_path / "x.db") == 0  # in the log only
    with in_background(db) as background:
        assert background.active
        _insert(db, background)  # the commit is reported to the thread
    assert background.error is None
    assert _in_the_file_itself(tmp_path / "x.db") == 2 * ROWS
    assert not any(t.name == "neardup-add-checkpoints" for t in threading.enumerate())


def test_writer_connections_get_their_setting_back(db: Database) -> None:
    with in_background(db) as background:
        _insert(db, background)
        _insert(db, background)
    assert _pooled_settings(db.engines.write) == {8192}  # WRITE_PRAGMAS
    _insert(db, None)  # a later transaction checks it holds 8192 inside


def test_in_memory_and_a_checkpoint_left_to_the_commit() -> None:
    """In memory there is no log: nothing runs, the commit keeps its setting."""
    database = Database("sqlite://")
    with in_background(database) as background:
        assert not background.active
        with database.write() as conn:
            skip_commit_checkpoint(conn, background)
            assert conn.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar() != WAL_BOUND_PAGES
    database.close()


def test_an_add_leaves_the_pool_as_it_found_it(tmp_path: Path) -> None:
    """After ``Store.add`` (background checkpoints, merges) the documents are all found and
    the write engine's connections checkpoint as before."""
    docs = [
        Document(f"d{i}", f"words of document number {i} " * 20 + " ".join(["x"] * i))
        for i in range(300)
    ]
    with Store(f"sqlite:///{tmp_path / 's.db'}") as store:
        store.create_collection("c", "minhash-lsh", threshold=0.5)
        report = store.add("c", docs, batch_size=64)
        assert report.added == 300
        assert store.check("c", docs[7].text).matches[0].doc_id == "d7"
        assert _pooled_settings(store._db.engines.write) == {8192}


@pytest.mark.parametrize(("docs", "threads"), [(3, 0), (70, 1)])
def test_only_a_bulk_add_starts_the_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, docs: int, threads: int
) -> None:
    """A batch of fewer than ``DIRECT_BELOW`` documents (one over the API) commits as
    before, with no thread to start and stop (its last checkpoint would sync the file)."""
    from neardup.store import checkpoints

    runs: list[int] = []
    monkeypatch.setattr(checkpoints.Checkpoints, "_run", lambda self: runs.append(1))
    texts = [Document(f"d{i}", f"a document of some words, number {i} " * 9) for i in range(docs)]
    with Store(f"sqlite:///{tmp_path / 's.db'}") as store:
        store.create_collection("c", "minhash-lsh", threshold=0.5)
        assert store.add("c", texts).added == docs
    assert len(runs) == threads
