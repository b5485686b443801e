"""Fixtures of the crawler tests: both databases and the fake libraries."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from crawl import _helpers
from fake_library import Site, serve_library
from neardup.store import Store
from store._db import db_url, pg_database  # noqa: F401  (fixtures)


@pytest.fixture(autouse=True)
def close_queues() -> Iterator[None]:
    """Close the queues a test opened with ``make_queue`` (their connection pools)."""
    yield
    while _helpers.OPENED:
        _helpers.OPENED.pop().close()


@pytest.fixture(scope="module")
def site() -> Iterator[Site]:
    """The first fake library, 120 article numbers (shared by a module's tests)."""
    with serve_library(n_articles=120, slow_seconds=0.5) as s:
        yield s


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:  # noqa: F811
    """A store on SQLite or PostgreSQL."""
    with Store(db_url) as st:
        yield st


@pytest.fixture
def sqlite_store(tmp_path: Path) -> Iterator[Store]:
    """A store on a SQLite file."""
    with Store(f"sqlite:///{tmp_path / 'crawl.db'}") as st:
        yield st
