"""Kill harness: SIGKILL ``neardup add``/``dedup --out``/``crawl``/``serve`` at random points.

Each harness runs the real command as a subprocess, kills it (``SIGKILL``: no cleanup, no
``finally``) after a random, seeded delay, checks what the kill left behind, restarts it,
and so on; when a run completes, the result is compared with a clean run.

* ``add`` (:class:`AddHarness`): ``neardup add`` of a JSONL corpus into a collection. After
  each kill: no document twice, every stored document complete (shingles, text, and for
  methods without statistics its signature and index rows) and equal to its row in a clean
  rebuild, no orphan rows, word statistics equal to the per-document counts. After a run
  completes: the same document set as the clean rebuild (lost ones counted) and everything
  identical: per-document signature bytes, index rows, term statistics, collection stats.
* ``crawl`` (:class:`CrawlHarness`): ``neardup crawl`` of the fake library
  (``tests/fake_library.py``, served on 127.0.0.1 in a thread) into a collection; a clean
  crawl is the reference. After each kill: the ``add`` checks of the stored documents (none
  outside the article set), and every page the crawl queue has finished with a document
  has it stored (else lost). After a run completes: exactly the article set, each document
  once and identical to the reference, stage ``done``, no page left unfinished,
  ``documents_added`` right, and no article page finished before a kill fetched again.
* ``serve`` (:class:`ServeHarness`): ``neardup serve`` with a client thread adding the
  corpus in batches over HTTP, retrying a batch whose answer it did not get; the same
  checks, and every document whose batch was acknowledged must be stored (else lost).
* ``dedup`` (:class:`DedupHarness`): ``neardup dedup --out DIR``. After each kill: a
  ``summary.json`` claims a complete result, so then every output must equal the clean
  run's; without it, any output file present must still be whole (byte-equal to the clean
  run's: the job is deterministic). After a completed run: outputs equal, no temporaries.

``tests/kill_harness.py`` runs >= 100 kills; ``tests/crash`` a bounded number.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import xxhash
from sqlalchemy import create_engine, inspect, text

from shared_data import data_path

NEARDUP = str(Path(sys.executable).with_name("neardup"))
OUTPUTS = ("pairs.jsonl", "clusters.jsonl", "dropped.jsonl", "skipped.jsonl")


@dataclass
class Counts:
    """What the kills did: kills, runs completed, and the failures found."""

    process: str
    kills: int = 0
    completed: int = 0
    lost: int = 0
    doubled: int = 0
    inconsistent: int = 0
    problems: list[str] = field(default_factory=list)

    def flag(self, kind: str, detail: str, n: int = 1) -> None:
        """Count ``n`` failures of ``kind`` (``lost``, ``doubled``, ``inconsistent``)."""
        setattr(self, kind, getattr(self, kind) + n)
        print(f"{self.process}: {kind}: {detail}", file=sys.stderr, flush=True)
        if len(self.problems) < 50:
            self.problems.append(f"{kind}: {detail}")

    def ok(self) -> bool:
        return not (self.lost or self.doubled or self.inconsistent)


def write_corpus(path: Path, *, docs: int = 2000, max_chars: int | None = None) -> Path:
    """The first ``docs`` documents of the Linux-doc revisions set as JSONL (texts cut to
    ``max_chars`` when given); skipped (failed in CI) without ``../shared/data``."""
    corpus = data_path("linux-doc-revisions", "docs.jsonl")
    with corpus.open(encoding="utf-8") as src, path.open("w", encoding="utf-8") as out:
        for i, line in enumerate(src):
            if i >= docs:
                break
            row = json.loads(line)
            if max_chars is not None:
                row["text"] = row["text"][:max_chars]
            out.write(json.dumps({"id": row["id"], "text": row["text"]}, ensure_ascii=False) + "\n")
    return path


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


def kill(proc: subprocess.Popen[Any]) -> bool:
    """SIGKILL ``proc``; ``True`` when it was still running (a real kill)."""
    alive = proc.poll() is None
    if alive:
        proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)
    return alive


def kill_after(
    proc: subprocess.Popen[Any], wait_s: float, counts: Counts, budget: int, deadline: float
) -> bool:
    """Kill ``proc`` after ``wait_s`` seconds while ``counts.kills < budget`` and the
    ``deadline`` (monotonic) has not passed, counting the kill; else let it run to its end.

    Returns:
        ``True`` when it was killed; ``False`` when it finished (``proc.returncode`` set).
    """
    if counts.kills >= budget or time.monotonic() > deadline:
        proc.wait(timeout=1800)
        return False
    time.sleep(wait_s)
    if not kill(proc):
        return False
    counts.kills += 1
    return True


# -- collection snapshots ----------------------------------------------------------------------
@dataclass
class Snapshot:
    """A collection's stored state, keyed by document id (database keys left out)."""

    docs: dict[str, tuple[Any, ...]]
    duplicates: int
    index: dict[str, list[tuple[int, int]]]
    doc_terms: dict[str, list[tuple[str, int]]]
    terms: set[tuple[str, int, int]]
    orphans: dict[str, int]
    term_drift: int
    stats: dict[str, Any]


