"""Local worker processes forked from a warm fork server.

A ``LocalCluster``'s nanny starts each worker process with ``multiprocessing`` (Dask's
``distributed.worker.multiprocessing-method``, ``spawn`` by default): a new interpreter that
imports ``distributed`` (0.6-0.8 s on the 2-core machines of ``benchmarks/``) and, at its
first task, numpy and neardup's job modules. With ``forkserver`` one server process imports
them once and every worker is a ``fork()`` of it: the cluster starts in about 0.25 s
instead of 1 s, and closes in 0.05 s instead of 0.3 s (its children exit without tearing
down a fresh interpreter's imports).

:func:`start_fork_server` returns at once (the server imports in its own process): called
before the client imports ``distributed``, as ``neardup dedup --engine dask`` does, the
two imports run on two cores at the same time. The server is single-threaded (the BLAS
and OpenMP pools it imports are sized 1, as Dask sizes a worker's), so forking it is safe,
unlike forking the client, whose event loop runs in a thread.

Where the platform has no fork server (Windows), nothing changes: Dask spawns.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any

#: Modules the fork server imports before it forks a worker: Dask's worker, the job's task
#: modules (:mod:`neardup.distributed.executor` imports every one), the compiled kernels and
#: what the tasks import when they first run (fsspec, msgspec, the prepare kernel's
#: wrappers: 20-30 ms a worker, at its first task, before), and last :mod:`.preforked`
#: (Dask's version report, made once for every worker). One that fails to import is left
#: for the worker to import (``multiprocessing`` skips it).
WORKER_MODULES = (
    "distributed",
    "neardup.distributed.executor",
    "neardup.methods._kernel",
    "neardup.methods.kernel",
    "neardup.methods.shingle_methods",
    "neardup.text._scan",
    "neardup.text.vectorized",
    "neardup.output",
    "fsspec.implementations.local",
    "msgspec.json",
    "neardup.distributed.preforked",
)

#: The environment the server starts with: one thread in each numerical library's pool, as
#: Dask's ``distributed.nanny.pre-spawn-environ`` gives a spawned worker (the pools are
#: made when the server imports numpy, before any worker exists, so a worker's own
#: environment comes too late for them).
THREAD_LIMITS = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
#: ... and one glibc malloc arena (read when the server starts; its forks inherit it): a
#: Dask worker runs its tasks in a thread, whose own arena serves nothing over 64 MiB from
#: its heaps, so a block's large arrays (its 64 MiB of bytes, its sketches) were mapped
#: and unmapped afresh at every block, where the main arena's heap keeps freed memory
#: (:func:`neardup._memory.keep_freed_heap`). A million documents, two workers: the ingest
#: tasks' system time 5.2 s against 2.3 s, their thread CPU 22.5 s against 20.1 s, about
#: as many minor faults (2026-12-03). The other thread of a worker, its event loop,
#: allocates little, so one arena costs no waiting.
ONE_ARENA = {"MALLOC_ARENA_MAX": "1"}

METHOD = "forkserver"


def available() -> bool:
    """Whether this platform can fork workers from a server (POSIX; not Windows)."""
    return METHOD in multiprocessing.get_all_start_methods()


def start_fork_server() -> bool:
    """Start the fork server if it is not running, with :data:`WORKER_MODULES` to import and
    :data:`THREAD_LIMITS` and :data:`ONE_ARENA` in its environment; return at once (it
    imports in its own process). Idempotent: a running server (ours or one started before)
    is kept.

    Returns:
        True when workers can be forked from it; False where the platform has none.
    """
    if not available():
        return False
    from multiprocessing import forkserver

    multiprocessing.get_context(METHOD).set_forkserver_preload(list(WORKER_MODULES))
    with _environ({**THREAD_LIMITS, **ONE_ARENA}):
        forkserver.ensure_running()
    return True


def dask_settings() -> dict[str, Any]:
    """Dask configuration under which a nanny forks its worker from the server (empty where
    there is none); :func:`start_fork_server` is called first.

    Dask's own first use of a fork server imports every optional package it knows in the
    calling process, to hand their names to the server (pandas alone takes 0.7 s here, and
    the job uses none of them); our server is already running with its modules, so that
    step is marked done (``distributed.utils._forkserver_preload_set``) before Dask gets to
    it. Were the flag to go in a later Dask, the cost is that import, not a failure.
    """
    if not start_fork_server():
        return {}
    import distributed.utils

    distributed.utils._forkserver_preload_set = True
    return {"distributed.worker.multiprocessing-method": METHOD}


def stop_fork_server() -> bool:
    """Stop the running fork server at once: SIGTERM (which it leaves to the default
    action), then ``multiprocessing``'s own stop (it closes the server's pipe, reaps it and
    forgets it: a later worker starts a new server). For a process that started the server
    and is done with its workers (the console script's end).

    A server left to exit on its own tears down its imports after this process has exited
    (80-100 ms here), and holds this process's standard output and error open meanwhile: a
    caller that reads them to their end (a pipe, ``subprocess.run(capture_output=True)``)
    waited for that.

    Returns:
        True when a server was stopped; False when none was running.
    """
    from multiprocessing import forkserver

    server = forkserver._forkserver
    pid = getattr(server, "_forkserver_pid", None)  # CPython 3.4-3.14
    if pid is None:
        return False
    with suppress(ProcessLookupError):  # exited already: reaped below
        os.kill(pid, signal.SIGTERM)
    stop = getattr(server, "_stop", None)  # closes its pipe, reaps it, forgets it
    if stop is not None:
        with suppress(OSError):  # reaped by someone else: nothing left to forget
            stop()
    return True


@contextmanager
def _environ(values: dict[str, str]) -> Iterator[None]:
    """``os.environ`` with ``values`` set for the block; restored after."""
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
