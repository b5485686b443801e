"""The format registry (neardup.text.formats): one Format a module, found by name."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.errors import ParameterError
from neardup.text.formats import (
    FORMATS,
    Format,
    content_type_of,
    format_named,
    format_of,
    opening_format,
)
from neardup.text.formats import _by_suffix as by_suffix
from neardup.text.read import read_corpus


@pytest.mark.parametrize(
    ("name", "want"),
    [
        ("a.jsonl", "jsonl"),
        ("dir/A.NDJSON.GZ", "jsonl"),
        ("a.json.zst", "jsonl"),
        ("a.csv.bz2", "csv"),
        ("a.parquet", "parquet"),
        ("a.pq", "parquet"),
        ("a.parquet.gz", None),  # Parquet needs random access: not through a compression
        ("a.feather", "arrow"),
        ("a.pdf", "pdf"),
        ("a.pdf.xz", None),
        ("a.docx", "docx"),
        ("notes.md", "text"),
        ("page.htm.gz", "html"),
        ("page.mediawiki", "wiki"),
        ("README", None),
        ("a.yaml", None),
    ],
)
def test_a_file_is_of_the_format_its_suffix_names(name: str, want: str | None) -> None:
    fmt = format_of(name)
    assert (fmt.name if fmt is not None else None) == want


def test_every_format_has_a_module_and_a_name_and_suffixes_claimed_once() -> None:
    names = [f.name for f in FORMATS]
    assert names == ["jsonl", "parquet", "csv", "arrow", "pdf", "docx", "text", "html", "wiki"]
    assert [f.name for f in FORMATS if f.records] == ["jsonl", "parquet", "csv", "arrow"]
    assert all(format_named(n) is f for n, f in zip(names, FORMATS, strict=True))
    with pytest.raises(ParameterError, match=r"^format='xml' .*one of jsonl, parquet, csv"):
        format_named("xml")
    twice = Format("yaml", (".yaml", ".csv"))
    with pytest.raises(ValueError, match=r"'\.csv' is claimed by csv and yaml"):
        by_suffix((*FORMATS, twice))


def test_document_formats_fix_the_content_type_and_binary_ones_open_by_signature() -> None:
    assert [content_type_of(s) for s in (".rst", ".xhtml", ".wiki", ".pdf", ".jsonl")] == [
        "text",
        "html",
        "wiki",
        None,
        None,
    ]
    pdf, docx = format_named("pdf"), format_named("docx")
    assert opening_format(b"%PDF-1.7\n...") is pdf
    assert opening_format(b"PK\x03\x04" + b"\x00" * 26 + b"word/document.xml") is docx
    assert opening_format(b"PK\x03\x04" + b"\x00" * 26 + b"xl/workbook.xml") is None  # a zip
    assert opening_format(b"plain text") is None


def test_a_new_format_module_is_all_a_record_format_needs(tmp_path: Path) -> None:
    """A format made of a plan alone (tab-separated id and text) reads through the planner
    and the reader as a built-in one does: the registry is the only place it is named."""
    from collections.abc import Iterator

    import neardup.text.formats as registry
    from neardup.text.types import Document, Skipped
    from neardup.text.units import ReadOptions, RecordsUnit, Unit

    def plan(path: Path, name: str, options: ReadOptions, **_: object) -> Iterator[Unit | Skipped]:
        lines = path.read_text("utf-8").splitlines()
        ids, texts = zip(*(line.split("\t", 1) for line in lines), strict=True)
        where = tuple(f"{path}:{k + 1}" for k in range(len(lines)))
        yield RecordsUnit(str(path), ids, tuple(t.encode() for t in texts), where)

    tsv = Format("tsv", (".tsv",), plan=plan)
    (tmp_path / "a.tsv").write_text("x\tthe first record\ny\tthe second record\n", "utf-8")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(registry, "_SUFFIXES", {**registry._SUFFIXES, ".tsv": tsv})
        got = [
            (d.id, d.text, d.source) if isinstance(d, Document) else d
            for d in read_corpus([tmp_path])
        ]
    assert got == [
        ("x", "the first record", f"{tmp_path / 'a.tsv'}:1"),
        ("y", "the second record", f"{tmp_path / 'a.tsv'}:2"),
    ]


@settings(max_examples=80, deadline=None)
@given(
    data=st.lists(st.sampled_from([b"\n", b"a", b"\xd0\xb1", b'{"id": 1}', b"\n\n"])).map(b"".join),
    skip=st.integers(0, 5),
)
def test_newlines_count_as_bytes_count_across_pieces_and_buffer_kinds(
    data: bytes, skip: int
) -> None:
    """``jsonl.newlines`` counts what ``bytes.count(b"\\n")`` counts, on bytes, a
    bytearray and a memoryview slice, with the pieces it compares at once cut small so
    that a run of lines crosses several of them."""
    from neardup.text.formats import jsonl

    want = data.count(b"\n")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(jsonl, "_LINE_PIECE", 3)
        assert jsonl.newlines(data) == want
        assert jsonl.newlines(bytearray(data)) == want
        with memoryview(data) as view:
            assert jsonl.newlines(view[skip:]) == data[skip:].count(b"\n")
    assert jsonl.newlines(data) == want