def _h(value: Any) -> str | None:
    return None if value is None else xxhash.xxh3_64_hexdigest(bytes(value))


def snapshot(url: str, name: str) -> Snapshot:
    """Read collection ``name`` of ``url`` (bound parameters only)."""
    from neardup.store import Store

    engine = create_engine(url)
    try:
        tables = inspect(engine).get_table_names()
        has_texts = "nd_texts" in tables
        has_runs = "nd_index_runs" in tables
        with engine.connect() as conn:
            c = {"c": _collection_id(conn, name)}
            texts_join = "LEFT JOIN nd_texts t ON t.document_id = d.id" if has_texts else ""
            body = "t.body" if has_texts else "NULL"
            rows = conn.execute(
                text(
                    "SELECT d.doc_id, d.content_hash, d.length, sh.fingerprints, sg.payload, "
                    f"{body} FROM nd_documents d "
                    "LEFT JOIN nd_shingles sh ON sh.document_id = d.id "
                    f"LEFT JOIN nd_signatures sg ON sg.document_id = d.id {texts_join} "
                    "WHERE d.collection_id = :c"
                ),
                c,
            ).all()
            ids = Counter(r[0] for r in rows)
            docs = {
                r[0]: (_h(r[1]), int(r[2]), _h(r[3]), _h(r[4]), has_texts and r[5] is not None)
                for r in rows
            }
            index: dict[str, list[tuple[int, int]]] = {}
            for doc_id, band, key in conn.execute(
                text(
                    "SELECT d.doc_id, i.band, i.key FROM nd_index i "
                    "JOIN nd_documents d ON d.id = i.document_id WHERE i.collection_id = :c"
                ),
                c,
            ):
                index.setdefault(doc_id, []).append((int(band), int(key)))
            pending = _run_rows(conn, c) if has_runs else []
            pk_doc: dict[int, str] = (
                {int(r[0]): r[1] for r in conn.execute(text(_DOC_IDS), c)} if pending else {}
            )
            for pk, band, key in pending:
                if pk in pk_doc:
                    index.setdefault(pk_doc[pk], []).append((band, key))
            doc_terms: dict[str, list[tuple[str, int]]] = {}
            for doc_id, term, count in conn.execute(
                text(
                    "SELECT d.doc_id, t.term, dt.count FROM nd_doc_terms dt "
                    "JOIN nd_documents d ON d.id = dt.document_id "
                    "JOIN nd_terms t ON t.id = dt.term_id WHERE dt.collection_id = :c"
                ),
                c,
            ):
                doc_terms.setdefault(doc_id, []).append((term, int(count)))
            terms = {
                (t, int(df), int(cf))
                for t, df, cf in conn.execute(
                    text("SELECT term, df, cf FROM nd_terms WHERE collection_id = :c AND df > 0"),
                    c,
                )
            }
            orphans = _orphans(conn, c, has_texts)
            orphans["index_runs"] = sum(1 for pk, _, _ in pending if pk not in pk_doc)
            drift = conn.execute(
                text(
                    "SELECT COUNT(*) FROM nd_terms t LEFT JOIN (SELECT term_id, COUNT(*) AS df, "
                    "SUM(count) AS cf FROM nd_doc_terms WHERE collection_id = :c "
                    "GROUP BY term_id) a ON a.term_id = t.id WHERE t.collection_id = :c "
                    "AND (t.df <> COALESCE(a.df, 0) OR t.cf <> COALESCE(a.cf, 0))"
                ),
                c,
            ).scalar_one()
    finally:
        engine.dispose()
    with Store(url) as store:
        stats = store.stats(name)
    for v in index.values():
        v.sort()
    for w in doc_terms.values():
        w.sort()
    dup = sum(n - 1 for n in ids.values() if n > 1)
    return Snapshot(docs, dup, index, doc_terms, terms, orphans, int(drift), stats)


