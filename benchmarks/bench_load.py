"""Load test of ``neardup serve``: mixed check/add traffic over HTTP on loopback (issue 9).

For each database (a SQLite file under ``/work/load-db/``, a dedicated PostgreSQL database
``neardup_load``):

1. builds, or completes, a ``--docs``-document ``minhash-lsh`` collection (t=0.5) from the
   benchmark corpus in-process with ``Store.add`` (batches of 1000; documents already
   stored are skipped by id and content hash, so a complete collection is reused as is);
2. starts ``neardup serve --db URL --port P --no-crawl [--workers N]`` on 127.0.0.1 and
   waits for ``/health``;
3. sends seeded mixed traffic from ``--clients`` client processes (asyncio; a minimal
   keep-alive HTTP/1.1 client by default, ``--http httpx`` for httpx; one connection per
   in-flight request): ``--add-fraction`` (10%) ``POST
   /collections/{name}/documents`` of fresh documents, the rest ``POST .../check`` of
   texts that are half near-duplicates of stored documents (an 80-95% window of a stored
   document with 2% of its words replaced; each should match) and half fresh (the words of
   a stored document shuffled; no match). Closed loop at ``--concurrency`` requests in
   flight, or open loop at ``--rate`` requests/s (latency counted from the scheduled send
   time, so a slow server is not hidden by a waiting client);
4. reports per operation: requests/s sustained over ``--duration`` (after ``--warmup``),
   p50/p95/p99/max latency (ms), non-2xx answers, timeouts and other errors, and the
   near-duplicate checks that found their source; CPU seconds of server, clients and
   PostgreSQL backends, and the load average at start and end (the machine is shared);
5. stops the server, removes the documents the run added (the collection stays at
   ``--docs``), prints a markdown table and merges the rows into ``--out`` (one row per
   database, traffic mode and worker count; the newest run wins).

Corpus: ``bash ../shared/data/bench-corpus.sh /work/bench-corpus 100000``.
Usage: ``python benchmarks/bench_load.py --db both --duration 120 --concurrency 16``;
short trial: ``--duration 10 --docs 10000``.
Target (issue 9): >= 200 requests/s with check p99 < 100 ms on PostgreSQL, 2 cores.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing as mp
import os
import platform
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import numpy as np
import psutil
from sqlalchemy.engine import make_url

from bench_collections import load
from neardup.errors import CollectionExists
from neardup.store import Store
from neardup.text.types import Document

DEFAULT_CORPUS = Path("/work/bench-corpus/corpus.jsonl")
DEFAULT_SQLITE = Path("/work/load-db/load.db")
DEFAULT_PG = "postgresql+psycopg://postgres@127.0.0.1:5432/neardup_load"
PG_ADMIN_DB = "test"
RESULTS = Path(__file__).resolve().parent / "results" / "load.json"
BUILD_BATCH = 1000
#: ids of the documents a run adds start with this (corpus ids are ``d0``, ``d1``, ...)
ADD_PREFIX = "load-"


# -- collections ------------------------------------------------------------------------------
def ensure_pg_database(url: str) -> None:
    """Create the PostgreSQL database named in ``url`` if it does not exist (connecting to
    the ``test`` database of the same server)."""
    import psycopg

    u = make_url(url)
    admin = f"postgresql://{u.username or 'postgres'}@{u.host}:{u.port or 5432}/{PG_ADMIN_DB}"
    with psycopg.connect(admin, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (u.database,))
        if exists.fetchone() is None:
            conn.execute(f'CREATE DATABASE "{u.database}"')


def build_collection(url: str, name: str, docs: list[Document]) -> dict[str, Any]:
    """Create (if missing) and fill the ``minhash-lsh`` collection ``name``; stored
    documents are skipped, so a complete collection costs one hash per document."""
    t0 = time.perf_counter()
    with Store(url) as store:
        with contextlib.suppress(CollectionExists):
            store.create_collection(name, "minhash-lsh", threshold=0.5)

        def progress(part: Any) -> None:
            if part.added:
                print(f"  {url.split('://')[0]}: +{part.added}", file=sys.stderr, flush=True)

        report = store.add(name, docs, batch_size=BUILD_BATCH, on_batch=progress)
    leftovers = remove_added(url, name)
    with Store(url) as store:
        stats = store.stats(name)
    return {
        "collection": name,
        "documents": stats["documents"],
        "added_now": report.added,
        "leftovers_removed": leftovers["removed"],
        "build_s": round(time.perf_counter() - t0, 1),
    }


def remove_added(url: str, name: str) -> dict[str, Any]:
    """Remove every document a load run added (ids start with :data:`ADD_PREFIX`; corpus
    ids do not), including adds whose answer timed out and leftovers of interrupted runs.

    Returns:
        ``{"removed": count, "seconds": s}``.
    """
    from sqlalchemy import create_engine, select

    from neardup.store import schema
    from neardup.store.engine import resolve_url

    t0 = time.perf_counter()
    d, c = schema.documents, schema.collections
    stmt = (
        select(d.c.doc_id)
        .join(c, c.c.id == d.c.collection_id)
        .where(c.c.name == name, d.c.doc_id.like(f"{ADD_PREFIX}%"))
    )
    engine = create_engine(resolve_url(url))
    try:
        with engine.connect() as conn:
            ids = [r[0] for r in conn.execute(stmt)]
    finally:
        engine.dispose()
    with Store(url) as store:
        for doc_id in ids:
            store.remove(name, doc_id)
    return {"removed": len(ids), "seconds": round(time.perf_counter() - t0, 1)}


# -- traffic ----------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Pools:
    """Pre-built request bodies (JSON bytes), so the client spends no CPU on text.

    Attributes:
        near: check bodies of near-duplicates of stored documents.
        fresh: check bodies of texts that match nothing.
        adds: texts of fresh documents to add (ids are given at send time).
    """

    near: list[bytes]
    fresh: list[bytes]
    adds: list[str]


def near_duplicate(rng: random.Random, text: str) -> str:
    """An 80-95% window of ``text`` with 2% of its words replaced."""
    words = text.split()
    size = max(1, int(len(words) * rng.uniform(0.80, 0.95)))
    start = rng.randrange(len(words) - size + 1)
    window = words[start : start + size]
    for _ in range(max(1, len(window) // 50)):
        window[rng.randrange(len(window))] = f"edit{rng.randrange(10**6)}"
    return " ".join(window)


def shuffled(rng: random.Random, text: str) -> str:
    """The words of ``text`` in a random order: no 5-word shingle survives."""
    words = text.split()
    rng.shuffle(words)
    return " ".join(words)


def make_pools(docs: list[Document], size: int, seed: int) -> Pools:
    """``size`` near-duplicate and fresh check bodies and ``size`` add texts."""
    rng = random.Random(seed)
    near = [
        json.dumps({"text": near_duplicate(rng, rng.choice(docs).text)}).encode()
        for _ in range(size)
    ]
    fresh = [
        json.dumps({"text": shuffled(rng, rng.choice(docs).text)}).encode() for _ in range(size)
    ]
    adds = [shuffled(rng, rng.choice(docs).text) for _ in range(size)]
    return Pools(near, fresh, adds)


@dataclass(frozen=True, slots=True)
class ClientSpec:
    """One client process's share of the load."""

    index: int
    clients: int
    base_url: str
    collection: str
    run_id: str
    concurrency: int
    rate: float | None
    add_fraction: float
    warmup: float
    duration: float
    timeout: float
    seed: int
    start_at: float  # time.time() at which every client starts sending
    http: str  # "raw" or "httpx"


