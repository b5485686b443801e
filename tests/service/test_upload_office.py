"""PDF and DOCX uploads are checked against a collection like text files (both databases)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from neardup.service import ServiceConfig, create_app
from neardup.store import Store
from store._db import unique
from text.test_read_inputs import _paragraphs, make_docx, make_pdf

TOKEN = "s3cret-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    store = Store(db_url)
    app = create_app(ServiceConfig(token=TOKEN, max_body_bytes=2_000_000), store=store)
    with TestClient(app) as c:
        yield c
    store.close()


@pytest.mark.slow
def test_pdf_and_docx_uploads_find_their_text(client: TestClient, tmp_path: Path) -> None:
    name = unique()
    assert (
        client.post(
            "/collections", json={"name": name, "method": "minhash-lsh"}, headers=AUTH
        ).status_code
        == 201
    )
    story = _paragraphs()
    words = " ".join(story[2:4]).split()
    text = " ".join(words[:120])
    docs = [{"id": "story", "text": text}, {"id": "other", "text": " ".join(story[8:10])}]
    r = client.post(f"/collections/{name}/documents/batch", json={"documents": docs}, headers=AUTH)
    assert r.json()["added"] == 2
    make_pdf(tmp_path / "q.pdf", [" ".join(words[i : i + 12]) for i in range(0, 120, 12)])
    make_docx(tmp_path / "q.docx", [text])
    for fname, mime in (("q.pdf", "application/pdf"), ("q.docx", "application/octet-stream")):
        files = {"file": (fname, (tmp_path / fname).read_bytes(), mime)}
        body = client.post(f"/collections/{name}/check/file", files=files).json()
        assert body["duplicate"], (fname, body)
        assert body["matches"][0]["id"] == "story"
    files = {"file": ("bad.pdf", b"%PDF-1.4 nothing else", "application/pdf")}
    r = client.post(f"/collections/{name}/check/file", files=files)
    assert r.status_code == 422 and "unreadable PDF" in r.json()["detail"]
