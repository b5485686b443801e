"""The compiled checks of a JSONL block (``neardup.text._scan``) give what their numpy
references in :mod:`neardup.text.read` give, on blocks made to hit every rule: blank and
space-led lines, ``\\r``, long lines, control bytes, escapes cut short at the block's end,
markup pairs and triples across a line end."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.text import read
from neardup.text.formats import jsonl
from neardup.text.types import Skipped

scan = jsonl._scan_module()
pytestmark = pytest.mark.skipif(scan is None, reason="neardup.text._scan is not built")

#: Bytes that matter to the checks, and a few that do not.
_BYTES = b"\n\r \t\x00\x01\x1f\\bu0078<[{='|a\"\xd0\xb1"


def _reference(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` on the numpy path (``NEARDUP_KERNEL=python``)."""
    with pytest.MonkeyPatch.context() as m:
        m.setenv("NEARDUP_KERNEL", "python")
        return fn(*args)


#: Blocks of those bytes, with runs of text between them (skipped eight bytes at a time).
blocks = st.lists(
    st.one_of(
        st.sampled_from([bytes([b]) for b in _BYTES]), st.sampled_from([b"plain text", b"x" * 17])
    ),
    max_size=40,
).map(b"".join)


@settings(max_examples=400, deadline=None)
@given(blocks, st.integers(1, 30))
def test_clean_lines_equals_the_reference(data: bytes, max_bytes: int) -> None:
    want = _reference(jsonl._clean_lines, data, max_bytes)
    got = jsonl._clean_lines(data, max_bytes)
    assert (got is None) == (want is None)
    if got is not None:
        assert got.dtype == np.int64 and got.tolist() == want.tolist()


@settings(max_examples=400, deadline=None)
@given(blocks, st.sampled_from(["auto", "text", "html"]), st.integers(0, 2))
def test_plain_lines_equals_the_reference(data: bytes, content_type: str, extra: int) -> None:
    """Any bytes (not only clean blocks): the flags of every line, a hint past the last
    line counted on it."""
    ends = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 10)
    n = max(1, ends.shape[0] + (0 if data.endswith(b"\n") else 1) - extra)
    opts = read.read_options(content_type=content_type)
    want = _reference(read._plain_lines, data, ends, n, opts)
    got = read._plain_lines(data, ends, n, opts)
    assert got.dtype == bool and got.tolist() == want.tolist()


def test_plain_lines_on_known_lines() -> None:
    lines = [
        '{"text": "простой текст"}',
        '{"text": "a <b> tag"}',
        '{"text": "[[link]]"}',
        '{"text": "a [single] bracket and = sign"}',
        '{"text": "bold \'\'\'x"}',
        '{"text": "a \\u0041 escape"}',
        '{"text": "a \\u0430 escape"}',
        '{"text": "a \\\\b backslash"}',
        '{"text": "{| table"}',
    ]
    data = "\n".join(lines).encode() + b"\n"
    ends = jsonl._clean_lines(data, 100)
    got = read._plain_lines(data, ends, len(lines), read.read_options())
    assert got.tolist() == [True, False, False, True, False, False, True, False, False]
    text = read._plain_lines(data, ends, len(lines), read.read_options(content_type="text"))
    assert text.tolist() == [True, True, True, True, True, False, True, False, True]


_VALUES = st.one_of(
    st.none(),
    st.integers(0, 3),
    st.text(alphabet=" \t\u3000\u2028a\u0451", max_size=4),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_VALUES, _VALUES, st.booleans()), max_size=12))
def test_bare_records_equals_the_reference(rows: list[tuple[object, object, bool]]) -> None:
    ids = [r[0] for r in rows]
    texts = [r[1] for r in rows]
    flags = np.array([r[2] for r in rows], dtype=bool)
    want = flags.copy()
    want_all = _reference(read._bare_records, ids, texts, want)
    got = flags.copy()
    assert read._bare_records(ids, texts, got) == want_all
    assert got.tolist() == want.tolist()
    assert want.tolist() == [f and read._bare(i) and read._bare(t) for i, t, f in rows]


