"""The Dask executor: the partitioned dedup job (:mod:`.stages`) on a Dask cluster
(``dedup(..., executor="dask")``, ``neardup dedup --engine dask``), its tasks run by a
``distributed.Client`` (:class:`DaskTasks`); see ``docs/distributed.md``. Dask is imported
when a job runs.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, ClassVar

from neardup.distributed import forkserver, io
from neardup.distributed.stages import (
    DEFAULT_BLOCK_BYTES,
    out_dir_of,
    planned,
    run_partitioned,
)
from neardup.distributed.tasks import TaskRunner
from neardup.errors import ParameterError, check_int
from neardup.job.pipeline import DedupOptions, DedupResult, Job, dedup
from neardup.methods.base import Method
from neardup.text.units import ReadOptions

#: Input bytes up to which the job's own ``LocalCluster`` has its blocks' lines counted on
#: the client while it starts (:func:`_lines_counted_here`): 40 ms at 226 MB here, in the
#: 0.1 s the start takes; a million documents (2.3 GB, 0.4 s) are counted by the workers.
COUNT_HERE_BYTES = 512 << 20


class DaskTasks(TaskRunner):
    """The partitioned job's tasks on a ``distributed.Client``: a handle is a Dask future;
    tasks are impure (``pure=False``: each submission runs, keyed by the runner or by
    ``key``); :meth:`map` is one ``Client.map``, :meth:`holders` asks the scheduler
    (``who_has``) and :meth:`on_workers` is ``Client.run``."""

    def __init__(self, client: Any) -> None:
        self.client = client

    def submit(
        self,
        fn: Callable[..., Any],
        *args: Any,
        key: str | None = None,
        where: list[str] | None = None,
        **kwargs: Any,
    ) -> Any:
        """A future of ``fn(*args, **kwargs)`` (see :meth:`TaskRunner.submit`); ``where``:
        the workers it should run on, loosely (elsewhere if they are gone)."""
        how: dict[str, Any] = {"pure": False}
        if key is not None:
            how["key"] = key
        if where is not None:
            how.update(workers=where, allow_other_workers=True)
        return self.client.submit(fn, *args, **how, **kwargs)

    def gather(self, handles: Any) -> Any:
        """``Client.gather`` (nested lists, tuples and dicts of futures and values)."""
        return self.client.gather(handles)

    def map(self, fn: Callable[..., Any], items: Iterable[Any], **kwargs: Any) -> list[Any]:
        """``Client.map`` (impure)."""
        return list(self.client.map(fn, list(items), pure=False, **kwargs))

    def wait(self, handles: Sequence[Any]) -> None:
        """``distributed.wait``: done, not gathered."""
        from distributed import wait

        wait(list(handles))

    def holders(self, handles: Sequence[Any]) -> list[list[str] | None]:
        """The scheduler's ``who_has`` of each (done) future; None where it knows none."""
        where = self.client.who_has(list(handles))
        return [list(where.get(f.key, ())) or None for f in handles]

    def workers(self) -> int:
        """The cluster's workers now (at least 1)."""
        return max(1, len(self.places()))

    def places(self) -> list[str]:
        """The cluster's workers' addresses now, sorted."""
        return sorted(self.client.scheduler_info().get("workers", {}))

    def on_workers(self, fn: Callable[[], Any]) -> dict[str, Any]:
        """``Client.run``: ``{worker address: fn()}``."""
        return dict(self.client.run(fn))


