"""Opening a store at the newest migration does not import Alembic; a new or older
database is still migrated."""

from __future__ import annotations

from pathlib import Path

import pytest

from fresh_python import run_code
from neardup.store.engine import head_revisions


def _open(url: str) -> str:
    code = (
        "import sys\n"
        "from neardup.store import Store\n"
        f"s = Store({url!r})\n"
        "print('alembic' in sys.modules, [c.name for c in s.collections()])\n"
        "s.close()\n"
    )
    res = run_code(code)
    assert res.returncode == 0, res.stderr
    return res.stdout.strip()


def test_head_is_the_last_migration() -> None:
    versions = Path(__file__).resolve().parents[2] / "src/neardup/store/migrations/versions"
    numbers = sorted(p.name.split("_")[0] for p in versions.glob("0*.py"))
    assert head_revisions() == {numbers[-1]}


@pytest.mark.slow
def test_alembic_only_when_the_schema_is_behind(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'a.db'}"
    assert _open(url) == "True []"  # a new database: migrated by Alembic
    assert _open(url) == "False []"  # at head: one query, no Alembic
    import sqlite3

    with sqlite3.connect(tmp_path / "a.db") as conn:  # pretend the schema before the last one
        conn.execute("UPDATE nd_alembic_version SET version_num = '0007'")
        conn.execute("DROP TABLE nd_index_runs")
        conn.execute(
            "CREATE TABLE nd_index_pending (collection_id INTEGER NOT NULL, key BIGINT NOT NULL, "
            "band SMALLINT NOT NULL, document_id BIGINT NOT NULL)"
        )
    out = _open(url)
    assert out == "True []"