_DOC_IDS = "SELECT id, doc_id FROM nd_documents WHERE collection_id = :c"


def _run_rows(conn: Any, c: dict[str, int]) -> list[tuple[int, int, int]]:
    """(document pk, band, key) of the collection's pending runs (``nd_index_runs``)."""
    from neardup.store.runs import decode_run

    out: list[tuple[int, int, int]] = []
    for (payload,) in conn.execute(
        text("SELECT payload FROM nd_index_runs WHERE collection_id = :c"), c
    ):
        run = decode_run(bytes(payload))
        out.extend(zip(run.document.tolist(), run.band.tolist(), run.key.tolist(), strict=True))
    return out


def _collection_id(conn: Any, name: str) -> int:
    return int(
        conn.execute(
            text("SELECT id FROM nd_collections WHERE name = :n"), {"n": name}
        ).scalar_one()
    )


def _orphans(conn: Any, c: dict[str, int], has_texts: bool) -> dict[str, int]:
    """Rows whose document (or term) does not exist."""
    queries = {
        "index": "SELECT COUNT(*) FROM nd_index i LEFT JOIN nd_documents d ON d.id = i.document_id "
        "WHERE i.collection_id = :c AND d.id IS NULL",
        "doc_terms": "SELECT COUNT(*) FROM nd_doc_terms x LEFT JOIN nd_documents d "
        "ON d.id = x.document_id LEFT JOIN nd_terms t ON t.id = x.term_id "
        "WHERE x.collection_id = :c AND (d.id IS NULL OR t.id IS NULL)",
        "shingles": "SELECT COUNT(*) FROM nd_shingles s LEFT JOIN nd_documents d "
        "ON d.id = s.document_id WHERE d.id IS NULL",
        "signatures": "SELECT COUNT(*) FROM nd_signatures s LEFT JOIN nd_documents d "
        "ON d.id = s.document_id WHERE d.id IS NULL",
    }
    if has_texts:
        queries["texts"] = (
            "SELECT COUNT(*) FROM nd_texts s LEFT JOIN nd_documents d "
            "ON d.id = s.document_id WHERE d.id IS NULL"
        )
    return {k: int(conn.execute(text(q), c).scalar_one()) for k, q in queries.items()}


def check_partial(snap: Snapshot, ref: Snapshot, lexical: bool, counts: Counts, where: str) -> None:
    """After a kill: whatever is stored is whole, equal to the clean rebuild, never twice."""
    if snap.duplicates:
        counts.flag(
            "doubled", f"{where}: {snap.duplicates} document ids stored twice", snap.duplicates
        )
    bad: list[str] = []
    for doc_id, row in snap.docs.items():
        want = ref.docs.get(doc_id)
        if want is None:
            bad.append(f"{doc_id!r} not in the corpus")
            continue
        if row[:3] != want[:3] or row[4] != want[4]:
            bad.append(f"{doc_id!r}: document/shingles/text row differs or missing")
        if not lexical and (row[3] != want[3] or snap.index.get(doc_id) != ref.index.get(doc_id)):
            bad.append(f"{doc_id!r}: signature or index rows differ")
        if lexical and snap.doc_terms.get(doc_id) != ref.doc_terms.get(doc_id):
            bad.append(f"{doc_id!r}: term counts differ")
    if any(snap.orphans.values()):
        bad.append(f"orphan rows {snap.orphans}")
    if snap.term_drift:
        bad.append(f"{snap.term_drift} terms whose df/cf disagree with the document counts")
    if bad:
        counts.flag("inconsistent", f"{where}: {len(bad)} problems, first: {bad[:3]}")