@dataclass(slots=True)
class ClientResult:
    """Raw samples of one client: ``(t_rel, op, kind, latency_s, outcome, matched)``."""

    samples: list[tuple[float, str, str, float, str, bool]] = field(default_factory=list)
    added: int = 0
    cpu_s: float = 0.0
    wall_s: float = 0.0


class ProtocolError(Exception):
    """The server's answer is not a plain HTTP/1.1 response with a Content-Length."""


class RawConnection:
    """One keep-alive HTTP/1.1 connection on asyncio streams: POST a JSON body, read the
    status and body. A few lines of protocol instead of httpx's machinery, so the client
    needs a fraction of the CPU (it shares the 2 cores with the server)."""

    def __init__(self, host: str, port: int) -> None:
        self.host = host
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def post(self, path: str, body: bytes) -> tuple[int, bytes]:
        """``(status, body)`` of ``POST path``; reconnects when the connection is closed."""
        if self.writer is None or self.writer.is_closing():
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        assert self.reader is not None
        head = (
            f"POST {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
        ).encode()
        self.writer.write(head + body)
        raw = await self.reader.readuntil(b"\r\n\r\n")
        lines = raw.split(b"\r\n")
        status = int(lines[0].split(b" ", 2)[1])
        length = None
        close = False
        for line in lines[1:]:
            key, _, value = line.partition(b":")
            key = key.strip().lower()
            if key == b"content-length":
                length = int(value)
            elif key == b"connection" and value.strip().lower() == b"close":
                close = True
        if length is None:
            self.close()
            raise ProtocolError("no Content-Length")
        data = await self.reader.readexactly(length)
        if close:
            self.close()
        return status, data

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


