"""CLI: neardup collection create/list/stats/delete, add, check, remove (exit codes 0/1/2)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from neardup.cli.main import app
from store._db import db_url, pg_database, unique  # noqa: F401  (fixtures)

runner = CliRunner()
TEXT = " ".join(f"word{i}" for i in range(80))


def _run(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output


def _json(out: str) -> dict[str, Any]:
    """The JSON object printed on stdout (skip lines on stderr are mixed in by CliRunner)."""
    return json.loads(out[out.index("{") :])


def test_collection_commands(db_url: str, tmp_path: Path) -> None:  # noqa: F811
    name = unique()
    db = ["--db", db_url]
    code, out = _run(
        "collection",
        "create",
        name,
        "--method",
        "minhash-lsh",
        "-t",
        "0.5",
        "--param",
        "num_perm=64",
        *db,
    )
    assert code == 0, out
    assert _run("collection", "create", name, *db)[0] == 2  # exists: usage error
    assert _run("collection", "create", unique(), "--param", "bogus=1", *db)[0] == 2
    corpus = tmp_path / "c.jsonl"
    rows = [{"id": "a", "text": TEXT}, {"id": "b", "text": TEXT + " more"}, {"id": "c", "text": ""}]
    corpus.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    code, out = _run("add", name, str(corpus), "--json", *db)
    assert code == 0, out
    report = _json(out)
    assert report["added"] == 2 and report["skipped"][0]["reason"] == "empty"
    again = _json(_run("add", name, str(corpus), "--json", *db)[1])
    assert again["added"] == 0
    query = tmp_path / "q.txt"
    query.write_text(TEXT)
    code, out = _run("check", name, str(query), "--json", *db)
    assert code == 1, out  # a duplicate was found (grep's exit code)
    result = json.loads(out)
    assert result["duplicate"] and {m["id"] for m in result["matches"]} == {"a", "b"}
    code, out = _run("collection", "stats", name, "--json", *db)
    assert json.loads(out)["documents"] == 2
    assert name in _run("collection", "list", *db)[1]
    assert _run("remove", name, "a", *db)[0] == 0
    assert _run("remove", name, "a", *db)[0] == 1  # no such document
    assert _run("check", "no-such", str(query), *db)[0] == 2  # an error, not "found"
    assert _run("collection", "delete", name, *db)[0] == 2  # not a terminal: --yes needed
    assert _run("collection", "delete", name, "--yes", *db)[0] == 0
    assert _run("collection", "delete", name, "--yes", *db)[0] == 1


def test_bad_db_url_is_usage_error() -> None:
    assert _run("collection", "list", "--db", "mysql://x/y")[0] == 2
    assert _run("collection", "list", "--db", "::nonsense::")[0] == 2


def test_create_keeps_the_methods_canonical_form(db_url: str) -> None:  # noqa: F811
    db = ["--db", db_url]
    name = unique()
    code, out = _run("collection", "create", name, "--method", "tf-ridf", "--json", *db)
    assert code == 0, out
    canonical = _json(out)["canonical"]
    assert (canonical["morphology"], canonical["stop_words"], canonical["min_token_length"]) == (
        "stem",
        True,
        3,
    )
    other = unique()
    args = ["collection", "create", other, "-m", "tf-ridf", "--morphology", "none", "--json"]
    code, out = _run(*args, *db)
    assert code == 0, out
    assert _json(out)["canonical"]["morphology"] == "none"


def test_create_stats_and_list_speak_plainly(tmp_path: Path) -> None:
    path = tmp_path / "lib.db"
    db = ["--db", f"sqlite:///{path}"]
    code, out = _run("collection", "create", "lib", "-m", "minhash-lsh", "-p", "num_perm=64", *db)
    assert code == 0, out
    assert out.strip() == (
        f"created collection lib: minhash-lsh (bands=19, num_perm=64, rows=2, threshold=0.5) "
        f"in {path}"
    )
    code, out = _run("collection", "stats", "lib", *db)
    assert code == 0 and '"' not in out and "{" not in out  # no JSON quoting in the table
    assert "min_token_length=1" in out
    code, out = _run("collection", "list", *db)
    assert code == 0 and str(path) in " ".join(out.split())  # where the database is


def _deep_records(path: Path) -> Path:
    """Three records, the second with an unused field nested 1,000 deep (2 KB)."""
    deep = "[" * 1000 + "]" * 1000
    good = "the old doctor walked slowly along the river bank in the morning light"
    lines = [
        json.dumps({"id": "a", "text": good}),
        '{"id": "b", "text": "a second story of the town and its long winter nights",'
        f' "meta": {deep}}}',
        json.dumps({"id": "c", "text": "the cook sang a song about the sea and the ships"}),
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_add_and_check_read_a_record_nested_1000_deep(db_url: str, tmp_path: Path) -> None:  # noqa: F811
    db = ["--db", db_url]
    name = unique()
    src = _deep_records(tmp_path / "deep.jsonl")
    runner = CliRunner()
    assert runner.invoke(app, ["collection", "create", name, *db]).exit_code == 0
    added = runner.invoke(app, ["add", name, str(src), *db, "--json"])
    assert added.exit_code == 0, added.output
    assert json.loads(added.stdout)["added"] == 3  # all three, the deep one too
    checked = runner.invoke(app, ["check", name, str(src), *db, "--json"])
    assert checked.exit_code == 1, checked.output  # 1: duplicates found (each of itself)
    rows = [json.loads(line) for line in checked.stdout.splitlines()]
    assert [(r["id"], r["matches"][0]["id"]) for r in rows] == [("a", "a"), ("b", "b"), ("c", "c")]


def test_one_default_method_for_collections(db_url: str) -> None:  # noqa: F811
    """Issue 41: `collection create`, POST /collections, Store.create_collection and a
    library's collection all default to TF-RIDF (Romanov 2019); they were minhash-lsh but
    for the crawl queue."""
    from fastapi.testclient import TestClient

    from neardup.crawl import CrawlQueue, CrawlSettings
    from neardup.service import ServiceConfig, create_app
    from neardup.store import Store

    made = unique()
    assert _run("collection", "create", made, "--db", db_url)[0] == 0
    store = Store(db_url)
    try:
        assert store.collection(made).method == "tf-ridf"
        assert store.create_collection(unique()).method == "tf-ridf"
        queue = CrawlQueue(store, CrawlSettings(allow_private=True))
        lib = queue.add("http://127.0.0.1:9/", ["post"], collection=unique(), morphology="lemma")
        info = store.collection(lib.collection)
        assert info.method == "tf-ridf" and info.canonical["morphology"] == "lemma"
        queue.close()
        app = create_app(ServiceConfig(crawl=False), store=store)
        with TestClient(app) as client:
            assert client.post("/collections", json={"name": unique()}).json()["method"] == (
                "tf-ridf"
            )
            body = {"url": "http://127.0.0.1:9/a", "clarifications": ["post"], "morphology": "x"}
            assert client.post("/libraries", json=body).status_code == 422
    finally:
        store.close()
