"""What runs before the command line is imported: the fork server of a ``LocalCluster``
job's workers (:mod:`neardup.distributed.forkserver`), started from the words of the
command alone. Standard library only (see :mod:`neardup.cli.entry`)."""

from __future__ import annotations

import itertools


def on_local_cluster(argv: list[str]) -> bool:
    """Whether ``argv`` runs a job on a ``LocalCluster``: ``dedup`` with ``--engine dask``
    and no ``--scheduler``; read from the words alone (the options are checked as always,
    after)."""
    name = next((a for a in argv if not a.startswith("-")), None)
    pairs = {f"{a}={b}" for a, b in itertools.pairwise(argv)} | set(argv)
    scheduler = any(a == "--scheduler" or a.startswith("--scheduler=") for a in argv)
    return name == "dedup" and "--engine=dask" in pairs and not scheduler


def start_workers_early(argv: list[str]) -> bool:
    """Start the fork server of a ``LocalCluster`` job's workers (:func:`on_local_cluster`);
    it imports in its own process, beside this one's imports from here on. Returns
    whether it was started (or running)."""
    if not on_local_cluster(argv):
        return False
    from neardup.distributed.forkserver import start_fork_server

    return start_fork_server()