class HttpxConnection:
    """The same interface over a shared ``httpx.AsyncClient`` (``--http httpx``)."""

    def __init__(self, client: httpx.AsyncClient) -> None:
        self.client = client

    async def post(self, path: str, body: bytes) -> tuple[int, bytes]:
        resp = await self.client.post(
            path, content=body, headers={"content-type": "application/json"}
        )
        return resp.status_code, resp.content

    def close(self) -> None:
        pass


class Client:
    """Sends the traffic of one :class:`ClientSpec` on one asyncio loop, over
    ``spec.concurrency`` connections at most."""

    def __init__(self, spec: ClientSpec, pools: Pools) -> None:
        self.spec = spec
        self.pools = pools
        self.rng = random.Random(spec.seed * 1000 + spec.index)
        self.result = ClientResult()
        self.counter = 0
        self.t0 = 0.0
        self.end = 0.0
        self.conns: asyncio.Queue[RawConnection | HttpxConnection] = asyncio.Queue()

    def _request(self) -> tuple[str, str, str, bytes]:
        """``(op, tag, path, body)`` of the next request; ``tag``: near/fresh/a new id."""
        name = quote(self.spec.collection, safe="")
        if self.rng.random() < self.spec.add_fraction:
            self.counter += 1
            doc_id = f"{ADD_PREFIX}{self.spec.run_id}-{self.spec.index}-{self.counter}"
            text = self.rng.choice(self.pools.adds)
            body = json.dumps({"id": doc_id, "text": text}).encode()
            return "add", doc_id, f"/collections/{name}/documents", body
        if self.rng.random() < 0.5:
            return "check", "near", f"/collections/{name}/check", self.rng.choice(self.pools.near)
        return "check", "fresh", f"/collections/{name}/check", self.rng.choice(self.pools.fresh)

    async def _send(self, sent: float) -> None:
        op, tag, path, body = self._request()
        matched = False
        conn = await self.conns.get()
        try:
            remaining = max(0.001, self.spec.timeout - (time.perf_counter() - sent))
            status, data = await asyncio.wait_for(conn.post(path, body), remaining)
            outcome = str(status)
            if 200 <= status < 300:
                answer = json.loads(data)
                if op == "check":
                    matched = bool(answer.get("matches"))
                elif answer.get("added"):
                    self.result.added += 1
        except (TimeoutError, httpx.TimeoutException):
            outcome = "timeout"
            conn.close()
        except (OSError, ValueError, ProtocolError, asyncio.IncompleteReadError) as exc:
            outcome = type(exc).__name__
            conn.close()
        except httpx.HTTPError as exc:
            outcome = type(exc).__name__
        finally:
            self.conns.put_nowait(conn)
        now = time.perf_counter()
        kind = tag if op == "check" else "new"
        self.result.samples.append((sent - self.t0, op, kind, now - sent, outcome, matched))

    async def _closed_loop(self) -> None:
        async def worker() -> None:
            while time.perf_counter() < self.end:
                await self._send(time.perf_counter())

        await asyncio.gather(*(worker() for _ in range(self.spec.concurrency)))

    async def _open_loop(self) -> None:
        """Requests at fixed intervals; a request waits for a free connection, and its
        latency counts from its scheduled time (no coordinated omission)."""
        assert self.spec.rate is not None
        interval = 1.0 / self.spec.rate
        tasks: set[asyncio.Task[None]] = set()
        i = 0
        while (sent := self.t0 + i * interval) < self.end:
            delay = sent - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            task = asyncio.create_task(self._send(sent))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
            i += 1
        if tasks:
            await asyncio.gather(*tasks)

    async def run(self) -> ClientResult:
        """Send until ``warmup + duration`` seconds have passed; return the samples."""
        spec = self.spec
        url = httpx.URL(spec.base_url)
        limits = httpx.Limits(max_connections=spec.concurrency, max_keepalive_connections=None)
        async with httpx.AsyncClient(
            base_url=spec.base_url, limits=limits, timeout=httpx.Timeout(spec.timeout)
        ) as http:
            for _ in range(spec.concurrency):
                conn = (
                    RawConnection(url.host, url.port or 80)
                    if spec.http == "raw"
                    else HttpxConnection(http)
                )
                self.conns.put_nowait(conn)
            await asyncio.sleep(max(0.0, spec.start_at - time.time()))
            cpu0 = time.process_time()
            self.t0 = time.perf_counter()
            if spec.rate is not None:  # interleave the clients' schedules
                self.t0 += spec.index / (spec.rate * spec.clients)
            self.end = self.t0 + spec.warmup + spec.duration
            await (self._closed_loop() if spec.rate is None else self._open_loop())
            self.result.cpu_s = time.process_time() - cpu0
            self.result.wall_s = time.perf_counter() - self.t0
            while not self.conns.empty():
                self.conns.get_nowait().close()
        return self.result


