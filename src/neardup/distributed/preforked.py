"""Imported last by the workers' fork server (:data:`~.forkserver.WORKER_MODULES`): work
every worker would do at its start, done once in the server and inherited by each fork.

Dask's version report (``distributed.versions.get_versions``), which a worker sends when it
registers with the scheduler: ``platform.uname().processor`` runs ``uname -p`` in a
subprocess (a fork of the whole worker, 10-15 ms), and each package's version is read from
its installed metadata; both are cached in the process, so a forked worker finds them
ready.

Last, every object made so far (the imports') is frozen out of the cyclic garbage
collector's generations (``gc.freeze``), as the command line freezes its own imports'
(:mod:`neardup.cli.gc_pause`); each fork inherits them frozen, and a worker's collections
walk only what its tasks make, not Dask's and numpy's modules at each full collection.
A million documents, two workers: the collector's share of all CPU samples 2.8 % against
1.2 %, and the job 0.89x the wall time (5 alternating pairs, 0.83-1.00; 2026-12-04).
"""

from __future__ import annotations

import gc

from distributed.versions import get_versions

get_versions()
gc.freeze()
