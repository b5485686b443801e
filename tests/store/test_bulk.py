"""The SQLite bulk writer of :mod:`neardup.store.bulk`: multi-row ``INSERT ... VALUES``."""

from __future__ import annotations

import dataclasses
import sqlite3
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.methods.keys import KeyRows
from neardup.store import bulk
from neardup.text.types import Document


def _table() -> sqlite3.Connection:
    con = sqlite3.connect(":memory:")
    con.execute("CREATE TABLE t (a INTEGER, b BLOB, UNIQUE (a))")
    return con


@settings(max_examples=40, deadline=None)
@given(rows=st.integers(min_value=0, max_value=9000), most=st.sampled_from([1, 7, 4096]))
def test_rows_in_order_whatever_the_count(rows: int, most: int) -> None:
    con = _table()
    values = [v for k in range(rows) for v in (k * 3 - 5, bytes([k % 251]) * (k % 5))]
    original = bulk._SQLITE_ROWS
    bulk._SQLITE_ROWS = most
    try:
        bulk.sqlite_insert(con.cursor(), "t (a, b)", 2, values)
    finally:
        bulk._SQLITE_ROWS = original
    got = con.execute("SELECT a, b FROM t ORDER BY rowid").fetchall()
    assert got == [(k * 3 - 5, bytes([k % 251]) * (k % 5)) for k in range(rows)]


def _rows_of_each_insert(con: sqlite3.Connection) -> list[int]:
    """Rows of each INSERT statement run on ``con`` from now on (filled as they run)."""
    seen: list[int] = []

    def trace(sql: str) -> None:
        if sql.startswith("INSERT"):
            seen.append(sql.count("(") - 1)  # "(a, b)" then one "(...)" a row

    con.set_trace_callback(trace)
    return seen


def test_statements_are_powers_of_two() -> None:
    con = _table()
    seen = _rows_of_each_insert(con)
    values = [v for k in range(4096 + 100) for v in (k, b"")]
    bulk.sqlite_insert(con.cursor(), "t (a, b)", 2, values)
    assert seen == [4096, 64, 32, 4]


def test_fewer_rows_where_the_library_allows_fewer_parameters() -> None:
    con = _table()
    con.setlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER, 10)  # 5 rows of 2 at most
    seen = _rows_of_each_insert(con)
    bulk.sqlite_insert(con.cursor(), "t (a, b)", 2, [v for k in range(13) for v in (k, b"x")])
    assert seen == [4, 4, 4, 1]
    assert con.execute("SELECT COUNT(*), SUM(a) FROM t").fetchone() == (13, sum(range(13)))


def test_tail_clause_applies_to_every_row() -> None:
    con = _table()
    con.execute("INSERT INTO t VALUES (2, x'00')")
    tail = " ON CONFLICT (a) DO NOTHING"
    bulk.sqlite_insert(con.cursor(), "t (a, b)", 2, [1, b"a", 2, b"b", 3, b"c"], tail=tail)
    assert con.execute("SELECT a, b FROM t ORDER BY a").fetchall() == [
        (1, b"a"),
        (2, b"\x00"),
        (3, b"c"),
    ]


def test_a_failing_row_fails_its_statement() -> None:
    con = _table()
    with pytest.raises(sqlite3.IntegrityError):
        bulk.sqlite_insert(con.cursor(), "t (a, b)", 2, [1, b"a", 1, b"b"])


@settings(max_examples=30, deadline=None)
@given(rows=st.integers(min_value=0, max_value=5000), first=st.integers(-(2**63), 2**63 - 1))
def test_a_first_column_written_in_the_statement_leads_every_row(rows: int, first: int) -> None:
    """``first=`` (an index row's collection id) is every row's first column, the bound
    values after it, rows in order."""
    con = sqlite3.connect(":memory:")
    con.execute("CREATE TABLE t (c INTEGER, a INTEGER, b BLOB)")
    values = [v for k in range(rows) for v in (k * 7 - 3, bytes([k % 251]))]
    bulk.sqlite_insert(con.cursor(), "t (c, a, b)", 2, values, first=first)
    got = con.execute("SELECT c, a, b FROM t ORDER BY rowid").fetchall()
    assert got == [(first, k * 7 - 3, bytes([k % 251])) for k in range(rows)]


def _strings(obj: object) -> list[str]:
    """Every ``str`` reachable from ``obj`` through dataclass fields, lists and tuples."""
    if isinstance(obj, str):
        return [obj]
    if dataclasses.is_dataclass(obj):
        obj = [getattr(obj, f.name) for f in dataclasses.fields(obj)]
    if isinstance(obj, list | tuple):
        return [s for item in obj for s in _strings(item)]
    return []


def test_a_queued_batch_holds_its_stored_form_not_its_texts() -> None:
    """What waits in the add's queue (``bulk.encode``'s Batch) keeps the document columns,
    the compressed texts (decoding to the texts, hash checked), the encoded sets and the
    keys sorted, with int32 rows and int16 bands; no text itself."""
    from neardup.index.codec import content_hash, decode_text
    from neardup.index.core import prepare
    from neardup.methods.registry import make_method

    stories = sorted((Path(__file__).parents[2] / "examples/corpus/chekhov").glob("*.txt"))[:4]
    docs = [Document(p.stem, p.read_text(encoding="utf-8"), source=str(p)) for p in stories]
    meth = make_method("minhash-lsh", threshold=0.5)
    signed, short = prepare(meth, [(d, content_hash(d.text)) for d in docs], 8)
    assert short == [] and len(signed.ready) == 4
    batch = bulk.encode(meth, signed)
    assert [d[0] for d in batch.docs] == [d.id for d in docs]
    assert [d[1] for d in batch.docs] == [d.source for d in docs]
    assert [d[3] for d in batch.docs] == [content_hash(d.text) for d in docs]
    assert [d[4] for d in batch.docs] == [r.length for r in signed.ready]
    bodies = zip(batch.bodies, batch.docs, strict=True)
    assert [decode_text(b, expected_hash=d[3]) for b, d in bodies] == [d.text for d in docs]
    texts = {d.text for d in docs}
    assert not texts & set(_strings(batch))
    assert batch.keys is not None and signed.keys is not None
    assert batch.keys.row.dtype == np.int32 and batch.keys.band.dtype == np.int16
    assert np.all(np.diff(batch.keys.key) >= 0)
    assert _key_rows(batch.keys) == _key_rows(signed.keys)


def _key_rows(keys: KeyRows) -> list[tuple[int, int, int]]:
    """``(key, row, band)`` of each index row, sorted."""
    return sorted(zip(keys.key.tolist(), keys.row.tolist(), keys.band.tolist(), strict=True))
