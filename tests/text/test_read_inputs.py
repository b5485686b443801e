"""The reader on the inputs users have: PDF, DOCX, stdin, Parquet, and bad input that must
cost its own record only (a bad byte, an oversize field, an unreadable directory, a link
leaving the tree)."""

from __future__ import annotations

import io
import json
import os
import sys
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.text.read import read_corpus
from neardup.text.types import Document, Skipped
from neardup.text.units import BLOCK_BYTES

STORY = Path(__file__).resolve().parents[2] / "examples" / "corpus" / "chekhov" / "Тоска.txt"


def _paragraphs() -> list[str]:
    return [p.strip() for p in STORY.read_text(encoding="utf-8").split("\n") if p.strip()]


def make_pdf(path: Path, lines: list[str]) -> None:
    """A real PDF with a text layer (matplotlib, TrueType fonts with a ToUnicode map)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with matplotlib.rc_context({"pdf.fonttype": 42}):
        fig = plt.figure(figsize=(8.5, 11))
        for k, line in enumerate(lines):
            fig.text(0.05, 0.95 - 0.03 * k, line, fontsize=8)
        fig.savefig(path)
        plt.close(fig)


def make_docx(path: Path, paragraphs: list[str]) -> None:
    import docx

    document = docx.Document()
    for p in paragraphs:
        document.add_paragraph(p)
    table = document.add_table(rows=1, cols=2)
    table.rows[0].cells[0].text, table.rows[0].cells[1].text = "Иона", "Потапов"
    document.save(str(path))


@pytest.mark.slow
def test_pdf_and_docx_in_a_tree(tmp_path: Path) -> None:
    words = _paragraphs()[2].split()
    lines = [" ".join(words[i : i + 12]) for i in range(0, 48, 12)]
    make_pdf(tmp_path / "a.pdf", lines)
    make_docx(tmp_path / "b.docx", _paragraphs()[:3])
    (tmp_path / "c.pdf").write_bytes(b"%PDF-1.7 truncated")
    items = {x.id: x for x in read_corpus([tmp_path])}
    pdf = items["a.pdf"]
    assert isinstance(pdf, Document)
    assert pdf.text.split() == " ".join(lines).split()
    docx_doc = items["b.docx"]
    assert isinstance(docx_doc, Document)
    assert docx_doc.text == "\n".join([*_paragraphs()[:3], "Иона\tПотапов"])
    broken = items["c.pdf"]
    assert isinstance(broken, Skipped) and broken.reason == "unreadable"
    assert broken.detail.startswith("unreadable PDF")


def test_csv_bad_byte_costs_its_record_only(tmp_path: Path) -> None:
    paragraphs = _paragraphs()
    rows = [f'{i},"{paragraphs[i % len(paragraphs)]}"' for i in range(2000)]
    data = ("id,text\n" + "\n".join(rows) + "\n").encode("utf-8")
    at = data.index(b"\n1000,") + 8  # inside record 1000 (line 1002)
    data = data[:at] + b"\xff" + data[at:]
    path = tmp_path / "docs.csv"
    path.write_bytes(data)
    items = list(read_corpus([path]))
    skips = [x for x in items if isinstance(x, Skipped)]
    assert [(s.id, s.reason, s.source) for s in skips] == [("1000", "undecodable", f"{path}:1002")]
    assert len([x for x in items if isinstance(x, Document)]) == 1999


def test_csv_oversize_field_is_not_read_into_memory(tmp_path: Path) -> None:
    path = tmp_path / "big.csv"
    with open(path, "w", encoding="utf-8") as f:
        f.write("id,text\na,Короткий текст о лошади.\nb,")
        f.write("x" * 30_000_000)
        f.write("\nc,Ещё один короткий текст.\n")
    tracemalloc.start()
    items = list(read_corpus([path], max_bytes=100_000))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert [(x.id, getattr(x, "reason", "doc")) for x in items] == [
        ("a", "doc"),
        ("big.csv:3", "oversize"),
        ("c", "doc"),
    ]
    assert peak < 5_000_000  # the 30 MB field was never held


def test_jsonl_line_longer_than_a_block_is_skipped_alone(tmp_path: Path) -> None:
    path = tmp_path / "docs.jsonl"
    text = _paragraphs()[1]
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps({"id": "a", "text": text}, ensure_ascii=False) + "\n")
        f.write(json.dumps({"id": "huge", "text": "y" * (2 * BLOCK_BYTES)}) + "\n")
        f.write(json.dumps({"id": "c", "text": text}, ensure_ascii=False) + "\n")
    items = list(read_corpus([path], max_bytes=BLOCK_BYTES // 2))
    assert [(x.id, getattr(x, "reason", "doc")) for x in items] == [
        ("a", "doc"),
        ("docs.jsonl:2", "oversize"),
        ("c", "doc"),
    ]


def test_unreadable_directory_is_a_skip_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "ok").mkdir()
    (tmp_path / "ok" / "a.txt").write_text(_paragraphs()[0], encoding="utf-8")
    (tmp_path / "locked").mkdir()
    (tmp_path / "locked" / "b.txt").write_text(_paragraphs()[1], encoding="utf-8")
    real_scandir = os.scandir

    def scandir(
        path: str | os.PathLike[str] = ".",
    ) -> object:  # root ignores permissions: refuse by hand
        if str(path).endswith("locked"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    items = list(read_corpus([tmp_path]))
    assert [(x.id, getattr(x, "reason", "doc")) for x in items] == [
        ("locked", "unreadable"),
        ("ok/a.txt", "doc"),
    ]
    assert "Permission denied" in items[0].detail  # type: ignore[union-attr]


def test_symlink_leaving_the_tree(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text(_paragraphs()[0], encoding="utf-8")
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "inner.txt").write_text(_paragraphs()[1], encoding="utf-8")
    (tree / "alias.txt").symlink_to(tree / "inner.txt")
    (tree / "escape.txt").symlink_to(outside)
    items = list(read_corpus([tree]))
    assert [(x.id, getattr(x, "reason", "doc")) for x in items] == [
        ("alias.txt", "doc"),
        ("escape.txt", "unsupported"),
        ("inner.txt", "doc"),
    ]
    followed = list(read_corpus([tree], follow_symlinks=True))
    assert [getattr(x, "reason", "doc") for x in followed] == ["doc", "doc", "doc"]


def test_stdin_jsonl_and_plain_text(monkeypatch: pytest.MonkeyPatch) -> None:
    p = _paragraphs()
    lines = "".join(json.dumps({"id": f"r{i}", "text": t}) + "\n" for i, t in enumerate(p[:3]))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(lines.encode())))
    assert [x.id for x in read_corpus(["-"])] == ["r0", "r1", "r2"]
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(p[0].encode())))
    (doc,) = read_corpus(["-"])
    assert isinstance(doc, Document) and doc.id == "-" and doc.text == p[0]


def test_parquet_records(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    p = _paragraphs()
    table = pa.table({"id": ["a", None, "c"], "text": [p[0], p[1], None], "lang": ["ru"] * 3})
    pq.write_table(table, tmp_path / "t.parquet")
    items = list(read_corpus([tmp_path / "t.parquet"]))
    assert [(x.id, getattr(x, "reason", "doc")) for x in items] == [
        ("a", "doc"),
        ("t.parquet:2", "doc"),
        ("c", "unreadable"),
    ]
    pq.write_table(pa.table({"body": [p[0]]}), tmp_path / "u.parquet")
    (skip,) = read_corpus([tmp_path / "u.parquet"])
    assert isinstance(skip, Skipped) and "no column 'text'" in skip.detail


_ALPHABET = "aб Z\n\t<[{=|'\x00\x01\x1b\u3000ё"


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.text(alphabet=_ALPHABET, max_size=40), min_size=1, max_size=12),
    st.sampled_from(["auto", "text"]),
)
def test_block_fast_path_equals_the_per_record_rules(texts: list[str], content_type: str) -> None:
    """The block path (msgspec) with its byte-level shortcut gives the per-record rules' result."""
    from neardup.text.read import jsonl_record, read_options, read_unit
    from neardup.text.units import LinesUnit

    opts = read_options(max_bytes=120, content_type=content_type)
    lines = [
        json.dumps({"id": f"r{i}", "text": t}, ensure_ascii=i % 2 == 0).encode()
        for i, t in enumerate(texts)
    ]
    unit = LinesUnit("f.jsonl", "f.jsonl", b"\n".join(lines) + b"\n", 1)
    want: list[object] = []
    for k, line in enumerate(lines):
        where = f"f.jsonl:{k + 1}"
        if len(line) > opts.max_bytes:  # the line itself is over the limit
            want.append(Skipped(where, where, "oversize", "line over max_bytes=120"))
        else:
            want.append(jsonl_record(line, where, where, opts))
    assert read_unit(unit, opts) == want


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.text(alphabet=_ALPHABET, max_size=30), min_size=1, max_size=8),
    st.lists(st.sampled_from(["a", "b", " ", "", None, "ё"]), min_size=8, max_size=8),
    st.sampled_from(["auto", "text"]),
)
def test_columns_equal_the_documents_and_skips(
    texts: list[str], ids: list[str | None], content_type: str
) -> None:
    """The workers' column reader gives read_unit's documents and skips, item for item,
    on the all-plain shortcut and off it (blank ids, blank or markup texts, control bytes)."""
    from neardup.text.read import read_options, read_unit, read_unit_columns
    from neardup.text.units import LinesUnit

    opts = read_options(max_bytes=120, content_type=content_type)
    pairs = zip(ids, texts, strict=False)  # ids has 8, texts up to 8
    rows = [{"text": t} if i is None else {"id": i, "text": t} for i, t in pairs]
    data = b"".join(json.dumps(r).encode() + b"\n" for r in rows)
    unit = LinesUnit("f.jsonl", "f.jsonl", data, 7)
    items = read_unit(unit, opts)
    cols = read_unit_columns(unit, opts)
    docs = [(k, x) for k, x in enumerate(items) if isinstance(x, Document)]
    assert cols.items == len(items)
    assert list(cols.positions) == [k for k, _ in docs]
    assert cols.ids == [d.id for _, d in docs] and cols.texts == [d.text for _, d in docs]
    assert list(cols.sources) == [d.source for _, d in docs]
    assert cols.skipped == [(k, x) for k, x in enumerate(items) if isinstance(x, Skipped)]


