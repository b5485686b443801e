"""The Dask executor: the dedup job on a Dask cluster (``dedup(..., executor="dask")``,
``neardup dedup --engine dask``), run over the partitions of the input by
:mod:`neardup.distributed.job`; see ``docs/distributed.md``. Dask is imported when a job runs.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from neardup.distributed.job import DEFAULT_BLOCK_BYTES, run_on_dask
from neardup.errors import ParameterError, check_int
from neardup.job.pipeline import DedupOptions, DedupResult, Job, dedup
from neardup.methods.base import Method
from neardup.text.read import as_read_options
from neardup.text.units import ReadOptions

#: Read options that select the files of directory inputs or cut the stream, which the
#: partition planner does not apply (:func:`neardup.distributed.io.plan_local`).
_LOCAL_SELECTION = ("glob", "include", "exclude", "recursive", "limit")


@dataclass(frozen=True, kw_only=True)
class DaskExecutor:
    """Runs a job on a Dask cluster; the workers write the job's files into ``out_dir``
    (``pairs.jsonl``, ``clusters.jsonl``, ``dropped.jsonl``, ``skipped.jsonl``, then
    ``summary.json``) and the result is read back from them.

    Attributes:
        out_dir: output directory (local path or fsspec URL) writable by every worker and
            by the client. None: a temporary local directory, removed at the end (only with
            the default ``LocalCluster``: workers elsewhere could not write it).
        client: a ``distributed.Client`` to use; else one is made for ``scheduler``
            (``tcp://host:8786``) or a ``LocalCluster`` of ``workers`` processes (default
            2), one thread each, closed at the end.
        block_bytes: target size of a plain JSONL block (partition), bytes (>= 1 MiB).
        reduce_partitions: partitions of the shuffled key, pair and edge tables (default:
            :func:`~neardup.distributed.job.reduce_count`).

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
        if job.field_reader is not None:
            raise ParameterError(
                "keep_by",
                job.options.keep_by,
                "None with the dask executor (its workers decide without the record "
                "fields); use the local or pool executor, or the result's clusters",
            )
        for group in job.groups:
            if not _are_paths(group):
                raise ParameterError(
                    "source",
                    type(group).__name__,
                    "input paths (files, directories, globs or URLs) with the dask executor "
                    "(its workers read them); use the local or pool executor",
                )
        default = as_read_options(None)
        for name in _LOCAL_SELECTION:
            value = getattr(job.read_options, name)
            if value != getattr(default, name):
                raise ParameterError(
                    name, value, f"{getattr(default, name)!r} with the dask executor"
                )
        a_inputs = [os.fspath(p) for p in job.groups[0]] if len(job.groups) > 1 else []
        inputs = [os.fspath(p) for p in job.groups[-1]]
        return run_on_dask(
            job,
            a_inputs,
            inputs,
            out_dir=self.out_dir,
            client=self.client,
            scheduler=self.scheduler,
            workers=self.workers,
            block_bytes=self.block_bytes,
            reduce_partitions=self.reduce_partitions,
        )


def _are_paths(group: Any) -> bool:
    return isinstance(group, list | tuple) and all(isinstance(p, str | os.PathLike) for p in group)


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
