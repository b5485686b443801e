"""Suite-wide hooks: the ``data`` marker derived from the use of ../shared/data.

A test that reaches ../shared/data (through :mod:`shared_data`'s ``data_path``,
``load_docs``, ``paragraphs``, ``job_scores``, directly or through a helper, fixture or
method of the test files) is marked ``data`` as it is collected, so ``-m "not data"``
leaves out every such test whether or not its file says ``pytest.mark.data``
(:func:`shared_data.uses_shared_data`).
"""

from __future__ import annotations

import pytest

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
