"""The inline executor: the partitioned dedup job (:mod:`.stages`, the Dask executor's
plan) run in this process, task by task, without Dask (``dedup(..., executor="inline")``;
a library executor: the command line's ``--engine`` is ``local`` or ``dask``).

Each task runs when it is submitted, on the values of the tasks it names
(:class:`InlineTasks`), so a partitioned job can be stepped through in a debugger or
profiled in one process, and its outputs compared with the local job's and the Dask
executor's (they are the same, byte for byte). It is also the smallest executor of the
partitioned job: a new one (Ray, say) is a module like this one, a :class:`TaskRunner` over
the new runtime and a class whose ``run`` opens that runtime around
:func:`~.stages.run_partitioned`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from neardup.distributed.stages import (
    DEFAULT_BLOCK_BYTES,
    out_dir_of,
    planned,
    run_partitioned,
)
from neardup.distributed.tasks import Done, TaskRunner, resolved
from neardup.errors import check_int
from neardup.job.pipeline import DedupResult, Job


class InlineTasks(TaskRunner):
    """Tasks run in this process when submitted: a handle is a :class:`~.tasks.Done`
    holding the result; an exception of a task is raised by :meth:`submit`."""

    def submit(
        self,
        fn: Callable[..., Any],
        *args: Any,
        key: str | None = None,
        where: list[str] | None = None,
        **kwargs: Any,
    ) -> Done:
        """``fn`` run now on the values of ``args`` and ``kwargs`` (``key`` and ``where``
        are ignored: there is one place)."""
        return Done(fn(*resolved(args), **resolved(kwargs)))

    def gather(self, handles: Any) -> Any:
        """The values held by ``handles`` (nested lists, tuples and dicts too)."""
        return resolved(handles)


@dataclass(frozen=True, kw_only=True)
class InlineExecutor:
    """Runs a job's partitioned plan in this process (:class:`InlineTasks`); its tasks write
    the job's files into ``out_dir`` and the result is read back from them.

    Attributes:
        out_dir: the output directory (None: a temporary one, removed at the end).
        block_bytes: target size of a plain JSONL block (partition), bytes (>= 1 MiB).
        reduce_partitions: partitions of the shuffled key, pair and edge tables (default:
            :func:`~neardup.distributed.stages.reduce_count` for one worker).

    Raises:
        ParameterError: ``block_bytes`` < 1 MiB; ``reduce_partitions`` < 1.
    """

    name: ClassVar[str] = "inline"
    settings: ClassVar[tuple[str, ...]] = ()
    writes_files: ClassVar[bool] = True

    out_dir: str | os.PathLike[str] | None = None
    block_bytes: int = DEFAULT_BLOCK_BYTES
    reduce_partitions: int | None = None

    def __post_init__(self) -> None:
        check_int("block_bytes", self.block_bytes, low=1 << 20)
        if self.reduce_partitions is not None:
            check_int("reduce_partitions", self.reduce_partitions, low=1)

    def run(self, job: Job) -> DedupResult:
        """Run ``job`` here.

        Raises:
            ParameterError: what the partitioned job cannot run
                (:func:`~neardup.distributed.stages.refuse_unplanned`, through
                :func:`~neardup.distributed.stages.planned`).
        """
        blocks, k = planned(job, self.name, self.block_bytes)
        with out_dir_of(self.out_dir) as out:
            return run_partitioned(
                job,
                InlineTasks(),
                blocks,
                k,
                executor=self.name,
                out_dir=out,
                reduce_partitions=self.reduce_partitions,
            )
