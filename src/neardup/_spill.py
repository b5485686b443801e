"""Arrays built part by part, in memory or, past the memory a job may hold, on disk: the
dedup job's shingle sets and signature rows (ten million documents on one machine).

A :class:`PartStack` copies each part, as it arrives, to the end of one growing buffer: on
Linux a private anonymous memory map grown with ``mremap`` (pages move, they are not
copied), so the whole array is there when the last part is, with no join at the end and no
second copy at the peak; elsewhere a list of the parts, joined at the end. Told to
:meth:`~PartStack.spill`, it writes what it holds, and every later part, to an unnamed
temporary file (:func:`tempfile.TemporaryFile`: nothing is left behind, even by a killed
job), and :meth:`~PartStack.stack` gives them back as one read-only :class:`numpy.memmap`,
which the operating system pages in when read and drops under pressure (the file itself is
closed then: the map holds its own descriptor). The file is native-endian scratch space for
one process, not a stored format. A :class:`SpillFile` written ``direct`` bypasses the page
cache (the kernel then spends no reclaim on the writer's behalf).
"""

from __future__ import annotations

import errno
import mmap
import os
import sys
import tempfile
from typing import IO, Any

import numpy as np

from neardup._memory import stack_consuming
from neardup.errors import ParameterError

#: Share of the machine's physical memory a job holds before it spills (see default_budget).
BUDGET_SHARE = 4
#: Whether the in-memory buffer can grow in place (``mmap.resize`` of an anonymous map).
GROWABLE = sys.platform.startswith("linux")
_FIRST_BYTES = 1 << 20


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


#: ``madvise(MADV_POPULATE_WRITE)`` (Linux 5.14): fault a range's pages in one call.
_POPULATE_WRITE: int | None = getattr(mmap, "MADV_POPULATE_WRITE", 23 if GROWABLE else None)
_populate_ok = [_POPULATE_WRITE is not None]


def _populate(buf: mmap.mmap, start: int, end: int) -> None:
    """Fault in the pages of ``buf[start:end]`` before they are written: one system call
    in place of one page fault per page (about a third less CPU for the copy); a kernel
    without it (EINVAL) is not asked again."""
    option = _POPULATE_WRITE
    if option is None or not _populate_ok[0]:
        return
    lo = start - start % mmap.PAGESIZE
    try:
        buf.madvise(option, lo, end - lo)
    except (OSError, ValueError):
        _populate_ok[0] = False


