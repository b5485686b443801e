"""CPU-bound work of the service, off the event loop and under a time budget.

Reading an upload (format sniffing, HTML/office extraction, decoding) and marking the shared
passages of two texts (sentence splitting, Romanov 2019's side-by-side view) run Python and
regular-expression code on text a client sent. A regular expression holds the GIL for its
whole match, so a thread pool does not protect the event loop: an 817-byte upload whose
sniffing backtracked froze every other request, ``/health`` included (issue 41). This work
runs here in worker processes (:func:`anyio.to_process.run_sync`, at most one per CPU), each
call under a budget of seconds: past it the worker is killed (SIGKILL) and the request gets
:class:`WorkTooLong` (422 problem details, or the page's error), never a frozen server.

The functions run here take and return picklable values (bytes, text, frozen dataclasses).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import anyio
import anyio.to_process

from neardup.errors import InputError

T = TypeVar("T")

#: Seconds one piece of CPU-bound work of a request may take (``ServiceConfig.cpu_budget``).
DEFAULT_BUDGET = 30.0


#: Seconds a request may wait for a worker process to start (the interpreter and the
#: readers' imports) or to become free; not counted in its budget.
START_TIMEOUT = 60.0
#: Niceness added to a worker process: the server's event loop comes first on a busy CPU.
WORKER_NICENESS = 5
_ready = False


class WorkTooLong(InputError):
    """A request's CPU-bound work (reading an upload, marking passages) ran past its budget;
    the service answers 422."""


async def bounded(func: Callable[..., T], *args: object, budget: float, what: str) -> T:
    """``func(*args)`` in a worker process, stopped after ``budget`` seconds.

    Args:
        func: a module-level function (pickled by reference); its arguments and result
            must be picklable.
        args: its positional arguments.
        budget: seconds (> 0) the call may take, waiting for a free worker included.
        what: what the work is, for the error ("reading the upload").

    Returns:
        What ``func`` returns; a :class:`~neardup.errors.NeardupError` it raises is raised
        here (any other exception too).

    Raises:
        WorkTooLong: the budget ran out (the worker process was killed).
    """
    try:
        with anyio.fail_after(START_TIMEOUT):  # a worker started and ready: not the budget's
            await anyio.to_process.run_sync(ready, cancellable=True)
    except TimeoutError:
        raise WorkTooLong(
            f"{what} could not start: every worker process stayed busy for {START_TIMEOUT:g} s"
        ) from None
    try:
        with anyio.fail_after(budget):
            return await anyio.to_process.run_sync(func, *args, cancellable=True)
    except TimeoutError:
        raise WorkTooLong(
            f"{what} took longer than the service's budget of {budget:g} s: the input is "
            "too large or too complex to process here (split it, or use the command line)"
        ) from None


# -- the work done here (imported in the worker process only) ---------------------------------
def ready() -> None:
    """Prepare this worker process once: lower its priority (:data:`WORKER_NICENESS`) and
    import the readers and the passage aligner, so a budget counts the work only."""
    global _ready
    if _ready:
        return
    import contextlib
    import os

    with contextlib.suppress(OSError):
        os.nice(WORKER_NICENESS)
    import neardup.service.highlight
    import neardup.text.upload  # noqa: F401

    _ready = True


def upload_text(data: bytes, filename: str | None) -> str:
    """:func:`neardup.text.upload.upload_text`, imported in the worker (its readers are not
    loaded into the server process, whose first upload would pay the import on the loop)."""
    from neardup.text.upload import upload_text as text_of

    return text_of(data, filename)
