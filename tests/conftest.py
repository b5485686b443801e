"""Suite-wide hooks: the ``data`` marker derived from the use of ../shared/data.

A test that reaches ../shared/data (through :mod:`shared_data`'s ``data_path``,
``load_docs``, ``paragraphs``, ``job_scores``, directly or through a helper, fixture or
method of the test files) is marked ``data`` as it is collected, so ``-m "not data"``
leaves out every such test whether or not its file says ``pytest.mark.data``
(:func:`shared_data.uses_shared_data`).

Under pytest-xdist (``make test``: ``--dist loadfile --no-loadscope-reorder``) the files
run longest first, by the seconds recorded in ``tests/file_seconds.json``
(:mod:`file_seconds`).
"""

from __future__ import annotations

import json
import os
import statistics

import pytest

from file_seconds import SECONDS
from shared_data import uses_shared_data


def pytest_itemcollected(item: pytest.Item) -> None:
    """Mark ``item`` ``data`` when it, or a fixture it uses, reaches ../shared/data."""
    if item.get_closest_marker("data") is not None or not isinstance(item, pytest.Function):
        return
    funcs = [item.obj]
    info = getattr(item, "_fixtureinfo", None)
    if info is not None:
        for name in item.fixturenames:
            funcs += [d.func for d in info.name2fixturedefs.get(name, ())]
    if any(uses_shared_data(f) for f in funcs):
        item.add_marker(pytest.mark.data)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """On an xdist worker, order the test files longest first (the order of the tests in
    a file kept): xdist hands whole files to the workers in collection order under
    ``--no-loadscope-reorder``, so a long file never starts last and leaves one worker
    running it alone (test_kill.py, 2 minutes, started near the end of the run). A file
    not in ``tests/file_seconds.json`` weighs the median of those that are."""
    if not os.environ.get("PYTEST_XDIST_WORKER") or not SECONDS.exists():
        return
    seconds: dict[str, float] = json.loads(SECONDS.read_text(encoding="utf-8"))
    unknown = statistics.median(seconds.values()) if seconds else 0.0
    items.sort(key=lambda item: -seconds.get(item.nodeid.split("::", 1)[0], unknown))
