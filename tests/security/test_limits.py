"""Request size and decompression limits: nothing the server holds grows past the limit.

* A body over ``max_body_bytes`` gets 413 whether its length is declared or streamed
  (chunked), as JSON or as a multipart upload.
* A ``Content-Encoding: gzip`` (or ``deflate``) body is inflated by the limit middleware at
  most ``max_body_bytes + 1`` bytes far: a gzip bomb gets 413 and the server's traced peak
  allocation stays a small multiple of the limit; a well-formed compressed body is accepted
  as the same JSON; corrupt data gets 400; other codings 415.
* An uploaded ``.gz`` file is not inflated at all (refused as binary, 422).
* The readers stop a ``.gz`` input (document or JSONL) at ``max_bytes`` of output.
"""

from __future__ import annotations

import gzip
import json
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from fuzz.guard import traced_peak_mib
from fuzz.strategies import gzip_bomb
from neardup.text.read import read_corpus
from neardup.text.types import Skipped
from security._app import AUTH, client
from shared_data import paragraphs

LIMIT = 64_000
BOMB = 50 * 2**20  # inflates to 50 MiB (deflate tops out near 1000:1)


@pytest.fixture(scope="module")
def bomb() -> bytes:
    data = gzip_bomb(BOMB, unit=b"{")
    assert len(data) < LIMIT  # small on the wire: only the inflated size is over
    return data


@pytest.fixture
def api(tmp_path: Path) -> Iterator[tuple[TestClient, str]]:
    with client(f"sqlite:///{tmp_path / 'db.sqlite'}", max_body_bytes=LIMIT) as c:
        assert c.post("/collections", json={"name": "c"}, headers=AUTH).status_code == 201
        text = "\n\n".join(paragraphs("progit-ru-revisions", 3))
        doc = {"id": "d0", "text": text}
        assert c.post("/collections/c/documents", json=doc, headers=AUTH).status_code == 201
        yield c, text


def _status(resp, status: int) -> None:  # type: ignore[no-untyped-def]
    assert resp.status_code == status, resp.text[:300]
    assert resp.headers["content-type"].startswith("application/problem+json")
    assert resp.json()["status"] == status


def test_declared_length_over_the_limit(api: tuple[TestClient, str]) -> None:
    c, _ = api
    _status(c.post("/collections/c/check", json={"text": "слово " * LIMIT}), 413)


def test_streamed_body_over_the_limit(api: tuple[TestClient, str]) -> None:
    c, _ = api
    sent: list[int] = []

    def chunks():  # type: ignore[no-untyped-def]
        yield b'{"text": "'
        for _ in range(1000):  # 1000 x 1 KB, no Content-Length (chunked)
            sent.append(1)
            yield b"a " * 512
        yield b'"}'

    headers = {"content-type": "application/json"}
    _status(c.post("/collections/c/check", content=chunks(), headers=headers), 413)


def test_upload_over_the_limit(api: tuple[TestClient, str]) -> None:
    c, _ = api
    files = {"file": ("big.txt", b"word " * LIMIT, "text/plain")}
    _status(c.post("/collections/c/check/file", files=files), 413)


def test_gzip_body_is_accepted_and_means_the_same(api: tuple[TestClient, str]) -> None:
    c, text = api
    body = gzip.compress(json.dumps({"text": text}).encode())
    headers = {"content-type": "application/json", "content-encoding": "gzip"}
    r = c.post("/collections/c/check", content=body, headers=headers)
    assert r.status_code == 200, r.text
    assert r.json()["matches"][0]["id"] == "d0"
    deflated = zlib.compress(json.dumps({"text": text}).encode())
    headers["content-encoding"] = "deflate"
    r = c.post("/collections/c/check", content=deflated, headers=headers)
    assert r.status_code == 200 and r.json()["matches"][0]["id"] == "d0"


def test_gzip_bomb_body_is_413_with_bounded_memory(
    api: tuple[TestClient, str], bomb: bytes
) -> None:
    c, _ = api
    headers = {"content-type": "application/json", "content-encoding": "gzip"}
    out: list[object] = []
    peak = traced_peak_mib(
        lambda: out.append(c.post("/collections/c/check", content=bomb, headers=headers))
    )
    _status(out[0], 413)
    assert peak < 20, f"{peak:.1f} MiB traced for a {LIMIT} byte limit"


def test_gzip_bomb_on_a_write_route_adds_nothing(api: tuple[TestClient, str], bomb: bytes) -> None:
    c, _ = api
    headers = {**AUTH, "content-type": "application/json", "content-encoding": "gzip"}
    _status(c.post("/collections/c/documents/batch", content=bomb, headers=headers), 413)
    assert c.get("/collections/c").json()["documents"] == 1


@pytest.mark.parametrize(
    ("coding", "body", "status"),
    [
        ("gzip", b"not gzip at all", 400),
        ("gzip", gzip.compress(b'{"text": "x"}', mtime=0)[:-12], 400),
        ("br", b"\x0b\x02\x80{}\x03", 415),
        ("gzip, br", gzip.compress(b"{}", mtime=0), 415),
        ("compress", b"x", 415),
    ],
)
def test_corrupt_or_unknown_codings(
    api: tuple[TestClient, str], coding: str, body: bytes, status: int
) -> None:
    c, _ = api
    headers = {"content-type": "application/json", "content-encoding": coding}
    _status(c.post("/collections/c/check", content=body, headers=headers), status)


def test_uploaded_gz_file_is_not_inflated(api: tuple[TestClient, str], bomb: bytes) -> None:
    c, _ = api
    files = {"file": ("bomb.txt.gz", bomb, "application/gzip")}
    out: list[object] = []
    peak = traced_peak_mib(lambda: out.append(c.post("/collections/c/check/file", files=files)))
    assert out[0].status_code in (413, 422), out[0].text  # type: ignore[attr-defined]
    assert peak < 20


@pytest.mark.parametrize("name", ["bomb.txt.gz", "bomb.jsonl.gz"])
def test_readers_stop_a_bomb_at_max_bytes(tmp_path: Path, bomb: bytes, name: str) -> None:
    path = tmp_path / name
    path.write_bytes(bomb)
    limit = 1_000_000
    items: list[object] = []
    peak = traced_peak_mib(lambda: items.extend(read_corpus([path], max_bytes=limit)))
    assert [getattr(i, "reason", None) for i in items] == ["oversize"]
    assert isinstance(items[0], Skipped)
    assert peak < 8 * limit / 2**20, f"{peak:.1f} MiB traced for a {limit} byte limit"
