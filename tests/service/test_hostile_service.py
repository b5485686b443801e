"""Issue 27 items 10, 11, 12 and the low service items, against a real ``neardup serve``
on 127.0.0.1 (started here, stopped at the end; every loop is bounded) and in-process
apps on SQLite and PostgreSQL."""

from __future__ import annotations

import contextlib
import resource
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import psutil
import pytest
from fastapi.testclient import TestClient

from neardup.service import ServiceConfig, create_app
from neardup.store import Store
from store._db import unique

NEARDUP = str(Path(sys.executable).with_name("neardup"))
TOKEN = "s3cret-Token-27"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
#: the server's open-file limit: idle sockets past it would make every request fail
FILE_LIMIT = 256


def _port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _low_file_limit() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (FILE_LIMIT, FILE_LIMIT))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int, int]]:
    """``neardup serve`` (SQLite) with a token file, 1 s header timeout, 2 s body timeout,
    at most 64 connections, 256 open files: ``(base URL, port, pid)``."""
    tmp = tmp_path_factory.mktemp("serve")
    (tmp / "token").write_text(TOKEN + "\n")
    port = _port()
    cmd = [
        NEARDUP, "serve", "--db", f"sqlite:///{tmp / 's.db'}", "--port", str(port),
        "--no-crawl", "--token-file", str(tmp / "token"), "--header-timeout", "1",
        "--body-timeout", "2", "--max-connections", "64",
    ]  # fmt: skip
    proc = subprocess.Popen(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=_low_file_limit
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert proc.poll() is None, proc.stderr.read().decode()[-2000:]  # type: ignore[union-attr]
            with contextlib.suppress(httpx.TransportError):
                if httpx.get(f"{base}/health", timeout=2).status_code == 200:
                    break
            time.sleep(0.2)
        body = {"name": "c", "method": "shingles-full"}
        assert httpx.post(f"{base}/collections", json=body, headers=AUTH).status_code == 201
        yield base, port, proc.pid
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=30)
        if proc.stderr is not None:
            proc.stderr.close()  # else left to the garbage collector (a ResourceWarning)


@pytest.mark.slow
def test_a_token_file_keeps_the_token_out_of_the_process_list(
    server: tuple[str, int, int],
) -> None:
    base, _, pid = server
    assert TOKEN not in " ".join(psutil.Process(pid).cmdline())
    body = {"name": unique(), "method": "minhash-lsh"}
    assert httpx.post(f"{base}/collections", json=body).status_code == 401
    assert httpx.post(f"{base}/collections", json=body, headers=AUTH).status_code == 201


@pytest.mark.slow
def test_a_foreign_host_is_refused(server: tuple[str, int, int]) -> None:
    """Item 10 (DNS rebinding): a Host not allowed gets 421, even for a UI form post whose
    Origin matches it; the bound address and localhost names are served."""
    base, port, _ = server
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", "localhost"):
        assert httpx.get(f"{base}/health", headers={"Host": host}).status_code == 200
    evil = f"rebind.example:{port}"
    r = httpx.get(f"{base}/health", headers={"Host": evil})
    assert r.status_code == 421
    assert r.headers["content-type"] == "application/problem+json"
    form = {"url": "http://library.example/", "collection": "c"}
    headers = {"Host": evil, "Origin": f"http://{evil}", "Accept": "text/html"}
    r = httpx.post(f"{base}/queue/add", data=form, headers=headers)
    assert r.status_code == 421
    assert httpx.get(f"{base}/libraries").json() == []


def _recv_closed(sock: socket.socket, deadline: float) -> bool:
    """Did the server close ``sock`` before ``deadline``?"""
    while time.monotonic() < deadline:
        sock.settimeout(max(deadline - time.monotonic(), 0.01))
        try:
            if sock.recv(4096) == b"":
                return True
        except TimeoutError:
            return False
        except OSError:
            return True
    return False


@pytest.mark.slow
def test_half_sent_headers_are_closed_after_the_header_timeout(
    server: tuple[str, int, int],
) -> None:
    """Item 11: 40 connections sending half a request head are all closed within the
    1 s header timeout (plus slack); they stayed open past 45 s."""
    _, port, _ = server
    socks = []
    try:
        for _ in range(40):
            s = socket.create_connection(("127.0.0.1", port))
            s.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            socks.append(s)
        deadline = time.monotonic() + 6
        assert all(_recv_closed(s, deadline) for s in socks)
    finally:
        for s in socks:
            s.close()


@pytest.mark.slow
def test_idle_sockets_cannot_take_every_file(server: tuple[str, int, int]) -> None:
    """Item 11: 300 idle sockets against a server with 256 open files and a limit of 64
    connections: /health still answers at once (past the limit a socket is closed at
    once, below it after the header timeout)."""
    base, port, _ = server
    socks = []
    try:
        for _ in range(300):
            with contextlib.suppress(OSError):
                socks.append(socket.create_connection(("127.0.0.1", port), timeout=2))
        time.sleep(0.3)
        r = httpx.get(f"{base}/health", timeout=5)
        assert r.status_code == 200
    finally:
        for s in socks:
            s.close()


def _rss(pid: int) -> int:
    return int(psutil.Process(pid).memory_info().rss)


