"""The fork server local workers are forked from (neardup.distributed.forkserver)."""

from __future__ import annotations

import multiprocessing
import os
from multiprocessing import forkserver as mp_forkserver

import pytest

from neardup.distributed import forkserver
from shared_data import require


def _server_pid() -> int | None:
    """The running fork server's process id (``multiprocessing``'s own record)."""
    pid: int | None = getattr(mp_forkserver._forkserver, "_forkserver_pid")  # noqa: B009
    return pid


def _parent_and_modules() -> tuple[int, bool, str | None]:
    import sys

    return (
        os.getppid(),
        all(name in sys.modules for name in forkserver.WORKER_MODULES),
        os.environ.get("OPENBLAS_NUM_THREADS"),
    )


def test_workers_are_forked_from_the_warm_server() -> None:
    """A new cluster's workers are children of the fork server (not of this process, where
    the nanny lives), with the job's modules (and what its tasks import when they first
    run: fsspec, msgspec, the kernels' wrappers) imported before any task ran, and one BLAS
    thread. (The session cluster's worker that the kill test killed was restarted by its
    nanny outside ``local_cluster``'s settings: spawned, as Dask does by default.)"""
    distributed = require("distributed")
    from neardup.distributed.plan import local_cluster

    assert forkserver.available()
    with local_cluster(workers=2) as cluster, distributed.Client(cluster) as cli:
        got = list(cli.run(_parent_and_modules).values())
    server = _server_pid()
    assert server is not None and server != os.getpid()
    assert got == [(server, True, "1")] * 2


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
