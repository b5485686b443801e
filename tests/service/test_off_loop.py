"""CPU-bound work of the service runs off the event loop, under a time budget (issue 41):
while an upload is read, a real uvicorn server on 127.0.0.1 (its own process) answers
``/health`` at once, and an upload over the budget gets 422 problem details, never a
frozen server."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from fresh_python import python_env
from neardup.store import Store
from served import served

#: A valid HTML page of 150,000 empty nested elements after one paragraph (4.6 MB): its
#: main-text extraction holds the GIL for 1.4 s (whatever the regular expressions do), so
#: read in a thread it froze every request; its text is the paragraph, so checking costs
#: nothing.
PARAGRAPH = "Кот сидел на окне и смотрел на улицу, где шёл дождь и бежали люди с зонтами. "
NESTED = "<div><span><b></b></span></div>"
SERVER = """
import sys
import uvicorn
from neardup.service import ServiceConfig, create_app
db, port, budget = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
cfg = ServiceConfig(db=db, crawl=False, fetch_sources=False, cpu_budget=budget)
uvicorn.run(create_app(cfg), host="127.0.0.1", port=port, log_level="warning")
"""


def _html(elements: int) -> bytes:
    page = f"<html><body><p>{PARAGRAPH * 5}</p>{NESTED * elements}</body></html>"
    return page.encode()


@contextmanager
def _server(db: str, tmp_path: Path, *, budget: float = 30.0) -> Iterator[str]:
    """A service on 127.0.0.1 in its own process (uvicorn, as ``neardup serve`` runs it)."""

    def command(port: int) -> list[str]:
        return [sys.executable, "-c", SERVER, db, str(port), str(budget)]

    with served(command, tmp_path / "server.log") as (base, _):
        yield base


@pytest.fixture
def db(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'loop.db'}"
    with Store(url) as st:
        st.create_collection("c", "minhash-lsh", threshold=0.5)
    return url


#: Posts the file on stdin (a client process of its own: a thread of the test would share
#: the probe's GIL, and its multipart encoding would count as the server's delay).
CLIENT = """
import sys, time, httpx
base, route = sys.argv[1], sys.argv[2]
files = {"file": ("page.html", sys.stdin.buffer.read(), "text/html")}
form = {"collection": "c"} if route == "/check" else None
t0 = time.monotonic()
r = httpx.post(base + route, files=files, data=form, timeout=300)
print(r.status_code, time.monotonic() - t0)
"""


@pytest.mark.parametrize("route", ["/collections/c/check/file", "/check"])
def test_health_answers_while_a_heavy_upload_is_read(db: str, route: str, tmp_path: Path) -> None:
    with _server(db, tmp_path) as base, httpx.Client(base_url=base, timeout=60) as probe:
        # a served check first: the first one imports the method's modules (a one-time cost)
        short = {"file": ("short.txt", (PARAGRAPH * 5).encode())}
        assert probe.post("/collections/c/check/file", files=short).status_code == 200
        client = subprocess.Popen(
            [sys.executable, "-c", CLIENT, base, route],
            env=python_env(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        assert client.stdin is not None
        client.stdin.write(_html(150_000))
        client.stdin.close()
        waits, start = [], time.monotonic()
        while client.poll() is None:
            t0 = time.monotonic()
            assert probe.get("/health").status_code == 200
            waits.append((time.monotonic() - t0, t0 - start))
            time.sleep(0.02)
        assert client.stdout is not None
        status, seconds = client.stdout.read().decode().split()
        client.stdout.close()
    assert status == "200"
    assert float(seconds) > 0.5 and len(waits) >= 10  # /health was asked during the work
    # Read on the loop or in a thread, the parse held the loop for all its seconds. Off
    # it, /health answers within 100 ms; on a loaded CI machine the OS may still pause the
    # server now and then (asyncio's debug mode saw no callback over 50 ms here), so 9 in
    # 10 probes must meet the 100 ms and none may wait a second.
    quick = sorted(w for w, _ in waits)[int(len(waits) * 0.9)]
    worst, at = max(waits)
    assert quick < 0.1, f"/health: 1 probe in 10 waited over {quick:.3f} s"
    assert worst < 1.0, f"/health waited {worst:.3f} s, {at:.2f} s into the upload"


def test_an_upload_over_the_budget_gets_422_and_the_server_goes_on(db: str, tmp_path: Path) -> None:
    with (
        _server(db, tmp_path, budget=0.3) as base,
        httpx.Client(base_url=base, timeout=60) as client,
    ):
        t0 = time.monotonic()
        big = {"file": ("big.html", _html(150_000))}
        r = client.post("/collections/c/check/file", files=big)
        took = time.monotonic() - t0
        assert r.status_code == 422, r.text[:300]
        assert r.headers["content-type"].startswith("application/problem+json")
        assert "budget of 0.3 s" in r.json()["detail"]
        assert took < 10  # stopped at the budget, not after the whole parse
        assert client.get("/health").status_code == 200
        small = {"file": ("short.txt", (PARAGRAPH * 5).encode())}
        again = client.post("/collections/c/check/file", files=small)
        assert again.status_code == 200 and again.json()["matches"] == [], again.text