@pytest.mark.slow
def test_bodies_in_flight_are_bounded(server: tuple[str, int, int]) -> None:
    """Item 12: 40 unfinished 9.9 MB bodies on the open check route: the server buffers at
    most 4 x the body limit (40 MB) over all of them and answers the rest 503; its RSS
    grows by less than 120 MB (112 -> 505 MiB in the probe)."""
    base, port, pid = server
    before = _rss(pid)
    chunk = b"x" * (1 << 20)
    socks, peak = [], before
    try:
        for _ in range(40):
            s = socket.create_connection(("127.0.0.1", port), timeout=2)
            head = (
                "POST /collections/c/check HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                "Content-Type: application/json\r\nContent-Length: 9900000\r\n\r\n"
            )
            s.sendall(head.encode())
            with contextlib.suppress(OSError):
                for _ in range(9):
                    s.sendall(chunk)
            socks.append(s)
            peak = max(peak, _rss(pid))
        time.sleep(0.5)
        peak = max(peak, _rss(pid))
        assert peak - before < 120 * 2**20, (before, peak)
        assert httpx.get(f"{base}/health", timeout=5).status_code == 200
    finally:
        for s in socks:
            s.close()


# -- in-process ----------------------------------------------------------------------------
@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    store = Store(db_url)
    cfg = ServiceConfig(token=TOKEN, crawl=False, fetch_sources=False)
    with TestClient(create_app(cfg, store=store), raise_server_exceptions=False) as c:
        yield c
    store.close()


def test_a_json_body_nested_40000_deep_gets_400(client: TestClient) -> None:
    name = unique()
    assert (
        client.post(
            "/collections", json={"name": name, "method": "minhash-lsh"}, headers=AUTH
        ).status_code
        == 201
    )
    body = b'{"text": "a b c d", "x": ' + b"[" * 40_000 + b"]" * 40_000 + b"}"
    assert len(body) < 81_000
    r = client.post(
        f"/collections/{name}/check", content=body, headers={"Content-Type": "application/json"}
    )
    assert r.status_code == 400
    assert r.headers["content-type"] == "application/problem+json"
    assert r.json()["detail"] == "request body nested too deeply to be read"


def test_every_answer_says_nosniff(client: TestClient) -> None:
    answers = [
        client.get("/health"),  # JSON
        client.get("/collections/none-such"),  # problem details
        client.get("/static/style.css"),  # a static file
        client.post("/collections", json={"name": "x"}),  # 401 problem
    ]
    assert [r.status_code for r in answers] == [200, 404, 200, 401]
    assert all(r.headers.get("x-content-type-options") == "nosniff" for r in answers)


def test_token_guessing_is_throttled(client: TestClient) -> None:
    """Ten wrong tokens in a minute from one address: the next write or credentialed
    request gets 429 with Retry-After (even with the right token); reads stay open."""
    body = {"name": unique()}
    wrong = [
        client.post("/collections", json=body, headers={"Authorization": f"Bearer guess{i}"})
        for i in range(10)
    ]
    assert {r.status_code for r in wrong} == {401}
    r = client.post("/collections", json=body, headers={"Authorization": "Bearer guess10"})
    assert r.status_code == 429
    assert 1 <= int(r.headers["retry-after"]) <= 61
    assert client.post("/collections", json=body, headers=AUTH).status_code == 429
    assert client.get("/health").status_code == 200


@pytest.mark.slow
def test_a_large_ui_check_costs_about_what_the_api_check_costs(client: TestClient) -> None:
    """Low item: a 0.6 MB text matching five stored copies took 11.3 s on the check page
    (0.6 s over the JSON API): passages were searched on the whole texts, five times.
    Now they are searched on the shown parts, and the page costs a small multiple of the
    API check measured beside it (0.13 s against 0.05 s of CPU on a quiet machine).

    Both are timed in this process, where earlier tests' threads and the collector also
    spend CPU: the best of two tries of each, after a collection, is compared, so noise
    that a fixed bound (1.5 s, once missed at 1.61 s in a full run) let through cancels."""
    import gc
    import random

    rng = random.Random(27)
    words = [f"word{i}" for i in range(20_000)]
    text = " ".join(rng.choice(words) for _ in range(66_000))
    assert 550_000 < len(text.encode()) < 650_000
    name = unique("ui")
    assert (
        client.post(
            "/collections", json={"name": name, "method": "minhash-lsh"}, headers=AUTH
        ).status_code
        == 201
    )
    docs = [{"id": f"copy{i}", "text": f"copy {i} " + text} for i in range(5)]
    r = client.post(f"/collections/{name}/documents/batch", json={"documents": docs}, headers=AUTH)
    assert r.json()["added"] == 5

    def page() -> float:
        gc.collect()
        start = time.process_time()
        got = client.post(
            "/check", data={"collection": name, "text": text}, headers={"Accept": "text/html"}
        )
        spent = time.process_time() - start
        assert got.status_code == 200
        assert got.text.count("copy4") >= 1
        return spent

    def api() -> float:
        gc.collect()
        start = time.process_time()
        got = client.post(f"/collections/{name}/check", json={"text": text}, headers=AUTH)
        spent = time.process_time() - start
        assert got.status_code == 200
        assert {m["id"] for m in got.json()["matches"]} >= {f"copy{i}" for i in range(5)}
        return spent

    ui = min(page(), page())
    json_check = min(api(), api())
    # Searching the whole texts five times cost 19x the API check; the shown parts ~3x.
    assert ui < 5 * json_check + 0.3, (ui, json_check)