def run_client(spec: ClientSpec, pools: Pools) -> ClientResult:
    """Entry point of a client process."""
    return asyncio.run(Client(spec, pools).run())


# -- server -----------------------------------------------------------------------------------
def free_port() -> int:
    """An unused TCP port on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def neardup_command() -> list[str]:
    """The ``neardup`` console script of this interpreter's environment."""
    script = Path(sys.executable).parent / "neardup"
    if script.exists():
        return [str(script)]
    found = shutil.which("neardup")
    if found:
        return [found]
    return [sys.executable, "-c", "from neardup.cli.main import run; run()"]


class Server:
    """``neardup serve`` as a subprocess (its output in a log file)."""

    def __init__(self, url: str, port: int, workers: int, log: Path) -> None:
        cmd = [*neardup_command(), "serve", "--db", url, "--port", str(port), "--no-crawl"]
        if workers > 1:
            cmd += ["--workers", str(workers)]
        self.command = cmd
        self.base_url = f"http://127.0.0.1:{port}"
        self.log = log
        self._log_file = log.open("wb")
        self.proc = subprocess.Popen(cmd, stdout=self._log_file, stderr=subprocess.STDOUT)

    def wait_ready(self, timeout: float = 120.0) -> None:
        """Poll ``/health`` until it answers 200."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited ({self.proc.returncode}): {self.tail()}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(self.base_url + "/health", timeout=2).status_code == 200:
                    return
            time.sleep(0.3)
        raise RuntimeError(f"server not ready after {timeout} s: {self.tail()}")

    def processes(self) -> list[psutil.Process]:
        """The server process and its children (uvicorn workers)."""
        with contextlib.suppress(psutil.Error):
            root = psutil.Process(self.proc.pid)
            return [root, *root.children(recursive=True)]
        return []

    def tail(self) -> str:
        return self.log.read_text(errors="replace")[-2000:]

    def stop(self) -> None:
        """SIGTERM, then SIGKILL after 20 s."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log_file.close()


def cpu_seconds(procs: list[psutil.Process]) -> float:
    """User + system CPU seconds of ``procs`` (processes gone meanwhile count 0)."""
    total = 0.0
    for p in procs:
        with contextlib.suppress(psutil.Error):
            t = p.cpu_times()
            total += t.user + t.system
    return total