def test_a_block_reads_the_same_with_either_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Real text with every kind of record: the columns of a block are the same values."""
    from neardup.text.units import LinesUnit

    rows = [
        {"id": "a", "text": "Тоска. Кому повем печаль мою?"},
        {"id": " ", "text": "blank id"},
        {"id": "c", "text": "<p>markup</p>"},
        {"id": "d", "text": "\u3000"},
        {"text": "no id"},
        {"id": "f", "text": "ctrl \x01 byte"},
        {"id": "g", "text": "== Heading ==\ntext"},
    ]
    data = b"".join(json.dumps(r).encode() + b"\n" for r in rows)
    unit = LinesUnit("f.jsonl", "f.jsonl", data, 1)
    got = read.read_unit_columns(unit, read.read_options())
    monkeypatch.setenv("NEARDUP_KERNEL", "python")
    want = read.read_unit_columns(unit, read.read_options())
    fields = ("ids", "texts", "skipped", "items")
    assert [getattr(got, f) for f in fields] == [getattr(want, f) for f in fields]
    assert list(got.sources) == list(want.sources)
    assert list(got.positions) == list(want.positions)
    assert got.ids == ["a", "f.jsonl:2", "c", "f.jsonl:5", "f", "g"]
    assert got.skipped == [(3, Skipped("d", "f.jsonl:4", "empty", "only whitespace"))]


#: Every BMP character ``str.isspace`` holds for, and characters next to them that it does not.
_SPACES = "".join(chr(c) for c in range(0x10000) if chr(c).isspace())
_NEAR = "\x08\x1b!\x84\x86\x9f\xa1\u167f\u1681\u1fff\u200b\u2027\u202a\u205e\u2060\u2fff\u3001"


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.tuples(
            _VALUES,
            st.one_of(
                st.none(), st.integers(0, 3), st.text(alphabet=_SPACES + _NEAR + '"\\/', max_size=4)
            ),
            st.booleans(),
            st.booleans(),
        ),
        max_size=12,
    )
)
def test_bare_raw_records_equals_bare_records_on_the_decoded_texts(
    rows: list[tuple[object, object, bool, bool]],
) -> None:
    """Raw JSON texts (``\\uXXXX`` escapes or UTF-8) get the flags their decoded values
    get; a text that is neither a string nor null sends the block the typed way (-1)."""
    import msgspec

    ids = [r[0] for r in rows]
    raws = [msgspec.Raw(json.dumps(r[1], ensure_ascii=r[3]).encode()) for r in rows]
    flags = np.array([r[2] for r in rows], dtype=bool)
    got = flags.copy()
    every = scan.bare_raw_records(ids, raws, got.view(np.uint8))
    if any(isinstance(r[1], int) for r in rows):
        assert every == -1
        return
    want = flags.copy()
    assert every == int(read._bare_records(ids, [r[1] for r in rows], want))
    assert got.tolist() == want.tolist()


def test_each_white_space_character_is_blank_in_either_escaping() -> None:
    import msgspec

    for ch in _SPACES + _NEAR:
        for ascii_only in (True, False):
            raw = msgspec.Raw(json.dumps(f"{ch} {ch}", ensure_ascii=ascii_only).encode())
            good = np.ones(1, dtype=np.uint8)
            assert scan.bare_raw_records(["id"], [raw], good) == int(not ch.isspace()), ch
    assert scan.bare_raw_records(["a", "b"], [b'" "', b"null"], np.ones(2, np.uint8)) == 0
    assert scan.bare_raw_records(["a"], [b'" \xd0"'], np.ones(1, np.uint8)) == 1  # not UTF-8
    with pytest.raises(ValueError, match="1 ids and 2 texts"):
        scan.bare_raw_records(["a"], [b'"x"', b'"y"'], np.ones(1, np.uint8))


def test_a_block_reads_the_same_with_raw_texts() -> None:
    """Texts kept as raw JSON decode to the typed path's values, record for record, with
    the same ids, sources, positions and skips; a text that is a number sends the block
    the typed way; invalid UTF-8 in a text is found when that text is decoded."""
    from neardup.errors import DecodeError
    from neardup.text.units import LinesUnit

    rows: list[dict[str, str | None]] = [
        {"id": "a", "text": "Тоска. Кому повем печаль мою?"},
        {"id": "b", "text": 'line\nbreak, "quoted", back\\slash, é, 中文, 😀'},
        {"id": " ", "text": "blank id"},
        {"id": "c", "text": "<p>markup</p>"},
        {"id": "d", "text": "\u3000\u2028 \t"},
        {"id": "e", "text": None},
        {"text": "no id"},
    ]
    options = read.read_options()
    for ascii_only in (True, False):
        data = b"".join(json.dumps(r, ensure_ascii=ascii_only).encode() + b"\n" for r in rows)
        unit = LinesUnit("f.jsonl", "f.jsonl", data, 1)
        got = read.read_unit_columns(unit, options, raw_texts=True)
        want = read.read_unit_columns(unit, options)
        assert isinstance(got.texts, read.JsonTexts) and not isinstance(want.texts, read.JsonTexts)
        assert (
            list(got.texts)
            == list(want.texts)
            == [rows[0]["text"], rows[1]["text"], "blank id", "<p>markup</p>", "no id"]
        )
        assert got.texts[1:3] == want.texts[1:3]
        for f in ("ids", "skipped", "items"):
            assert getattr(got, f) == getattr(want, f)
        assert (list(got.sources), list(got.positions)) == (
            list(want.sources),
            list(want.positions),
        )
    number = LinesUnit(
        "f.jsonl", "f.jsonl", b'{"id": "a", "text": "x"}\n{"id": "b", "text": 5}\n', 1
    )
    assert not isinstance(
        read.read_unit_columns(number, options, raw_texts=True).texts, read.JsonTexts
    )
    broken = LinesUnit(
        "f.jsonl", "f.jsonl", b'{"id": "a", "text": "ok"}\n{"id": "b", "text": "x\xff"}\n', 1
    )
    raw = read.read_unit_columns(broken, options, raw_texts=True)
    assert raw.texts[0] == "ok"
    with pytest.raises(DecodeError, match="not a JSON string"):
        raw.texts[1]
    typed = read.read_unit_columns(broken, options)
    assert typed.texts == ["ok"] and [s.reason for _, s in typed.skipped] == ["undecodable"]