def check_complete(
    snap: Snapshot, ref: Snapshot, lexical: bool, counts: Counts, where: str
) -> None:
    """After a completed run: identical to the clean rebuild."""
    check_partial(snap, ref, lexical, counts, where)
    lost = set(ref.docs) - set(snap.docs)
    if lost:
        counts.flag(
            "lost", f"{where}: {len(lost)} documents missing, e.g. {sorted(lost)[:3]}", len(lost)
        )
    diffs = []
    if snap.docs != ref.docs:
        diffs.append("document rows/signatures")
    if snap.index != ref.index:
        diffs.append("index rows")
    if snap.doc_terms != ref.doc_terms or snap.terms != ref.terms:
        diffs.append("term statistics")
    keys = ("documents", "tokens", "index_rows", "terms", "stats_dirty")
    got = {k: snap.stats[k] for k in keys}
    want = {k: ref.stats[k] for k in keys}
    if got != want:
        diffs.append(f"stats {got} != {want}")
    if diffs and not lost:
        counts.flag("inconsistent", f"{where}: differs from the clean rebuild in {diffs}")


def reference(url: str, name: str, corpus: Path, method: str) -> Snapshot:
    """A clean rebuild: the corpus added in-process into a fresh collection ``name``."""
    from neardup.store import Store
    from neardup.text.read import read_corpus

    with Store(url) as store:
        store.create_collection(name, method)
        store.add(name, read_corpus([corpus]))
    return snapshot(url, name)


# -- add -------------------------------------------------------------------------------------------
class AddHarness:
    """Kill ``neardup add`` repeatedly (see the module docstring).

    Args:
        url: database URL; corpus: JSONL; method: the collection's method; tag: unique
            prefix of the collection names; estimate_s: seconds of an uninterrupted add
            (kill delays are drawn from [0.2, estimate_s]); ``None``: measured, one
            uninterrupted ``neardup add`` into a collection ``{tag}-timed`` (a delay past
            the add's end kills nothing and costs a round: with a fixed 4 s against adds of
            1 to 2 s, most of them did).
    """

    def __init__(
        self, url: str, corpus: Path, method: str, tag: str, estimate_s: float | None = None
    ) -> None:
        self.url, self.corpus, self.method, self.tag = url, corpus, method, tag
        self.lexical = method in ("tf-ridf", "imatch", "imatch-random", "anchor-words")
        self.ref = reference(url, f"{tag}-ref", corpus, method)
        self.counts = Counts(f"add {method} {url.split(':')[0].split('+')[0]}")
        self.estimate_s = self._timed(f"{tag}-timed") if estimate_s is None else estimate_s

    def _timed(self, name: str) -> float:
        """Seconds of an uninterrupted ``neardup add`` of the corpus into a new collection."""
        from neardup.store import Store

        with Store(self.url) as store:
            store.create_collection(name, self.method)
        t0 = time.monotonic()
        proc = self._start(name)
        if proc.wait(timeout=1800) != 0:
            raise RuntimeError(f"the timed add exited {proc.returncode}")
        return time.monotonic() - t0

    def run(self, kills: int, rng: random.Random, *, timeout_s: float = 900) -> Counts:
        """Kill until ``kills`` kills happened; every round ends with a completed add."""
        deadline = time.monotonic() + timeout_s
        rounds = 0
        while self.counts.kills < kills and time.monotonic() < deadline:
            rounds += 1
            self._round(f"{self.tag}-r{rounds}", kills, rng, deadline)
        return self.counts

    def _round(self, name: str, kills: int, rng: random.Random, deadline: float) -> None:
        from neardup.store import Store

        with Store(self.url) as store:  # as the reference (the CLI sets its own canonical form)
            store.create_collection(name, self.method)
        while True:
            proc = self._start(name)
            wait_s = rng.uniform(0.2, self.estimate_s)
            if kill_after(proc, wait_s, self.counts, kills, deadline):
                where = f"{name} kill {self.counts.kills} at {wait_s:.2f}s"
                check_partial(snapshot(self.url, name), self.ref, self.lexical, self.counts, where)
                continue
            if proc.returncode != 0:
                self.counts.flag("inconsistent", f"{name}: add exited {proc.returncode}")
            self.counts.completed += 1
            check_complete(snapshot(self.url, name), self.ref, self.lexical, self.counts, name)
            return

    def _start(self, name: str) -> subprocess.Popen[bytes]:
        cmd = [
            NEARDUP,
            "add",
            name,
            str(self.corpus),
            "--db",
            self.url,
            "-q",
            "--batch-size",
            "100",
        ]
        return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


