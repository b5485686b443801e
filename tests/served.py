"""A service process for the tests that need a real server (its own event loop, its own
process title): a free 127.0.0.1 port, the command started on it, ``/health`` awaited."""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from fresh_python import python_env


def free_port() -> int:
    """A TCP port on 127.0.0.1 free at the time of the call."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def served(
    command: Callable[[int], list[str]], log: Path, *, start_s: float = 60
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """Run ``command(port)`` (on the session's import path, output to ``log``) until its
    ``/health`` answers 200; yield its base URL and process; terminate it at the end.
    Fails with the log when the process exits, or does not answer in ``start_s`` seconds."""
    port = free_port()
    with log.open("wb") as out:
        proc = subprocess.Popen(
            command(port), stdout=out, stderr=subprocess.STDOUT, env=python_env()
        )
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + start_s
            while True:
                assert proc.poll() is None, log.read_text(errors="replace")
                assert time.monotonic() < deadline, f"no /health in {start_s} s: {command(port)}"
                try:
                    if httpx.get(f"{base}/health", timeout=2).status_code == 200:
                        break
                except httpx.TransportError:
                    time.sleep(0.1)
            yield base, proc
        finally:
            proc.terminate()
            proc.wait(30)
