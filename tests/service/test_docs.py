"""`/docs` (Swagger UI) and `/redoc` (ReDoc) are served from the package: every script and
stylesheet they load is on this server, the pages hold no inline script, and the assets
are real bundles."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from neardup.service import ServiceConfig, create_app
from neardup.store import Store


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    store = Store(f"sqlite:///{tmp_path / 'docs.db'}")
    with TestClient(create_app(ServiceConfig(crawl=False), store=store)) as c:
        yield c
    store.close()


def _loaded(page: str) -> list[str]:
    return re.findall(r"(?:src|href|spec-url|data-openapi)='([^']+)'", page)


@pytest.mark.parametrize(
    ("path", "bundle", "marker"),
    [
        ("/docs", "/docs-assets/swagger-ui-bundle.js", b"SwaggerUIBundle"),
        ("/redoc", "/docs-assets/redoc.standalone.js", b"redoc"),
    ],
)
def test_pages_load_only_local_files(
    client: TestClient, path: str, bundle: str, marker: bytes
) -> None:
    res = client.get(path)
    assert res.status_code == 200 and res.headers["content-type"].startswith("text/html")
    page = res.text
    assert "cdn." not in page and "https://" not in page and "http://" not in page
    assert "<script>" not in page  # no inline script: scripts come from src= only
    assert "script-src 'self'" in res.headers["content-security-policy"]
    urls = _loaded(page)
    assert bundle in urls and "/openapi.json" in urls
    for url in urls:
        got = client.get(url)
        assert got.status_code == 200, url
    js = client.get(bundle)
    assert len(js.content) > 500_000 and marker in js.content
    assert "javascript" in js.headers["content-type"]


def test_swagger_start_script_points_at_the_schema(client: TestClient) -> None:
    page = client.get("/docs").text
    assert "data-openapi='/openapi.json'" in page
    init = client.get("/docs-assets/neardup-swagger.js")
    assert init.status_code == 200 and "SwaggerUIBundle(" in init.text
    assert "root.dataset.openapi" in init.text


def test_the_schema_does_not_list_the_doc_pages(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    assert not {"/docs", "/redoc", "/docs-assets/neardup-swagger.js"} & set(paths)
    assert "/health" in paths
