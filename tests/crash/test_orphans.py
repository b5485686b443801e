"""A dedup job killed with SIGKILL leaves no worker process behind (they die with it)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fresh_python import python_env

pytestmark = pytest.mark.slow  # `make test-fast` leaves this module out

STORIES = Path(__file__).resolve().parents[2] / "examples" / "corpus" / "chekhov"


def _children(pid: int) -> list[int]:
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
            except OSError:
                continue
            if int(stat[stat.rindex(")") + 2 :].split()[1]) == pid:
                out.append(int(d.name))
    return out


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


def test_killed_job_takes_its_workers_with_it(tmp_path: Path) -> None:
    paragraphs = [
        p for f in sorted(STORIES.glob("*.txt")) for p in f.read_text("utf-8").split("\n") if p
    ]
    corpus = tmp_path / "big.jsonl"
    with open(corpus, "w", encoding="utf-8") as f:
        for i in range(60_000):
            text = " ".join(paragraphs[(i * 7 + k) % len(paragraphs)] for k in range(3))
            f.write(json.dumps({"id": f"d{i}", "text": text}, ensure_ascii=False) + "\n")
    cmd = [sys.executable, "-c", "from neardup.cli.main import run; run()", "dedup", str(corpus),
           "--jobs", "2", "-q", "--out", str(tmp_path / "out")]  # fmt: skip
    quiet = subprocess.DEVNULL
    proc = subprocess.Popen(cmd, env=python_env(), stdout=quiet, stderr=quiet)
    workers: list[int] = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(workers) < 2 and proc.poll() is None:
        time.sleep(0.1)
        workers = _children(proc.pid)
    assert len(workers) >= 2, "the job never started its workers"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(_alive(w) for w in workers):
        time.sleep(0.1)
    assert not [w for w in workers if _alive(w)], "workers outlived the killed job"
