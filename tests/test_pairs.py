"""Column-stored pairs: the sequence behaves like a list of Pair, the JSONL lines are the
bytes json.dumps gives, and the job's keep/drop reasons agree with a per-pair lookup."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.job.keep import containments
from neardup.job.pairs import LINE_CHUNK, Pair, PairTable, pair_lines
from neardup.job.pipeline import _direct_rows
from neardup.output import json_text

ids_st = st.lists(st.text(min_size=0, max_size=8), min_size=2, max_size=6, unique=True)
value_st = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)


@settings(max_examples=200, deadline=None)
@given(ids=ids_st, data=st.data())
def test_lines_equal_json_dumps_of_each_pair(ids: list[str], data: st.DataObject) -> None:
    n = data.draw(st.integers(0, 5))
    a = np.array([data.draw(st.integers(0, len(ids) - 1)) for _ in range(n)], dtype=np.int64)
    b = np.array([data.draw(st.integers(0, len(ids) - 1)) for _ in range(n)], dtype=np.int64)
    values = np.array([[data.draw(value_st) for _ in range(4)] for _ in range(n)]).reshape(n, 4)
    got = list(pair_lines(ids, a, b, values, "minhash-lsh"))
    want = [
        json_text(
            Pair(ids[a[i]], ids[b[i]], *values[i].tolist(), "minhash-lsh").as_dict()  # type: ignore[call-arg]  # 4 values
        )
        + "\n"
        for i in range(n)
    ]
    assert got == want


def test_lines_of_ids_with_cyrillic_quotes_and_a_lone_surrogate() -> None:
    ids = ["док-1", 'a"b\\c', "x\ud800y", "日本"]
    a, b = np.array([0, 2, 1]), np.array([3, 3, 0])
    values = np.array([[0.5, 1 / 3, 2 / 3, 0.123456789]] * 3)
    lines = list(pair_lines(ids, a, b, values, "shingles-full"))
    assert lines[0] == (
        '{"a": "док-1", "b": "日本", "resemblance": 0.5, "containment_ab": 0.333333, '
        '"containment_ba": 0.666667, "score": 0.123457, "method": "shingles-full"}\n'
    )
    assert lines[1].startswith('{"a": "x\\ud800y", "b": "\\u65e5\\u672c"')  # whole row ASCII
    assert json.loads(lines[2])["a"] == 'a"b\\c'


def test_lines_format_each_distinct_value_by_its_bits() -> None:
    """Values are formatted once per distinct bit pattern: -0.0 and 0.0 (equal as floats)
    keep their own text, as json.dumps gives them, and a value repeated across rows and
    columns reads the same everywhere."""
    ids = ["a", "b", "c"]
    values = np.array([[0.0, -0.0, 2 / 3, 2 / 3], [2 / 3, 0.0, -0.0, 0.1 + 0.2]])
    lines = list(pair_lines(ids, np.array([0, 1]), np.array([1, 2]), values, "m"))
    assert [json.loads(x) for x in lines] == [
        {"a": "a", "b": "b", "resemblance": 0.0, "containment_ab": -0.0,
         "containment_ba": 0.666667, "score": 0.666667, "method": "m"},
        {"a": "b", "b": "c", "resemblance": 0.666667, "containment_ab": 0.0,
         "containment_ba": -0.0, "score": 0.3, "method": "m"},
    ]  # fmt: skip
    assert '"containment_ab": -0.0, ' in lines[0] and '"resemblance": 0.0, ' in lines[0]
    assert lines == [json_text(Pair(ids[i], ids[i + 1], *values[i].tolist(), "m").as_dict()) + "\n"  # type: ignore[call-arg]
                     for i in range(2)]  # fmt: skip


@pytest.mark.slow
def test_table_is_a_sequence_of_pairs_across_chunks() -> None:
    n = LINE_CHUNK + 3
    ids = [f"d{i}" for i in range(n + 1)]
    rows = np.column_stack(
        [
            np.arange(n),
            np.arange(n) + 1,
            np.full(n, 0.75),
            np.full(n, 0.8),
            np.full(n, 0.7),
            np.linspace(0, 1, n),
        ]
    )
    table = PairTable(ids, rows, "m")
    assert len(table) == n
    pairs = list(table)
    assert len(pairs) == n
    assert pairs[-1] == table[-1] == Pair(f"d{n - 1}", f"d{n}", 0.75, 0.8, 0.7, 1.0, "m")
    assert table[LINE_CHUNK] == pairs[LINE_CHUNK]
    assert table[1:3] == pairs[1:3]
    assert table == pairs and table == PairTable(ids, rows.copy(), "m")
    assert table != pairs[:-1] and table != PairTable(ids, rows[::-1], "m")
    assert "".join(table.lines()) == "".join(json_text(p.as_dict()) + "\n" for p in pairs)
    with pytest.raises(IndexError):
        table[n]
    with pytest.raises(ValueError, match=r"shape \(n, 6\)"):
        PairTable(ids, rows[:, :5], "m")
    assert not table.rows.flags.writeable


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 9), st.integers(0, 9)), max_size=30), st.data())
def test_direct_rows_find_the_last_row_of_each_unordered_pair(
    edges: list[tuple[int, int]], data: st.DataObject
) -> None:
    rows = np.array([[a, b, 0.5, 0.5, 0.5, 0.5] for a, b in edges]).reshape(-1, 6)
    doc = np.array(data.draw(st.lists(st.integers(0, 9), min_size=1, max_size=10)))
    kept = np.array([data.draw(st.integers(0, 9)) for _ in doc])
    last: dict[frozenset[int], int] = {}
    for i, (a, b) in enumerate(edges):
        last[frozenset((a, b))] = i
    want = [last.get(frozenset((int(d), int(k))), -1) for d, k in zip(doc, kept, strict=True)]
    assert _direct_rows(rows, doc, kept).tolist() == want


def test_containments_take_the_first_pair_that_contains_a_document() -> None:
    t = 0.8
    rows = np.array(
        [
            [0, 1, 0.5, 0.9, 0.4, 0.5],  # 0 in 1
            [0, 2, 0.5, 0.95, 0.3, 0.5],  # 0 in 2, but 0 already has a container
            [3, 4, 0.5, 0.2, 0.85, 0.5],  # 4 in 3
            [5, 6, 0.9, 0.9, 0.9, 0.9],  # equal shares: neither contained
            [7, 8, 0.5, 0.7, 0.6, 0.5],  # below the threshold
        ]
    )
    assert containments(rows, t) == {0: 1, 4: 3}
    assert containments(np.zeros((0, 6)), t) == {}
