"""Database URL resolution and programmatic migrations."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest
from sqlalchemy import inspect, text

from neardup.errors import UsageError
from neardup.store import Store, default_url, resolve_url


def test_default_url_is_in_the_user_data_dir(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    monkeypatch.delenv("NEARDUP_DB", raising=False)
    assert default_url() == f"sqlite:///{tmp_path / 'neardup' / 'neardup.db'}"
    assert resolve_url(None) == default_url()
    monkeypatch.setenv("NEARDUP_DB", "postgresql://u@h/db")
    assert resolve_url(None) == "postgresql+psycopg://u@h/db"
    assert resolve_url("sqlite:///x.db") == "sqlite:///x.db"


@pytest.mark.parametrize("bad", ["mysql://u@h/db", "not a url"])
def test_bad_urls(bad: str) -> None:
    with pytest.raises(UsageError):
        resolve_url(bad)


def test_migrations_run_on_open_and_are_idempotent(db_url: str) -> None:
    for _ in range(2):
        with Store(db_url) as store:
            engine = store._engines.write
            names = set(inspect(engine).get_table_names())
            with engine.connect() as conn:
                version = conn.execute(text("SELECT version_num FROM nd_alembic_version")).scalar()
    assert {"nd_collections", "nd_documents", "nd_index", "nd_terms", "nd_doc_terms"} <= names
    assert "nd_texts" in names
    assert version == head_revision()


def head_revision() -> str:
    """The single head of the shipped migration scripts (raises if the chain has forked)."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    cfg = Config()
    cfg.set_main_option("script_location", str(resources.files("neardup.store") / "migrations"))
    head = ScriptDirectory.from_config(cfg).get_current_head()
    assert head is not None
    return head


def test_sqlite_uses_wal(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'sub' / 'x.db'}")
    with store._engines.read.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"


def test_a_new_sqlite_file_has_the_store_page_size_and_an_old_one_keeps_its_own(
    tmp_path: Path,
) -> None:
    """A file the store creates gets PAGE_SIZE-byte pages; a file made before with 4096-byte
    pages (SQLite's default) keeps them, is migrated and works (add, check)."""
    import sqlite3

    from neardup.store.engine import PAGE_SIZE
    from neardup.text.types import Document

    def page_size(store: Store) -> int:
        with store._engines.read.connect() as conn:
            return int(conn.exec_driver_sql("PRAGMA page_size").scalar_one())

    with Store(f"sqlite:///{tmp_path / 'new.db'}") as store:
        assert page_size(store) == PAGE_SIZE == 8192
    old = tmp_path / "old.db"
    conn = sqlite3.connect(old)
    conn.execute("PRAGMA page_size = 4096")
    conn.execute("CREATE TABLE made_before (x INTEGER)")
    conn.close()
    text_ = " ".join(f"w{i}" for i in range(100))
    with Store(f"sqlite:///{old}") as store:
        assert page_size(store) == 4096
        store.create_collection("c", "minhash-lsh")
        store.add("c", [Document("a", text_)])
        assert [m.doc_id for m in store.check("c", text_).matches] == ["a"]
    with Store(f"sqlite:///{old}") as store:
        assert page_size(store) == 4096


@pytest.mark.parametrize("url", ["sqlite://", "sqlite:///:memory:"])
def test_an_in_memory_store_keeps_what_it_is_given(url: str) -> None:
    """The write and read engines share the one in-memory database (each connection to
    ``:memory:`` would be another, empty one: create_collection failed, "no such table")."""
    from neardup.text.types import Document

    words = [f"w{i}" for i in range(400)]
    a = Document("a", " ".join(words[:120]), source="a.txt")
    near = Document("near", " ".join([*words[:119], "x"]), source="near.txt")
    far = Document("far", " ".join(words[200:320]), source="far.txt")
    with Store(url) as store:
        store.create_collection("mem", "shingles-full")
        assert [c.name for c in store.collections()] == ["mem"]
        assert store.add("mem", [a, far]).added == 2
        assert store.stats("mem")["documents"] == 2
        matches = store.check("mem", near.text).matches
        assert [m.doc_id for m in matches] == ["a"]
        assert store.check("mem", words[0] + " y z " * 40).matches == ()
