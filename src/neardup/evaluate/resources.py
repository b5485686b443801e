"""Wall time and peak memory of one call (one dedup run of ``neardup evaluate``).

Memory modes (the report names the one used):

* ``rss``: peak resident set size above the RSS at the start of the call, in MiB. On Linux
  the peak (``VmHWM`` of ``/proc/self/status``) is reset before the call by writing ``5`` to
  ``/proc/self/clear_refs``, so each run is measured on its own, native buffers included.
  Where that is not possible, the ``ru_maxrss`` delta is used instead, which stays 0 once an
  earlier run in the same process peaked higher (the report says ``ru_maxrss-delta``).
* ``tracemalloc``: the ``tracemalloc`` peak of Python and numpy allocations during the call,
  in MiB. Tracing slows runs about 2-3 times, so the times measured with it are inflated.
* ``off``: no memory measurement.
"""

from __future__ import annotations

import re
import resource
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from neardup.errors import check_choice

T = TypeVar("T")
MEMORY_MODES: tuple[str, ...] = ("rss", "tracemalloc", "off")
_STATUS = Path("/proc/self/status")
_CLEAR_REFS = Path("/proc/self/clear_refs")


@dataclass(frozen=True, slots=True)
class Usage:
    """What a call cost.

    Attributes:
        seconds: wall-clock seconds (``time.perf_counter``).
        peak_mib: peak memory in MiB (see :attr:`memory`), ``None`` when not measured.
        memory: how memory was measured: ``vmhwm``, ``ru_maxrss-delta``, ``tracemalloc``
            or ``off``.
    """

    seconds: float
    peak_mib: float | None
    memory: str


def measure(fn: Callable[[], T], memory: str = "rss") -> tuple[T, Usage]:
    """Call ``fn()`` and measure its wall time and peak memory.

    Args:
        fn: the call to measure.
        memory: ``rss``, ``tracemalloc`` or ``off`` (see the module docstring).

    Returns:
        ``(fn(), Usage)``.

    Raises:
        ParameterError: an unknown ``memory`` mode. Whatever ``fn`` raises propagates.
    """
    check_choice("memory", memory, MEMORY_MODES)
    if memory == "tracemalloc":
        return _traced(fn)
    if memory == "off":
        t0 = time.perf_counter()
        out = fn()
        return out, Usage(time.perf_counter() - t0, None, "off")
    return _rss(fn)


def _traced(fn: Callable[[], T]) -> tuple[T, Usage]:
    was_tracing = tracemalloc.is_tracing()
    if not was_tracing:
        tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    t0 = time.perf_counter()
    try:
        out = fn()
        seconds = time.perf_counter() - t0
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        if not was_tracing:
            tracemalloc.stop()
    return out, Usage(seconds, peak / 2**20, "tracemalloc")


def _rss(fn: Callable[[], T]) -> tuple[T, Usage]:
    hwm = _reset_hwm()
    before = _status_kib("VmRSS") if hwm else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.perf_counter()
    out = fn()
    seconds = time.perf_counter() - t0
    if hwm:
        peak = _status_kib("VmHWM")
        return out, Usage(seconds, max(peak - before, 0) / 1024, "vmhwm")
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return out, Usage(seconds, max(after - before, 0) / 1024, "ru_maxrss-delta")


def _reset_hwm() -> bool:
    """Reset the process's peak RSS (Linux >= 4.0); False where that is not possible."""
    try:
        _CLEAR_REFS.write_text("5")
        return _status_kib("VmHWM") >= 0
    except (OSError, ValueError):
        return False


def _status_kib(field: str) -> int:
    """A ``kB`` field of ``/proc/self/status``.

    Raises:
        ValueError: the field is missing.
    """
    match = re.search(rf"^{field}:\s+(\d+) kB", _STATUS.read_text(), re.MULTILINE)
    if match is None:
        raise ValueError(f"{field} not in {_STATUS}")
    return int(match.group(1))
