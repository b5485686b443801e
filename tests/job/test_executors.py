"""One job, every executor (issue 42): a tree of txt, md, html, CSV, Parquet and gzipped JSONL
files made from the stories of ``examples/corpus`` (near copies across formats, an exact
copy, an opening inside its story, a too-short record, a line that is not JSON) gives, in
this process (``local``), on a pool of two worker processes (``pool``), on Dask
(``dask``, a ``LocalCluster`` of two worker threads) and as the partitioned job's tasks in
this process (``inline``), the same ``pairs.jsonl``,
``clusters.jsonl``, ``dropped.jsonl`` and ``skipped.jsonl`` byte for byte, a
``summary.json`` with the same keys, and the same ``--kept`` records; for every built-in
method and both measures. What an executor cannot run it refuses by name, before any work.
"""

from __future__ import annotations

import csv
import dataclasses
import gzip
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from neardup.cli.main import app
from neardup.errors import ParameterError
from neardup.job.executors.local import InProcess
from neardup.job.executors.pool import ProcessPool
from neardup.job.export import export_records
from neardup.job.pipeline import (
    DedupOptions,
    DedupResult,
    dedup,
    executor_for,
)
from neardup.output import write_result
from neardup.text.read import read_options
from shared_data import require

ROOT = Path(__file__).resolve().parents[2]
FILES = ("pairs.jsonl", "clusters.jsonl", "dropped.jsonl", "skipped.jsonl")
EXECUTORS = ("local", "pool", "dask", "inline")
#: The executors of the partitioned job: their tasks write the result's files.
PARTITIONED = ("dask", "inline")
#: Summary values every executor gives alike (beside the same keys).
SAME_VALUES = (
    *("read", "documents", "skipped", "pairs", "clusters", "kept", "decision"),
    *("kernel", "warnings", "renamed_ids", "options", "method_params"),
)


def _stories() -> list[str]:
    return [p.read_text("utf-8") for p in sorted((ROOT / "examples/corpus/chekhov").glob("*.txt"))]


