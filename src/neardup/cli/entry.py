"""The console script's entry point (``neardup = "neardup.cli.entry:run"``).

For a job on a ``LocalCluster`` (``neardup dedup --engine dask`` without ``--scheduler``)
the workers' fork server (:mod:`neardup.distributed.forkserver`) starts here, before the
command line is imported (:mod:`neardup.cli.early`): its imports (Dask and the job's
modules, 0.45 s alone) are the cluster's critical path, and importing Typer and the
command line first put 0.09 s in front of them. Then :func:`neardup.cli.main.run`.

This module imports only the standard library and :mod:`neardup.cli.early`, on purpose: a
worker forked from the server runs the console script again as its ``__mp_main__``
(``multiprocessing`` re-imports the parent's main script in the child), and that script
imports this module only, not the command line (45 ms in each worker, while the cluster
started, when the script imported :mod:`neardup.cli.main`).
"""

from __future__ import annotations

import sys

from neardup.cli.early import start_workers_early


def run() -> None:
    """Console-script entry point: :func:`~neardup.cli.early.start_workers_early`, then the
    command line (:func:`neardup.cli.main.run`); at the end the fork server is stopped
    (:func:`neardup.distributed.forkserver.stop_fork_server`: it would otherwise tear down
    its imports after this process exits, holding its output open)."""
    early = start_workers_early(sys.argv[1:])
    try:
        from neardup.cli.main import run as main

        main()
    finally:
        if early:
            from neardup.distributed.forkserver import stop_fork_server

            stop_fork_server()
