"""Path traversal: document ids, uploaded file names, collection names and ``--out`` paths.

neardup writes files in two places only: the SQLite database (``--db``) and the
``dedup --out`` directory (fixed file names, temporary files beside them). Ids and names are
database keys, never path parts. The tests run with the working directory in a sandbox and
compare a snapshot of the whole sandbox before and after: nothing appears outside the
database's and the output's own directories, and ``..`` in an id or a URL never reaches
another collection's documents.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from neardup.output import write_result
from security._app import AUTH, client
from shared_data import paragraphs

NEARDUP = str(Path(sys.executable).with_name("neardup"))
HOSTILE_IDS = [
    "../../../../tmp/evil",
    "..\\..\\windows\\evil",
    "/etc/passwd",
    "a/../../b",
    "%2e%2e%2f%2e%2e%2fevil",
    "..",
    ".",
    "~/evil",
    "x" * 1900,
]


def _snapshot(root: Path) -> dict[str, int]:
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            out[str(path.relative_to(root))] = path.lstat().st_size if path.is_file() else -1
    return out


def _new_paths(
    before: dict[str, int], after: dict[str, int], allowed: tuple[str, ...]
) -> list[str]:
    return sorted(p for p in after if p not in before and not p.startswith(allowed))


@pytest.fixture
def sandbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "work").mkdir()
    (tmp_path / "db").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    return tmp_path


def test_api_ids_names_and_uploads_write_nothing_outside(sandbox: Path) -> None:
    text = paragraphs("progit-ru-revisions", 1)[0]
    before = _snapshot(sandbox)
    with client(f"sqlite:///{sandbox / 'db' / 'n.db'}") as c:
        for name in ["..", "...", "..\\x", "~", ".hidden"]:
            assert (
                c.post(
                    "/collections", json={"name": name, "method": "minhash-lsh"}, headers=AUTH
                ).status_code
                == 201
            )
        for name in ["../x", "a/b", "/abs", "x\x00y", "y" * 201]:
            assert (
                c.post(
                    "/collections", json={"name": name, "method": "minhash-lsh"}, headers=AUTH
                ).status_code
                == 422
            )
        c.post("/collections", json={"name": "a"}, headers=AUTH)
        c.post("/collections", json={"name": "b"}, headers=AUTH)
        docs = [{"id": i, "text": text} for i in HOSTILE_IDS]
        r = c.post("/collections/a/documents/batch", json={"documents": docs}, headers=AUTH)
        assert r.status_code == 200 and r.json()["added"] == len(HOSTILE_IDS)
        r = c.post("/collections/b/documents", json={"id": "secret", "text": text}, headers=AUTH)
        assert r.status_code == 201
        for name in ["../../../tmp/evil.txt", "/etc/evil.txt", "..\\evil.txt", "a/../../b.txt"]:
            files = {"file": (name, text.encode(), "text/plain")}
            r = c.post("/collections/a/check/file", files=files)
            assert r.status_code == 200 and r.json()["matches"], name
        for doc_id in ["/etc/passwd", "a/../../b", "..", "../../../../tmp/evil"]:
            r = c.get(f"/collections/a/documents/{_quote(doc_id)}")
            assert r.status_code == 200 and r.json()["id"] == doc_id, (doc_id, r.text)
    after = _snapshot(sandbox)
    assert _new_paths(before, after, ("db",)) == []
    assert not Path("/tmp/evil").exists() and not Path("/tmp/evil.txt").exists()


def _quote(doc_id: str) -> str:
    from urllib.parse import quote

    return quote(doc_id, safe="").replace(".", "%2E")  # or the client collapses ".." away


@pytest.mark.parametrize(
    "path",
    [
        "/collections/a/documents/..%2F..%2Fb%2Fdocuments%2Fsecret",
        "/collections/a/documents/../../b/documents/secret",
        "/collections/a/documents/%2e%2e/%2e%2e/b/documents/secret",
        "/collections/a%2F..%2Fb/documents/secret",
        "/collections/a/../b/documents/secret",
    ],
)
def test_dot_dot_in_urls_never_reaches_another_collection(tmp_path: Path, path: str) -> None:
    text = paragraphs("progit-ru-revisions", 1)[0]
    with client(f"sqlite:///{tmp_path / 'n.db'}") as c:
        c.post("/collections", json={"name": "a"}, headers=AUTH)
        c.post("/collections", json={"name": "b"}, headers=AUTH)
        c.post("/collections/b/documents", json={"id": "secret", "text": text}, headers=AUTH)
        r = c.get(path)
        body = r.text
        assert r.status_code in (404, 422) or "secret" not in body or _is_b_secret(c, path), body
        d = c.delete(path, headers=AUTH)
        assert c.get("/collections/b/documents/secret").status_code == 200 or _is_b_secret(
            c, path
        ), d.text


def _is_b_secret(c, path: str) -> bool:  # type: ignore[no-untyped-def]
    """True when the client itself normalised ``..`` away (the request *was* for b/secret)."""
    import httpx

    return str(httpx.URL(f"http://t{path}").path) == "/collections/b/documents/secret"


@pytest.mark.slow
def test_dedup_out_writes_only_into_its_directory(sandbox: Path) -> None:
    """``--out`` with ``..`` goes where the path says; ids with ``../`` name no files; a
    planted symlink is replaced, its target outside never written."""
    text = paragraphs("progit-ru-revisions", 1)[0]
    corpus = sandbox / "work" / "in.jsonl"
    rows = [{"id": i, "text": text} for i in HOSTILE_IDS]
    corpus.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    outside = sandbox / "outside.txt"
    outside.write_text("keep me", encoding="utf-8")
    target = sandbox / "work" / "out"
    target.mkdir()
    (target / "pairs.jsonl").symlink_to(outside)
    before = _snapshot(sandbox)
    out_arg = str(sandbox / "work" / "sub" / ".." / "out")
    cmd = [NEARDUP, "dedup", str(corpus), "--out", out_arg, "-q"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False)
    assert r.returncode == 0, r.stderr
    after = _snapshot(sandbox)
    new = _new_paths(before, after, ("work/out/",))
    assert new == [], new
    assert outside.read_text(encoding="utf-8") == "keep me"
    assert not (target / "pairs.jsonl").is_symlink()
    names = sorted(p.name for p in target.iterdir())
    assert names == sorted(
        ["pairs.jsonl", "clusters.jsonl", "dropped.jsonl", "skipped.jsonl", "summary.json"]
    )
    pairs = [json.loads(x) for x in (target / "pairs.jsonl").read_text().splitlines()]
    assert {p["a"] for p in pairs} | {p["b"] for p in pairs} == set(HOSTILE_IDS)


def test_write_result_into_a_file_path_fails_cleanly(tmp_path: Path) -> None:
    from neardup.job.pipeline import dedup
    from neardup.text.types import Document

    text = paragraphs("progit-ru-revisions", 1)[0]
    result = dedup([Document("a", text), Document("b", text)])
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    with pytest.raises(OSError):
        write_result(result, blocker)
    assert blocker.read_text(encoding="utf-8") == "x"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


@pytest.mark.slow
def test_cli_collection_names_are_keys_not_paths(sandbox: Path) -> None:
    db = f"sqlite:///{sandbox / 'db' / 'cli.db'}"
    before = _snapshot(sandbox)
    base = [NEARDUP, "collection", "create"]
    bad = subprocess.run([*base, "../../evil", "--db", db], capture_output=True, timeout=120)
    assert bad.returncode == 2
    ok = subprocess.run([*base, "..", "--db", db], capture_output=True, timeout=120)
    assert ok.returncode == 0, ok.stderr
    after = _snapshot(sandbox)
    assert _new_paths(before, after, ("db",)) == []
