"""One Dask cluster for every Dask test of this folder (started once per session).

``client``: a ``distributed.Client`` of a :func:`neardup.distributed.plan.local_cluster` of
2 worker processes of one thread each, the CLI's default cluster: the byte-for-byte tests
then cross real process boundaries (every task's arguments and results are pickled), and
the worker-kill test has a process to kill (the nanny starts a new one). Tests that start
a cluster of their own (the CLI without ``--scheduler``) are the exception.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from shared_data import require


@pytest.fixture(scope="session")
def client() -> Iterator[Any]:
    distributed = require("distributed")  # a dev dependency: fails in CI, skips elsewhere
    from neardup.distributed.plan import local_cluster

    with local_cluster(workers=2, processes=True) as cluster, distributed.Client(cluster) as cli:
        yield cli