@dataclass(frozen=True, kw_only=True)
class DaskExecutor:
    """Runs a job on a Dask cluster; the workers write the job's files into ``out_dir``
    (``pairs.jsonl``, ``clusters.jsonl``, ``dropped.jsonl``, ``skipped.jsonl``, then
    ``summary.json``) and the result is read back from them (the clusters and dropped
    documents are taken from the keep task itself when one task ran it).

    Attributes:
        out_dir: output directory (local path or fsspec URL) writable by every worker and
            by the client. None: a temporary local directory, removed at the end (only with
            the default ``LocalCluster``: workers elsewhere could not write it).
        client: a ``distributed.Client`` to use; else one is made for ``scheduler``
            (``tcp://host:8786``) or a ``LocalCluster`` of ``workers`` processes (default
            2), one thread each, closed at the end.
        block_bytes: target size of a plain JSONL block (partition), bytes (>= 1 MiB).
        reduce_partitions: partitions of the shuffled key, pair and edge tables (default:
            :func:`~neardup.distributed.stages.reduce_count`).

    Raises:
        ParameterError: ``block_bytes`` < 1 MiB; no ``out_dir`` with a ``client`` or
            ``scheduler``; ``workers`` with ``scheduler`` or ``client``.
    """

    name: ClassVar[str] = "dask"
    settings: ClassVar[tuple[str, ...]] = ()
    writes_files: ClassVar[bool] = True

    out_dir: str | os.PathLike[str] | None = None
    client: Any = None
    scheduler: str | None = None
    workers: int | None = None
    block_bytes: int = DEFAULT_BLOCK_BYTES
    reduce_partitions: int | None = None

    def __post_init__(self) -> None:
        check_int("block_bytes", self.block_bytes, low=1 << 20)
        if self.out_dir is None and (self.client is not None or self.scheduler is not None):
            raise ParameterError("out_dir", None, "a directory every worker can write")
        if self.workers is not None:
            check_int("workers", self.workers, low=1)
            if self.client is not None or self.scheduler is not None:
                raise ParameterError("workers", self.workers, "None with a client or scheduler")

    def run(self, job: Job) -> DedupResult:
        """Run ``job`` on the cluster.

        Raises:
            ParameterError: what the workers cannot do, named: ``keep_by`` (they decide
                without the record fields), documents or texts as the source (the workers
                read input paths), or a read option that selects files or cuts the stream
                (``include``, ``exclude``, ``recursive``, ``glob``, ``limit``).
        """
        blocks, k = planned(job, self.name, self.block_bytes)
        with (
            out_dir_of(self.out_dir) as out,
            _client(self.client, self.scheduler, self.workers, blocks) as (cli, counted),
        ):
            return run_partitioned(
                job,
                DaskTasks(cli),
                blocks,
                k,
                executor=self.name,
                out_dir=out,
                reduce_partitions=self.reduce_partitions,
                counted=counted,
            )


def dedup_dask(
    inputs: Sequence[str | os.PathLike[str]],
    out_dir: str | os.PathLike[str] | None = None,
    *,
    method: str | Method = "shingles-full",
    options: DedupOptions | None = None,
    read_options: ReadOptions | dict[str, Any] | None = None,
    client: Any = None,
    scheduler: str | None = None,
    workers: int | None = None,
    block_bytes: int = DEFAULT_BLOCK_BYTES,
    reduce_partitions: int | None = None,
    against: Sequence[str | os.PathLike[str]] | None = None,
    within: bool = True,
    **method_params: Any,
) -> DedupResult:
    """:func:`neardup.dedup` of input paths with a :class:`DaskExecutor` of ``out_dir``,
    ``client``, ``scheduler``, ``workers``, ``block_bytes`` and ``reduce_partitions``
    (its attributes); the other arguments are :func:`neardup.dedup`'s.

    Raises:
        ParameterError: what :func:`neardup.dedup` and :meth:`DaskExecutor.run` refuse.
        InputError: an input does not exist, is standard input, or is a URL naming (or
            holding) a file that is not JSONL/Parquet.
    """
    executor = DaskExecutor(
        out_dir=out_dir,
        client=client,
        scheduler=scheduler,
        workers=workers,
        block_bytes=block_bytes,
        reduce_partitions=reduce_partitions,
    )
    return dedup(
        list(inputs),
        method=method,
        options=options,
        read_options=read_options,
        texts=False,
        against=None if against is None else list(against),
        within=within,
        executor=executor,
        **method_params,
    )


