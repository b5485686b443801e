"""The process-pool executor: input paths read, prepared, shingled (and signed, for
methods that sign one row per document) on worker processes, the rest of the job in this
process (``dedup(..., executor="pool")``, the default)."""

from __future__ import annotations

from dataclasses import dataclass
from os import PathLike
from typing import ClassVar

from neardup.job.pipeline import DedupResult, Job, run_here


@dataclass(frozen=True, kw_only=True)
class ProcessPool:
    """Runs a job on ``jobs`` worker processes (:mod:`neardup.job.prepare_pool`); documents
    given as objects, and methods that sign from prepared documents, are read here.

    Attributes:
        jobs: worker processes, >= 1 (None: the cores available; 1: this process only).
        memory_budget, spill_dir: as :class:`~neardup.job.executors.local.InProcess`.

    Raises:
        ParameterError: ``jobs`` < 1.
    """

    name: ClassVar[str] = "pool"
    writes_files: ClassVar[bool] = False
    settings: ClassVar[tuple[str, ...]] = ("jobs", "memory_budget", "spill_dir")

    jobs: int | None = None
    memory_budget: int | None = None
    spill_dir: str | PathLike[str] | None = None

    def __post_init__(self) -> None:
        if self.jobs is not None:
            from neardup.job.prepare_pool import check_jobs

            check_jobs(self.jobs)

    def run(self, job: Job) -> DedupResult:
        """Run ``job`` with the pool."""
        return run_here(
            job,
            executor=self.name,
            jobs=self.jobs,
            memory_budget=self.memory_budget,
            spill_dir=self.spill_dir,
        )
