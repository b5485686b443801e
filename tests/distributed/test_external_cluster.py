"""``neardup dedup --engine dask --scheduler`` on a cluster of separate processes, as on a
real cluster: a ``dask scheduler`` and two ``dask worker`` processes (the command-line entry
points of ``distributed``, each worker with its nanny, one thread), started here on free
ports of 127.0.0.1; the job's four files byte for byte those of ``--engine local``.

The workers import neardup from this source tree (``PYTHONPATH``, as the editable install of
CI gives them), so they run the code under test and not another installed copy.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from shared_data import data_path, require

require("distributed")  # a dev dependency: fails in CI, skips elsewhere

REPO = Path(__file__).resolve().parents[2]
FILES = ("pairs.jsonl", "clusters.jsonl", "dropped.jsonl", "skipped.jsonl")
WORKERS = 2
#: Seconds a process has to start (the scheduler's file, the workers' registration).
START_S = 60.0


def _environ() -> dict[str, str]:
    """This environment with the source tree first on ``PYTHONPATH``."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "src"), env.get("PYTHONPATH")]))
    return env


def _dask(*args: str, log: Path) -> subprocess.Popen[bytes]:
    """``dask ARGS`` (``python -m dask``: the ``dask`` console script's entry point) in a
    session of its own (so its children are stopped with it), output into ``log``."""
    with open(log, "wb") as fh:
        return subprocess.Popen(
            [sys.executable, "-m", "dask", *args],
            env=_environ(),
            stdout=fh,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the process group, SIGKILL after 10 s."""
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(10)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)
    except ProcessLookupError:
        pass


def _logs(logs: list[Path]) -> str:
    return "\n".join(f"--- {p.name}\n{p.read_text(errors='replace')[-3000:]}" for p in logs)


def _address(file: Path, proc: subprocess.Popen[bytes], logs: list[Path]) -> str:
    """The address the scheduler wrote into its ``--scheduler-file`` (waited for)."""
    deadline = time.monotonic() + START_S
    while proc.poll() is None and time.monotonic() < deadline:
        try:
            return str(json.loads(file.read_text())["address"])
        except (FileNotFoundError, json.JSONDecodeError, KeyError):  # not (all) written yet
            time.sleep(0.05)
    pytest.fail(f"dask scheduler did not start:\n{_logs(logs)}")


@pytest.fixture(scope="module")
def scheduler(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The address (``tcp://127.0.0.1:PORT``) of a ``dask scheduler`` process with
    :data:`WORKERS` ``dask worker`` processes registered (``--nthreads 1``); every process
    is stopped at the end of the module, killed if it does not stop."""
    from distributed import Client

    tmp = tmp_path_factory.mktemp("cluster")
    file = tmp / "scheduler.json"
    logs = [tmp / "scheduler.log"]
    procs = [
        _dask(
            "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
            "--scheduler-file", str(file), log=logs[0],
        )
    ]  # fmt: skip
    try:
        address = _address(file, procs[0], logs)
        for i in range(WORKERS):
            logs.append(tmp / f"worker{i}.log")
            procs.append(
                _dask(
                    "worker", address, "--nthreads", "1", "--host", "127.0.0.1",
                    "--no-dashboard", "--name", f"w{i}", log=logs[-1],
                )
            )  # fmt: skip
        with Client(address, timeout=START_S) as client:
            try:
                client.wait_for_workers(WORKERS, timeout=START_S)
            except TimeoutError:
                pytest.fail(f"dask workers did not register:\n{_logs(logs)}")
            # the workers run this tree's neardup, not the one of an installed copy
            where = client.run(lambda: __import__("neardup").__file__)
        assert len(where) == WORKERS
        assert all(Path(f).is_relative_to(REPO / "src") for f in where.values()), where
        yield address
    finally:
        for proc in reversed(procs):  # the workers, then the scheduler
            _stop(proc)


def _dedup(*args: str, out: Path) -> dict[str, bytes]:
    """``python -m neardup dedup ARGS --out OUT`` (the console script's entry point); the
    four files it wrote."""
    cmd = [sys.executable, "-m", "neardup", "dedup", *args, "--out", str(out), "--quiet"]
    try:
        done = subprocess.run(cmd, env=_environ(), capture_output=True, timeout=300)
    except subprocess.TimeoutExpired as exc:  # run() killed it
        pytest.fail(f"{cmd} did not end in 300 s: {exc.stderr!r}")
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-3000:]
    return {name: (out / name).read_bytes() for name in FILES}


def _same_as_local(scheduler: str, tmp: Path, source: Path, *dask_args: str) -> dict[str, bytes]:
    """The four files of ``--engine local`` and of ``--engine dask --scheduler`` (with
    ``dask_args``) on ``source``: equal byte for byte; the local job's."""
    local = _dedup(str(source), out=tmp / "local")
    dask = _dedup(
        str(source), "--engine", "dask", "--scheduler", scheduler, *dask_args, out=tmp / "dask"
    )
    for name in FILES:
        assert dask[name] == local[name], name
    summary = json.loads((tmp / "dask" / "summary.json").read_text())
    assert summary["executor"]["name"] == "dask"
    assert len(summary["executor"]["worker_peak_memory_mib"]) == WORKERS  # the external workers
    return local


def test_examples_corpus_on_an_external_cluster(scheduler: str, tmp_path: Path) -> None:
    """examples/corpus (a tree of txt, asc, html, wiki, gzip and bad files): 12 Pro Git
    chapters in two revisions, Chekhov's stories and an excerpt, skips for the bad files."""
    files = _same_as_local(scheduler, tmp_path, REPO / "examples" / "corpus")
    pairs = [json.loads(line) for line in files["pairs.jsonl"].splitlines()]
    skipped = [json.loads(line) for line in files["skipped.jsonl"].splitlines()]
    assert len(pairs) > 0 and len(skipped) > 0
    names = {(p["a"].split("/")[0], p["b"].split("/")[0]) for p in pairs}
    assert ("progit", "progit") in names


@pytest.mark.data
def test_progit_revisions_in_partitions_on_an_external_cluster(
    scheduler: str, tmp_path: Path
) -> None:
    """progit-ru-revisions (209 documents, 2.8 MB) in 1 MiB blocks: three partitions over the
    two workers, so documents and pairs cross the workers."""
    source = data_path("progit-ru-revisions", "docs.jsonl")
    files = _same_as_local(scheduler, tmp_path, source, "--block-mib", "1")
    summary = json.loads((tmp_path / "dask" / "summary.json").read_text())
    assert summary["documents"] == 209 and summary["executor"]["partitions"] == 3
    assert files["clusters.jsonl"].count(b"\n") == summary["clusters"] > 0
