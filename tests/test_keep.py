"""The keep stage: ``keep_by`` (a cluster keeps the newest revision, or the member with the
largest or smallest value of any field) and ``--mark`` (every record written, marked with
its cluster, nothing dropped).

Real text: the Pro Git chapters of ``examples/corpus/progit`` in their 2016 and latest
revisions. Two chapters changed little (``rerere``: resemblance 0.925; ``bash``: 0.538), so
the job pairs each with its revision; the longest rule keeps the 2016 ``rerere``, the
issue's complaint, and ``keep_by="date"`` keeps the newer revision of both.
"""

from __future__ import annotations

import json
import os
import shutil
from datetime import date, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from neardup.cli.main import app
from neardup.errors import ParameterError
from neardup.job.keep import field_ranks, value_kind
from neardup.job.pipeline import DedupOptions, dedup
from neardup.text.types import Document

PROGIT = Path(__file__).resolve().parents[1] / "examples" / "corpus" / "progit"
DATES = {"2016": "2016-03-01", "latest": "2024-05-10T12:00:00+02:00"}


def _rows() -> list[dict[str, Any]]:
    return [
        {"id": f"{rev}/{p.name}", "text": p.read_text(encoding="utf-8"), "date": day}
        for rev, day in DATES.items()
        for p in sorted((PROGIT / rev).glob("*.asc"))
    ]


def _jsonl(tmp_path: Path, rows: list[dict[str, Any]]) -> Path:
    path = tmp_path / "chapters.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _kept(result: Any) -> list[str]:
    return [c.keep for c in result.clusters]


def test_keep_by_date_keeps_the_newer_revision(tmp_path: Path) -> None:
    src = [str(_jsonl(tmp_path, _rows()))]
    assert _kept(dedup(src)) == ["2016/rerere.asc", "latest/bash.asc"]  # longest: a 2016 one
    newest = dedup(src, options=DedupOptions(keep_by="date"))
    assert _kept(newest) == ["latest/bash.asc", "latest/rerere.asc"]
    assert sorted(d.id for d in newest.dropped) == ["2016/bash.asc", "2016/rerere.asc"]
    assert newest.summary["keep_by"] == {
        "field": "date",
        "order": "max",
        "kind": "date",
        "clustered": 4,
        "missing": 0,
    }
    oldest = dedup(src, options=DedupOptions(keep_by="date", keep_order="min"))
    assert _kept(oldest) == ["2016/bash.asc", "2016/rerere.asc"]


def test_keep_by_compares_numbers_as_numbers_and_missing_loses(tmp_path: Path) -> None:
    rows = _rows()
    for r in rows:  # version 9 (2016) against 10 (latest): "9" > "10" as strings
        r["meta"] = {"version": 9 if r["id"].startswith("2016") else 10}
    rows[0].pop("meta")  # 2016/bash.asc has no version: it loses even under min
    src = [str(_jsonl(tmp_path, rows))]
    result = dedup(src, options=DedupOptions(keep_by="meta.version"))
    assert _kept(result) == ["latest/bash.asc", "latest/rerere.asc"]
    assert result.summary["keep_by"]["missing"] == 1
    assert result.summary["keep_by"]["kind"] == "number"
    low = dedup(src, options=DedupOptions(keep_by="meta.version", keep_order="min"))
    assert _kept(low) == ["2016/rerere.asc", "latest/bash.asc"]


def test_keep_by_a_field_no_record_has_warns_and_keeps_the_first(tmp_path: Path) -> None:
    src = [str(_jsonl(tmp_path, _rows()))]
    result = dedup(src, options=DedupOptions(keep_by="published"))
    assert _kept(result) == ["2016/bash.asc", "2016/rerere.asc"]
    assert any("'published'" in w for w in result.summary["warnings"])


def test_keep_by_mtime_of_document_files(tmp_path: Path) -> None:
    for rev, stamp in (("2016", 1_456_790_400), ("latest", 1_715_335_200)):
        shutil.copytree(PROGIT / rev, tmp_path / rev)
        for p in (tmp_path / rev).iterdir():
            os.utime(p, (stamp, stamp))
    result = dedup([str(tmp_path)], options=DedupOptions(keep_by="mtime"))
    assert [Path(k).parent.name for k in _kept(result)] == ["latest", "latest"]
    assert result.summary["keep_by"]["kind"] == "number"


def test_keep_by_on_a_frame_column() -> None:
    import pandas as pd

    frame = pd.DataFrame(_rows())  # below: Timestamps, compared as dates
    frame["date"] = pd.to_datetime(frame["date"], utc=True, format="ISO8601")
    result = dedup(frame, options=DedupOptions(keep_by="date"))
    assert _kept(result) == ["latest/bash.asc", "latest/rerere.asc"]
    marked = result.frame.dropna(subset=["duplicate_of"])
    assert dict(zip(marked["id"], marked["duplicate_of"], strict=True)) == {
        "2016/bash.asc": "latest/bash.asc",
        "2016/rerere.asc": "latest/rerere.asc",
    }
    with pytest.raises(ParameterError, match="keep_by"):
        dedup(frame, options=DedupOptions(keep_by="nope"))


