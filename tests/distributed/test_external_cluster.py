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
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest

from shared_data import data_path, require

require("distributed")  # a dev dependency: fails in CI, skips elsewhere

REPO = Path(__file__).resolve().parents[2]
FILES = ("pairs.jsonl", "clusters.jsonl", "dropped.jsonl", "skipped.jsonl")
WORKERS = 2
#: Seconds a process has to start (the scheduler's file, the workers' registration).
START_S = 60.0


def _environ(first: Path | None = None) -> dict[str, str]:
    """This environment with the source tree first on ``PYTHONPATH`` (after ``first``)."""
    env = dict(os.environ)
    paths = [str(first) if first else "", str(REPO / "src"), env.get("PYTHONPATH")]
    env["PYTHONPATH"] = os.pathsep.join(filter(None, paths))
    return env


def _dask(*args: str, log: Path, first: Path | None = None) -> subprocess.Popen[bytes]:
    """``dask ARGS`` (``python -m dask``: the ``dask`` console script's entry point) in a
    session of its own (so its children are stopped with it), output into ``log``;
    ``first``: a directory before the source tree on its ``PYTHONPATH``."""
    with open(log, "wb") as fh:
        return subprocess.Popen(
            [sys.executable, "-m", "dask", *args],
            env=_environ(first),
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


@contextmanager
def _cluster(tmp: Path, firsts: Sequence[Path | None]) -> Iterator[str]:
    """The address (``tcp://127.0.0.1:PORT``) of a ``dask scheduler`` process with a
    ``dask worker`` process (``--nthreads 1``) registered for each of ``firsts`` (the
    directory first on that worker's ``PYTHONPATH``, or None), logs in ``tmp``; every
    process is stopped at the end, killed if it does not stop."""
    from distributed import Client

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
        for i, first in enumerate(firsts):
            logs.append(tmp / f"worker{i}.log")
            procs.append(
                _dask(
                    "worker", address, "--nthreads", "1", "--host", "127.0.0.1",
                    "--no-dashboard", "--name", f"w{i}", log=logs[-1], first=first,
                )
            )  # fmt: skip
        with Client(address, timeout=START_S) as client:
            try:
                client.wait_for_workers(len(firsts), timeout=START_S)
            except TimeoutError:
                pytest.fail(f"dask workers did not register:\n{_logs(logs)}")
        yield address
    finally:
        for proc in reversed(procs):  # the workers, then the scheduler
            _stop(proc)


@pytest.fixture(scope="module")
def scheduler(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A :func:`_cluster` of :data:`WORKERS` workers running this tree's neardup, for the
    module."""
    from distributed import Client

    with _cluster(tmp_path_factory.mktemp("cluster"), [None] * WORKERS) as address:
        with Client(address, timeout=START_S) as client:
            # the workers run this tree's neardup, not the one of an installed copy
            where = client.run(lambda: __import__("neardup").__file__)
        assert len(where) == WORKERS
        assert all(Path(f).is_relative_to(REPO / "src") for f in where.values()), where
        yield address


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


def test_a_cluster_whose_workers_import_another_neardup_is_refused_naming_them(
    tmp_path: Path,
) -> None:
    """A worker whose neardup is of another version, and one whose neardup fails to import,
    make the job exit 2 at once with a message naming each worker and what it has, instead
    of Dask's traceback from the first task the second could not unpickle."""
    from neardup import __version__

    other, broken = tmp_path / "other" / "neardup", tmp_path / "broken" / "neardup"
    other.mkdir(parents=True)
    broken.mkdir(parents=True)
    (other / "__init__.py").write_text("")
    (other / "_version.py").write_text('__version__ = "9.9.9"\n')
    (broken / "__init__.py").write_text('raise ImportError("no kernel here")\n')
    with _cluster(tmp_path, [other.parent, broken.parent]) as address:
        source = REPO / "examples" / "corpus"
        cmd = [sys.executable, "-m", "neardup", "dedup", str(source), "--engine", "dask"]
        cmd += ["--scheduler", address, "--out", str(tmp_path / "out"), "--quiet"]
        done = subprocess.run(cmd, env=_environ(), capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr[-3000:]
    message = done.stderr.strip().splitlines()[-1]
    assert message.startswith(f"error: scheduler='{address}' is not allowed"), message
    assert f"workers import neardup {__version__} (" in message
    assert ": neardup 9.9.9" in message
    assert ": neardup fails to import: ImportError: no kernel here" in message
    assert not (tmp_path / "out" / "pairs.jsonl").exists()


def test_the_check_of_workers_names_one_without_neardup() -> None:
    """The answer of a worker without neardup at all (``ModuleNotFoundError``, which the
    source tree on every test process's path cannot give here); workers that have this
    version pass."""
    from neardup import __version__
    from neardup.distributed.executor import check_workers
    from neardup.errors import ParameterError

    class Answers:  # what Client.run(..., on_error="return") hands back
        def __init__(self, found: dict[str, object]) -> None:
            self.found = found

        def run(self, fn: object, *args: object, on_error: str) -> dict[str, object]:
            assert on_error == "return" and args == ("neardup._version:__version__",)
            return self.found

    check_workers(Answers({"tcp://a:1": __version__}), "client", "c")
    with pytest.raises(ParameterError, match=r"\(tcp://b:2: no neardup\)$"):
        check_workers(
            Answers({"tcp://a:1": __version__, "tcp://b:2": ModuleNotFoundError("neardup")}),
            "client",
            "c",
        )