# -- dedup --out ------------------------------------------------------------------------------
class DedupHarness:
    """Kill ``neardup dedup --out`` repeatedly (see the module docstring)."""

    def __init__(self, corpus: Path, work: Path, method: str = "minhash-lsh") -> None:
        self.corpus, self.work, self.method = corpus, work, method
        self.counts = Counts(f"dedup --out {method}")
        self.ref_dir = work / "ref"
        t0 = time.monotonic()
        subprocess.run(self._cmd(self.ref_dir), check=True, timeout=1800, capture_output=True)
        self.estimate_s = time.monotonic() - t0
        self.ref = {n: (self.ref_dir / n).read_bytes() for n in OUTPUTS}
        self.ref_summary = _summary(self.ref_dir)

    def _cmd(self, out: Path) -> list[str]:
        return [
            NEARDUP,
            "dedup",
            str(self.corpus),
            "--method",
            self.method,
            "--out",
            str(out),
            "-q",
        ]

    def run(self, kills: int, rng: random.Random, *, timeout_s: float = 900) -> Counts:
        out = self.work / "out"
        deadline = time.monotonic() + timeout_s
        while self.counts.kills < kills and time.monotonic() < deadline:
            proc = subprocess.Popen(
                self._cmd(out), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )
            wait_s = rng.uniform(0.2, self.estimate_s * 1.2)
            time.sleep(wait_s)
            where = f"dedup kill {self.counts.kills + 1} at {wait_s:.2f}s"
            if kill(proc):
                self.counts.kills += 1
                self._check(out, where, complete=False)
            else:
                self.counts.completed += 1
                self._check(out, f"dedup run completed ({proc.returncode})", complete=True)
        subprocess.run(self._cmd(out), timeout=1800, capture_output=True)
        self.counts.completed += 1
        self._check(out, "final dedup run", complete=True)
        return self.counts

    def _check(self, out: Path, where: str, *, complete: bool) -> None:
        present = {n: (out / n).read_bytes() for n in OUTPUTS if (out / n).exists()}
        claimed = (out / "summary.json").exists()
        if complete and not claimed:
            self.counts.flag("inconsistent", f"{where}: completed run without summary.json")
        if claimed:
            missing = [n for n in OUTPUTS if n not in present]
            if missing or _summary(out) != self.ref_summary:
                self.counts.flag(
                    "inconsistent", f"{where}: summary.json with missing/odd outputs {missing}"
                )
        for name, data in present.items():
            if data != self.ref[name]:
                self.counts.flag(
                    "inconsistent", f"{where}: {name} partial or different ({len(data)} bytes)"
                )
        temporaries = [p.name for p in out.glob(".*")] if out.exists() else []
        if complete and temporaries:
            self.counts.flag("inconsistent", f"{where}: temporaries left {temporaries}")


def _summary(out: Path) -> dict[str, Any]:
    """``summary.json`` without the run's timings and memory."""
    data = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    for key in ("seconds", "cpu_seconds", "peak_memory_mib", "executor"):  # timings too
        data.pop(key, None)
    return data


# -- crawl ---------------------------------------------------------------------------------------
#: Page statuses of a crawl still under way (none may be left once it is done).
UNFINISHED_PAGES = ("new", "reserved", "fetched")
#: An empty collection (a crawl killed before it created its collection).
EMPTY = Snapshot({}, 0, {}, {}, set(), {}, 0, {})


@dataclass
class CrawlState:
    """The crawl queue's view of the library crawled into one collection."""

    libraries: int
    stage: str
    documents_added: int
    pages: dict[str, tuple[str, bool]]  # url -> (status, document stored)

    def finished(self) -> set[str]:
        """Pages finished with a document (never fetched again when the crawl resumes)."""
        return {u for u, (s, doc) in self.pages.items() if doc and s in ("collected", "skipped")}


def crawl_state(url: str, name: str) -> CrawlState:
    """Read the crawl tables for collection ``name`` (bound parameters only; without a
    library yet: stage ``""``, no pages)."""
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            libs = conn.execute(
                text(
                    "SELECT id, stage, documents_added FROM nd_crawl_libraries "
                    "WHERE collection = :n ORDER BY id"
                ),
                {"n": name},
            ).all()
            if not libs:
                return CrawlState(0, "", 0, {})
            lib_id, stage, added = libs[-1]
            pages = {
                u: (str(status), bool(doc))
                for u, status, doc in conn.execute(
                    text("SELECT url, status, document FROM nd_crawl_pages WHERE library_id = :l"),
                    {"l": lib_id},
                )
            }
    finally:
        engine.dispose()
    return CrawlState(len(libs), str(stage), int(added), pages)


