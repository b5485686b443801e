"""Rich progress bars for the job's stages (shown on a terminal only, on stderr)."""

from __future__ import annotations

from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    DownloadColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    SpinnerColumn,
    Task,
    TaskID,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text


class _CountColumn(ProgressColumn):
    """``done/total`` items, or bytes (``12.3/45.6 MB``) for a stage counted in bytes."""

    def __init__(self) -> None:
        super().__init__()
        self._items = MofNCompleteColumn()
        self._bytes = DownloadColumn()

    def render(self, task: Task) -> Text:
        column = self._bytes if task.fields.get("unit") == "bytes" else self._items
        return column.render(task)


class _RemainingColumn(TimeRemainingColumn):
    """The time left, for a stage whose total is known (blank otherwise)."""

    def render(self, task: Task) -> Text:
        return super().render(task) if task.total is not None else Text("")


class RichProgress:
    """Implements :class:`neardup.progress.Progress` with one Rich bar per stage: done and
    total (items, or bytes for a stage counted in bytes such as ``read``), percentage,
    elapsed time and time left when the total is known."""

    def __init__(self, console: Console) -> None:
        self._bars = Progress(
            SpinnerColumn(),
            TextColumn("[bold]{task.description:<10}"),
            BarColumn(),
            _CountColumn(),
            TaskProgressColumn(),
            TimeElapsedColumn(),
            _RemainingColumn(),
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

    def start(self, stage: str, total: int | None, *, unit: str = "items") -> None:
        """Add a bar for ``stage`` (``total`` items or bytes, None if unknown)."""
        self._tasks[stage] = self._bars.add_task(stage, total=total, unit=unit)

    def advance(self, stage: str, n: int = 1) -> None:
        """Advance ``stage``'s bar by ``n``."""
        if stage in self._tasks:
            self._bars.advance(self._tasks[stage], n)

    def finish(self, stage: str) -> None:
        """Complete ``stage``'s bar (a bytes bar to its planned total: the bytes of lines
        skipped unread are not advanced)."""
        task = self._tasks.get(stage)
        if task is not None:
            bar = self._bars.tasks[task]
            done = bar.completed
            if bar.fields.get("unit") == "bytes" and bar.total:
                done = max(done, bar.total)
            self._bars.update(task, total=max(done, 1), completed=max(done, 1))
