"""The partitioned dedup job: its stages as tasks that an executor maps, shuffles and
gathers (:mod:`.stages` over a :class:`~.tasks.TaskRunner`), run on a Dask cluster
(:mod:`.executor`, ``neardup dedup --engine dask``) or in this process (:mod:`.inline`);
see ``docs/distributed.md``.

Import cost is small: Dask is imported only when a job runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from neardup.job.pipeline import DedupResult


def dedup_dask(*args: Any, **kwargs: Any) -> DedupResult:
    """Run :func:`neardup.distributed.executor.dedup_dask` (same arguments, same result: a
    :class:`~neardup.job.pipeline.DedupResult`)."""
    from neardup.distributed.executor import dedup_dask as run

    return run(*args, **kwargs)


__all__ = ["dedup_dask"]