def collection_snapshot(url: str, name: str) -> Snapshot:
    """:func:`snapshot`, or :data:`EMPTY` when the collection does not exist yet."""
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            found = conn.execute(
                text("SELECT COUNT(*) FROM nd_collections WHERE name = :n"), {"n": name}
            ).scalar_one()
    finally:
        engine.dispose()
    return snapshot(url, name) if found else EMPTY


class CrawlHarness:
    """Kill ``neardup crawl`` of the fake library (``tests/fake_library.py``) repeatedly.

    The library is served on 127.0.0.1 by a thread of this process (``--allow-private``
    lets the crawler reach it; its ``--delay`` makes a crawl last a few seconds). A clean
    crawl into ``{tag}-ref`` is the reference: it must store exactly the site's article set,
    and its duration is the estimate kill delays are drawn from. Each round crawls into a
    new collection: killed, checked, restarted, ``per_round`` times, then the last run
    completes. After each kill: no document twice, none outside the article set, every
    stored document equal to the reference's (shingles, text, signature, index rows), no
    orphan rows, every page the queue has finished with a document stored (else it is
    lost: a resumed crawl does not fetch it again). After a completed run: stage ``done``,
    the documents exactly the article set and equal to the reference, no page left
    ``new``/``reserved``/``fetched``, ``documents_added`` equal to the documents stored,
    and no article page finished before a kill requested again after it.

    Use it as a context manager (or call :meth:`close`): that stops the fake library.

    Args:
        url: database URL; method: the method of the collections the crawl creates; tag:
            unique prefix of the collection names; n_articles: article numbers of the fake
            library; delay: the crawler's ``--delay`` (seconds between requests);
            per_round: kills per round (per collection).
    """

    def __init__(
        self,
        url: str,
        method: str,
        tag: str,
        *,
        n_articles: int = 90,
        delay: float = 0.02,
        per_round: int = 5,
    ) -> None:
        from fake_library import serve_library

        self.url, self.method, self.tag = url, method, tag
        self.delay, self.per_round = delay, per_round
        self.lexical = method in ("tf-ridf", "imatch", "imatch-random", "anchor-words")
        self.counts = Counts(f"crawl {method} {url.split(':')[0].split('+')[0]}")
        self._stack = contextlib.ExitStack()
        self.site = self._stack.enter_context(serve_library(n_articles=n_articles))
        tmp = self._stack.enter_context(tempfile.TemporaryDirectory(prefix="neardup-crawl-"))
        self._stderr = Path(tmp) / "stderr.txt"
        try:
            t0 = time.monotonic()
            proc = self._start(f"{tag}-ref")
            if proc.wait(timeout=1800) != 0:
                raise RuntimeError(f"the reference crawl exited {proc.returncode}: {self._err()}")
            self.estimate_s = time.monotonic() - t0
            self.ref = snapshot(url, f"{tag}-ref")
            if sorted(self.ref.docs) != sorted(self.site.articles) or self.ref.duplicates:
                raise RuntimeError("the reference crawl did not store exactly the article set")
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        """Stop the fake library."""
        self._stack.close()

    def __enter__(self) -> CrawlHarness:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def run(self, kills: int, rng: random.Random, *, timeout_s: float = 900) -> Counts:
        """Kill until ``kills`` kills happened; every round ends with a completed crawl."""
        deadline = time.monotonic() + timeout_s
        rounds = 0
        while self.counts.kills < kills and time.monotonic() < deadline:
            rounds += 1
            budget = min(kills, self.counts.kills + self.per_round)
            self._round(f"{self.tag}-c{rounds}", budget, rng, deadline)
        return self.counts

    def _round(self, name: str, budget: int, rng: random.Random, deadline: float) -> None:
        finished: dict[str, int] = {}  # article URL -> request-log length when seen finished
        while True:
            proc = self._start(name)
            wait_s = rng.uniform(0.2, self.estimate_s)
            if kill_after(proc, wait_s, self.counts, budget, deadline):
                where = f"{name} kill {self.counts.kills} at {wait_s:.2f}s"
                self.check_partial(name, where, finished)
                continue
            if proc.returncode != 0:
                self.counts.flag(
                    "inconsistent", f"{name}: crawl exited {proc.returncode}: {self._err()}"
                )
            self.counts.completed += 1
            self.check_complete(name, name, finished)
            return

    def check_partial(self, name: str, where: str, finished: dict[str, int]) -> None:
        """After a kill (see the class docstring); adds the article pages finished by now to
        ``finished``, with the request-log length (later requests for them are refetches)."""
        snap = collection_snapshot(self.url, name)
        check_partial(snap, self.ref, self.lexical, self.counts, where)
        state = self._check_pages(name, snap, where)
        mark = len(self.site.log.items())
        for u in state.finished() & set(self.site.articles):
            finished.setdefault(u, mark)

    def check_complete(self, name: str, where: str, finished: dict[str, int]) -> None:
        """After a completed run (see the class docstring); ``finished`` as filled by
        :meth:`check_partial` after the kills of the round."""
        snap = collection_snapshot(self.url, name)
        check_complete(snap, self.ref, self.lexical, self.counts, where)
        state = self._check_pages(name, snap, where, count_lost=False)  # counted just above
        if state.stage != "done":
            self.counts.flag("inconsistent", f"{where}: stage {state.stage!r}, not done")
        left = Counter(s for s, _ in state.pages.values() if s in UNFINISHED_PAGES)
        if left:
            self.counts.flag("inconsistent", f"{where}: pages left {dict(left)}")
        if state.documents_added != len(snap.docs):
            self.counts.flag(
                "inconsistent",
                f"{where}: documents_added {state.documents_added}, {len(snap.docs)} stored",
            )
        base = self.site.base_url
        requests = [t for _, t in self.site.log.items()]
        refetched = sorted(
            u for u, mark in finished.items() if u.removeprefix(base) in requests[mark:]
        )
        if refetched:
            self.counts.flag(
                "inconsistent",
                f"{where}: {len(refetched)} article pages finished before a kill were "
                f"fetched again, e.g. {refetched[:3]}",
            )

    def _check_pages(
        self, name: str, snap: Snapshot, where: str, *, count_lost: bool = True
    ) -> CrawlState:
        """The crawl tables against the stored documents: one library, and every page
        finished with a document stored (an article)."""
        state = crawl_state(self.url, name)
        if state.libraries > 1:
            self.counts.flag("inconsistent", f"{where}: {state.libraries} libraries queued")
        finished = state.finished()
        unstored = sorted(finished - set(snap.docs))
        if unstored and count_lost:
            self.counts.flag(
                "lost",
                f"{where}: {len(unstored)} pages finished with a document that is not stored, "
                f"e.g. {unstored[:3]}",
                len(unstored),
            )
        strays = sorted(finished - set(self.site.articles))
        if strays:
            self.counts.flag("inconsistent", f"{where}: non-articles stored {strays[:3]}")
        return state

    def _start(self, name: str) -> subprocess.Popen[bytes]:
        cmd = [NEARDUP, "crawl", self.site.base_url, "--clarification",
               self.site.clarification, "--collection", name, "--db", self.url,
               "--allow-private", "--method", self.method, "--delay", str(self.delay),
               "--retries", "1", "-q"]  # fmt: skip
        with self._stderr.open("wb") as errors:  # the child keeps its own descriptor
            return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=errors)

    def _err(self) -> str:
        """The end of the last run's standard error."""
        return self._stderr.read_text(encoding="utf-8", errors="replace").strip()[-500:]


