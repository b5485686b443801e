"""Issue 27 item 1: decompression bombs in the crawler. The page cap holds for the
inflated body, for every content coding a server may send (a 423-byte brotli page made
597 MiB, a 90 KB zstd page 1.6 GiB when each network chunk was inflated whole).

The servers are ``http.server`` threads on 127.0.0.1 started here; they stop with the test.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from crawl._bombs import small
from neardup.crawl.fetch import Fetcher
from neardup.crawl.settings import CrawlSettings

SETTINGS = CrawlSettings(allow_private=True, delay=0.0, retries=0, timeout=20.0,
                         max_page_bytes=1 << 20)  # fmt: skip


@contextmanager
def serve_bodies(bodies: dict[str, tuple[str, bytes]]) -> Iterator[str]:
    """An HTTP server on 127.0.0.1 answering ``/<name>`` with ``(coding, body)``."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path == "/robots.txt":
                self.send_response(404)
                self.end_headers()
                return
            coding, body = bodies[self.path.strip("/")]
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            if coding != "identity":
                self.send_header("Content-Encoding", coding)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            with contextlib.suppress(OSError):  # the crawler hangs up at the cap
                self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _fetch(base: str, names: list[str]) -> dict[str, tuple[str, bytes, str]]:
    async def main() -> dict[str, tuple[str, bytes, str]]:
        async with Fetcher(SETTINGS) as f:
            out: dict[str, tuple[str, bytes, str]] = {}
            for n in names:
                r = await f.fetch(f"{base}/{n}")
                out[n] = (r.outcome, r.body, r.error)
            return out

    return asyncio.run(main())


def test_only_codings_inflated_in_bounded_steps_are_asked_for() -> None:
    from neardup.crawl.fetch import CODINGS

    assert set(CODINGS) <= {"gzip", "deflate", "br"}
    assert "zstd" not in CODINGS


@pytest.mark.parametrize("coding", ["gzip", "deflate", "br"])
def test_compressed_pages_round_trip(coding: str) -> None:
    page = ("<html><body><p>Near-duplicate pages differ in their boilerplate.</p>" * 300).encode()
    with serve_bodies({"p": (coding, small(coding, page))}) as base:
        outcome, body, error = _fetch(base, ["p"])["p"]
    assert (outcome, error) == ("ok", "")
    assert body == page


def test_an_unasked_coding_fails_with_its_name() -> None:
    with serve_bodies({"z": ("zstd", small("zstd", b"<p>hello</p>"))}) as base:
        outcome, body, error = _fetch(base, ["z"])["z"]
    assert (outcome, body) == ("failed", b"")
    assert error == "Content-Encoding 'zstd' is not supported"


def _env() -> dict[str, str]:
    """This environment with the tests folder importable (the child imports the helpers)."""
    tests = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    path = os.environ.get("PYTHONPATH", "")
    return {**os.environ, "PYTHONPATH": f"{path}{os.pathsep}{tests}" if path else tests}


_BOMB_SCRIPT = textwrap.dedent(
    """
    import json, sys
    from crawl._bombs import bomb
    from crawl.test_fetch_bombs import serve_bodies, _fetch

    def hwm():
        for line in open("/proc/self/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024

    codings = sys.argv[1].split(",")
    bodies = {c: (c, bomb(c, 512)) for c in codings}
    wire = {c: len(b[1]) for c, b in bodies.items()}
    before = hwm()
    with serve_bodies(bodies) as base:
        results = _fetch(base, codings)
    print(json.dumps({"before": before, "after": hwm(), "wire": wire,
                      "results": {c: [r[0], r[2]] for c, r in results.items()}}))
    """
)


@pytest.mark.slow
def test_bombs_of_every_coding_stop_at_the_page_cap() -> None:
    """512 MiB of zeros in each coding (gzip ~0.5 MB, deflate ~0.5 MB, br ~1 KB, zstd
    ~16 KB on the wire) against a 1 MiB page cap: each fails, and the peak RSS of the
    fetching process grows by less than 64 MB."""
    codings = ["gzip", "deflate", "br", "zstd"]
    out = subprocess.run(
        [sys.executable, "-c", _BOMB_SCRIPT, ",".join(codings)],
        capture_output=True, text=True, timeout=300, check=True, env=_env(),
    )  # fmt: skip
    figures = json.loads(out.stdout.strip().splitlines()[-1])
    assert figures["after"] - figures["before"] < 64 * 2**20, figures
    results = figures["results"]
    for c in ("gzip", "deflate", "br"):
        assert results[c] == ["failed", "larger than max_page_bytes=1048576"], figures
    assert results["zstd"] == ["failed", "Content-Encoding 'zstd' is not supported"]