def test_a_plain_block_takes_the_column_shortcut() -> None:
    from neardup.text import read
    from neardup.text.formats import jsonl
    from neardup.text.units import LinesUnit

    p = _paragraphs()
    data = "".join(json.dumps({"id": f"d{i}", "text": t}) + "\n" for i, t in enumerate(p))
    unit = LinesUnit("f.jsonl", "f.jsonl", data.encode(), 3)
    parsed = jsonl.parse_block(unit, read.read_options())
    assert parsed is not None
    cols = read._block_columns(unit, read.read_options(), *parsed)
    assert isinstance(cols.positions, range) and cols.ids == [f"d{i}" for i in range(len(p))]
    assert cols.sources[:2] == ["f.jsonl:3", "f.jsonl:4"] and cols.texts == list(p)
    assert cols.sources[-1] == f"f.jsonl:{len(p) + 2}" and len(cols.sources) == len(p)
    with pytest.raises(IndexError):
        cols.sources[len(p)]


def test_a_block_with_a_markup_record_and_no_skip_sends_its_sources_as_three_values() -> None:
    """A record that needs the full rules (markup) does not turn the block's sources into a
    string a line (pickled by the worker, rebuilt by the job): with nothing skipped they
    stay :class:`LineSources`; with a skip, the kept lines' sources are listed."""
    import pickle

    from neardup.text import read
    from neardup.text.units import LinesUnit

    p = _paragraphs()
    rows = [{"id": f"d{i}", "text": t} for i, t in enumerate(p)]
    rows[1]["text"] = "a <b>bold</b> move"
    data = "".join(json.dumps(r) + "\n" for r in rows).encode()
    unit = LinesUnit("f.jsonl", "f.jsonl", data, 3)
    cols = read.read_unit_columns(unit, read.read_options())
    assert isinstance(cols.sources, read.LineSources) and isinstance(cols.positions, range)
    docs = read.read_unit(unit, read.read_options())
    assert cols.texts == [d.text for d in docs]  # type: ignore[union-attr]
    assert cols.sources[1] == docs[1].source == "f.jsonl:4"
    assert list(cols.sources) == [f"f.jsonl:{3 + k}" for k in range(len(p))]
    assert len(pickle.dumps(cols.sources)) < 200
    rows[2]["text"] = "   "  # blank: skipped
    data = "".join(json.dumps(r) + "\n" for r in rows).encode()
    cols = read.read_unit_columns(LinesUnit("f.jsonl", "f.jsonl", data, 3), read.read_options())
    assert cols.sources[:3] == ["f.jsonl:3", "f.jsonl:4", "f.jsonl:6"]
    assert list(cols.positions)[:3] == [0, 1, 3] and cols.skipped[0][0] == 2


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=70), st.integers(0, 7))
def test_nonzero_bytes_is_flatnonzero(data: bytes, skip: int) -> None:
    import numpy as np

    from neardup.text.read import _nonzero_bytes

    codes = np.frombuffer(data, dtype=np.uint8)[skip:]  # any start: views off 8-byte bounds
    sparse = np.where(codes % 5 == 0, codes, 0).astype(np.uint8)
    for arr in (codes, sparse):
        assert _nonzero_bytes(arr).tolist() == np.flatnonzero(arr).tolist()


