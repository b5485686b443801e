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
        with anyio.fail_after(budget):
            return await anyio.to_process.run_sync(func, *args, cancellable=True)
    except TimeoutError:
        raise WorkTooLong(
            f"{what} took longer than the service's budget of {budget:g} s: the input is "
            "too large or too complex to process here (split it, or use the command line)"
        ) from None