def postgres_cpu(database: str) -> dict[int, float]:
    """CPU seconds of the PostgreSQL server by pid: the postmaster with the backends it has
    reaped (``children_*``: backends that ended, of every database), and each live backend
    connected to ``database`` (other databases' live backends are left out)."""
    out = {}
    for p in psutil.process_iter(["name", "cmdline", "ppid"]):
        with contextlib.suppress(psutil.Error):
            if p.info["name"] != "postgres":
                continue
            title = " ".join(p.info["cmdline"] or [])
            t = p.cpu_times()
            if p.info["ppid"] == 1 or not title.startswith("postgres:"):  # the postmaster
                out[p.pid] = t.user + t.system + t.children_user + t.children_system
            elif f" {database} " in title:
                out[p.pid] = t.user + t.system
    return out


def cpu_delta(before: dict[int, float], after: dict[int, float]) -> float:
    """CPU seconds used between two :func:`postgres_cpu` snapshots (a backend that ended
    meanwhile is counted by the postmaster's reaped-children time; one that started counts
    from zero)."""
    return sum(v - before.get(pid, 0.0) for pid, v in after.items())


# -- statistics -------------------------------------------------------------------------------
def summarise(samples: list[tuple[float, str, str, float, str, bool]], args: Any) -> dict:
    """Per-operation figures over the measured window ``[warmup, warmup + duration)``."""
    window = [s for s in samples if args.warmup <= s[0] < args.warmup + args.duration]
    out: dict[str, Any] = {}
    for op in ("check", "add", "all"):
        rows = [s for s in window if op == "all" or s[1] == op]
        ok = [s for s in rows if s[4].isdigit() and 200 <= int(s[4]) < 300]
        lat = np.array([s[3] for s in rows]) * 1000 if rows else np.zeros(1)
        outcomes: dict[str, int] = {}
        for s in rows:
            if s not in ok:
                outcomes[s[4]] = outcomes.get(s[4], 0) + 1
        entry: dict[str, Any] = {
            "requests": len(rows),
            "ok": len(ok),
            "requests_per_s": round(len(rows) / args.duration, 1),
            "ok_per_s": round(len(ok) / args.duration, 1),
            "p50_ms": round(float(np.percentile(lat, 50)), 1),
            "p95_ms": round(float(np.percentile(lat, 95)), 1),
            "p99_ms": round(float(np.percentile(lat, 99)), 1),
            "max_ms": round(float(lat.max()), 1),
            "mean_ms": round(float(lat.mean()), 1),
            "errors": sum(outcomes.values()),
            "timeouts": outcomes.get("timeout", 0),
            "error_kinds": outcomes,
        }
        if op == "check":
            near = [s for s in ok if s[2] == "near"]
            fresh = [s for s in ok if s[2] == "fresh"]
            entry["near_found"] = f"{sum(s[5] for s in near)}/{len(near)}"
            entry["fresh_matched"] = f"{sum(s[5] for s in fresh)}/{len(fresh)}"
        out[op] = entry
    return out


