"""The Dask engine's blocks read as the local reader reads the whole file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from neardup.distributed.io import count_lines, make_blocks, number_lines, read_block
from neardup.text.read import read_corpus


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