class PartStack:
    """The parts of one array (one dtype, equal shapes past the first axis), in order.

    Args:
        growable: hold the parts in one growing anonymous map (Linux), else in a list.
        direct: once spilled, write past the page cache where the system allows it
            (:class:`SpillFile`): for a file read back in part, not at once.

    Attributes:
        nbytes: bytes appended so far; spilled: whether they are on disk.
    """

    def __init__(self, *, growable: bool = GROWABLE, direct: bool = False) -> None:
        self._growable = growable
        self._direct = direct
        self._buf: mmap.mmap | None = None
        self._used = 0
        self._parts: list[np.ndarray] = []
        self._file: SpillFile | None = None
        self._spilled = False
        self._dir: str | None = None
        self._dtype: np.dtype[Any] | None = None
        self._shape: tuple[int, ...] = ()
        self._rows = 0
        self.nbytes = 0

    @property
    def spilled(self) -> bool:
        return self._spilled

    def __len__(self) -> int:
        return self._rows

    def append(self, part: np.ndarray) -> None:
        """Add ``part`` after the others (copied; the caller may free it at once).

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
        data = np.ascontiguousarray(part)
        if self._spilled:
            if data.nbytes:
                self._spill_file().write(data.data)
        elif self._growable:
            self._put(data)
        else:  # a view (of memory its owner reuses) is copied, like the buffer's parts
            self._parts.append(data if data.flags.owndata else data.copy())

    def _put(self, data: np.ndarray) -> None:
        """Copy ``data`` to the end of the growing buffer."""
        end = self._used + data.nbytes
        if self._buf is None:
            flags = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS
            self._buf = mmap.mmap(-1, max(end, _FIRST_BYTES), flags=flags)
        elif end > len(self._buf):
            self._buf.resize(max(2 * len(self._buf), end))  # mremap: the pages move
        if end > self._used:
            _populate(self._buf, self._used, end)
            self._buf[self._used : end] = data.reshape(-1).view(np.uint8).data
        self._used = end

    def spill(self, directory: str | None = None) -> None:
        """Move the parts held so far to a temporary file in ``directory`` (default: the
        system's temporary directory) and write every later part there."""
        if self._spilled:
            return
        self._spilled, self._dir = True, directory
        if self._buf is not None:
            if self._used:
                self._spill_file().write(memoryview(self._buf)[: self._used])
            self._buf.close()
            self._buf, self._used = None, 0
        parts, self._parts = self._parts, []
        while parts:
            self._spill_file().write(parts.pop(0).data)

    def _spill_file(self) -> SpillFile:
        """The spill file, made at its first write (a stack spilled empty, such as the rows
        of a method that signs later, opens none)."""
        if self._file is None:
            # open until stack() maps it (then closed: the map keeps the data)
            self._file = SpillFile(self._dir, direct=self._direct)
        return self._file

    def stack(self, empty: np.ndarray) -> np.ndarray:
        """All parts as one array (the stack is empty afterwards): a view of the grown
        buffer, the parts joined, or a read-only memory map when spilled. ``empty`` is
        returned when nothing was appended."""
        if self._rows == 0 or self._dtype is None:
            self.close()
            return empty
        shape = (self._rows, *self._shape)
        if self._file is not None:
            spill, self._file = self._file, None
            with spill.finish() as file:  # closed once mapped: the map holds its own
                return np.memmap(file, dtype=self._dtype, mode="r", shape=shape)
        if self._spilled:  # rows of width 0: nothing was written
            return np.zeros(shape, dtype=self._dtype)
        if self._buf is not None:
            buf, self._buf = self._buf, None
            if self._used == 0:  # rows of width 0
                return np.zeros(shape, dtype=self._dtype)
            buf.resize(self._used)  # the unused tail back to the system
            return np.frombuffer(buf, dtype=self._dtype).reshape(shape)
        parts, self._parts = self._parts, []
        return parts[0] if len(parts) == 1 else stack_consuming(parts)

    def close(self) -> None:
        """Release the spill file and the growing buffer without stacking them (a job that
        stops early); the arrays :meth:`stack` gave stay valid."""
        file, self._file = self._file, None
        if file is not None:
            file.close()
        buf, self._buf = self._buf, None
        if buf is not None:
            buf.close()
        self._parts, self._used = [], 0


#: Bytes an unbuffered spill file gathers before each write (a multiple of the page).
STAGE_BYTES = 32 << 20


class SpillFile:
    """An unnamed temporary file (:func:`tempfile.TemporaryFile`) written in order and, with
    ``direct`` where the file system allows it (Linux ``O_DIRECT``), past the page cache.

    Written through the page cache, a file larger than the free memory makes the kernel
    reclaim a page for each page written, in the writing process: at ten million documents
    the job's main process spent 45-53 s of system CPU in its spill writes while the worker
    processes needed both cores (20 GiB written alone on the 2-core machine: 48.8 s of
    system CPU buffered, 0.8 s unbuffered, 2026-12-04). Unbuffered, the bytes are gathered
    in a page-aligned stage of :data:`STAGE_BYTES` and written a stage at a time; the
    last write is padded to the page and the file cut back to its length.
    """

    def __init__(self, directory: str | None, *, direct: bool = False) -> None:
        self.file: IO[bytes] = tempfile.TemporaryFile(prefix="neardup-spill-", dir=directory)  # noqa: SIM115
        self._size = 0
        self._written = 0
        self._stage: mmap.mmap | None = None
        self._staged = 0
        if direct and _set_direct(self.file.fileno(), True):
            self._stage = mmap.mmap(-1, STAGE_BYTES)

    @property
    def direct(self) -> bool:
        """Whether the file is written past the page cache."""
        return self._stage is not None

    def write(self, data: Any) -> None:
        """Append the bytes of ``data`` (a buffer)."""
        view = memoryview(data).cast("B")
        self._size += len(view)
        if self._stage is None:
            self.file.write(view)
            return
        while len(view):
            take = min(len(view), STAGE_BYTES - self._staged)
            self._stage[self._staged : self._staged + take] = view[:take]
            self._staged += take
            view = view[take:]
            if self._staged == STAGE_BYTES:
                self._drain(STAGE_BYTES)

    def _drain(self, length: int) -> None:
        """Write the stage's first ``length`` bytes (a multiple of the page) at the end."""
        assert self._stage is not None
        out = memoryview(self._stage)[:length]
        done, fd = 0, self.file.fileno()
        try:
            while done < length:
                try:
                    done += os.pwrite(fd, out[done:], self._written + done)
                except OSError as exc:  # a file system that takes the flag, not the writes
                    if exc.errno != errno.EINVAL or not _set_direct(fd, False):
                        raise
        finally:
            out.release()
        self._written += length
        self._staged = 0

    def finish(self) -> IO[bytes]:
        """The file, every byte written, to be mapped (or closed) by the caller."""
        if self._stage is not None:
            if self._staged:
                padded = -(-self._staged // mmap.PAGESIZE) * mmap.PAGESIZE
                self._stage[self._staged : padded] = bytes(padded - self._staged)
                self._drain(padded)
            os.ftruncate(self.file.fileno(), self._size)
            _set_direct(self.file.fileno(), False)
            self._stage.close()
            self._stage = None
        else:
            self.file.flush()
        return self.file

    def close(self) -> None:
        """Close the file (and its stage) without mapping it."""
        if self._stage is not None:
            self._stage.close()
            self._stage = None
        self.file.close()


def _set_direct(fd: int, on: bool) -> bool:
    """Turn ``O_DIRECT`` on or off for ``fd``; False where the system or the file system
    does not have it (the file then stays buffered)."""
    flag = getattr(os, "O_DIRECT", 0)
    if not flag:
        return False
    import fcntl

    try:
        flags = fcntl.fcntl(fd, fcntl.F_GETFL)
        fcntl.fcntl(fd, fcntl.F_SETFL, flags | flag if on else flags & ~flag)
    except OSError:
        return False
    return True
