"""The service under test: an app on a store in a temporary directory, with a token."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from fastapi.testclient import TestClient

from neardup.service import ServiceConfig, create_app
from neardup.store import Store

TOKEN = "s3cret-Token-42"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@contextmanager
def client(db_url: str, *, max_body_bytes: int = 64_000, **config: Any) -> Iterator[TestClient]:
    """A TestClient on a fresh app (no crawl dispatcher, no source fetching)."""
    store = Store(db_url)
    cfg = ServiceConfig(
        token=TOKEN, max_body_bytes=max_body_bytes, crawl=False, fetch_sources=False, **config
    )
    app = create_app(cfg, store=store)
    try:
        with TestClient(app) as c:
            yield c
    finally:
        store.close()