# -- serve ---------------------------------------------------------------------------------------
TOKEN = "kill-harness-token"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ServeHarness:
    """Kill ``neardup serve`` while a client adds the corpus over HTTP (module docstring)."""

    def __init__(self, url: str, corpus: Path, method: str, tag: str, *, batch: int = 25) -> None:
        self.url, self.corpus, self.method, self.tag, self.batch = url, corpus, method, tag, batch
        self.lexical = method in ("tf-ridf", "imatch", "imatch-random", "anchor-words")
        self.ref = reference(url, f"{tag}-ref", corpus, method)
        self.counts = Counts(f"serve {method} {url.split(':')[0].split('+')[0]}")
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"

    def run(self, kills: int, rng: random.Random, *, timeout_s: float = 900) -> Counts:
        """Kill until ``kills`` kills happened; each round adds the corpus into a new
        collection and ends with the client done and the final checks."""
        deadline = time.monotonic() + timeout_s
        rounds = 0
        while self.counts.kills < kills and time.monotonic() < deadline:
            rounds += 1
            if not self._round(f"{self.tag}-s{rounds}", kills, rng, deadline):
                break
        return self.counts

    def _round(self, name: str, kills: int, rng: random.Random, deadline: float) -> bool:
        from neardup.store import Store

        with Store(self.url) as store:
            store.create_collection(name, self.method)
        client = _Client(self.base, name, read_jsonl(self.corpus), self.batch)
        proc = self._start()
        thread = threading.Thread(target=client.run, daemon=True)
        thread.start()
        try:
            while thread.is_alive() and self.counts.kills < kills and time.monotonic() < deadline:
                time.sleep(rng.uniform(0.2, 1.5))
                if not thread.is_alive():
                    break
                if kill(proc):
                    self.counts.kills += 1
                    where = f"{name} kill {self.counts.kills}"
                    check_partial(
                        snapshot(self.url, name), self.ref, self.lexical, self.counts, where
                    )
                    self._acknowledged_present(name, client, where)
                proc = self._start()
            thread.join(timeout=max(1.0, deadline - time.monotonic()))
        finally:
            client.stop = True
            kill(proc)
        if thread.is_alive() or client.error:
            self.counts.flag("inconsistent", f"{name}: client did not finish: {client.error}")
            return False
        self.counts.completed += 1
        check_complete(snapshot(self.url, name), self.ref, self.lexical, self.counts, name)
        self._acknowledged_present(name, client, f"{name} final")
        return True

    def _acknowledged_present(self, name: str, client: _Client, where: str) -> None:
        stored = set(snapshot(self.url, name).docs)
        lost = client.acknowledged - stored
        if lost:
            self.counts.flag(
                "lost", f"{where}: {len(lost)} acknowledged documents missing", len(lost)
            )

    def _start(self) -> subprocess.Popen[bytes]:
        import httpx

        cmd = [NEARDUP, "serve", "--db", self.url, "--port", str(self.port), "--token", TOKEN,
               "--max-body-bytes", str(64 << 20)]  # fmt: skip
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(600):
            try:
                if httpx.get(f"{self.base}/health", timeout=2).status_code == 200:
                    return proc
            except httpx.TransportError:
                pass
            if proc.poll() is not None:
                raise RuntimeError(f"neardup serve exited {proc.returncode}")
            time.sleep(0.1)
        kill(proc)
        raise RuntimeError("neardup serve did not answer /health within 60 s")


