"""Run one fuzz case under the suite's rules: allowed errors only, a deadline, bounded memory.

* Errors: a case may raise only the documented :class:`~neardup.errors.NeardupError` family
  (:class:`~neardup.errors.ParameterError` included); anything else is a *crash*.
* Time: a CPU-time deadline per case (``SIGPROF`` via :func:`signal.setitimer`
  ``ITIMER_PROF``: the process's CPU seconds, so a loaded machine does not turn a slow case
  into a "hang") and a wall-clock one ten times longer (``SIGALRM``: a case blocked on a
  lock or a socket uses no CPU). The interrupt is a :class:`CaseTimeout`, a
  ``BaseException``, so library code that catches ``Exception`` as a last resort (the
  extractors do) cannot swallow it. A case past either deadline is a *hang*.
* Memory: the process's peak resident set (``ru_maxrss``, C allocations of lxml, zlib and
  numpy included) may grow by at most a bound during the case; over it is a *memory*
  failure. The peak only rises, so a case is measured against the highest peak before it
  (exact in a fresh worker, as the long run uses; conservative inside a long pytest run).
  :func:`traced_peak_mib` measures Python and numpy allocations of one call exactly
  (:mod:`tracemalloc`, slower), for the tests that bound a reader's memory by its limit.

:func:`run_case` classifies one call; :func:`check_case` turns a failure into an
``AssertionError`` for pytest/hypothesis. ``tests/fuzz_long.py`` uses
:func:`run_case` to count outcomes without stopping.
"""

from __future__ import annotations

import resource
import signal
import time
import traceback
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from neardup.errors import NeardupError

#: Per-case deadline, CPU seconds (the wall-clock one is :data:`WALL_FACTOR` times longer).
DEADLINE_S = 20.0
WALL_FACTOR = 10
#: Default bound on the growth of the peak resident set during one case, MiB.
MEMORY_MIB = 512


class CaseTimeout(BaseException):
    """Raised by the alarm inside a case that overran its deadline."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """How one case ended.

    Attributes:
        kind: ``ok``, ``crash`` (an exception outside the allowed family or a failed
            property), ``hang`` (over the deadline) or ``memory`` (over the memory bound).
        detail: exception type and message (and the last traceback lines) or the figure.
        seconds: wall time of the case; peak_mib: the process's peak resident set after
            it, MiB.
    """

    kind: str
    detail: str
    seconds: float
    peak_mib: float


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Raise :class:`CaseTimeout` in the main thread after ``seconds`` of CPU time or
    ``WALL_FACTOR * seconds`` of wall time, whichever comes first."""

    def _cpu(_signum: int, _frame: Any) -> None:
        raise CaseTimeout(f"over the {seconds:g} CPU-second deadline")

    def _wall(_signum: int, _frame: Any) -> None:
        raise CaseTimeout(f"over the {seconds * WALL_FACTOR:g} s wall-clock deadline")

    prev_prof = signal.signal(signal.SIGPROF, _cpu)
    prev_alarm = signal.signal(signal.SIGALRM, _wall)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    signal.setitimer(signal.ITIMER_REAL, seconds * WALL_FACTOR)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGPROF, prev_prof)
        signal.signal(signal.SIGALRM, prev_alarm)


def run_case(
    fn: Callable[[], object],
    *,
    seconds: float = DEADLINE_S,
    memory_mib: float | None = MEMORY_MIB,
    allowed: tuple[type[BaseException], ...] = (NeardupError,),
) -> Outcome:
    """Run ``fn()`` under a deadline and a memory bound and classify the result.

    Args:
        fn: the case (properties are checked inside it with ``assert``).
        seconds: the case's deadline.
        memory_mib: bound on the growth of the peak resident set (``None``: unbounded).
        allowed: exception types the code under test may raise.

    Returns:
        :class:`Outcome`.
    """
    before = _maxrss_mib()
    t0 = time.perf_counter()
    kind, detail = "ok", ""
    try:
        with deadline(seconds):
            fn()
    except CaseTimeout as exc:
        kind, detail = "hang", f"{exc}; stopped in {_where(exc)}"
    except allowed:
        pass
    except MemoryError as exc:
        kind, detail = "memory", f"MemoryError: {exc}"
    except Exception as exc:
        kind, detail = "crash", _describe(exc)
    elapsed = time.perf_counter() - t0
    peak = _maxrss_mib()
    if kind == "ok" and memory_mib is not None and peak - before > memory_mib:
        kind, detail = "memory", f"peak RSS grew {peak - before:.0f} MiB > {memory_mib:g} MiB"
    return Outcome(kind, detail, elapsed, peak)


def check_case(fn: Callable[[], object], **kwargs: Any) -> Outcome:
    """:func:`run_case`, failing the test (``AssertionError``) unless the case was ok."""
    outcome = run_case(fn, **kwargs)
    assert outcome.kind == "ok", f"{outcome.kind}: {outcome.detail}"
    return outcome


def traced_peak_mib(fn: Callable[[], object]) -> float:
    """Peak of Python and numpy allocations while ``fn()`` runs, MiB (:mod:`tracemalloc`)."""
    started = not tracemalloc.is_tracing()
    if started:
        tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    try:
        fn()
        return (tracemalloc.get_traced_memory()[1] - base) / 2**20
    finally:
        if started:
            tracemalloc.stop()


def _maxrss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _describe(exc: BaseException) -> str:
    tail = traceback.format_exception(exc)[-6:]
    return f"{type(exc).__name__}: {str(exc)[:300]}\n" + "".join(tail)[-1500:]


def _where(exc: BaseException) -> str:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.name not in ("_cpu", "_wall")]
    if not frames:
        return "?"
    last = frames[-1]
    return f"{last.filename.rsplit('/', 1)[-1]}:{last.lineno} {last.name}"
