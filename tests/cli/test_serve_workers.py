"""``neardup serve --workers N``: several server processes on one port and one database."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import psutil
import pytest
from typer.testing import CliRunner

from neardup.cli.main import app

NEARDUP = str(Path(sys.executable).with_name("neardup"))
TEXT = (
    "Кот сидел на окне и смотрел на улицу, где шёл дождь и бежали люди с зонтами, "
    "а во дворе лаяла собака и дети пускали кораблики по лужам до самого вечера."
)


def _port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait(base: str, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert proc.poll() is None, "neardup serve exited early"
        try:
            if httpx.get(f"{base}/health", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    raise AssertionError("neardup serve --workers did not answer /health within 60 s")


@pytest.mark.slow
def test_two_workers_serve_one_database(tmp_path: Path) -> None:
    port, db = _port(), f"sqlite:///{tmp_path / 'w.db'}"
    cmd = [NEARDUP, "serve", "--db", db, "--port", str(port), "--no-crawl", "--workers", "2"]
    proc = subprocess.Popen(
        [*cmd, "--token", "s3cret"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    base = f"http://127.0.0.1:{port}"
    try:
        _wait(base, proc)
        workers = psutil.Process(proc.pid).children(recursive=True)
        auth = {"Authorization": "Bearer s3cret"}
        with httpx.Client(base_url=base, timeout=30) as client:
            body = {"name": "lib", "method": "minhash-lsh", "threshold": 0.5}
            assert client.post("/collections", json=body).status_code == 401
            assert client.post("/collections", json=body, headers=auth).status_code == 201
            doc = {"id": "cat", "text": TEXT}
            added = client.post("/collections/lib/documents", json=doc, headers=auth)
            assert added.status_code == 201 and added.json()["added"] == 1
            # every request may land on either process: all of them see the same database
            for _ in range(6):
                found = client.post("/collections/lib/check", json={"text": TEXT}).json()
                assert [m["id"] for m in found["matches"]] == ["cat"]
                assert found["matches"][0]["resemblance"] == 1.0
        assert len([w for w in workers if w.is_running()]) >= 2
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stderr is not None:
            proc.stderr.close()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--workers", "2"], "needs --no-crawl"),
        (["--workers", "0", "--no-crawl"], "allowed 1-64"),
        (["--workers", "65", "--no-crawl"], "allowed 1-64"),
    ],
)
def test_worker_count_errors_are_usage_errors(args: list[str], message: str) -> None:
    result = CliRunner().invoke(app, ["serve", "--db", "sqlite://", *args])
    assert result.exit_code == 2
    assert message in result.output