def _read_planned(data: bytes, max_bytes: int, by_span: bool) -> list[object]:
    """Every item read from ``data`` as JSONL, planned by file span or by stream."""
    import tempfile

    from neardup.text.formats import jsonl
    from neardup.text.read import read_options, read_unit

    opts = read_options(max_bytes=max_bytes)
    items: list[object] = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp, "f.jsonl")
        path.write_bytes(data)
        if by_span:
            plan = list(jsonl._plan_jsonl_spans(path, "f", "f", opts))
        else:
            plan = list(jsonl.plan_stream(path, "f", "f", opts))
        for unit in plan:
            items.extend([unit] if isinstance(unit, Skipped) else read_unit(unit, opts))
    return items


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 60), st.sampled_from([b"\n", b"\r\n", b"\r\r\n"])),
        max_size=25,
    ),
    st.booleans(),
    st.integers(20, 90),
    st.integers(8, 200),
)
def test_blocks_planned_by_span_read_as_blocks_read_from_a_stream(
    lines: list[tuple[int, bytes]], last_newline: bool, max_bytes: int, block: int
) -> None:
    """Blocks planned as file spans (the workers read them) give each line's documents or
    skip by the one-line rules, oversize lines included; so do blocks read from a stream,
    except that a line ending in several ``\\r`` counts them against ``max_bytes`` there."""
    from neardup.text.formats import jsonl
    from neardup.text.read import jsonl_record, read_options

    data = b"".join(
        json.dumps({"id": f"r{i}", "text": "w " * (k // 2) + "x" * (k % 2)}).encode() + end
        for i, (k, end) in enumerate(lines)
    )
    if data and not last_newline:
        data = data.rstrip(b"\r\n")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(jsonl, "BLOCK_BYTES", block)
        by_span = _read_planned(data, max_bytes, by_span=True)
        by_stream = _read_planned(data, max_bytes, by_span=False)
    want: list[object] = []
    for k, line in enumerate(data.split(b"\n")[: len(lines)]):
        where = f"f:{k + 1}"
        if len(line.rstrip(b"\r")) > max_bytes:
            want.append(Skipped(where, where, "oversize", f"line over max_bytes={max_bytes}"))
        else:
            want.append(jsonl_record(line, where, where, read_options(max_bytes=max_bytes)))
    assert by_span == want
    if b"\r\r" not in data:
        assert by_stream == want


def test_a_jsonl_file_is_planned_by_span_and_read_in_the_reader(tmp_path: Path) -> None:
    from neardup.text.inputs import plan_units
    from neardup.text.read import read_options
    from neardup.text.units import LinesUnit

    path = tmp_path / "c.jsonl"
    path.write_text('{"id": "a", "text": "one two"}\n{"id": "b", "text": "three"}\n')
    (unit,) = plan_units([path], read_options())
    assert isinstance(unit, LinesUnit) and unit.data == b""
    assert unit.span == (str(path), 0, path.stat().st_size)
    assert [d.id for d in read_corpus([path])] == ["a", "b"]


def test_a_file_cut_short_after_planning_is_a_skip_row(tmp_path: Path) -> None:
    from neardup.text.inputs import plan_units
    from neardup.text.read import read_options, read_unit

    path = tmp_path / "c.jsonl"
    path.write_text('{"id": "a", "text": "one two"}\n{"id": "b", "text": "three"}\n')
    (unit,) = plan_units([path], read_options())
    assert not isinstance(unit, Skipped)
    path.write_text('{"id": "a"}\n')
    (skip,) = read_unit(unit, read_options())
    assert isinstance(skip, Skipped) and skip.reason == "unreadable"
    assert "changed while it was read" in skip.detail and skip.id.endswith(":1")


@pytest.mark.parametrize(
    "data",
    [
        b'{"id": "a", "text": "one"}\n\n{"id": "b", "text": "two"}\n',
        b'\n{"id": "a", "text": "one"}\n{"id": "b", "text": "two"}',
        b'{"id": "a", "text": "one"} {"id": "c", "text": "x"}\n\n{"id": "b", "text": "two"}\n',
        b'  {"id": "a", "text": "one"}\n{"id": "b", "text": "two"}\n',
        b'{"id": "a", "text": "one"}\n{"id": "b", "text": "two"}\n\n',
    ],
)
def test_blank_lines_and_two_objects_on_a_line_keep_line_numbers(data: bytes) -> None:
    """Blocks the one-decode path must refuse: a blank line, or two objects on one line
    beside a blank line, would shift every later record onto the wrong line."""
    from neardup.text.read import jsonl_record, read_options, read_unit, read_unit_columns
    from neardup.text.units import LinesUnit

    opts = read_options()
    want = [
        jsonl_record(line, f"f:{k + 1}", f"f:{k + 1}", opts)
        for k, line in enumerate(data.split(b"\n"))
        if line.strip()
    ]
    unit = LinesUnit("f", "f", data, 1)
    assert read_unit(unit, opts) == want
    cols = read_unit_columns(unit, opts)
    assert cols.ids == [d.id for d in want if isinstance(d, Document)]
    assert list(cols.sources) == [d.source for d in want if isinstance(d, Document)]


# -- issue 27: datasets folders that point outside themselves ----------------------------------
def _arrow_dataset(path: Path, texts: list[str]) -> None:
    import pyarrow as pa

    path.mkdir(parents=True)
    table = pa.table({"id": [f"r{i}" for i in range(len(texts))], "text": texts})
    with (
        pa.OSFile(str(path / "data.arrow"), "wb") as sink,
        pa.ipc.new_stream(sink, table.schema) as w,
    ):
        w.write_table(table)
    (path / "state.json").write_text(json.dumps({"_data_files": [{"filename": "data.arrow"}]}))


def test_datasets_dict_naming_itself_is_a_skip_row_not_a_loop(tmp_path: Path) -> None:
    root = tmp_path / "dd"
    _arrow_dataset(root / "train", ["a story about a dog and a cat in the old town"])
    (root / "dataset_dict.json").write_text(json.dumps({"splits": [".", "train", ""]}))
    items = list(read_corpus([root]))
    docs = [i for i in items if isinstance(i, Document)]
    skips = [i for i in items if isinstance(i, Skipped)]
    assert [d.id for d in docs] == ["r0"] and [d.source for d in docs] == [
        f"{root / 'train' / 'data.arrow'}:row 1"
    ]
    assert [
        (s.reason, "names it again" in s.detail or "not a file name" in s.detail) for s in skips
    ] == [
        ("unreadable", True),
        ("unreadable", True),
    ]


def test_datasets_state_naming_a_file_outside_the_folder_is_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "secret"
    _arrow_dataset(outside, ["a private text nobody asked to deduplicate today"])
    root = tmp_path / "ds"
    root.mkdir()
    names = ["../secret/data.arrow", str(outside / "data.arrow")]
    state = {"_data_files": [{"filename": n} for n in names]}
    (root / "state.json").write_text(json.dumps(state))
    items = list(read_corpus([root]))
    assert all(isinstance(i, Skipped) for i in items) and len(items) == 2
    assert all("leaves the datasets folder" in i.detail for i in items)  # type: ignore[union-attr]
    (root / "state.json").write_text("{not json")
    (bad,) = read_corpus([root])
    assert isinstance(bad, Skipped) and bad.detail.startswith("bad datasets metadata")


# -- issue 27: records no parser should choke on ------------------------------------------------
def test_a_field_nested_1000_deep_costs_nothing(tmp_path: Path) -> None:
    deep = "[" * 1000 + "]" * 1000
    lines = [
        '{"id": "a", "text": "first plain record"}',
        f'{{"id": "b", "text": "second record", "meta": {deep}, "x": {{"y": "}}]"}}}}',
        '{"id": "c", "text": "third plain record"}',
        f'{{"id": "d", "text": {deep}}}',  # the text itself too deep: this record only
        f'{{"id": "e", "meta": {deep[:-1]}}}',  # unbalanced: malformed
    ]
    for sep in ("\n", "\r\n"):  # the block decoder, and the line-by-line path
        path = tmp_path / "deep.jsonl"
        path.write_bytes(sep.join(lines).encode() + b"\n")
        items = list(read_corpus([path]))
        assert [(i.id, type(i).__name__) for i in items] == [
            ("a", "Document"), ("b", "Document"), ("c", "Document"),
            ("deep.jsonl:4", "Skipped"), ("deep.jsonl:5", "Skipped"),
        ]  # fmt: skip
        assert items[1].text == "second record"  # type: ignore[union-attr]
        assert "nested too deep" in items[3].detail  # type: ignore[union-attr]


@pytest.mark.parametrize("neighbour", ["plain", "markup", "blank line", "bad line"])
def test_a_5000_digit_number_is_read_whatever_its_neighbours(
    tmp_path: Path, neighbour: str
) -> None:
    big = "9" * 5000
    around = {
        "plain": '{"id": "n", "text": "a neighbour"}',
        "markup": '{"id": "n", "text": "a <b>neighbour</b>"}',
        "blank line": "",
        "bad line": "{not json",
    }[neighbour]
    lines = [f'{{"id": "a", "count": {big}, "text": "record with a long number"}}', around]
    lines.append(f'{{"id": {big}, "text": "a record whose id is that number"}}')
    path = tmp_path / "big.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    docs = [i for i in read_corpus([path]) if isinstance(i, Document)]
    assert docs[0].id == "a" and docs[0].text == "record with a long number"
    assert docs[-1].id == big


# -- issue 27: CSV quotes and line ends -----------------------------------------------------------
def test_csv_unclosed_quote_costs_its_record_only(tmp_path: Path) -> None:
    rows = [f'{i},"Запись номер {i}, обычный текст."' for i in range(1, 1001)]
    rows[1] = '2,"Эта запись открывает кавычку и не закрывает её'
    rows[500] = '501,"А эта закрывает ""свою"" на следующей строке\nвот здесь."'  # a real one
    path = tmp_path / "q.csv"
    path.write_text("id,text\n" + "\n".join(rows) + "\n", encoding="utf-8")
    items = list(read_corpus([path]))
    docs = [i for i in items if isinstance(i, Document)]
    skips = [i for i in items if isinstance(i, Skipped)]
    assert [(s.id, s.reason) for s in skips] == [("q.csv:3", "unreadable")]
    assert "unclosed quote" in skips[0].detail and "lines 4-4" in skips[0].detail
    assert [d.id for d in docs] == [str(i) for i in range(1, 1001) if i != 2]
    assert docs[0].text == "Запись номер 1, обычный текст."
    assert docs[-1].text == "Запись номер 1000, обычный текст."
    assert docs[499].text == 'А эта закрывает "свою" на следующей строке\nвот здесь.'
    assert docs[500].source == f"{path}:504"  # line numbers stay true after the multi-line one


def test_csv_with_cr_line_ends_is_read_row_by_row(tmp_path: Path) -> None:
    path = tmp_path / "mac.csv"
    rows = ["id,text", "a,Первая строка текста.", 'b,"Вторая, в кавычках."', "c,Третья."]
    path.write_bytes("\r".join(rows).encode("utf-8") + b"\r")
    docs = list(read_corpus([path]))
    assert [(d.id, d.text, d.source) for d in docs] == [  # type: ignore[union-attr]
        ("a", "Первая строка текста.", f"{path}:2"),
        ("b", "Вторая, в кавычках.", f"{path}:3"),
        ("c", "Третья.", f"{path}:4"),
    ]


# -- issue 27: a Parquet cell that inflates to hundreds of MB ----------------------------------
_BOMB = """
import pyarrow as pa, pyarrow.parquet as pq, sys
rows = [("big", "x" * (200 << 20)), ("a", "a small text of ordinary words")]
t = pa.table({"id": [r[0] for r in rows], "text": [r[1] for r in rows], "n": [1, 2]})
pq.write_table(t, sys.argv[1], compression="zstd", row_group_size=1)
"""

_PEAK = """
import json, resource, subprocess, sys
out = subprocess.run(sys.argv[1:], capture_output=True, text=True)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(json.dumps({"code": out.returncode, "peak_mib": peak, "out": out.stdout, "err": out.stderr}))
"""


def _peak(*command: str) -> dict[str, Any]:
    """Run ``command`` in a child process; its exit code, output and peak RSS (MiB)."""
    import subprocess

    got = subprocess.run(
        [sys.executable, "-c", _PEAK, *command], capture_output=True, text=True, check=True
    )
    return json.loads(got.stdout)


@pytest.mark.slow
def test_parquet_cell_inflating_to_200_mb_is_never_held(tmp_path: Path) -> None:
    import subprocess

    bomb = tmp_path / "bomb.parquet"
    subprocess.run([sys.executable, "-c", _BOMB, str(bomb)], check=True)
    assert bomb.stat().st_size < 100_000  # 200 MiB of text in a few KB
    read = "from neardup.text.read import read_corpus; import sys; " + (
        "print([(type(x).__name__, x.id) for x in read_corpus([sys.argv[1]])])"
    )
    got = _peak(sys.executable, "-c", read, str(bomb))
    assert got["code"] == 0, got["err"]
    assert got["out"].strip() == "[('Skipped', 'big'), ('Document', 'a')]"
    assert got["peak_mib"] < 180, got  # the 200 MiB cell was never decompressed
    kept = tmp_path / "kept.parquet"
    neardup = str(Path(sys.executable).parent / "neardup")
    got = _peak(neardup, "dedup", str(bomb), "--kept", str(kept), "-q", "--jobs", "1")
    assert got["code"] == 0, got["err"]
    assert got["peak_mib"] < 250, got
    import pyarrow.parquet as pq

    assert pq.read_table(kept).column("id").to_pylist() == ["a"]


def test_jsonl_grown_while_read_gets_a_skip_row(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    line = '{{"id": "r{}", "text": "a line written before the job started"}}\n'
    path.write_text("".join(line.format(i) for i in range(3000)), encoding="utf-8")
    items = read_corpus([path])
    first = next(items)  # the file is planned: its size noted
    with open(path, "a", encoding="utf-8") as f:  # a writer appends meanwhile
        f.write("".join(line.format(i) for i in range(3000, 3250)))
    rest = list(items)
    docs = [first, *(i for i in rest if isinstance(i, Document))]
    skips = [i for i in rest if isinstance(i, Skipped)]
    assert [d.id for d in docs] == [f"r{i}" for i in range(3000)]
    size = len(line.format(0)) * 10 + sum(len(line.format(i)) for i in range(10, 3000))
    assert [(s.id, s.reason) for s in skips] == [(f"log.jsonl@{size}", "unreadable")]
    assert "the 250 lines appended were not read" in skips[0].detail


# -- issue 41 item 6: a file rewritten while it is read ------------------------------------------
def _log(path: Path, n: int, word: str) -> None:
    """``n`` JSONL records of the same length whatever ``word`` (5 letters) is."""
    line = '{{"id": "r{:05d}", "text": "the {} record of a log written in one go"}}\n'
    path.write_text("".join(line.format(i, word) for i in range(n)), encoding="utf-8")


def _rewrite(path: Path, n: int, word: str) -> None:
    """Rewrite ``path`` with the same size and a later modification time."""
    before = path.stat()
    _log(path, n, word)
    assert path.stat().st_size == before.st_size
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000_000))


def test_a_jsonl_block_rewritten_between_planning_and_reading_is_a_skip_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from neardup.text.formats import jsonl
    from neardup.text.inputs import plan_units
    from neardup.text.read import read_options, read_unit

    monkeypatch.setattr(jsonl, "BLOCK_BYTES", 4096)
    path = tmp_path / "log.jsonl"
    _log(path, 300, "first")
    planned = list(plan_units([path], read_options()))
    assert len(planned) > 3 and not any(isinstance(u, Skipped) for u in planned)
    _rewrite(path, 300, "other")  # same size: the spans still fit
    items = [x for u in planned if not isinstance(u, Skipped) for x in read_unit(u, read_options())]
    assert all(isinstance(x, Skipped) for x in items) and len(items) == len(planned)
    assert all("differ from those planned" in x.detail for x in items if isinstance(x, Skipped))


def test_a_file_rewritten_while_it_is_read_gets_a_skip_row_naming_the_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from neardup.text.formats import jsonl

    monkeypatch.setattr(jsonl, "BLOCK_BYTES", 4096)
    path = tmp_path / "log.jsonl"
    _log(path, 300, "first")
    size = path.stat().st_size
    items = read_corpus([path])
    first = next(items)
    _rewrite(path, 300, "other")  # the writer starts over while the job reads
    rest = list(items)
    changed = [
        x for x in rest if isinstance(x, Skipped) and "changed while it was read" in x.detail
    ]
    assert isinstance(first, Document) and changed
    assert (
        changed[-1].id == "log.jsonl"
        and f"size {size} -> {size} bytes, modified" in changed[-1].detail
    )


def test_a_document_file_rewritten_while_it_is_read_is_a_skip_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from neardup.text import read, units  # the reader opens document files by its own name

    path = tmp_path / "a.txt"
    path.write_text(_paragraphs()[0], encoding="utf-8")
    opened = units.open_stream  # the function the reader calls by its own name

    def rewriting(p: Path) -> Any:  # the reader's hook: the file is rewritten once opened
        f = opened(p)
        _rewrite_text(p)
        return f

    monkeypatch.setattr(read, "open_stream", rewriting)
    (item,) = read_corpus([path])
    assert isinstance(item, Skipped) and item.reason == "unreadable"
    assert "changed while it was read" in item.detail


def _rewrite_text(path: Path) -> None:
    before = path.stat()
    path.write_text(path.read_text(encoding="utf-8").upper(), encoding="utf-8")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000_000))


