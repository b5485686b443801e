"""``neardup collection vacuum`` after a large removal (issue 16, row 11), both databases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from typer.testing import CliRunner

from neardup.cli.main import app
from neardup.store import Store
from shared_data import load_docs
from store._db import db_url, pg_database, unique  # noqa: F401  (fixtures)

runner = CliRunner()


def _pg_vacuums(url: str) -> dict[str, tuple[int, int]]:
    """``{table: (vacuum_count, n_dead_tup)}`` of the store's tables."""
    engine = create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))
    try:
        with engine.connect() as conn:
            rows = conn.execute(
                text(
                    "SELECT relname, vacuum_count, n_dead_tup FROM pg_stat_user_tables "
                    "WHERE relname LIKE 'nd\\_%'"
                )
            ).all()
    finally:
        engine.dispose()
    return {r[0]: (int(r[1]), int(r[2])) for r in rows}


def _sqlite_free_pages(path: str) -> int:
    import sqlite3

    with sqlite3.connect(path) as conn:
        return int(conn.execute("PRAGMA freelist_count").fetchone()[0])


@pytest.mark.slow
def test_vacuum_after_removing_most_documents(db_url: str) -> None:  # noqa: F811
    docs = [d for d in load_docs("linux-doc-revisions") if len(d.text) > 1500][:120]
    name = unique()
    with Store(db_url) as store:
        store.create_collection(name, "minhash-lsh", threshold=0.5)
        assert store.add(name, docs).added == len(docs)
        for d in docs[20:]:
            store.remove(name, d.id)
    sqlite_path = db_url.removeprefix("sqlite:///") if db_url.startswith("sqlite") else None
    if sqlite_path:
        assert _sqlite_free_pages(sqlite_path) > 0  # removed rows left free pages
    else:
        before = _pg_vacuums(db_url)

    result = runner.invoke(app, ["collection", "vacuum", "--db", db_url, "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output[result.output.index("{") :])
    assert "nd_index" in report["tables"] and "nd_documents" in report["tables"]

    if sqlite_path:
        assert _sqlite_free_pages(sqlite_path) == 0
        assert report["bytes_after"] < report["bytes_before"]
    else:
        after = _pg_vacuums(db_url)
        for table in ("nd_index", "nd_shingles", "nd_signatures", "nd_texts", "nd_documents"):
            assert after[table][0] == before.get(table, (0, 0))[0] + 1, table
        assert after["nd_index"][1] == 0  # no dead index rows left
    # the collection still answers: the kept documents are found, the removed ones are not
    with Store(db_url) as store:
        assert store.stats(name)["documents"] == 20
        found = store.check(name, docs[3].text)
        assert found.matches and found.matches[0].doc_id == docs[3].id
        assert all(m.doc_id != docs[50].id for m in store.check(name, docs[50].text).matches)


@pytest.mark.slow
def test_vacuum_on_a_bad_database_is_exit_1(tmp_path: Path) -> None:
    url = "postgresql://nobody@127.0.0.1:1/none"
    result = runner.invoke(app, ["collection", "vacuum", "--db", url])
    assert result.exit_code == 1
    assert "vacuumed" not in result.output
