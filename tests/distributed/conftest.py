"""One Dask cluster for every Dask test of this folder (started once per session).

``client``: a ``distributed.Client`` of a :func:`neardup.distributed.executor.local_cluster` of
2 worker processes of one thread each, the CLI's default cluster: the byte-for-byte tests
then cross real process boundaries (every task's arguments and results are pickled), and
the worker-kill test has a process to kill (the nanny starts a new one). Tests that start
a cluster of their own (the CLI without ``--scheduler``) are the exception.

``mixed_tree``: a folder of every kind the local job reads in a tree (txt, md, html, wiki,
``.txt.gz``, CSV, Parquet of three row groups, Arrow, plain, gzipped and zstd JSONL) with
repeated ids
across the record files and bad files (binary, empty, too short, a malformed line, a
corrupt ``.jsonl.gz``, a file that is not Parquet).
"""

from __future__ import annotations

import csv
import gzip
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from shared_data import require


@pytest.fixture(scope="session")
def client() -> Iterator[Any]:
    distributed = require("distributed")  # a dev dependency: fails in CI, skips elsewhere
    from neardup.distributed.executor import local_cluster

    with local_cluster(workers=2, processes=True) as cluster, distributed.Client(cluster) as cli:
        yield cli


@pytest.fixture(scope="session")
def mixed_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``examples/corpus`` (txt, html, wiki, ``.txt.gz``, binary, empty, short) copied under
    ``tree/files``, beside record files of every kind, see the module docstring."""
    corpus = Path(__file__).resolve().parents[2] / "examples" / "corpus"
    tree = tmp_path_factory.mktemp("mixed") / "tree"
    shutil.copytree(corpus, tree / "files")
    texts = [p.read_text("utf-8") for p in sorted((corpus / "chekhov").glob("*.txt"))]
    (tree / "files" / "notes.md").write_text("# Notes\n\n" + texts[0][:2000], "utf-8")
    rows = [{"id": f"csv{i}", "text": t[:3000]} for i, t in enumerate(texts[:5])]
    rows.append({"id": "csv0", "text": texts[6][:2000]})  # a repeated id
    with open(tree / "table.csv", "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, ["id", "text"])
        writer.writeheader()
        writer.writerows(rows)
    import pyarrow as pa
    import pyarrow.parquet as pq

    records = [{"id": f"pq{i}", "text": t[:2500]} for i, t in enumerate(texts[3:9])]
    records.append({"id": "csv1", "text": texts[2][:2600]})  # the CSV's id, read before it
    pq.write_table(pa.Table.from_pylist(records), tree / "records.parquet", row_group_size=3)
    with gzip.open(tree / "shard.jsonl.gz", "wt", encoding="utf-8") as fh:
        for i, t in enumerate(texts[8:14]):
            fh.write(json.dumps({"id": f"j{i}", "text": t[:2800]}, ensure_ascii=False) + "\n")
        fh.write(json.dumps({"id": "pq0", "text": texts[1][:1500]}, ensure_ascii=False) + "\n")
        fh.write("not json\n")
    with open(tree / "plain.jsonl", "w", encoding="utf-8") as fh:
        for i, t in enumerate(texts[10:16]):
            fh.write(json.dumps({"id": f"p{i}", "text": t[:2000]}, ensure_ascii=False) + "\n")
    arrow = [{"id": f"ar{i}", "text": t[:1800]} for i, t in enumerate(texts[1:3])]
    with pa.OSFile(str(tree / "more.arrow"), "wb") as sink:
        table = pa.Table.from_pylist(arrow)
        with pa.ipc.new_file(sink, table.schema) as writer:
            writer.write_table(table)
    import zstandard

    zst = "".join(
        json.dumps({"id": f"z{i}", "text": t[:1700]}) + "\n" for i, t in enumerate(texts[4:6])
    )
    (tree / "more.jsonl.zst").write_bytes(zstandard.ZstdCompressor().compress(zst.encode()))
    whole = gzip.compress(b'{"id": "z", "text": "a record of a broken stream"}\n' * 50)
    (tree / "corrupt.jsonl.gz").write_bytes(whole[:40] + b"garbage" * 10)
    (tree / "broken.parquet").write_bytes(b"PAR1 not really a Parquet file")
    return tree
