"""One pipeline, interchangeable executors: for every built-in method and both measures, the
in-process executor (``local``), the worker pool (``ProcessPool(jobs=2)``), the Dask
executor (LocalCluster, 2 worker processes) and the partitioned job run inline (its tasks
in this process, without Dask) write the same ``pairs.jsonl``,
``clusters.jsonl``, ``dropped.jsonl`` and ``skipped.jsonl`` byte for byte and a
``summary.json`` with the same keys and the same pair counts (candidates, prefiltered,
verified, pairs, clusters), and ``--kept`` writes the same records (the clean
tree of txt, md, html, CSV, Parquet and gzipped JSONL: ``tests/job/test_executors.py``).

Inputs: ``examples/corpus`` (every readable file, with a repeated id, a short document and
a line that is not JSON added), a tree of every kind of input (``mixed_tree``, conftest),
two shared labelled sets, and the first 8,000 documents of a planted corpus
(``../shared/data/scale-corpus.py``).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from neardup.distributed import stages
from neardup.distributed.executor import DaskExecutor
from neardup.distributed.inline import InlineExecutor
from neardup.errors import ParameterError
from neardup.job.executors.pool import ProcessPool
from neardup.job.export import export_records
from neardup.job.pipeline import DedupOptions, DedupResult, decided_options, dedup, resolve_method
from neardup.methods.registry import method_classes
from neardup.output import write_result
from neardup.text.read import read_corpus, read_options
from neardup.text.types import Document
from shared_data import DATA, load_docs, require, unavailable

distributed = require("distributed")  # a dev dependency: fails in CI, skips elsewhere

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
FILES = ("pairs.jsonl", "clusters.jsonl", "dropped.jsonl", "skipped.jsonl")
METHODS = [cls.name for cls in method_classes() if cls.__module__.startswith("neardup.")]
MEASURES = ("resemblance", "containment")
SETS = ("progit-ru-revisions", "linux-doc-zh-revisions")
#: The labelled sets run every method with NEARDUP_MATRIX=full (about an hour on 2 cores:
#: three executors, 13 methods, two measures); by default (and in CI) the methods of one
#: family each: prefix keys, LSH bands, a fitted lexicon, the one-task path.
LABELLED_METHODS = (
    METHODS
    if os.environ.get("NEARDUP_MATRIX") == "full"
    else [m for m in METHODS if m in ("shingles-full", "minhash-lsh", "tf-ridf", "spotsigs")]
)


def _write_shards(
    out: Path, rows: list[dict[str, Any]], n: int, *, bad_line: bool = False
) -> list[str]:
    out.mkdir(parents=True, exist_ok=True)
    size = -(-len(rows) // n)
    paths = []
    for i in range(n):
        lines = [json.dumps(r, ensure_ascii=False) + "\n" for r in rows[i * size : (i + 1) * size]]
        if bad_line and i == 0:
            lines.insert(min(4, len(lines)), "not json\n")
        path = out / f"shard-{i}.jsonl"
        path.write_text("".join(lines), encoding="utf-8")
        paths.append(str(path))
    return paths


@pytest.fixture(scope="module")
def corpus_shards(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """examples/corpus in three JSONL shards, with a repeated id, a short document and a
    line that is not JSON (skip rows of three kinds)."""
    docs = [d for d in read_corpus([str(ROOT / "examples" / "corpus")]) if isinstance(d, Document)]
    rows = [{"id": d.id, "text": d.text} for d in docs]
    rows.insert(3, {"id": rows[2]["id"], "text": "a repeated id with words enough to shingle"})
    rows.insert(5, {"id": "short", "text": "two words"})
    return _write_shards(tmp_path_factory.mktemp("corpus"), rows, 3, bad_line=True)


def _labelled_shards(tmp: Path, name: str) -> list[str]:
    rows = [{"id": d.id, "text": d.text} for d in load_docs(name)]
    return _write_shards(tmp / name, rows, 3)


def _options(method: str, measure: str) -> DedupOptions:
    """The job's options; for containment with a method whose own rule cannot decide it,
    the exact shingle sets decide (``--decision verified``, as the local job's error says)."""
    opts = DedupOptions(threshold=0.5, measure=measure)  # type: ignore[arg-type]
    try:
        decided_options(resolve_method(method, opts, {}), opts)
    except ParameterError:
        return DedupOptions(threshold=0.5, measure=measure, decision="verified")  # type: ignore[arg-type]
    return opts


def _files(out: Path) -> dict[str, bytes]:
    return {name: (out / name).read_bytes() for name in FILES}


def _kept(result: DedupResult, paths: list[str], out: Path) -> bytes:
    dropped = {d.id for d in result.dropped}
    export_records(paths, out, {i for i in result.ids if i not in dropped}, read_options())
    return out.read_bytes()


def _all_executors(
    tmp: Path,
    paths: list[str],
    client: Any,
    method: str,
    opts: DedupOptions,
    *,
    with_kept: bool = True,
    **dask_kw: Any,
) -> dict[str, bytes]:
    """Run the four executors (local, pool, Dask, inline); assert their files and
    (``with_kept``) kept records are equal; return the in-process files."""
    got: dict[str, dict[str, bytes]] = {}
    kept: dict[str, bytes] = {}
    keys: dict[str, list[str]] = {}
    dask = DaskExecutor(out_dir=tmp / "dask", client=client, **dask_kw)
    inline = InlineExecutor(out_dir=tmp / "inline", **dask_kw)
    runs = (("one", "local"), ("pool", ProcessPool(jobs=2)), ("dask", dask), ("inline", inline))
    for name, executor in runs:
        result = dedup(paths, method=method, options=opts, executor=executor)
        if name not in ("dask", "inline"):  # the partitioned job's tasks wrote theirs
            write_result(result, tmp / name)
        got[name] = _files(tmp / name)
        keys[name] = sorted(json.loads((tmp / name / "summary.json").read_text()))
        if with_kept:
            kept[name] = _kept(result, paths, tmp / f"{name}-kept.jsonl")
    others = ("pool", "dask", "inline")
    for name in FILES:
        for other in others:
            assert got[other][name] == got["one"][name], f"{other} {name}"
    for other in others:
        assert kept.get(other) == kept.get("one"), f"{other} --kept"
        assert keys[other] == keys["one"], f"{other} summary keys"
    summaries = {n: json.loads((tmp / n / "summary.json").read_text()) for n in got}
    alike = ("kernel", "warnings", "renamed_ids", "options", "method_params", "decision")
    # the pair counts too: candidates, those the sketch prefilter dropped, those compared
    # exactly (the Dask job screens its candidates on the sketches' low bytes first)
    counts = ("candidate_pairs", "prefiltered_pairs", "verified_pairs", "pairs", "clusters")
    for key in (*alike, *counts):
        assert all(summaries[o][key] == summaries["one"][key] for o in others), key
    assert isinstance(summaries["dask"]["verified_pairs"], int)
    summary = json.loads((tmp / "dask" / "summary.json").read_text())
    assert summary["method"] == method and summary["options"]["measure"] == opts.measure
    return got["one"]


@pytest.mark.parametrize("measure", MEASURES)
@pytest.mark.parametrize("method", METHODS)
def test_examples_corpus_same_files_on_every_executor(
    tmp_path: Path, client: Any, corpus_shards: list[str], method: str, measure: str
) -> None:
    files = _all_executors(tmp_path, corpus_shards, client, method, _options(method, measure))
    skipped = [json.loads(x)["reason"] for x in files["skipped.jsonl"].splitlines()]
    assert sorted(skipped) == ["too-short", "too-short", "unreadable"]
    if measure == "containment" or method in ("shingles-full", "minhash-lsh"):
        assert files["pairs.jsonl"].count(b"\n") >= 2  # the progit revisions at least


@pytest.mark.parametrize("measure", MEASURES)
@pytest.mark.parametrize("method", METHODS)
def test_mixed_tree_same_files_on_every_executor(
    tmp_path: Path, client: Any, mixed_tree: Path, method: str, measure: str
) -> None:
    """A tree of every kind the local job reads (txt, md, html, wiki, CSV, Parquet, plain
    and gzipped JSONL, bad files): the Dask engine reads it all, as the local job does (it
    read the JSONL and Parquet files only, and ended in a traceback on a bad one); the
    ``--kept`` records too (the export passes over the files the job could not read)."""
    opts = _options(method, measure)
    files = _all_executors(tmp_path, [str(mixed_tree)], client, method, opts)
    skipped = [json.loads(x) for x in files["skipped.jsonl"].splitlines()]
    unreadable = sorted(s["id"] for s in skipped if s["reason"] == "unreadable")
    assert unreadable == ["broken.parquet", "corrupt.jsonl.gz", "shard.jsonl.gz:8"]
    summary = json.loads((tmp_path / "dask" / "summary.json").read_text())
    assert summary["read"] == summary["documents"] + summary["skipped"]
    assert summary["renamed_ids"] == 3  # csv0, csv1 and pq0, each met a second time


def test_mixed_tree_given_by_a_relative_path_names_renamed_ids_as_given(
    tmp_path: Path, client: Any, mixed_tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A repeated id is given its place as id, ``FILE:LINE`` with the file named as given
    (the workers read it by its absolute path; the Dask engine named it so)."""
    monkeypatch.chdir(mixed_tree.parent)
    opts = _options("shingles-full", "resemblance")
    files = _all_executors(
        tmp_path, [mixed_tree.name], client, "shingles-full", opts, with_kept=False
    )
    members = [json.loads(line)["members"] for line in files["clusters.jsonl"].splitlines()]
    renamed = sorted(i for ids in members for i in ids if re.search(r"\.(csv|gz|jsonl):\d+$", i))
    assert renamed and all(i.startswith(f"{mixed_tree.name}/") for i in renamed), renamed


@pytest.mark.data
@pytest.mark.parametrize("measure", MEASURES)
@pytest.mark.parametrize("method", LABELLED_METHODS)
@pytest.mark.parametrize("name", SETS)
def test_labelled_sets_same_files_on_every_executor(
    tmp_path: Path, client: Any, name: str, method: str, measure: str
) -> None:
    paths = _labelled_shards(tmp_path, name)
    files = _all_executors(tmp_path, paths, client, method, _options(method, measure))
    if method == "shingles-full":
        assert files["clusters.jsonl"]  # revisions of one text are found


@pytest.fixture(scope="module")
def planted_8k(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The first 8,000 documents of a planted corpus made by ``scale-corpus.py`` (the
    Debian documentation it draws sentences from: ``NEARDUP_SCALE_DIR/debs`` when set, else
    fetched by the script with ``apt-get download``), kept in the user's cache directory
    for the next run (keyed by the script's SHA-256): 18 MB, 18 Dask partitions of 1 MiB
    (20,000 documents, 44 partitions, took the Dask job four times as long, no other path)."""
    script = DATA / "scale-corpus.py"
    if not script.is_file():
        unavailable(f"shared data missing: {script}")
    # made once a machine and version of the script (deterministic: seed 1), then reused:
    # making it fetches and unpacks 89 MB of Debian packages (16-35 s of this file's time)
    digest = hashlib.sha256(script.read_bytes()).hexdigest()[:16]
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    kept = cache / "neardup-tests" / f"planted-8000-{digest}.jsonl"
    if kept.is_file():
        return kept
    out = tmp_path_factory.mktemp("planted")
    debs = Path(os.environ.get("NEARDUP_SCALE_DIR", "/nonexistent")) / "debs"
    if (debs / "ext").is_dir():
        (out / "debs").symlink_to(debs)
    run = subprocess.run(
        [sys.executable, str(script), str(out), "8000"], capture_output=True, text=True
    )
    if run.returncode != 0:
        unavailable(f"scale-corpus.py could not make the corpus: {run.stderr[-500:]}")
    kept.parent.mkdir(parents=True, exist_ok=True)
    partial = kept.with_suffix(f".{os.getpid()}.partial")
    shutil.copyfile(out / "corpus-8000.jsonl", partial)
    partial.replace(kept)  # whole or absent: a run stopped while copying leaves no half file
    return kept


@pytest.mark.parametrize("measure", MEASURES)
@pytest.mark.parametrize("method", ["shingles-full", "minhash-lsh"])
def test_examples_corpus_verify_and_keep_by_partition_give_the_same_files(
    tmp_path: Path,
    client: Any,
    corpus_shards: list[str],
    method: str,
    measure: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Candidates, verification and the keep stage partition by partition (a job with more
    documents, candidate and decided pairs than :data:`WHOLE_KEY_DOCS`,
    :data:`WHOLE_VERIFY_PAIRS` and :data:`WHOLE_KEEP_PAIRS`) give the files of the
    one-task stages."""
    monkeypatch.setattr(stages, "WHOLE_KEY_DOCS", -1)
    monkeypatch.setattr(stages, "WHOLE_KEEP_PAIRS", -1)
    monkeypatch.setattr(stages, "WHOLE_VERIFY_PAIRS", -1)
    _all_executors(tmp_path, corpus_shards, client, method, _options(method, measure))
    summary = json.loads((tmp_path / "dask" / "summary.json").read_text())
    assert summary["executor"]["cc_rounds"] >= 1


@pytest.mark.parametrize("by_partition", ["WHOLE_VERIFY_PAIRS", "WHOLE_KEEP_PAIRS"])
def test_one_stage_by_partition_beside_one_task_stages_gives_the_same_files(
    tmp_path: Path,
    client: Any,
    corpus_shards: list[str],
    by_partition: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Verification by partition then the keep stage in one task (its task takes the P
    verified partitions' futures as one list), and verification in one task then the keep
    stage by partition (the one verified list split a partition a ``getitem``): the files
    of the local job."""
    monkeypatch.setattr(stages, by_partition, -1)
    _all_executors(
        tmp_path, corpus_shards, client, "minhash-lsh", _options("minhash-lsh", "resemblance")
    )
    summary = json.loads((tmp_path / "dask" / "summary.json").read_text())
    assert (summary["executor"]["cc_rounds"] >= 1) == (by_partition == "WHOLE_KEEP_PAIRS")
    assert summary["pairs"] > 0


@pytest.mark.data
@pytest.mark.parametrize("keep_stage", ["one-task", "distributed"])
@pytest.mark.parametrize("measure", MEASURES)
def test_planted_8k_same_files_on_every_executor(
    tmp_path: Path,
    client: Any,
    planted_8k: Path,
    measure: str,
    keep_stage: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if keep_stage == "distributed":  # verify and keep partition by partition
        monkeypatch.setattr(stages, "WHOLE_KEEP_PAIRS", -1)
        monkeypatch.setattr(stages, "WHOLE_VERIFY_PAIRS", -1)
    # 1 MiB blocks: the 8k documents in many Dask partitions
    opts = _options("shingles-full", measure)
    files = _all_executors(
        tmp_path, [str(planted_8k)], client, "shingles-full", opts, block_bytes=1 << 20
    )
    summary = json.loads((tmp_path / "dask" / "summary.json").read_text())
    figures = summary["executor"]
    assert figures["partitions"] > 10 and summary["documents"] == 8000
    assert (figures["cc_rounds"] >= 1) == (keep_stage == "distributed")
    assert files["clusters.jsonl"].count(b"\n") > 100  # 10 % planted copies
