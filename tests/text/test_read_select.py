"""The reader's file selection (issue 30, the data engineer): files of no known kind read as
text when they decode as text, ``include``/``exclude`` patterns, ``recursive``, ``limit``;
the fields of the first record file checked before a job; Parquet read in batches of about
a JSONL block's bytes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from neardup.errors import ParameterError
from neardup.text.inputs import check_fields, plan_units
from neardup.text.read import read_corpus, read_options
from neardup.text.types import Document, Skipped
from neardup.text.units import BATCH_ROWS, BLOCK_BYTES, RecordsUnit

ABI = (
    "What:\t\t/sys/class/hsi/hsi0/\n"
    "Date:\t\tApril 2012\n"
    "Description:\tThe HSI controller, one directory per port.\n"
)
YAML = "title: Serial interface\nversions:\n  - 6.1\n  - 6.12\n"


def _outcome(items: list[Document | Skipped]) -> list[tuple[str, str]]:
    return [(x.id, x.reason if isinstance(x, Skipped) else x.content_type) for x in items]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "abi"
    (root / "testing" / "deep").mkdir(parents=True)
    (root / "sysfs-class-hsi").write_text(ABI, encoding="utf-8")  # no extension
    (root / "schema.yaml").write_text(YAML, encoding="utf-8")
    (root / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(9000))
    (root / "notes.txt").write_text("Plain notes about the interface.", encoding="utf-8")
    (root / "testing" / "sysfs-bus-usb").write_text(ABI.replace("hsi", "usb"), encoding="utf-8")
    (root / "testing" / "deep" / "x.md").write_text("# Deep\n\nA deep file.", encoding="utf-8")
    return root


def test_files_of_no_known_kind_are_read_as_text_and_binaries_skipped(tree: Path) -> None:
    items = list(read_corpus([tree]))
    assert _outcome(items) == [
        ("logo.png", "binary"),
        ("notes.txt", "text"),
        ("schema.yaml", "text"),
        ("sysfs-class-hsi", "text"),
        ("testing/deep/x.md", "text"),
        ("testing/sysfs-bus-usb", "text"),
    ]
    abi = next(x for x in items if x.id == "sysfs-class-hsi")
    assert isinstance(abi, Document) and abi.text == ABI
    png = items[0]
    assert isinstance(png, Skipped) and "NUL or control bytes" in png.detail


def test_include_and_exclude_select_files(tree: Path) -> None:
    got = [x.id for x in read_corpus([tree], include=["sysfs-*"])]
    assert got == ["sysfs-class-hsi", "testing/sysfs-bus-usb"]
    got = [x.id for x in read_corpus([tree], include=["sysfs-*", "*.md"], exclude=["testing/*"])]
    assert got == ["sysfs-class-hsi"]
    got = [x.id for x in read_corpus([tree], exclude=["*.png", "*.yaml"])]
    assert got == ["notes.txt", "sysfs-class-hsi", "testing/deep/x.md", "testing/sysfs-bus-usb"]


def test_no_recursion_reads_the_top_folder_only(tree: Path) -> None:
    got = [x.id for x in read_corpus([tree], recursive=False, exclude=["*.png"])]
    assert got == ["notes.txt", "schema.yaml", "sysfs-class-hsi"]


def test_limit_stops_after_n_records_in_input_order(tree: Path, tmp_path: Path) -> None:
    records = tmp_path / "r.jsonl"
    records.write_text(
        "".join(json.dumps({"id": f"r{i}", "text": f"t {i}"}) + "\n" for i in range(9))
    )
    assert [x.id for x in read_corpus([records], limit=4)] == ["r0", "r1", "r2", "r3"]
    assert [x.id for x in read_corpus([tree, records], limit=2)] == [
        "abi/logo.png",
        "abi/notes.txt",
    ]
    with pytest.raises(ParameterError, match="limit"):
        read_corpus([records], limit=0)
    with pytest.raises(ParameterError, match="include"):
        read_corpus([records], include=[""])


def test_check_fields_names_the_field_the_file_and_the_fields(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"id": ["a"], "content": ["some text"]}), tmp_path / "d.parquet")
    with pytest.raises(ParameterError) as info:
        check_fields([tmp_path / "d.parquet"], read_options(), check_id=False)
    assert str(info.value) == (
        f"--text-field='text' is not allowed: a field of {tmp_path / 'd.parquet'}"
        " (its fields: id, content)"
    )
    check_fields([tmp_path / "d.parquet"], read_options(text_field="content"), check_id=True)
    (tmp_path / "d.csv").write_text("key,body\n1,hello\n", encoding="utf-8")
    opts = read_options(text_field="body", id_field="uid")
    with pytest.raises(ParameterError, match=r"^--id-field='uid' .*\(its fields: key, body\)"):
        check_fields([tmp_path / "d.csv"], opts, check_id=True)
    check_fields([tmp_path / "d.csv"], opts, check_id=False)
    lines = tmp_path / "j"
    lines.mkdir()
    (lines / "a.txt").write_text("a document file has no fields")
    (lines / "b.jsonl").write_text('{"id": 1, "body": "x"}\n{"id": 2, "text": "y"}\n')
    check_fields([lines / "b.jsonl"], read_options(), check_id=False)  # the second has "text"
    with pytest.raises(ParameterError, match=r"b\.jsonl \(its fields: id, body, text\)"):
        check_fields([lines / "b.jsonl"], read_options(text_field="content"), check_id=False)
    # inside a tree a record file is not checked: without the field it is a skip row
    check_fields([lines], read_options(text_field="content"), check_id=False)


def test_parquet_is_read_in_batches_of_about_a_jsonl_block(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    n = 3000  # 10 kB a record: 2,048 records would be 20 MiB
    texts = [f"{i:05d} " + "word " * 1999 for i in range(n)]
    table = pa.table({"id": [str(i) for i in range(n)], "text": texts})
    pq.write_table(table, tmp_path / "b.parquet", use_dictionary=False, compression="zstd")
    units = [
        u
        for u in plan_units([tmp_path / "b.parquet"], read_options())
        if isinstance(u, RecordsUnit)
    ]
    sizes = [len(u.texts) for u in units]
    assert sum(sizes) == n
    assert 300 < max(sizes) <= BLOCK_BYTES // 10_000 < BATCH_ROWS
    assert [x.id for x in read_corpus([tmp_path / "b.parquet"], limit=3)] == ["0", "1", "2"]


def test_csv_units_hold_about_a_jsonl_block_of_text(tmp_path: Path) -> None:
    n = 1000  # 10 kB a record: 2,048 records would be 20 MiB
    lines = ["id,text"] + [f"{i},{i:05d} " + "word " * 1999 for i in range(n)]
    (tmp_path / "b.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    units = [
        u for u in plan_units([tmp_path / "b.csv"], read_options()) if isinstance(u, RecordsUnit)
    ]
    sizes = [len(u.texts) for u in units]
    assert sum(sizes) == n and max(sizes) == -(-BLOCK_BYTES // 10_001) < BATCH_ROWS
    assert sum(u.weight for u in units) == (tmp_path / "b.csv").stat().st_size