def test_keep_by_is_refused_without_fields() -> None:
    docs = [Document(r["id"], r["text"]) for r in _rows()]
    with pytest.raises(ParameterError, match="keep_by"):
        dedup(docs, options=DedupOptions(keep_by="date"))
    with pytest.raises(ParameterError, match="keep_order"):
        DedupOptions(keep_order="min")
    with pytest.raises(ParameterError, match="keep_order"):
        DedupOptions(keep_by="date", keep_order="newest")  # type: ignore[arg-type]


def test_keep_by_is_refused_by_the_dask_engine(tmp_path: Path) -> None:
    from neardup.distributed import dedup_dask

    src = str(_jsonl(tmp_path, _rows()))
    with pytest.raises(ParameterError, match="keep_by"):
        dedup_dask([src], options=DedupOptions(keep_by="date"))
    res = CliRunner().invoke(app, ["dedup", src, "--engine", "dask", "--keep-by", "date"])
    assert res.exit_code == 2
    assert "--keep-by" in res.output


def test_keep_by_gives_way_to_no_container(tmp_path: Path) -> None:
    """Under containment the longest rule keeps the whole story over its opening; the field
    keeps the (newer) opening, and the dropped story's reason says it contains it."""
    chekhov = Path(__file__).resolve().parents[1] / "examples" / "corpus"
    rows = [
        {"id": "story", "text": (chekhov / "chekhov" / "Хамелеон.txt").read_text(), "d": 1},
        {
            "id": "opening",
            "text": (chekhov / "excerpts" / "Хамелеон (начало).txt").read_text(),
            "d": 2,
        },
    ]
    src = [str(_jsonl(tmp_path, rows))]
    opts = DedupOptions(measure="containment", threshold=0.8, keep_by="d")
    result = dedup(src, options=opts)
    assert _kept(result) == ["opening"]
    assert result.dropped[0].id == "story"
    assert result.dropped[0].reason.startswith("contains the kept document (containment ")


def test_field_ranks_by_kind() -> None:
    assert value_kind([3, 2.5, True]) == "number"
    assert value_kind(["2016-03-01", datetime(2020, 1, 1), date(2019, 1, 1)]) == "date"
    assert value_kind(["2016-03-01", "v2"]) == "string"
    assert value_kind([None]) == "string"
    # numbers: 10 > 9; missing (absent, None, NaN) ranks 0; equal values share a rank
    ranks = field_ranks(5, {0: 9, 1: 10, 2: None, 3: float("nan"), 4: 10})
    assert ranks.tolist() == [1, 2, 0, 0, 2]
    assert field_ranks(3, {0: 9, 1: 10}, order="min").tolist() == [2, 1, 0]
    # dates: a naive time is UTC; 2016-03-01T01:00+02:00 is before 2016-03-01 (UTC)
    dates = {0: "2016-03-01", 1: "2016-03-01T01:00:00+02:00", 2: "2016-03-02"}
    assert field_ranks(3, dates).tolist() == [2, 1, 3]
    # strings: lexicographic, so "v10" < "v9"
    assert field_ranks(2, {0: "v9", 1: "v10"}).tolist() == [2, 1]


def test_ties_go_to_the_earlier_document() -> None:
    from neardup.job.cluster import make_clusters

    edges = np.array([[0, 1], [1, 2]], dtype=np.int64)
    lengths = np.array([1, 5, 3])
    ranks = field_ranks(3, {0: "2020-01-01", 1: "2019-01-01", 2: "2020-01-01"})
    (cluster,) = make_clusters(["a", "b", "c"], edges, lengths, ranks=ranks)
    assert cluster.keep == "a"


@pytest.mark.parametrize("name", ["marked.jsonl", "marked.parquet"])
def test_mark_writes_every_record_with_its_cluster(tmp_path: Path, name: str) -> None:
    rows = _rows()
    rows.append({"id": "short", "text": "too short", "date": "2020-01-01"})  # skipped
    src = _jsonl(tmp_path, rows)
    out = tmp_path / name
    args = ["dedup", str(src), "--keep-by", "date", "--kept", str(out), "--mark", "--json"]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)["summary"]
    if name.endswith(".jsonl"):
        written = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    else:
        written = pq.read_table(out).to_pylist()
    assert summary["read"] == len(written) == summary["outputs"]["kept"]["records"] == 13
    assert all({"cluster", "duplicate_of", "date", "text"} <= set(r) for r in written)
    marks = {r["id"]: (r["cluster"], r["duplicate_of"]) for r in written}
    assert marks["2016/bash.asc"] == (0, "latest/bash.asc")
    assert marks["latest/bash.asc"] == (0, None)
    assert marks["2016/rerere.asc"] == (1, "latest/rerere.asc")
    assert marks["latest/rerere.asc"] == (1, None)
    assert marks["short"] == (None, None)
    assert sum(1 for c, d in marks.values() if d is None) == summary["kept"] + 1  # + short


def test_mark_needs_kept_alone(tmp_path: Path) -> None:
    src = str(_jsonl(tmp_path, _rows()))
    res = CliRunner().invoke(app, ["dedup", src, "--mark"])
    assert res.exit_code == 2
    assert "--mark" in res.output
    removed = ["--kept", str(tmp_path / "k.jsonl"), "--removed", str(tmp_path / "r.jsonl")]
    res = CliRunner().invoke(app, ["dedup", src, "--mark", *removed])
    assert res.exit_code == 2
