"""``dedup B --against A`` on the Dask engine: the local job's files byte for byte.

``examples/corpus`` split as ``tests/test_against.py`` splits it (A: the sources, B: their
renderings and revisions), written as JSONL shards (the Dask engine reads JSONL/Parquet),
with a too-short record in each corpus and a B record repeating an A id (renamed by its
place, as one read of both would). The session's cluster (``conftest.py``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from neardup.cli.main import app
from neardup.distributed import dedup_dask
from neardup.job.pipeline import DedupOptions, dedup
from neardup.output import write_result
from neardup.text.read import read_corpus
from shared_data import require

distributed = require("distributed")  # a dev dependency: fails in CI, skips elsewhere

pytestmark = pytest.mark.slow

CORPUS = Path(__file__).resolve().parents[2] / "examples" / "corpus"
A_INPUTS = [CORPUS / "chekhov", CORPUS / "progit" / "2016"]
B_INPUTS = [CORPUS / "progit" / "latest", CORPUS / "web", CORPUS / "wiki"]
FILES = ("pairs.jsonl", "clusters.jsonl", "dropped.jsonl", "skipped.jsonl")
COUNTS: tuple[str, ...] = (
    "read",
    "documents",
    "skipped",
    "candidate_pairs",
    "pairs",
    "clusters",
    "kept",
)
COUNTS += ("dropped", "removed", "renamed_ids", "against")


def _shards(out: Path, rows: list[dict[str, Any]], n: int) -> list[str]:
    out.mkdir(parents=True)
    size = -(-len(rows) // n)
    paths = []
    for i in range(n):
        path = out / f"part-{i}.jsonl"
        chunk = rows[i * size : (i + 1) * size]
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in chunk))
        paths.append(str(path))
    return paths


@pytest.fixture(scope="module")
def corpora(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[str], list[str]]:
    tmp = tmp_path_factory.mktemp("against")
    # every input here is read (no Skipped): a Skipped fails on .text
    a_rows = [{"id": d.id, "text": d.text} for d in read_corpus(A_INPUTS)]  # type: ignore[union-attr]
    b_rows = [{"id": d.id, "text": d.text} for d in read_corpus(B_INPUTS)]  # type: ignore[union-attr]
    a_rows.insert(3, {"id": "a-short", "text": "too short"})
    b_rows.insert(2, {"id": "b-short", "text": "tiny"})
    tosca = next(r for r in b_rows if r["id"] == "wiki/Тоска.wiki")
    b_rows.append({"id": "chekhov/Хамелеон.txt", "text": tosca["text"]})  # A's id again
    return _shards(tmp / "A", a_rows, 2), _shards(tmp / "B", b_rows, 3)


CASES = [
    ("shingles-full", "resemblance", True),
    ("shingles-full", "containment", False),
    ("minhash-lsh", "resemblance", False),
    ("minhash-lsh", "containment", True),
    ("tf-ridf", "resemblance", True),  # fitted on A and B together, as the local job
    ("simhash", "resemblance", False),  # signs from the text
]


@pytest.mark.parametrize(("method", "measure", "within"), CASES)
def test_dask_against_writes_the_local_files(
    corpora: tuple[list[str], list[str]],
    client: Any,
    tmp_path: Path,
    method: str,
    measure: str,
    within: bool,
) -> None:
    a, b = corpora
    opts = DedupOptions(measure=measure, threshold=0.5)  # type: ignore[arg-type]
    local = dedup(b, against=a, within=within, method=method, options=opts, jobs=1)
    write_result(local, tmp_path / "local")
    got = dedup_dask(
        b, tmp_path / "dask", against=a, within=within, method=method, options=opts, client=client
    )
    for name in FILES:
        want = (tmp_path / "local" / name).read_bytes()
        assert (tmp_path / "dask" / name).read_bytes() == want, name
    for key in COUNTS:
        assert got.summary[key] == local.summary[key], key
    assert got.against == local.against == 22  # A's documents ("a-short" is skipped)
    assert got.kept_ids() == local.kept_ids()
    assert [d.as_dict() for d in got.dropped] == [d.as_dict() for d in local.dropped]
    # the known matches of examples/gold.jsonl are named, the short B record skipped
    matched = {d.id: d.match for d in got.dropped if d.match is not None}
    assert matched["web/vanka.html"] == "chekhov/Ванька.txt"
    assert [s.id for s in got.skipped] == ["b-short"]
    assert got.summary["against"]["skipped"] == 1


def test_cli_dask_against_keeps_b_only(
    corpora: tuple[list[str], list[str]], tmp_path: Path
) -> None:
    a, b = (str(Path(paths[0]).parent) for paths in corpora)  # the A and B directories
    outs = {}
    for engine in ("local", "dask"):
        kept = tmp_path / f"{engine}.jsonl"
        args = ["dedup", b, "--against", a, "--engine", engine, "--kept", str(kept), "-q"]
        args += ["--out", str(tmp_path / engine)] + (["--workers", "1"] if engine == "dask" else [])
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 0, result.output
        outs[engine] = kept.read_bytes()
        for name in FILES:
            assert (tmp_path / engine / name).exists()
    assert outs["dask"] == outs["local"]
    for name in FILES:
        assert (tmp_path / "dask" / name).read_bytes() == (tmp_path / "local" / name).read_bytes()
    ids = [json.loads(x)["id"] for x in outs["dask"].decode().splitlines()]
    assert "web/zametki-chitatelya.html" in ids and not any(i.startswith("chekhov/") for i in ids)
