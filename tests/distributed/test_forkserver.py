"""The fork server local workers are forked from (neardup.distributed.forkserver)."""

from __future__ import annotations

import json
import multiprocessing
import os
import sys
from multiprocessing import forkserver as mp_forkserver
from pathlib import Path

import pytest

from fresh_python import run_code
from neardup.distributed import forkserver
from shared_data import require


def _server_pid() -> int | None:
    """The running fork server's process id (``multiprocessing``'s own record)."""
    pid: int | None = getattr(mp_forkserver._forkserver, "_forkserver_pid")  # noqa: B009
    return pid


def _parent_and_modules() -> tuple[int, bool, str | None, bool]:
    import gc

    return (
        os.getppid(),
        all(name in sys.modules for name in forkserver.WORKER_MODULES),
        os.environ.get("OPENBLAS_NUM_THREADS"),
        gc.get_freeze_count() > len(gc.get_objects()),  # the imports out of collections
    )


def test_workers_are_forked_from_the_warm_server() -> None:
    """A new cluster's workers are children of the fork server (not of this process, where
    the nanny lives), with the job's modules (and what its tasks import when they first
    run: fsspec, msgspec, the kernels' wrappers) imported before any task ran, one BLAS
    thread, and the imports' objects frozen out of the garbage collector's generations
    (more of them frozen than left to collect). (The session cluster's worker that the
    kill test killed was restarted by its nanny outside ``local_cluster``'s settings:
    spawned, as Dask does by default.)"""
    distributed = require("distributed")
    from neardup.distributed.executor import local_cluster

    assert forkserver.available()
    with local_cluster(workers=2) as cluster, distributed.Client(cluster) as cli:
        got = list(cli.run(_parent_and_modules).values())
    server = _server_pid()
    assert server is not None and server != os.getpid()
    assert got == [(server, True, "1", True)] * 2


def test_start_is_idempotent() -> None:
    assert forkserver.start_fork_server()
    first = _server_pid()
    assert forkserver.start_fork_server()
    assert _server_pid() == first


def test_dask_settings_fork_without_dask_importing_its_optional_packages() -> None:
    require("distributed")
    import distributed.utils

    assert forkserver.dask_settings() == {"distributed.worker.multiprocessing-method": "forkserver"}
    assert distributed.utils._forkserver_preload_set is True


def test_environ_is_restored(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OMP_NUM_THREADS", "4")
    monkeypatch.delenv("MKL_NUM_THREADS", raising=False)
    with forkserver._environ({"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}):
        assert (os.environ["OMP_NUM_THREADS"], os.environ["MKL_NUM_THREADS"]) == ("1", "1")
    assert os.environ["OMP_NUM_THREADS"] == "4"
    assert "MKL_NUM_THREADS" not in os.environ


def test_no_fork_server_where_the_platform_has_none(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(multiprocessing, "get_all_start_methods", lambda: ["spawn"])
    assert not forkserver.start_fork_server()
    assert forkserver.dask_settings() == {}


def _version_report_ready() -> tuple[bool, int]:
    import platform

    import distributed.versions

    made = platform._uname_cache is not None and "processor" in vars(platform._uname_cache)  # type: ignore[attr-defined]
    return made, distributed.versions._version_cached.cache_info().currsize


def _report_in_child(queue: multiprocessing.Queue[tuple[bool, int]]) -> None:
    queue.put(_version_report_ready())


def test_a_forked_process_finds_dask_s_version_report_made() -> None:
    """A process forked from the server (a worker, before it registers) finds Dask's
    version report made by the server (:mod:`neardup.distributed.preforked`): no
    ``uname -p`` subprocess and no package metadata read in each worker."""
    require("distributed")
    assert forkserver.start_fork_server()
    ctx = multiprocessing.get_context("forkserver")
    queue: multiprocessing.Queue[tuple[bool, int]] = ctx.Queue()
    child = ctx.Process(target=_report_in_child, args=(queue,))
    child.start()
    made, packages = queue.get(timeout=60)
    child.join(timeout=60)
    assert made and packages > 0


def test_stop_ends_the_server_at_once_and_a_new_one_starts_after() -> None:
    """``stop_fork_server`` kills the server (SIGTERM: no teardown of its imports) and
    leaves ``multiprocessing`` able to start another; with none running it says so."""
    assert forkserver.start_fork_server()
    first = _server_pid()
    assert first is not None
    assert forkserver.stop_fork_server()
    assert _server_pid() is None
    with pytest.raises(ProcessLookupError):
        os.kill(first, 0)  # gone and reaped
    assert not forkserver.stop_fork_server()
    assert forkserver.start_fork_server()
    assert _server_pid() not in (None, first)


def test_the_console_script_stops_its_fork_server_at_its_end(tmp_path: Path) -> None:
    """``neardup dedup --engine dask`` (:func:`neardup.cli.entry.run`) stops the fork
    server it started when it ends: a server left to exit by itself tore down its imports
    after the command, holding the command's output open (70-100 ms)."""
    require("distributed")
    corpus = tmp_path / "c.jsonl"
    text = "the quick brown fox jumps over the lazy dog beside the old red barn today"
    corpus.write_text(
        "".join(json.dumps({"id": f"d{i}", "text": f"{text} {i}"}) + "\n" for i in range(20)),
        encoding="utf-8",
    )
    argv = ["neardup", "dedup", str(corpus), "--engine", "dask", "--workers", "1", "-q"]
    argv += ["--out", str(tmp_path / "out")]
    code = (
        "import sys\n"
        "from multiprocessing import forkserver\n"
        "from neardup.cli import entry\n"
        f"sys.argv = {argv!r}\n"
        "try:\n    entry.run()\nexcept SystemExit as exc:\n    done = exc.code\n"
        "print(done, forkserver._forkserver._forkserver_pid)\n"
    )
    res = run_code(code)
    assert res.stdout.splitlines()[-1] == "0 None", res.stderr[-2000:]
    assert (tmp_path / "out" / "summary.json").is_file()
