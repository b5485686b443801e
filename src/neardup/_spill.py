"""Arrays larger than the memory a job may hold, kept on disk: the dedup job's shingle sets
and signature rows past its memory budget (ten million documents on one machine).

A :class:`PartStack` holds the parts of one array in order, in memory, until it is told to
:meth:`~PartStack.spill`; from then on it and every later part live in an unnamed temporary
file (:func:`tempfile.TemporaryFile`: nothing is left behind, even by a killed job), and
:meth:`~PartStack.stack` gives them back as one read-only :class:`numpy.memmap`, which the
operating system pages in when read and drops under pressure. The file is native-endian
scratch space for one process, not a stored format.
"""

from __future__ import annotations

import os
import tempfile
from typing import IO, Any

import numpy as np

from neardup._memory import stack_consuming, trim
from neardup.errors import ParameterError

#: Share of the machine's physical memory a job holds before it spills (see default_budget).
BUDGET_SHARE = 4


def physical_memory() -> int | None:
    """Bytes of physical memory of this machine, or None where the system does not say."""
    try:
        return int(os.sysconf("SC_PHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):
        return None


def default_budget() -> int | None:
    """A quarter of the physical memory (6 GiB on a 24 GiB machine); None (never spill)
    where the system does not say how much there is."""
    total = physical_memory()
    return None if total is None else total // BUDGET_SHARE


class PartStack:
    """The parts of one array (one dtype, equal shapes past the first axis), in order.

    Attributes:
        nbytes: bytes appended so far; spilled: whether they are on disk.
    """

    def __init__(self) -> None:
        self._parts: list[np.ndarray] = []
        self._file: IO[bytes] | None = None
        self._dtype: np.dtype[Any] | None = None
        self._shape: tuple[int, ...] = ()
        self._rows = 0
        self.nbytes = 0

    @property
    def spilled(self) -> bool:
        return self._file is not None

    def __len__(self) -> int:
        return self._rows

    def append(self, part: np.ndarray) -> None:
        """Add ``part`` after the others (kept as it is in memory; written out if spilled).

        Raises:
            ParameterError: its dtype or trailing shape differs from the first part's.
        """
        if self._dtype is None:
            self._dtype, self._shape = part.dtype, tuple(part.shape[1:])
        elif part.dtype != self._dtype or tuple(part.shape[1:]) != self._shape:
            got = f"{part.dtype}{tuple(part.shape[1:])}"
            raise ParameterError("part", got, f"{self._dtype}{self._shape} like the first part")
        self._rows += int(part.shape[0])
        self.nbytes += int(part.nbytes)
        if self._file is not None:
            self._file.write(np.ascontiguousarray(part).data)
        else:
            self._parts.append(part)

    def spill(self, directory: str | None = None) -> None:
        """Move the parts held so far to a temporary file in ``directory`` (default: the
        system's temporary directory) and write every later part there."""
        if self._file is not None:
            return
        # kept open until the job ends: the memory map of stack() reads it
        self._file = tempfile.TemporaryFile(prefix="neardup-spill-", dir=directory)  # noqa: SIM115
        parts, self._parts = self._parts, []
        while parts:
            self._file.write(np.ascontiguousarray(parts.pop(0)).data)
        trim()

    def stack(self, empty: np.ndarray) -> np.ndarray:
        """All parts as one array (consumes the parts held in memory): a read-only memory
        map when spilled. ``empty`` is returned when nothing was appended."""
        if self._rows == 0 or self._dtype is None:
            return empty
        if self._file is None:
            parts, self._parts = self._parts, []
            return parts[0] if len(parts) == 1 else stack_consuming(parts)
        self._file.flush()
        shape = (self._rows, *self._shape)
        return np.memmap(self._file, dtype=self._dtype, mode="r", shape=shape)
