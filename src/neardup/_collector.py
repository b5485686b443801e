"""Process-wide settings held while long work runs: the cyclic garbage collector's first
threshold raised while a dedup job or a collection's add runs.

A setting is shared: concurrent holders (adds in several threads of a server, a job beside
them) apply it once, and the last to end restores what the first found, also when it
failed.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Callable, Iterator

__all__ = ["FEWER_COLLECTIONS", "YOUNG_THRESHOLD", "Shared", "raise_young_threshold"]

#: The collector's first threshold (allocations of tracked objects between young
#: collections; 700 by default) while a job or an add runs. A young collection every 700
#: allocations, and every hundredth a full one walking every object of the process: a
#: store's add of 2,000 documents a batch started about 12 young collections a batch, each
#: holding the GIL its writer thread waits for, and a job's clustering of 309,086 clusters
#: over ten million documents took 2.2-3.0 s against 1.4 s with this threshold (synthetic
#: pairs, 2026-12-04). An add of 200,000 documents: 0.86x the wall time with the collector
#: off (5 pairs, 0.82-0.98, same peak RSS), and this threshold as fast as off (4 pairs,
#: 0.995x); a million documents in the collections benchmark's add: 0.956x the wall time,
#: 0.914x the CPU (2 pairs; 2026-12-04, load 1.1-1.7). Collections still run, so a long
#: add in a server does not stop its cyclic garbage from being freed.
YOUNG_THRESHOLD = 50_000


class Shared:
    """A process setting applied while at least one holder runs.

    Args:
        apply: sets the setting and returns what restores the one it found (called by the
            first holder; its restore by the last).
    """

    def __init__(self, apply: Callable[[], Callable[[], None]]) -> None:
        self._apply = apply
        self._lock = threading.Lock()
        self._running = 0
        self._restore: Callable[[], None] = _nothing

    @contextlib.contextmanager
    def applied(self) -> Iterator[None]:
        """The setting held for the block (shared with the other holders)."""
        with self._lock:
            if self._running == 0:
                self._restore = self._apply()
            self._running += 1
        try:
            yield
        finally:
            with self._lock:
                self._running -= 1
                if self._running == 0:
                    self._restore()
                    self._restore = _nothing


def _nothing() -> None:
    return None


def raise_young_threshold() -> Callable[[], None]:
    """Set the collector's first threshold to :data:`YOUNG_THRESHOLD` when it is lower (a
    higher one is kept; 0, automatic collection off, stays 0); returns what restores the
    thresholds found."""
    found = gc.get_threshold()
    if not 0 < found[0] < YOUNG_THRESHOLD:
        return _nothing
    gc.set_threshold(YOUNG_THRESHOLD, *found[1:])
    return lambda: gc.set_threshold(*found)


#: Young collections :data:`YOUNG_THRESHOLD` allocations apart while held: a dedup job
#: (:func:`neardup.job.pipeline.run_here`) and a collection's add
#: (:func:`neardup.store.adding.add`) hold it.
FEWER_COLLECTIONS = Shared(raise_young_threshold)
