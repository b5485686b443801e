"""The one writer of a dedup result (:mod:`neardup.output`): a table written whole and the
same table written a piece a partition then merged are the same bytes; the pieces are
removed; ``summary.json`` is written last, with the lines' JSON (lone surrogates escaped)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from neardup.output import (
    FILES,
    merge_tables,
    part_name,
    prepare_out_dir,
    table_lines,
    write_summary,
    write_table,
)

ROWS: list[dict[str, Any]] = [
    {"id": "рассказ-1", "source": "a.jsonl:1", "reason": "too-short", "detail": "2 < 8"},
    {"id": "lone \ud800", "source": "b.jsonl:7", "reason": "unreadable", "detail": None},
    {"id": "x", "source": "c.csv:row 3", "reason": "unreadable", "detail": "duplicate"},
]


def test_pieces_merged_are_the_table_written_whole(tmp_path: Path) -> None:
    whole, parted = tmp_path / "whole", tmp_path / "parted"
    whole.mkdir()
    for name in FILES:
        assert write_table(whole, name, table_lines(ROWS)) == 3
    # three partitions: the first row, none, the other two
    for p, rows in enumerate([ROWS[:1], [], ROWS[1:]]):
        for name in FILES:
            assert write_table(str(parted), name, table_lines(rows), part=p) == len(rows)
    assert (parted / part_name("skipped.jsonl", 2)).is_file()
    assert part_name("skipped.jsonl", 2) == "_parts/skipped-00002.jsonl"
    merge_tables(str(parted), 3)
    assert sorted(x.name for x in parted.iterdir()) == sorted(FILES)  # pieces removed
    for name in FILES:
        assert (parted / name).read_bytes() == (whole / name).read_bytes()
    lines = (whole / "skipped.jsonl").read_text("utf-8").splitlines()
    assert lines[0] == (
        '{"id": "рассказ-1", "source": "a.jsonl:1", "reason": "too-short", "detail": "2 < 8"}'
    )
    assert "\\ud800" in lines[1] and json.loads(lines[1])["id"] == "lone \ud800"


def test_summary_written_last_replaces_a_stale_one(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "summary.json").write_text("{}", "utf-8")
    prepare_out_dir(out)
    assert not (out / "summary.json").exists()
    write_summary(out, {"documents": 3, "warnings": ["ок"]})
    assert (out / "summary.json").read_text("utf-8") == (
        '{\n  "documents": 3,\n  "warnings": [\n    "ок"\n  ]\n}\n'
    )
    assert [x.name for x in out.iterdir()] == ["summary.json"]  # no temporary left
