"""Progress reporting, injectable: the job reports stages, the edge (CLI) draws bars."""

from __future__ import annotations

from typing import Protocol


class Progress(Protocol):
    """Receives the job's progress; implementations must not raise."""

    def start(self, stage: str, total: int | None, *, unit: str = "items") -> None:
        """A stage begins; ``total`` items (``unit="items"``) or bytes (``unit="bytes"``:
        the stage advances by bytes of its input, e.g. ``read``) if known."""

    def advance(self, stage: str, n: int = 1) -> None:
        """``n`` more items of ``stage`` are done."""

    def finish(self, stage: str) -> None:
        """The stage ended."""


class NullProgress:
    """Reports nothing (the default of the Python API)."""

    def start(self, stage: str, total: int | None, *, unit: str = "items") -> None:
        """Ignore."""

    def advance(self, stage: str, n: int = 1) -> None:
        """Ignore."""

    def finish(self, stage: str) -> None:
        """Ignore."""
