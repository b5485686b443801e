"""The Dask engine's blocks read as the local reader reads the whole file."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.distributed.io import (
    block_units,
    count_lines,
    make_blocks,
    number_lines,
    read_block,
)
from neardup.text.read import read_corpus
from neardup.text.types import Skipped
from neardup.text.units import LinesUnit


def _mixed_jsonl() -> bytes:
    rows = [json.dumps({"id": f"r{i}", "text": f"plain words number {i} " * 3}) for i in range(40)]
    rows[3] = ""  # a blank line
    rows[7] = json.dumps({"id": "big", "text": "x" * 400})  # over max_bytes below
    rows[11] = '{"id": "bad", "text": "caf\xff"}'  # not UTF-8 once encoded as latin-1 below
    rows[15] = json.dumps({"id": "html", "text": "<p>a <b>marked</b> up page</p>"})
    rows[19] = json.dumps({"id": "cjk", "text": "中文 текст"}, ensure_ascii=False)
    rows[23] = json.dumps({"id": "crlf", "text": "ends with a carriage return"}) + "\r"
    raw = "\n".join(rows).encode("utf-8")
    return raw.replace("caf\xff".encode(), b"caf\xff")  # the last line has no newline


@pytest.mark.parametrize("block_bytes", [97, 1000, 1 << 20])
def test_dask_blocks_give_the_local_documents_and_skips(tmp_path: Path, block_bytes: int) -> None:
    path = tmp_path / "mixed.jsonl"
    path.write_bytes(_mixed_jsonl())
    opts = {"max_bytes": 300}
    blocks = make_blocks([str(path)], block_bytes)
    blocks = number_lines(blocks, [count_lines(b) for b in blocks])
    dask_items = [item for b in blocks for item in read_block(b, opts)]
    local = list(read_corpus([path], max_bytes=300))
    assert dask_items == local
    reasons = {getattr(item, "reason", None) for item in local}
    assert {"oversize", "undecodable"} <= reasons  # the bad lines cost themselves only
    assert sum(1 for item in local if not hasattr(item, "reason")) == 37


@settings(max_examples=60, deadline=None)
@given(
    lines=st.lists(st.binary(max_size=30).map(lambda b: b.replace(b"\n", b"")), max_size=25),
    trailing=st.booleans(),
    block_bytes=st.integers(min_value=1, max_value=120),
)
def test_blocks_cover_every_line_once_with_its_number(
    tmp_path_factory: pytest.TempPathFactory, lines: list[bytes], trailing: bool, block_bytes: int
) -> None:
    """However the byte ranges cut the file (mid-line, on a newline, past the end), the
    blocks' units hold each line once, in order, with its line number, and the mapped line
    count of each block agrees with its units."""
    data = b"\n".join(lines) + (b"\n" if trailing and lines else b"")
    path = tmp_path_factory.mktemp("blocks") / "lines.jsonl"
    path.write_bytes(data)
    blocks = make_blocks([str(path)], block_bytes)
    counts = [count_lines(b) for b in blocks]
    blocks = number_lines(blocks, counts)
    got: list[tuple[int, bytes]] = []
    for block, count in zip(blocks, counts, strict=True):
        units = [u for u in block_units(block) if isinstance(u, LinesUnit)]
        assert sum(u.data.count(b"\n") for u in units) == count
        for unit in units:
            got += [
                (unit.first_line + k, line) for k, line in enumerate(unit.data.split(b"\n")[:-1])
            ]
    want = list(enumerate(data.split(b"\n"), start=1))
    if data.endswith(b"\n") or not data:
        want = want[:-1]
    assert got == want


@pytest.mark.parametrize("given", ["absolute", "relative"])
@pytest.mark.parametrize("block_bytes", [1, 1 << 20])
def test_local_blocks_read_a_mixed_tree_as_the_local_reader(
    mixed_tree: Path, monkeypatch: pytest.MonkeyPatch, given: str, block_bytes: int
) -> None:
    """Every kind of file of a tree (txt, md, html, wiki, CSV, Parquet row groups, plain and
    gzipped JSONL, bad files) is read by the Dask engine's blocks as the local reader reads
    it, item for item, in order, named alike (a relative input as given)."""
    from neardup.distributed.stages import plan_blocks

    root = str(mixed_tree)
    if given == "relative":
        monkeypatch.chdir(mixed_tree.parent)
        root = mixed_tree.name
    blocks, k = plan_blocks([], [root], block_bytes, {})
    assert k == 0
    blocks = number_lines(blocks, [count_lines(b) for b in blocks])
    dask_items = [item for b in blocks for item in read_block(b, {})]
    local = list(read_corpus([root]))
    assert dask_items == local
    files = {
        f"{root}/{p.relative_to(mixed_tree).as_posix()}"
        for p in mixed_tree.rglob("*")
        if p.is_file()
    }
    named = {f for f in files for x in local if x.source == f or x.source.startswith(f"{f}:")}
    assert named == files  # every file of the tree gives documents or a skip row
    assert all(item.source.startswith(f"{root}/") for item in local)
    parquet = [b for b in blocks if b.items and "records.parquet" in b.url]
    assert len(parquet) == 3  # a block per row group


def test_a_url_input_holding_other_kinds_is_refused_naming_them(mixed_tree: Path) -> None:
    from neardup.distributed.stages import plan_blocks
    from neardup.errors import InputError

    with pytest.raises(
        InputError, match=r"bad/binary\.txt.* more not read: the Dask engine reads record files"
    ):
        plan_blocks([], [f"file://{mixed_tree}"], 1 << 20)
    blocks, _ = plan_blocks([], [f"file://{mixed_tree}/plain.jsonl"], 1 << 20)
    assert [b.kind for b in blocks] == ["jsonl"]


@pytest.mark.parametrize(
    "name",
    [
        "table.csv",
        "records.parquet",
        "more.arrow",
        "shard.jsonl.gz",
        "more.jsonl.zst",
        "broken.parquet",
        "plain.jsonl",
    ],
)
def test_every_record_format_by_url_is_read_as_the_local_reader_reads_it(
    mixed_tree: Path, name: str
) -> None:
    """A record file named by URL is read by its format (text.formats) through fsspec:
    the local reader's documents and skip rows, item for item, sources naming the URL; a
    Parquet file a block per row group."""
    from neardup.distributed.stages import plan_blocks

    url = f"file://{mixed_tree}/{name}"
    blocks, _ = plan_blocks([], [url], 1 << 20)
    blocks = number_lines(blocks, [count_lines(b) for b in blocks])
    dask_items = [item for b in blocks for item in read_block(b, {})]
    local = list(read_corpus([mixed_tree / name]))
    as_url = [
        dataclasses.replace(x, source=x.source.replace(str(mixed_tree), f"file://{mixed_tree}"))
        for x in local
    ]
    assert dask_items == as_url and dask_items
    if name == "records.parquet":
        assert [(b.kind, b.start, b.end) for b in blocks] == [("file", g, g + 1) for g in range(3)]


def test_a_parquet_file_without_the_text_column_by_url_is_one_skip_row(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from neardup.distributed.stages import plan_blocks

    path = tmp_path / "other.parquet"
    pq.write_table(
        pa.table({"id": ["a", "b", "c"], "body": ["x", "y", "z"]}), path, row_group_size=1
    )
    blocks, _ = plan_blocks([], [f"file://{path}"], 1 << 20)
    assert len(blocks) == 1  # no text column: one block, not one a row group
    (item,) = [x for b in blocks for x in read_block(b, {})]
    assert isinstance(item, Skipped) and item.id == "other.parquet"
    assert item.detail == "no column 'text' (columns: id, body)"


def test_a_corrupt_gzip_url_is_a_skip_row_as_in_the_local_job(mixed_tree: Path) -> None:
    from neardup.distributed.stages import plan_blocks

    gz = mixed_tree / "corrupt.jsonl.gz"
    blocks, _ = plan_blocks([], [f"file://{gz}"], 1 << 20)
    (item,) = [x for b in blocks for x in read_block(b, {})]
    (local,) = read_corpus([gz])
    assert isinstance(item, Skipped) and isinstance(local, Skipped)
    assert (item.id, item.reason, item.detail) == (local.id, local.reason, local.detail)
    assert item.reason == "unreadable" and item.source == f"file://{gz}"


def test_local_blocks_read_a_datasets_folder_as_the_local_reader(tmp_path: Path) -> None:
    # a folder saved by datasets' save_to_disk (state.json, an Arrow stream), beside a file
    import pyarrow as pa

    from neardup.distributed.stages import plan_blocks

    saved = tmp_path / "saved"
    saved.mkdir()
    texts = ["a story about a dog and a cat in the old town", "", "another story of a dog"]
    table = pa.table({"id": ["r0", "r1", "r0"], "text": texts})
    with (
        pa.OSFile(str(saved / "data.arrow"), "wb") as sink,
        pa.ipc.new_stream(sink, table.schema) as writer,
    ):
        writer.write_table(table)
    (saved / "state.json").write_text(json.dumps({"_data_files": [{"filename": "data.arrow"}]}))
    (tmp_path / "note.txt").write_text("a note about a dog and a cat", encoding="utf-8")
    inputs = [str(saved), str(tmp_path / "note.txt")]
    blocks, _ = plan_blocks([], inputs, 1 << 20)
    got = [x for b in blocks for x in read_block(b, {})]
    local = list(read_corpus(inputs))
    assert got == local and len(local) == 4
    assert {getattr(x, "reason", None) for x in local} == {None, "empty"}


def test_relative_and_absolute_inputs_are_named_each_as_given(
    mixed_tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a folder and a file given relatively (one through ..) beside absolute paths inside
    # the working directory: each named as given, as the local reader names it
    from neardup.distributed.stages import plan_blocks

    monkeypatch.chdir(mixed_tree)
    inputs = ["files/web", str(mixed_tree / "files" / "wiki"), "../tree/plain.jsonl"]
    inputs += [str(mixed_tree / "table.csv"), "files/bad"]
    blocks, _ = plan_blocks([], inputs, 1 << 20)
    blocks = number_lines(blocks, [count_lines(b) for b in blocks])
    got = [x for b in blocks for x in read_block(b, {})]
    local = list(read_corpus(inputs))
    assert got == local
    sources = {x.source.split(":")[0] for x in local}
    assert {"files/web/vanka.html", f"{mixed_tree}/files/wiki/Тоска.wiki"} <= sources
    assert {"../tree/plain.jsonl", f"{mixed_tree}/table.csv", "files/bad/empty.txt"} <= sources


@pytest.mark.parametrize("home", ["/", "parent"])
def test_a_relative_path_holding_the_working_directory_is_named_as_given(
    mixed_tree: Path, monkeypatch: pytest.MonkeyPatch, home: str
) -> None:
    # the working directory's path inside the relative path given (from / every path
    # holds "/"; from P, "../P/...") stays in the names: only the prefix read by goes
    from neardup.distributed.stages import plan_blocks

    if home == "/":
        monkeypatch.chdir("/")
        inputs = [str(mixed_tree / "files" / "web")[1:], str(mixed_tree / "plain.jsonl")[1:]]
    else:
        monkeypatch.chdir(mixed_tree.parent)
        inputs = [f"../{mixed_tree.parent.name}/tree/files/web", "tree/plain.jsonl"]
    blocks, _ = plan_blocks([], inputs, 1 << 20)
    blocks = number_lines(blocks, [count_lines(b) for b in blocks])
    got = [x for b in blocks for x in read_block(b, {})]
    local = list(read_corpus(inputs))
    assert got == local and len(local) > 2
    assert all(x.source.startswith(inputs[0]) or x.source.startswith(inputs[1]) for x in local)


@settings(max_examples=80, deadline=None)
@given(
    lines=st.lists(st.binary(max_size=30).map(lambda b: b.replace(b"\n", b"")), min_size=1),
    trailing=st.booleans(),
    unit_bytes=st.integers(min_value=1, max_value=60),
    at=st.integers(min_value=0, max_value=10**6),
)
def test_the_units_of_a_byte_range_are_its_whole_lines_cut_at_the_unit_size(
    tmp_path_factory: pytest.TempPathFactory,
    lines: list[bytes],
    trailing: bool,
    unit_bytes: int,
    at: int,
) -> None:
    """``range_units`` of ``[0, cut)`` and ``[cut, size)`` read, between them, every line of
    the file once, whole, numbered from 1 (the last line given its ``\\n``), in units that
    each end with the line that brings them to the unit size, on a local file and on an
    fsspec memory file alike."""
    import fsspec

    from neardup.text.formats import jsonl

    whole = b"".join(line + b"\n" for line in lines)
    if not trailing:
        whole = whole[:-1]
    cut = at % (len(whole) + 1)
    local = tmp_path_factory.mktemp("units") / "f.jsonl"
    local.write_bytes(whole)
    memory = fsspec.filesystem("memory")
    memory.pipe("/units/f.jsonl", whole)
    want = whole if whole.endswith(b"\n") or not whole else whole + b"\n"
    for fs, path in ((fsspec.filesystem("file"), str(local)), (memory, "/units/f.jsonl")):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(jsonl, "BLOCK_BYTES", unit_bytes)
            first = list(jsonl.range_units(fs, path, 0, cut, first_line=1, base="f", shown="f"))
            line = 1 + sum(u.data.count(b"\n") for u in first)
            size = len(whole)
            rest = jsonl.range_units(fs, path, cut, size, first_line=line, base="f", shown="f")
            units = first + list(rest)
        assert b"".join(u.data for u in units) == want
        assert all(u.data.endswith(b"\n") for u in units)
        assert all(len(u.data) - len(u.data.split(b"\n")[-2]) - 1 < unit_bytes for u in units)
        lines_before = [sum(u.data.count(b"\n") for u in units[:k]) for k in range(len(units))]
        assert [u.first_line for u in units] == [1 + n for n in lines_before]


@settings(max_examples=60, deadline=None)
@given(
    lines=st.lists(st.binary(max_size=12).map(lambda b: b.replace(b"\n", b"")), min_size=1),
    trailing=st.booleans(),
    cuts=st.tuples(st.integers(0, 400), st.integers(0, 400)),
)
def test_the_lines_of_a_byte_range_are_counted_alike_on_a_memory_map_and_a_remote_file(
    tmp_path_factory: pytest.TempPathFactory,
    lines: list[bytes],
    trailing: bool,
    cuts: tuple[int, int],
) -> None:
    """``range_lines`` counts the lines that start in ``[start, end)``: on a memory map for
    a local file, on the bytes read (two pieces, the block and the rest of its last line)
    for any other fsspec file system; both give the line starts counted directly."""
    import fsspec

    from neardup.text.formats import jsonl

    whole = b"".join(line + b"\n" for line in lines)
    if not trailing:
        whole = whole[:-1]
    start, end = sorted(c % (len(whole) + 2) for c in cuts)
    starts = [0, *(i + 1 for i, b in enumerate(whole) if b == 0x0A and i + 1 < len(whole))]
    want = sum(1 for s in starts if start <= s < end) if whole else 0
    local = tmp_path_factory.mktemp("range") / "f.jsonl"
    local.write_bytes(whole)
    memory = fsspec.filesystem("memory")
    memory.pipe("/range/f.jsonl", whole)
    assert jsonl.range_lines(fsspec.filesystem("file"), str(local), start, end) == want
    assert jsonl.range_lines(memory, "/range/f.jsonl", start, end) == want
