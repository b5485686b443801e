"""Imported last by the workers' fork server (:data:`~.forkserver.WORKER_MODULES`): work
every worker would do at its start, done once in the server and inherited by each fork.

Dask's version report (``distributed.versions.get_versions``), which a worker sends when it
registers with the scheduler: ``platform.uname().processor`` runs ``uname -p`` in a
subprocess (a fork of the whole worker, 10-15 ms), and each package's version is read from
its installed metadata; both are cached in the process, so a forked worker finds them
ready.
"""

from __future__ import annotations

from distributed.versions import get_versions

get_versions()