def test_a_file_given_twice_is_planned_and_counted_once(tmp_path: Path) -> None:
    """Issue 41 item 23: the second time is a skip row naming the first, and the read's
    planned bytes count the file once (the progress reaches its total)."""
    from neardup.text.inputs import plan_units, planned_bytes
    from neardup.text.read import read_options

    path = tmp_path / "a.jsonl"
    path.write_text(json.dumps({"id": "a", "text": _paragraphs()[0]}) + "\n", encoding="utf-8")
    units = list(plan_units([path, tmp_path], read_options()))
    assert [type(u).__name__ for u in units] == ["LinesUnit", "Skipped"]
    assert "the same file as a.jsonl" in units[1].detail  # type: ignore[union-attr]
    assert planned_bytes([path, tmp_path], read_options()) == path.stat().st_size


def test_sources_of_consecutive_line_ranges_join_into_one_line_range() -> None:
    from neardup.text.read import LineSources, joined_sources

    a, b = LineSources("f.jsonl", 3, 2), LineSources("f.jsonl", 5, 3)
    joined = joined_sources([a, b])
    assert joined == LineSources("f.jsonl", 3, 5)
    assert list(joined) == [*a, *b] == [f"f.jsonl:{k}" for k in range(3, 8)]
    assert joined_sources([a, LineSources("f.jsonl", 9, 1)]) == [
        "f.jsonl:3",
        "f.jsonl:4",
        "f.jsonl:9",
    ]
    assert joined_sources([a, LineSources("g.jsonl", 5, 1)]) == [
        "f.jsonl:3",
        "f.jsonl:4",
        "g.jsonl:5",
    ]
    assert joined_sources([a, ["x:1"]]) == ["f.jsonl:3", "f.jsonl:4", "x:1"]
    assert joined_sources([["x:1"], a]) == ["x:1", "f.jsonl:3", "f.jsonl:4"]
    assert joined_sources([]) == []
