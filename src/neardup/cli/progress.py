"""Rich progress bars for the job's stages (shown on a terminal only, on stderr)."""

from __future__ import annotations

from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)


class RichProgress:
    """Implements :class:`neardup.progress.Progress` with one Rich bar per stage."""

    def __init__(self, console: Console) -> None:
        self._bars = Progress(
            SpinnerColumn(),
            TextColumn("[bold]{task.description:<10}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=False,
        )
        self._tasks: dict[str, TaskID] = {}

    def __enter__(self) -> RichProgress:
        self._bars.start()
        return self

    def __exit__(
        self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._bars.stop()

    def start(self, stage: str, total: int | None) -> None:
        """Add a bar for ``stage``."""
        self._tasks[stage] = self._bars.add_task(stage, total=total)

    def advance(self, stage: str, n: int = 1) -> None:
        """Advance ``stage``'s bar by ``n``."""
        if stage in self._tasks:
            self._bars.advance(self._tasks[stage], n)

    def finish(self, stage: str) -> None:
        """Complete ``stage``'s bar."""
        task = self._tasks.get(stage)
        if task is not None:
            done = self._bars.tasks[task].completed
            self._bars.update(task, total=max(done, 1), completed=max(done, 1))
