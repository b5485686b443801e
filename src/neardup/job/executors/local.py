"""The in-process executor: the whole job in this process, no worker processes
(``dedup(..., executor="local")``)."""

from __future__ import annotations

from dataclasses import dataclass
from os import PathLike
from typing import ClassVar

from neardup.job.pipeline import DedupResult, Job, run_here


@dataclass(frozen=True, kw_only=True)
class InProcess:
    """Runs a job in this process (:func:`neardup.job.pipeline.run_here` with one job).

    Attributes:
        memory_budget: bytes of shingle sets and signature rows held in memory before they
            go to temporary files (None: a quarter of the physical memory).
        spill_dir: the directory of those files (None: the system's temporary directory).
    """

    name: ClassVar[str] = "local"
    writes_files: ClassVar[bool] = False
    settings: ClassVar[tuple[str, ...]] = ("memory_budget", "spill_dir")

    memory_budget: int | None = None
    spill_dir: str | PathLike[str] | None = None

    def run(self, job: Job) -> DedupResult:
        """Run ``job`` here."""
        return run_here(
            job,
            executor=self.name,
            jobs=1,
            memory_budget=self.memory_budget,
            spill_dir=self.spill_dir,
        )