# -- one database -----------------------------------------------------------------------------
def run_db(db: str, url: str, pools: Pools, args: Any, build: dict[str, Any]) -> dict[str, Any]:
    """Start the server on ``url``, send the traffic, stop, clean up; the result row."""
    port = args.port or free_port()
    log = Path(tempfile.gettempdir()) / f"neardup-load-{db}.log"
    server = Server(url, port, args.workers, log)
    run_id = f"{int(time.time())}-{os.getpid()}"
    try:
        server.wait_ready()
        print(f"[{db}] server up: {' '.join(server.command)}", file=sys.stderr, flush=True)
        specs = client_specs(server.base_url, build["collection"], run_id, args)
        srv_procs = server.processes()
        pg_db = make_url(url).database if db == "postgresql" else None
        load0 = os.getloadavg()
        sys0 = psutil.cpu_times()
        srv0, pg0 = cpu_seconds(srv_procs), postgres_cpu(pg_db) if pg_db else {}
        t0 = time.perf_counter()
        results = run_clients(specs, pools)
        wall = time.perf_counter() - t0
        srv1 = cpu_seconds(srv_procs)
        pg_s = cpu_delta(pg0, postgres_cpu(pg_db)) if pg_db else 0.0
        sys1 = psutil.cpu_times()
        load1 = os.getloadavg()
        rss = sum(p.memory_info().rss for p in srv_procs if p.is_running())
    finally:
        server.stop()
    samples = [s for r in results for s in r.samples]
    busy = (sum(sys1) - sys1.idle - sys1.iowait) - (sum(sys0) - sys0.idle - sys0.iowait)
    mode = f"open {args.rate:g}/s" if args.rate else f"closed c={args.concurrency}"
    row = {
        "label": f"{db}, {mode}, {args.workers} worker(s)",
        "db": db,
        "url": url,
        "server_command": " ".join(server.command),
        "collection": build,
        "mode": "open" if args.rate else "closed",
        "rate": args.rate,
        "concurrency": args.concurrency,
        "clients": args.clients,
        "http": args.http,
        "workers": args.workers,
        "add_fraction": args.add_fraction,
        "duration_s": args.duration,
        "warmup_s": args.warmup,
        "seed": args.seed,
        "ops": summarise(samples, args),
        "cpu": {
            "wall_s": round(wall, 1),
            "server_s": round(srv1 - srv0, 1),
            "clients_s": round(sum(r.cpu_s for r in results), 1),
            "postgres_s": round(pg_s, 1) if pg_db else None,
            "machine_busy_s": round(busy, 1),
            "cores": psutil.cpu_count(),
            "server_rss_mb": round(rss / 2**20),
            "ms_per_request": {
                "server": round(1000 * (srv1 - srv0) / max(1, len(samples)), 2),
                "clients": round(1000 * sum(r.cpu_s for r in results) / max(1, len(samples)), 2),
                "postgres": round(1000 * pg_s / max(1, len(samples)), 2) if pg_db else None,
            },
        },
        "loadavg_start": [round(x, 2) for x in load0],
        "loadavg_end": [round(x, 2) for x in load1],
    }
    row["documents_added"] = sum(r.added for r in results)
    row["cleanup"] = remove_added(url, build["collection"])
    return row


