"""Issue 27 items 2 and 5 through the open upload route ``/collections/{name}/check/file``
(no token needed), on SQLite and PostgreSQL: a DOCX zip bomb costs bounded memory (peak
RSS of a child process), a slow PDF bounded CPU time."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from neardup.service import ServiceConfig, create_app
from neardup.store import Store
from store._db import unique
from text._hostile_files import slow_pdf

TOKEN = "s3cret-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def _env() -> dict[str, str]:
    tests = str(Path(__file__).resolve().parents[1])
    path = os.environ.get("PYTHONPATH", "")
    return {**os.environ, "PYTHONPATH": f"{path}{os.pathsep}{tests}" if path else tests}


_DOCX_SCRIPT = textwrap.dedent(
    """
    import json, sys
    from pathlib import Path
    from fastapi.testclient import TestClient
    from neardup.service import ServiceConfig, create_app
    from neardup.store import Store
    from text._hostile_files import docx_bomb
    from text.test_read_inputs import _paragraphs

    def hwm():
        for line in open("/proc/self/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024

    url, name, tmp = sys.argv[1:4]
    data = docx_bomb(Path(tmp) / "bomb.docx", _paragraphs()[:2], mib=512)
    store = Store(url)
    app = create_app(ServiceConfig(token="t", crawl=False, fetch_sources=False), store=store)
    with TestClient(app) as c:
        body = {"name": name, "method": "minhash-lsh"}
        c.post("/collections", json=body, headers={"Authorization": "Bearer t"})
        before = hwm()
        files = {"file": ("bomb.docx", data, "application/octet-stream")}
        r = c.post(f"/collections/{name}/check/file", files=files)
        after = hwm()
    store.close()
    print(json.dumps({"size": len(data), "status": r.status_code, "detail": r.json().get("detail"),
                      "before": before, "after": after}))
    """
)


@pytest.mark.slow
def test_a_docx_zip_bomb_upload_costs_bounded_memory(db_url: str, tmp_path: Path) -> None:
    """A ~0.5 MB DOCX whose body part inflates to 512 MiB: 422 with the reason, and the
    serving process's peak RSS grows by less than 64 MB (python-docx inflated every member
    whole: 121 -> 2,172 MiB in the probe)."""
    out = subprocess.run(
        [sys.executable, "-c", _DOCX_SCRIPT, db_url, unique("bomb"), str(tmp_path)],
        capture_output=True, text=True, timeout=600, check=True, env=_env(),
    )  # fmt: skip
    figures = json.loads(out.stdout.strip().splitlines()[-1])
    assert figures["size"] < 2_000_000, figures
    assert figures["after"] - figures["before"] < 64 * 2**20, figures
    assert figures["status"] == 422, figures
    assert "its members inflate to" in figures["detail"]
    assert "(largest: 'word/document.xml', 5368" in figures["detail"]


@pytest.mark.slow
def test_a_slow_pdf_upload_costs_bounded_cpu(db_url: str) -> None:
    """A 3-page PDF of ~9 KB that pypdf needs ~11 s a page for (300,000 text operators,
    under pypdf's own limit of 2 million tokens a stream): the route answers 422 after the
    PDF budget (5 s + 0.25 s a page) and the whole request uses less than 9 s of CPU in
    this process (97 s for the probe's 19 KB PDF)."""
    store = Store(db_url)
    cfg = ServiceConfig(token=TOKEN, crawl=False, fetch_sources=False)
    try:
        with TestClient(create_app(cfg, store=store)) as c:
            name = unique("pdf")
            assert (
                c.post(
                    "/collections", json={"name": name, "method": "minhash-lsh"}, headers=AUTH
                ).status_code
                == 201
            )
            data = slow_pdf(300_000, pages=3)
            assert len(data) < 20_000
            start = time.process_time()
            files = {"file": ("slow.pdf", data, "application/pdf")}
            r = c.post(f"/collections/{name}/check/file", files=files)
            spent = time.process_time() - start
    finally:
        store.close()
    assert spent < 9.0, spent
    assert r.status_code == 422
    assert "(3 pages) used more than its CPU budget of 5.75 s" in r.json()["detail"]
