"""The read stage's progress is in bytes of a planned total (issue 30: ``2891/?`` told the
data engineer nothing), on the worker path and the one-process path, and writing
``--kept``/``--removed`` reports its own stage (the progress model, not the terminal)."""

from __future__ import annotations

import csv
import gzip
import json
from pathlib import Path

import pytest

from neardup.job.export import export_records
from neardup.job.pipeline import dedup
from neardup.text.read import read_options

WORDS = [f"w{i}" for i in range(3000)]


class Recorder:
    """A :class:`neardup.progress.Progress` that keeps every event."""

    def __init__(self) -> None:
        self.totals: dict[str, tuple[int | None, str]] = {}
        self.done: dict[str, int] = {}
        self.steps: dict[str, int] = {}

    def start(self, stage: str, total: int | None, *, unit: str = "items") -> None:
        self.totals[stage] = (total, unit)
        self.done[stage] = 0
        self.steps[stage] = 0

    def advance(self, stage: str, n: int = 1) -> None:
        self.done[stage] += n
        self.steps[stage] += 1

    def finish(self, stage: str) -> None:
        pass


def _text(i: int) -> str:
    return " ".join(WORDS[i * 7 : i * 7 + 80])


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    root = tmp_path / "corpus"
    root.mkdir()
    rows = [{"id": f"r{i}", "text": _text(i)} for i in range(120)]
    (root / "a.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows[:40]))
    (root / "b.jsonl.gz").write_bytes(
        gzip.compress("".join(json.dumps(r) + "\n" for r in rows[40:70]).encode())
    )
    with (root / "c.csv").open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=["id", "text"])
        writer.writeheader()
        writer.writerows(rows[70:100])
    pq.write_table(pa.Table.from_pylist(rows[100:]), root / "d.parquet", row_group_size=7)
    (root / "e.txt").write_text(_text(3))  # a near-duplicate of r3
    (root / "NOTES").write_text(_text(200))
    return root


def _sizes(root: Path) -> int:
    return sum(p.stat().st_size for p in root.iterdir())


@pytest.mark.parametrize("jobs", [1, 2])
def test_the_read_counts_bytes_of_the_planned_total(corpus: Path, jobs: int) -> None:
    rec = Recorder()
    result = dedup([str(corpus)], progress=rec, jobs=jobs)
    assert rec.totals["read"] == (_sizes(corpus), "bytes")
    assert rec.done["read"] == _sizes(corpus)
    assert rec.steps["read"] >= 6  # a step a unit: one a file at least
    assert result.summary["documents"] == 122


def test_the_one_process_path_counts_bytes_too(corpus: Path) -> None:
    rec = Recorder()
    dedup([str(corpus)], progress=rec, method="simhash")  # reads in this process
    assert rec.totals["read"] == (_sizes(corpus), "bytes")
    assert rec.done["read"] == _sizes(corpus)


def test_a_limited_read_has_no_total(corpus: Path) -> None:
    rec = Recorder()
    result = dedup([str(corpus)], progress=rec, read_options={"limit": 50})
    assert rec.totals["read"] == (None, "bytes")
    assert result.summary["read"] == 50


def test_writing_kept_reports_its_stage_in_bytes(corpus: Path, tmp_path: Path) -> None:
    rec = Recorder()
    ids = {f"r{i}" for i in range(0, 120, 2)}
    n = export_records(
        [corpus], tmp_path / "k.jsonl", ids, read_options(), progress=rec, stage="kept"
    )
    assert n == 60
    assert rec.totals["kept"] == (_sizes(corpus), "bytes")
    assert rec.done["kept"] == _sizes(corpus)
    assert rec.steps["kept"] >= 6