class _Client:
    """Adds the corpus in batches, retrying each batch until it gets an answer."""

    def __init__(self, base: str, name: str, docs: list[dict[str, Any]], batch: int) -> None:
        self.base, self.name, self.docs, self.batch = base, name, docs, batch
        self.acknowledged: set[str] = set()
        self.stop = False
        self.error = ""

    def run(self) -> None:
        import httpx

        headers = {"Authorization": f"Bearer {TOKEN}"}
        with httpx.Client(base_url=self.base, headers=headers, timeout=120) as http:
            for chunk in _chunks(self.docs, self.batch):
                body = {"documents": [{"id": d["id"], "text": d["text"]} for d in chunk]}
                while not self.stop:
                    try:
                        r = http.post(f"/collections/{self.name}/documents/batch", json=body)
                    except httpx.TransportError:
                        time.sleep(0.2)
                        continue
                    if r.status_code >= 500:
                        time.sleep(0.2)
                        continue
                    if r.status_code != 200:
                        self.error = f"{r.status_code}: {r.text[:300]}"
                        return
                    report = r.json()
                    stored = {s["id"] for s in report["skipped"] if s["reason"] == "exists"}
                    refused = {s["id"] for s in report["skipped"]} - stored
                    self.acknowledged |= {d["id"] for d in chunk} - refused
                    break
                if self.stop:
                    return


def _chunks(items: list[Any], size: int) -> Iterator[list[Any]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


os.environ.setdefault("PYTHONUNBUFFERED", "1")