@contextmanager
def _lines_counted_here(blocks: Sequence[io.Block]) -> Iterator[Future[list[int]] | None]:
    """The blocks' line counts (:func:`~.io.count_lines`), a future counted in a thread of
    this process while the ``with`` block runs (the start of the job's own
    ``LocalCluster``), when every block is a range of a local JSONL file and they hold at
    most :data:`COUNT_HERE_BYTES`; else None (the workers count them, after the start).
    The client only waits while the cluster starts (for the workers' fork server and
    their registration), and the count (a memory map, numpy without the GIL) fits in that
    wait: the workers' count cost the job 40-60 ms more at 100,000 documents."""
    local = all(b.kind == "jsonl" and io.is_local(b.url) for b in blocks)
    if not local or sum(b.end - b.start for b in blocks) > COUNT_HERE_BYTES:
        yield None
        return
    with ThreadPoolExecutor(1, thread_name_prefix="neardup-count") as pool:
        yield pool.submit(lambda: [io.count_lines(b) for b in blocks])


@contextmanager
def _client(
    client: Any, scheduler: str | None, workers: int | None, blocks: Sequence[io.Block]
) -> Iterator[tuple[Any, Future[list[int]] | None]]:
    """The client to run on (``client``, one for ``scheduler``, else one of a
    ``LocalCluster`` of ``workers`` started here and closed at the end) and the blocks'
    line counts where they were counted here while that cluster started
    (:func:`_lines_counted_here`; else None)."""
    if client is not None:
        check_workers(client, "client", client)
        yield client, None
        return
    from distributed import Client

    if scheduler is not None:
        with Client(scheduler) as cli:
            check_workers(cli, "scheduler", scheduler)
            yield cli, None
        return
    n = check_int("workers", workers if workers is not None else 2, low=1)
    with (
        _lines_counted_here(blocks) as counted,
        local_cluster(workers=n) as cluster,
        Client(cluster) as cli,
    ):
        yield cli, counted
        cli.run(quiet_heartbeat_at_close, on_error="ignore")  # cosmetic: never fails a job


#: What each worker of a cluster the job did not start is asked (by :func:`check_workers`):
#: its neardup's version, as ``pkgutil.resolve_name`` (of the standard library, so a worker
#: without neardup can run it) imports it there.
_VERSION_THERE = "neardup._version:__version__"


def check_workers(client: Any, name: str, value: object) -> None:
    """Refuse a cluster whose workers cannot run the job's tasks: each worker imports
    neardup, of this version (:data:`neardup.__version__`; another one may compute other
    values). The job's own ``LocalCluster`` forks its workers from this installation and
    is not asked. One round trip to the workers; a cluster with no worker yet passes.

    Without it, a worker lacking neardup failed on the first task sent to it, and the job
    ended on Dask's traceback (``Exception: ImportError(...)``).

    Args:
        client: a ``distributed.Client``; name, value: the parameter that named the
            cluster (``client`` or ``scheduler``) and its value, for the message.

    Raises:
        ParameterError: ``name`` with the workers that differ and what each has.
    """
    import pkgutil

    from neardup._version import __version__

    found = client.run(pkgutil.resolve_name, _VERSION_THERE, on_error="return")
    wrong = {w: v for w, v in sorted(found.items()) if v != __version__}
    if wrong:
        has = "; ".join(f"{w}: {_has(v)}" for w, v in wrong.items())
        raise ParameterError(
            name, value, f"a cluster whose workers import neardup {__version__} ({has})"
        )


def _has(found: object) -> str:
    """What a worker's answer to :data:`_VERSION_THERE` says it has."""
    if isinstance(found, ModuleNotFoundError):
        return "no neardup"
    if isinstance(found, BaseException):
        return f"neardup fails to import: {type(found).__name__}: {found}"
    return f"neardup {found}"


#: What a worker logs when its heartbeat meets the scheduler closing: a race of
#: ``LocalCluster.close`` (dask/distributed#7105), a traceback after a finished job.
HEARTBEAT_AT_CLOSE = "Failed to communicate with scheduler during heartbeat"


