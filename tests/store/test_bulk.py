"""The SQLite bulk writer of :mod:`neardup.store.bulk`: multi-row ``INSERT ... VALUES``."""

from __future__ import annotations

import sqlite3

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.store import bulk


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
