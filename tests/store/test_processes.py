"""Crash safety and concurrency of ``neardup add`` (real processes, SQLite and PostgreSQL).

* kill -9 during an add of 10k documents, then the same add again: every document is
  stored exactly once, with exactly one row in each per-document table;
* two processes adding overlapping inputs to one collection at once lose nothing.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import text

from neardup.store import Store
from store._db import unique

pytestmark = pytest.mark.slow  # `make test-fast` leaves this module out

NEARDUP = [sys.executable, "-c", "from neardup.cli.main import run; run()"]
_VOCAB = [f"t{i}" for i in range(5000)]


def _corpus(path: Path, ids: range) -> Path:
    with path.open("w", encoding="utf-8") as f:
        for i in ids:
            words = [_VOCAB[(i * 31 + j * 7) % len(_VOCAB)] for j in range(40)]
            f.write(json.dumps({"id": f"doc{i}", "text": " ".join(words)}) + "\n")
    return path


def _add(url: str, name: str, corpus: Path, batch: int = 200) -> subprocess.Popen[bytes]:
    cmd = [*NEARDUP, "add", name, str(corpus), "--db", url, "-q", "--batch-size", str(batch)]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)


def _counts(store: Store, name: str) -> dict[str, int]:
    cid = store.collection(name).id
    q = {
        "documents": "SELECT COUNT(*) FROM nd_documents WHERE collection_id = :c",
        "distinct": "SELECT COUNT(DISTINCT doc_id) FROM nd_documents WHERE collection_id = :c",
        "shingles": "SELECT COUNT(*) FROM nd_shingles s JOIN nd_documents d "
        "ON d.id = s.document_id WHERE d.collection_id = :c",
        "signatures": "SELECT COUNT(*) FROM nd_signatures s JOIN nd_documents d "
        "ON d.id = s.document_id WHERE d.collection_id = :c",
        "index": "SELECT COUNT(*) FROM nd_index WHERE collection_id = :c",  # merged by add
        "index_docs": "SELECT COUNT(DISTINCT document_id) FROM nd_index WHERE collection_id = :c",
    }
    with store._read() as conn:
        return {k: int(conn.execute(text(v), {"c": cid}).scalar_one()) for k, v in q.items()}


def _wait_for(store: Store, name: str, at_least: int, proc: subprocess.Popen[bytes]) -> int:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        n = store.stats(name)["documents"]
        if n >= at_least or proc.poll() is not None:
            return n
        time.sleep(0.05)
    raise AssertionError("add made no progress")


def test_kill9_then_resume_stores_each_document_once(db_url: str, tmp_path: Path) -> None:
    corpus = _corpus(tmp_path / "c.jsonl", range(10_000))
    name = unique("kill")
    with Store(db_url) as store:
        info = store.create_collection(name, "minhash-lsh", threshold=0.5)
        bands = info.params["bands"] + 1  # a band key each, and the content-key row
        proc = _add(db_url, name, corpus)
        seen = _wait_for(store, name, 1000, proc)
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=30)  # reaps it and closes its pipes
        partial = _counts(store, name)
        assert proc.returncode == -signal.SIGKILL, "add finished before it could be killed"
        assert seen >= 1000 and partial["documents"] < 10_000
        assert partial["documents"] % 200 == 0  # only whole batches were committed
        again = _add(db_url, name, corpus)
        _, errs = again.communicate(timeout=120)
        assert again.returncode == 0, errs.decode()
        final = _counts(store, name)
    assert final == {
        "documents": 10_000,
        "distinct": 10_000,
        "shingles": 10_000,
        "signatures": 0,  # minhash-lsh signs from the stored set: no signature rows
        "index": 10_000 * bands,
        "index_docs": 10_000,
    }


def test_two_processes_adding_at_once_lose_nothing(db_url: str, tmp_path: Path) -> None:
    a = _corpus(tmp_path / "a.jsonl", range(0, 3000))
    b = _corpus(tmp_path / "b.jsonl", range(1500, 4500))
    name = unique("conc")
    with Store(db_url) as store:
        info = store.create_collection(name, "minhash-lsh", threshold=0.5)
        procs = [_add(db_url, name, a, batch=100), _add(db_url, name, b, batch=100)]
        for p in procs:
            _, errs = p.communicate(timeout=120)
            assert p.returncode == 0, errs.decode()
        final = _counts(store, name)
        bands = info.params["bands"] + 1  # a band key each, and the content-key row
        assert final == {
            "documents": 4500,
            "distinct": 4500,
            "shingles": 4500,
            "signatures": 0,
            "index": 4500 * bands,
            "index_docs": 4500,
        }
        assert store.check(name, json.loads(a.read_text().splitlines()[7])["text"]).duplicate