class _DropHeartbeatAtClose:
    """A ``logging`` filter dropping :data:`HEARTBEAT_AT_CLOSE` records."""

    def filter(self, record: Any) -> bool:
        return not str(record.msg).startswith(HEARTBEAT_AT_CLOSE)


def quiet_heartbeat_at_close() -> None:
    """Run on each worker of the job's own ``LocalCluster`` once the job is done, before
    the cluster closes: its ``distributed.worker`` logger drops the heartbeat error that
    the close can race into (1 run in about 20 at a million documents), so a finished
    job does not end on an ERROR line and a traceback. Nothing else is silenced; an
    external cluster's workers are left alone."""
    import logging

    logging.getLogger("distributed.worker").addFilter(_DropHeartbeatAtClose())


#: Blocks queued on each worker thread of the job's own ``LocalCluster`` (Dask's
#: ``distributed.scheduler.worker-saturation``, 1.1 by default): at 1.1 a worker whose link
#: of the keys chain (:func:`neardup.distributed.tables.collect`) waits for a transfer counts
#: as busy and is given no block meanwhile (1.1-1.7 s idle a worker before the last block was
#: read, in a task stream at a million documents; 0.25-0.5 s at 2.0).
WORKER_SATURATION = 2.0


def local_cluster(*, workers: int = 2, processes: bool = True, **kwargs: Any) -> Any:
    """A ``distributed.LocalCluster`` of ``workers`` workers, one thread each, with no
    dashboard, no probe of port 8787, glibc's default allocator thresholds
    (:func:`_worker_environ`), no statistical profiler in the workers (it samples the
    task thread's stack every 10 ms, for the dashboard this cluster does not serve) and
    :data:`WORKER_SATURATION` blocks queued a worker thread. Worker processes are forked
    from a fork server that has imported Dask and the job's modules (:mod:`.forkserver`;
    spawned where the platform has none).

    ``dashboard_address=None`` turns the dashboard off but the scheduler's HTTP server (its
    health and metrics routes) still binds the default port 8787, and warns "Port 8787 is
    already in use" beside another cluster. Here it binds a free port on the loopback
    interface (``127.0.0.1:0``) and the dashboard stays off (``dashboard=False``).

    Args:
        workers: number of workers (>= 1).
        processes: worker processes (True) or threads of this process.
        **kwargs: further ``LocalCluster`` arguments (``memory_limit``, ...).

    Raises:
        ParameterError: ``workers`` < 1.
    """
    import dask

    from distributed import LocalCluster

    n = check_int("workers", workers, low=1)
    settings = {
        "distributed.nanny.pre-spawn-environ": _worker_environ(),
        "distributed.worker.profile.enabled": False,  # a nanny hands its config to its worker
        "distributed.scheduler.worker-saturation": WORKER_SATURATION,
        **(forkserver.dask_settings() if processes else {}),
    }
    with dask.config.set(settings):
        return LocalCluster(
            n_workers=n,
            threads_per_worker=1,
            processes=processes,
            dashboard_address="127.0.0.1:0",
            scheduler_kwargs={"dashboard": False},
            **kwargs,
        )


def _worker_environ() -> dict[str, Any]:
    """The environment Dask sets in a worker process before it starts, without
    ``MALLOC_TRIM_THRESHOLD_`` and with one malloc arena (a spawned worker's; a forked one
    has the fork server's, :data:`~.forkserver.ONE_ARENA`).

    Dask sets it (to 65536) so that freed memory goes back to the system at once; setting
    it turns off glibc's adaptive mmap threshold, so that every array over 128 KiB is a
    fresh mapping whose pages fault in one by one: the job's numpy stages ran twice as
    long there as in a plain process (``split_keys`` 0.23 s, 0.12 s of it in the kernel,
    against 0.12 s; 20,000 page faults against 20). The nanny reads this when it is made,
    so a restarted worker has it too."""
    import dask

    environ = dict(dask.config.get("distributed.nanny.pre-spawn-environ", default={}) or {})
    environ.pop("MALLOC_TRIM_THRESHOLD_", None)
    return {**environ, **forkserver.ONE_ARENA}
