"""Issue 29 item 3: an empty lexicon is never silent. Lexical methods (I-Match, its
randomised form, anchor words) take their lexicon from word statistics; on two or three
documents none is left, so every signature is empty: ``add``, ``check`` (CLI, API and pages)
and ``compare`` say so instead of answering "no duplicate" or 0.0."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from neardup.cli.main import app
from neardup.job.compare import compare
from neardup.service import ServiceConfig, create_app
from neardup.store import Store
from neardup.text.types import Document
from shared_data import paragraphs

runner = CliRunner()
LEXICAL = ("imatch", "imatch-random", "anchor-words")
HTML = {"Accept": "text/html"}


@pytest.fixture
def texts() -> list[str]:
    """Two paragraphs of Pro Git: every word has df 1 or 2 of N = 2, none mid-range."""
    return paragraphs("progit-ru-revisions", 2, min_words=60)


@pytest.mark.parametrize("method", LEXICAL)
def test_add_and_check_warn_when_no_document_gets_an_index_key(
    tmp_path: Path, texts: list[str], method: str
) -> None:
    db = ["--db", f"sqlite:///{tmp_path / 'lex.db'}"]
    for i, t in enumerate(texts):
        (tmp_path / f"d{i}.txt").write_text(t, encoding="utf-8")
    assert runner.invoke(app, ["collection", "create", "lib", "-m", method, *db]).exit_code == 0
    added = runner.invoke(
        app, ["add", "lib", *(str(tmp_path / f"d{i}.txt") for i in range(2)), *db, "-q"]
    )
    assert added.exit_code == 0, added.output
    assert f"warning: {method} built 0 index keys for the 2 documents of lib" in added.output
    assert "lexicon is empty" in added.output

    checked = runner.invoke(app, ["check", "lib", str(tmp_path / "d0.txt"), *db])
    assert checked.exit_code == 0  # nothing found: that is exactly what is warned about
    assert "no duplicate (0 candidates)" in checked.output
    assert "lexicon is empty" in checked.output
    as_json = runner.invoke(app, ["check", "lib", str(tmp_path / "d0.txt"), "--json", *db])
    row = json.loads(as_json.stdout.splitlines()[0])
    assert row["warnings"] and "0 index keys" in row["warnings"][0]


def test_store_tf_ridf_and_bigger_collections_do_not_warn(tmp_path: Path, texts: list[str]) -> None:
    with Store(f"sqlite:///{tmp_path / 's.db'}") as store:
        store.create_collection("tf", method="tf-ridf")
        report = store.add("tf", [Document(f"d{i}", t) for i, t in enumerate(texts)])
        assert report.warnings == () and report.as_dict()["warnings"] == []
        assert store.check("tf", texts[0]).warnings == ()
        many = paragraphs("progit-ru-revisions", 60, min_words=60)
        store.create_collection("im", method="imatch")
        report = store.add("im", [Document(f"d{i}", t) for i, t in enumerate(many)])
        assert report.warnings == ()
        assert store.check("im", many[7]).duplicate


def test_api_and_pages_show_the_warning(tmp_path: Path, texts: list[str]) -> None:
    store = Store(f"sqlite:///{tmp_path / 'api.db'}")
    store.create_collection("anchors", method="anchor-words")
    with TestClient(create_app(ServiceConfig(crawl=False), store=store)) as client:
        docs = [{"id": f"d{i}", "text": t} for i, t in enumerate(texts)]
        r = client.post("/collections/anchors/documents/batch", json={"documents": docs})
        assert r.status_code == 200
        assert "anchor-words built 0 index keys" in r.json()["warnings"][0]
        r = client.post("/collections/anchors/check", json={"text": texts[1]})
        assert r.json()["duplicate"] is False and "lexicon is empty" in r.json()["warnings"][0]
        page = client.get("/collections/anchors", headers=HTML).text
        assert 'id="empty-lexicon"' in page and "built 0 index keys" in page
        page = client.post("/check", data={"collection": "anchors", "text": texts[1]}).text
        assert re.search(r'role="alert">Warning: anchor-words built 0 index keys', page)
    store.close()


@pytest.mark.parametrize("method", LEXICAL)
def test_compare_identical_files_without_corpus_refuses(
    tmp_path: Path, texts: list[str], method: str
) -> None:
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text(texts[0], encoding="utf-8")
    b.write_text(texts[0], encoding="utf-8")
    assert compare(texts[0], texts[0], method=method).empty_lexicon
    out = runner.invoke(app, ["compare", str(a), str(b), "-m", method])
    assert out.exit_code == 2
    assert f"{method} found no lexicon words" in out.output and "--corpus" in out.output
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for i, t in enumerate(paragraphs("progit-ru-revisions", 60, min_words=60)):
        (corpus / f"{i}.txt").write_text(t, encoding="utf-8")
    out = runner.invoke(
        app, ["compare", str(a), str(b), "-m", method, "--corpus", str(corpus), "--json"]
    )
    assert out.exit_code == 0, out.output
    row = json.loads(out.stdout)
    assert row["empty_lexicon"] is False and row["score"] == 1.0