def _edited(text: str, every: int = 40) -> str:
    """``text`` with every ``every``-th word replaced: a near copy."""
    words = text.split()
    return " ".join("слово" if i % every == every - 1 else w for i, w in enumerate(words))


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """txt, md, html, CSV, Parquet and gzipped JSONL files of 18 documents and 2 skip rows."""
    s = _stories()
    root = tmp_path_factory.mktemp("executors") / "tree"
    (root / "txt").mkdir(parents=True)
    for i in range(4):
        (root / "txt" / f"story{i}.txt").write_text(s[i], "utf-8")
    (root / "notes.md").write_text("# Заметки\n\n" + _edited(s[0]), "utf-8")
    (root / "story4.md").write_text("# Рассказ\n\n" + s[4], "utf-8")
    paragraphs = "".join(f"<p>{p}</p>\n" for p in _edited(s[1], 30).split(". "))
    body = f"<body><article>{paragraphs}</article></body>"
    page = f"<html><head><title>Копия</title></head>{body}</html>"
    (root / "copy.html").write_text(page, "utf-8")
    (root / "story5.html").write_text(f"<html><body><p>{s[5]}</p></body></html>", "utf-8")
    with open(root / "table.csv", "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, ["id", "text", "date"])
        writer.writeheader()
        writer.writerow({"id": "csv6", "text": s[6], "date": "2020-01-01"})
        writer.writerow({"id": "csv7", "text": s[7], "date": "2020-01-02"})
        writer.writerow({"id": "csv2", "text": _edited(s[2], 25), "date": "2020-01-03"})
        writer.writerow({"id": "short", "text": "два слова", "date": "2020-01-04"})
    import pyarrow as pa
    import pyarrow.parquet as pq

    records = [
        {"id": "pq8", "text": s[8]},
        {"id": "pq9", "text": s[9]},
        {"id": "pq3", "text": s[3]},  # an exact copy of txt/story3.txt
    ]
    pq.write_table(pa.Table.from_pylist(records), root / "records.parquet", row_group_size=2)
    with gzip.open(root / "shard.jsonl.gz", "wt", encoding="utf-8") as fh:
        for row in (
            {"id": "j10", "text": s[10]},
            {"id": "j11", "text": s[11]},
            {"id": "j6-opening", "text": s[6][: len(s[6]) // 2]},  # inside csv6
        ):
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
        fh.write("not json\n")
        fh.write(json.dumps({"id": "j12", "text": s[12]}, ensure_ascii=False) + "\n")
    return root


@pytest.fixture(scope="module")
def dask_client() -> Iterator[Any]:
    distributed = require("distributed")  # a dev dependency: fails in CI, skips elsewhere
    from neardup.distributed.executor import local_cluster

    with local_cluster(workers=2, processes=False) as cluster, distributed.Client(cluster) as cli:
        yield cli


def _executor(name: str, out: Path, client: Any) -> Any:
    if name == "local":
        return InProcess()
    if name == "pool":
        return ProcessPool(jobs=2)
    if name == "inline":
        from neardup.distributed.inline import InlineExecutor

        return InlineExecutor(out_dir=out)
    from neardup.distributed.executor import DaskExecutor

    return DaskExecutor(out_dir=out, client=client)


def _run_all(
    tmp: Path, paths: list[str], client: Any, method: str, opts: DedupOptions
) -> dict[str, dict[str, Any]]:
    """Each executor's files, ``summary.json`` and ``--kept`` records."""
    got: dict[str, dict[str, Any]] = {}
    for name in EXECUTORS:
        out = tmp / name
        result: DedupResult = dedup(
            paths, method=method, options=opts, executor=_executor(name, out, client)
        )
        write_result(result, out, tables=name not in PARTITIONED)
        kept = tmp / f"{name}-kept.jsonl"
        export_records(paths, kept, set(result.kept_ids()), read_options())
        got[name] = {
            "files": {f: (out / f).read_bytes() for f in FILES},
            "summary": json.loads((out / "summary.json").read_text("utf-8")),
            "kept": kept.read_bytes(),
        }
    return got


def _assert_same(got: dict[str, dict[str, Any]]) -> None:
    one = got["local"]
    for name in EXECUTORS[1:]:
        for f in FILES:
            assert got[name]["files"][f] == one["files"][f], f"{name} {f}"
        assert got[name]["kept"] == one["kept"], f"{name} --kept"
        assert sorted(got[name]["summary"]) == sorted(one["summary"]), name
        assert got[name]["summary"]["executor"]["name"] == name
        for key in SAME_VALUES:
            assert got[name]["summary"][key] == one["summary"][key], f"{name} {key}"


def _pairs(files: dict[str, bytes]) -> list[tuple[str, str]]:
    return [(r["a"], r["b"]) for r in map(json.loads, files["pairs.jsonl"].splitlines())]


def test_mixed_tree_same_files_summary_keys_and_kept_on_every_executor(
    tmp_path: Path, tree: Path, dask_client: Any
) -> None:
    got = _run_all(tmp_path, [str(tree)], dask_client, "shingles-full", DedupOptions())
    _assert_same(got)
    files, summary = got["local"]["files"], got["local"]["summary"]
    # the near copies across formats and the exact copy (the opening of csv6 resembles it
    # under the threshold: a containment pair, the test below)
    assert _pairs(files) == [
        ("copy.html", "txt/story1.txt"),
        ("notes.md", "txt/story0.txt"),
        ("pq3", "txt/story3.txt"),
        ("csv2", "txt/story2.txt"),
    ]
    skipped = [json.loads(x) for x in files["skipped.jsonl"].splitlines()]
    assert [(r["id"], r["reason"]) for r in skipped] == [
        ("shard.jsonl.gz:4", "unreadable"),
        ("short", "too-short"),
    ]
    assert (summary["read"], summary["documents"], summary["skipped"]) == (20, 18, 2)
    assert (summary["dropped"], summary["kept"]) == (4, 14)
    assert got["local"]["kept"].count(b"\n") == 14


def test_containment_finds_the_opening_inside_its_story_on_every_executor(
    tmp_path: Path, tree: Path, dask_client: Any
) -> None:
    """The opening of csv6 is contained in its story, under the resemblance threshold:
    a containment pair on every executor. (Every method x measure on every executor:
    tests/distributed/test_executors.py.)"""
    opts = DedupOptions(measure="containment")
    got = _run_all(tmp_path, [str(tree)], dask_client, "shingles-full", opts)
    _assert_same(got)
    assert ("j6-opening", "csv6") in _pairs(got["local"]["files"])


@pytest.fixture(scope="module")
def repeated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three JSONL files in ``ids/`` whose ids repeat across them: ``x`` three times, a
    record holding the place (``ids/b.jsonl:2``) a later repeat would get, a record holding
    the id a reading skip took (``a.jsonl:3``, the line that is not JSON), and a near
    copy under a repeat."""
    s = _stories()
    root = tmp_path_factory.mktemp("repeated") / "ids"
    root.mkdir()

    def write(name: str, rows: list[dict[str, str] | str]) -> None:
        lines = [r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in rows]
        (root / name).write_text("".join(x + "\n" for x in lines), "utf-8")

    write("a.jsonl", [
        {"id": "x", "text": s[0]},
        {"id": "ids/b.jsonl:2", "text": s[1]},  # the place of b's repeat of x
        "not json",  # a reading skip: its id (a.jsonl:3) is taken
    ])  # fmt: skip
    write("b.jsonl", [
        {"id": "y", "text": s[2]},
        {"id": "x", "text": _edited(s[0])},  # -> ids/b.jsonl:2#2 (held)
        {"id": "a.jsonl:3", "text": s[3]},  # -> ids/b.jsonl:3
    ])  # fmt: skip
    write("c.jsonl", [
        {"id": "x", "text": s[4]},  # -> ids/c.jsonl:1
        {"id": "y", "text": _edited(s[2])},  # -> ids/c.jsonl:2, a near copy of b's y
        {"id": "z", "text": s[5]},
    ])  # fmt: skip
    return root


def test_repeated_ids_are_renamed_alike_on_every_executor(
    tmp_path: Path, repeated: Path, dask_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ids repeated across files (partitions on Dask): the same new ids in every file and
    the same warning naming the first clashes, on every executor."""
    monkeypatch.chdir(repeated.parent)  # places named as given: ids/b.jsonl:2
    got: dict[str, dict[str, Any]] = {}
    for name in EXECUTORS:
        out = tmp_path / name
        executor = _executor(name, out, dask_client)
        if name in PARTITIONED:  # the ids hashed to 3 buckets
            executor = dataclasses.replace(executor, reduce_partitions=3)
        result = dedup(["ids"], options=DedupOptions(threshold=0.5), executor=executor)
        write_result(result, out, tables=name not in PARTITIONED)
        got[name] = {
            "files": {f: (out / f).read_bytes() for f in FILES},
            "summary": json.loads((out / "summary.json").read_text("utf-8")),
            "ids": list(result.ids),
        }
    for name in EXECUTORS[1:]:
        assert got[name]["files"] == got["local"]["files"], name
        assert got[name]["ids"] == got["local"]["ids"], name
        for key in ("warnings", "renamed_ids", "documents", "skipped", "pairs"):
            assert got[name]["summary"][key] == got["local"]["summary"][key], f"{name} {key}"
    assert got["local"]["ids"] == [
        *("x", "ids/b.jsonl:2"),
        *("y", "ids/b.jsonl:2#2", "ids/b.jsonl:3"),
        *("ids/c.jsonl:1", "ids/c.jsonl:2", "z"),
    ]
    assert _pairs(got["local"]["files"]) == [("x", "ids/b.jsonl:2#2"), ("y", "ids/c.jsonl:2")]
    summary = got["dask"]["summary"]
    assert summary["renamed_ids"] == 4
    assert summary["warnings"] == [
        "4 records repeat an id seen before (first: 'x' at ids/b.jsonl:2, 'a.jsonl:3' at "
        "ids/b.jsonl:3, 'x' at ids/c.jsonl:1); each was given its place FILE:LINE as id "
        "(--kept/--removed/--mark write it as the record's field neardup_id; use --id-field "
        "to pick another id field)"
    ]


def test_a_refused_measure_is_refused_by_every_executor_alike(
    tree: Path, dask_client: Any, tmp_path: Path
) -> None:
    """shingles-min's own rule estimates resemblance only: each executor refuses
    containment with the same error, before any work."""
    opts = DedupOptions(measure="containment")
    messages = set()
    for name in EXECUTORS:
        with pytest.raises(ParameterError, match="--decision verified") as exc:
            dedup([str(tree)], method="shingles-min", options=opts,
                  executor=_executor(name, tmp_path / name, dask_client))  # fmt: skip
        messages.add(str(exc.value))
        assert not (tmp_path / name).exists()
    assert len(messages) == 1


@pytest.mark.parametrize("name", PARTITIONED)
def test_the_partitioned_executors_refuse_by_name_what_their_tasks_cannot_do(
    tree: Path, dask_client: Any, tmp_path: Path, name: str
) -> None:
    executor = _executor(name, tmp_path / "out", dask_client)
    with pytest.raises(ParameterError, match=rf"keep_by.*{name} executor"):
        dedup([str(tree)], options=DedupOptions(keep_by="date"), executor=executor)
    with pytest.raises(ParameterError, match=r"source.*input paths"):
        dedup(["один два три четыре пять шесть", "семь восемь"], texts=True, executor=executor)
    with pytest.raises(ParameterError, match="limit"):
        dedup([str(tree)], read_options={"limit": 3}, executor=executor)
    assert not (tmp_path / "out").exists()
    # keep_by runs on the other executors
    assert dedup([str(tree)], options=DedupOptions(keep_by="date"), executor="local").clusters


def test_executors_by_name_take_their_settings_only(tmp_path: Path) -> None:
    assert executor_for(None, jobs=1) == ProcessPool(jobs=1)
    assert executor_for("local", memory_budget=0, spill_dir=None) == InProcess(memory_budget=0)
    with pytest.raises(ParameterError, match=r"jobs.*local executor"):
        executor_for("local", jobs=2)
    with pytest.raises(ParameterError, match=r"memory_budget.*dask executor"):
        executor_for("dask", memory_budget=1 << 20)
    with pytest.raises(ParameterError, match=r"jobs.*Executor object"):
        executor_for(InProcess(), jobs=2)
    with pytest.raises(ParameterError, match=r"executor.*ray"):
        executor_for("ray")
    with pytest.raises(ParameterError, match="jobs"):
        ProcessPool(jobs=0)


@pytest.mark.slow  # starts a LocalCluster of two processes: 5 s
def test_cli_engines_write_summaries_with_the_same_keys(tree: Path, tmp_path: Path) -> None:
    """``--engine local`` and ``--engine dask`` (its own ``LocalCluster``): the same files and
    ``--kept``, and ``summary.json`` with the same keys (the inputs and outputs too)."""
    runner = CliRunner()
    got = {}
    for engine in ("local", "dask"):
        out, kept = tmp_path / engine, tmp_path / f"{engine}.jsonl"
        args = ["dedup", str(tree), "--engine", engine, "--out", str(out), "--kept", str(kept)]
        res = runner.invoke(app, [*args, "--json"])
        assert res.exit_code == 0, res.output
        summary = json.loads((out / "summary.json").read_text("utf-8"))
        got[engine] = ({f: (out / f).read_bytes() for f in FILES}, kept.read_bytes(), summary)
    (files, kept_a, local), (dask_files, kept_b, dask) = got["local"], got["dask"]
    assert dask_files == files and kept_b == kept_a
    assert sorted(dask) == sorted(local)
    assert dask["outputs"]["kept"]["records"] == local["outputs"]["kept"]["records"] == 14
    assert (local["executor"]["name"], dask["executor"]["name"]) == ("pool", "dask")
    res = runner.invoke(app, ["dedup", str(tree), "--engine", "dask", "--jobs", "2"])
    assert res.exit_code == 2 and "--jobs" in res.output and "--workers" in res.output


@pytest.mark.parametrize("name", ["local", "pool", "inline"])
def test_summary_gives_cpu_seconds_per_stage_and_the_workers_cpu(
    tree: Path, tmp_path: Path, dask_client: Any, name: str
) -> None:
    """``cpu_seconds``: this process's CPU per stage (the read and prepare stages' as one
    figure, ``read+prepare``), its total their sum; a pool's workers' CPU under
    ``executor.worker_cpu_seconds``: the stage table of issue 43."""
    result = dedup([str(tree)], executor=_executor(name, tmp_path / name, dask_client))
    summary = result.summary
    cpu, wall = summary["cpu_seconds"], summary["seconds"]
    stages = set(cpu) - {"total"}
    ingest = "ingest" if name in PARTITIONED else "read+prepare"
    assert ingest in stages and all(v >= 0 for v in cpu.values())
    assert stages - {"read+prepare"} <= set(wall)
    assert cpu["total"] == pytest.approx(sum(cpu[k] for k in stages), abs=1e-5)
    assert cpu[ingest] > 0  # 18 documents read, prepared and shingled here or waited for
    workers = summary["executor"].get("worker_cpu_seconds")
    assert (workers is not None) == (name != "local")
    if name == "pool":
        assert workers > 0  # the workers read and prepared the tree