def client_specs(base_url: str, name: str, run_id: str, args: Any) -> list[ClientSpec]:
    """Split concurrency and rate over ``args.clients`` processes."""
    n = args.clients
    start_at = time.time() + 1.0 + 0.5 * n
    return [
        ClientSpec(
            index=i,
            clients=n,
            base_url=base_url,
            collection=name,
            run_id=run_id,
            concurrency=max(1, args.concurrency // n + (i < args.concurrency % n)),
            rate=args.rate / n if args.rate else None,
            add_fraction=args.add_fraction,
            warmup=args.warmup,
            duration=args.duration,
            timeout=args.timeout,
            seed=args.seed,
            start_at=start_at,
            http=args.http,
        )
        for i in range(n)
    ]


def run_clients(specs: list[ClientSpec], pools: Pools) -> list[ClientResult]:
    """Run the clients (one process each when more than one)."""
    if len(specs) == 1:
        return [run_client(specs[0], pools)]
    ctx = mp.get_context("fork")
    with ctx.Pool(len(specs)) as pool:
        return pool.starmap(run_client, [(s, pools) for s in specs])


# -- output -----------------------------------------------------------------------------------
def table(rows: list[dict[str, Any]]) -> str:
    """A markdown table: one line per database and operation."""
    head = (
        "| db | traffic | workers | op | req/s | p50 ms | p95 ms | p99 ms | max ms | errors |"
        " timeouts | server CPU | client CPU | PG CPU | load avg start→end |\n"
        "|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n"
    )
    lines = []
    for r in rows:
        cpu, wall = r["cpu"], r["cpu"]["wall_s"]

        def share(key: str, c: dict = cpu, w: float = wall) -> str:
            v = c.get(key)
            return "–" if v is None else f"{v / w:.2f}"

        for op in ("check", "add", "all"):
            o = r["ops"][op]
            lines.append(
                f"| {r['db']} | {r['label'].split(', ')[1]} | {r['workers']} | {op} | "
                f"{o['ok_per_s']} | {o['p50_ms']} | {o['p95_ms']} | "
                f"{o['p99_ms']} | {o['max_ms']} | {o['errors']} | {o['timeouts']} | "
                f"{share('server_s')} | {share('clients_s')} | {share('postgres_s')} | "
                f"{r['loadavg_start'][0]}→{r['loadavg_end'][0]} |"
            )
    return head + "\n".join(lines)


def write_results(path: Path, rows: list[dict[str, Any]], meta: dict[str, Any]) -> None:
    """Merge ``rows`` into ``path`` (one row per database, mode and workers: a new run
    replaces the older one with the same ``label``)."""
    old: dict[str, Any] = {}
    if path.exists():
        with contextlib.suppress(ValueError):
            old = json.loads(path.read_text())
    new = {x["label"] for x in rows}
    keep = [r for r in old.get("runs", []) if r.get("label", r["db"]) not in new]
    runs = sorted(keep + rows, key=lambda r: r.get("label", r["db"]))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"meta": meta, "runs": runs}, indent=2) + "\n")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--docs", type=int, default=100_000, help="collection size")
    ap.add_argument("--db", choices=("sqlite", "postgresql", "both"), default="both")
    ap.add_argument("--sqlite", type=Path, default=DEFAULT_SQLITE, help="SQLite file")
    ap.add_argument("--pg", default=DEFAULT_PG, help="PostgreSQL URL (database created)")
    ap.add_argument("--duration", type=float, default=120.0, help="measured seconds")
    ap.add_argument("--warmup", type=float, default=5.0, help="seconds sent before measuring")
    ap.add_argument("--concurrency", type=int, default=16, help="requests in flight (max)")
    ap.add_argument("--rate", type=float, help="open loop: requests/s in total (else closed)")
    ap.add_argument("--clients", type=int, default=1, help="client processes")
    ap.add_argument("--workers", type=int, default=1, help="server processes (--workers)")
    ap.add_argument(
        "--http", choices=("raw", "httpx"), default="raw", help="client HTTP implementation"
    )
    ap.add_argument("--add-fraction", type=float, default=0.1)
    ap.add_argument("--timeout", type=float, default=10.0, help="per request, s")
    ap.add_argument("--pool", type=int, default=4000, help="pre-built bodies per kind")
    ap.add_argument("--seed", type=int, default=9)
    ap.add_argument("--port", type=int, help="server port (default: a free one)")
    ap.add_argument("--build-only", action="store_true", help="build collections, no load")
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args(argv)
    if args.docs < 100 or args.duration <= 0 or args.concurrency < 1 or args.clients < 1:
        ap.error("--docs >= 100, --duration > 0, --concurrency >= 1, --clients >= 1")
    if not 0.0 <= args.add_fraction <= 1.0:
        ap.error(f"--add-fraction {args.add_fraction}: allowed 0-1")
    return args


def main(argv: list[str] | None = None) -> None:
    """Build, load, report."""
    args = parse_args(argv)
    dbs = ["sqlite", "postgresql"] if args.db == "both" else [args.db]
    urls = {"sqlite": f"sqlite:///{args.sqlite}", "postgresql": args.pg}
    name = f"load-{args.docs}"
    t0 = time.perf_counter()
    docs = load(args.corpus, args.docs)
    print(f"loaded {len(docs)} documents in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    builds = {}
    for db in dbs:
        if db == "postgresql":
            ensure_pg_database(args.pg)
        builds[db] = build_collection(urls[db], name, docs)
        print(f"[{db}] {builds[db]}", file=sys.stderr, flush=True)
    if args.build_only:
        return
    pools = make_pools(docs, args.pool, args.seed)
    del docs
    rows = [run_db(db, urls[db], pools, args, builds[db]) for db in dbs]
    meta = {
        "command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]),
        "python": platform.python_version(),
        "cores": os.cpu_count(),
        "machine": platform.machine(),
        "finished": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "note": "closed loop = fixed requests in flight; open loop = fixed arrival rate, "
        "latency from the scheduled send time. CPU columns: CPU seconds per wall second "
        "(1.00 = one core) of the server, the client processes and the PostgreSQL "
        "processes; the machine has 2 cores and is shared with other jobs (load avg).",
    }
    for r in rows:
        r["args"] = {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()}
    write_results(args.out, rows, meta)
    print(table(rows))
    print(f"\nwrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
