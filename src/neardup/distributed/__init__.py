"""Corpus dedup on a Dask cluster (``neardup dedup --engine dask``); see ``docs/distributed.md``.

Import cost is small: Dask is imported only when a job runs.
"""

from __future__ import annotations

from typing import Any


def dedup_dask(*args: Any, **kwargs: Any) -> dict[str, Any]:
    """Run :func:`neardup.distributed.plan.dedup_dask` (same arguments, same result)."""
    from neardup.distributed.plan import dedup_dask as run

    return run(*args, **kwargs)


__all__ = ["dedup_dask"]
