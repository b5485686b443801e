"""The Dask engine gives the single-process job's files (LocalCluster, 2 worker processes)."""

from __future__ import annotations

import gzip
import json
import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from neardup.distributed import dedup_dask
from neardup.distributed import executor as dask_executor
from neardup.distributed import stages as dask_stages
from neardup.errors import ParameterError
from neardup.job.pipeline import DedupOptions, DedupResult, dedup
from neardup.output import write_result
from shared_data import load_docs, paragraphs, require

distributed = require("distributed")  # a dev dependency: fails in CI, skips elsewhere

pytestmark = pytest.mark.slow  # `make test-fast` leaves this module out

FILES = ("pairs.jsonl", "clusters.jsonl", "dropped.jsonl")
COUNTS = ("documents", "skipped", "candidate_pairs", "pairs", "clusters", "kept", "dropped")


def _shards(tmp: Path, rows: list[dict[str, Any]], n: int) -> list[str]:
    size = -(-len(rows) // n)
    paths = []
    for i in range(n):
        path = tmp / f"shard-{i:02d}.jsonl"
        text = "".join(
            json.dumps(r, ensure_ascii=False) + "\n" for r in rows[i * size : (i + 1) * size]
        )
        path.write_text(text, encoding="utf-8")
        paths.append(str(path))
    return paths


def _rows(name: str) -> list[dict[str, Any]]:
    return [{"id": d.id, "text": d.text} for d in load_docs(name)]


def _same(
    tmp: Path,
    files: list[str],
    client: Any,
    method: str = "minhash-lsh",
    *,
    sorted_pairs: bool = False,
) -> dict[str, Any]:
    """Run both engines; the files must be equal (pairs as sorted lines if asked)."""
    params: dict[str, Any] = {}
    opts = DedupOptions(threshold=0.5)
    local = dedup(files, method=method, options=opts, **params)
    write_result(local, tmp / "local")
    summary = dedup_dask(
        files, tmp / "dask", method=method, options=opts, client=client, **params
    ).summary
    got: str | list[str]
    want: str | list[str]
    for name in FILES:
        got, want = ((tmp / d / name).read_text() for d in ("dask", "local"))
        if sorted_pairs and name == "pairs.jsonl":
            got, want = sorted(got.splitlines()), sorted(want.splitlines())
        assert got == want, name
    skipped = [(tmp / d / "skipped.jsonl").read_text().splitlines() for d in ("local", "dask")]
    assert sorted(skipped[0]) == sorted(skipped[1])
    for key in COUNTS:
        assert summary[key] == local.summary[key], key
    assert json.loads((tmp / "dask" / "summary.json").read_text())["executor"]["name"] == "dask"
    return summary


@pytest.mark.data
@pytest.mark.parametrize(
    # the two other sets (progit-ru, linux-doc-zh) run minhash-lsh byte for byte on every
    # executor in test_executors.py
    "name",
    ["clough-stevenson", "linux-doc-revisions"],
)
def test_labelled_sets_match_the_local_job(tmp_path: Path, client: Any, name: str) -> None:
    summary = _same(tmp_path, _shards(tmp_path, _rows(name), 3), client)
    assert summary["executor"]["partitions"] == 3
    if name != "clough-stevenson":
        assert summary["clusters"] > 0


@pytest.mark.data
def test_megashingles_exact_keys_match(tmp_path: Path, client: Any) -> None:
    _same(tmp_path, _shards(tmp_path, _rows("progit-ru-revisions"), 2), client, "megashingles")


@pytest.mark.data
def test_imatch_fit_on_the_cluster_matches(tmp_path: Path, client: Any) -> None:
    _same(tmp_path, _shards(tmp_path, _rows("progit-ru-revisions"), 2), client, "imatch")


@pytest.mark.data
def test_tf_ridf_fit_on_the_cluster_matches(tmp_path: Path, client: Any) -> None:
    # the local job sorts every method's candidates by (a, b): the same pairs.jsonl bytes
    files = _shards(tmp_path, _rows("progit-ru-revisions"), 2)
    _same(tmp_path, files, client, "tf-ridf")


def test_skips_duplicate_ids_and_gzip(tmp_path: Path, client: Any) -> None:
    text = "the quick brown fox jumps over the lazy dog again and again today"
    rows: list[dict[str, Any]] = [
        {"id": "a", "text": text},
        {"id": "b", "text": text + " indeed"},
        {"id": "short", "text": "too short"},
        {"id": "a", "text": "a repeated id is skipped like the local job does it here"},
        {"text": text + " with no id"},
        {"id": "c", "text": None},
    ]
    files = _shards(tmp_path, rows, 2)
    gz = tmp_path / "more.jsonl.gz"
    with gzip.open(gz, "wt", encoding="utf-8") as fh:
        fh.write(json.dumps({"id": "short", "text": text}) + "\nnot json\n")
    _same(tmp_path, [*files, str(gz)], client)


@pytest.mark.data
@pytest.mark.parametrize(
    "method", ["minhash-lsh", "megashingles", "imatch", "imatch-random", "tf-ridf"]
)
def test_every_method_pairs_two_identical_documents(
    tmp_path: Path, client: Any, method: str
) -> None:
    # seven documents, d6 a copy of d2 spread over two partitions: the lexical methods' lexicons
    # are (nearly) empty on so few documents, the copy is paired by its content key anyway
    texts = paragraphs("progit-ru-revisions", 6, min_words=40)
    rows = [{"id": f"d{i}", "text": t} for i, t in enumerate(texts)]
    rows.append({"id": "d6", "text": texts[2]})
    files = _shards(tmp_path, rows, 2)
    summary = _same(tmp_path, files, client, method, sorted_pairs=True)
    pairs = [json.loads(x) for x in (tmp_path / "dask" / "pairs.jsonl").read_text().splitlines()]
    same = [r for r in pairs if {r["a"], r["b"]} == {"d2", "d6"}]
    assert len(same) == 1 and same[0]["resemblance"] == 1.0, pairs
    assert same[0]["decision"] in ("own", "verified", "identical")
    assert summary["dropped"] >= 1


@pytest.mark.data
@pytest.mark.parametrize("method", ["imatch", "imatch-random"])
def test_identical_documents_without_a_signature_are_paired(
    tmp_path: Path, client: Any, method: str
) -> None:
    # d2 and d6 have only words of every document: no lexicon term, a zero I-Match
    # signature that matches nothing; they are paired by their content key all the same
    common = "alpha beta gamma delta epsilon zeta theta kappa lambda sigma omega"
    texts = [common + " " + t for t in paragraphs("progit-ru-revisions", 6, min_words=40)]
    texts[2] = common
    rows = [{"id": f"d{i}", "text": t} for i, t in enumerate(texts)]
    rows.append({"id": "d6", "text": common})
    summary = _same(tmp_path, _shards(tmp_path, rows, 2), client, method, sorted_pairs=True)
    pairs = [json.loads(x) for x in (tmp_path / "dask" / "pairs.jsonl").read_text().splitlines()]
    assert [(r["a"], r["b"], r["decision"]) for r in pairs] == [("d2", "d6", "identical")]
    assert summary["pairs"] == 1


def test_what_the_local_job_refuses_is_refused_alike(tmp_path: Path, client: Any) -> None:
    # every method and measure runs on Dask; a measure a method's own rule cannot decide
    # is refused by the same check as on the local engine, before any work
    files = _shards(tmp_path, [{"id": "a", "text": "x y z w"}], 1)
    opts = DedupOptions(measure="containment")
    with pytest.raises(ParameterError, match="--decision verified") as local:
        dedup(files, method="simhash", options=opts)
    with pytest.raises(ParameterError, match="--decision verified") as dask:
        dedup_dask(files, tmp_path / "o", method="simhash", options=opts, client=client)
    assert str(dask.value) == str(local.value)
    with pytest.raises(ParameterError, match="method"):
        dedup_dask(files, tmp_path / "o", method="no-such-method", client=client)


@pytest.mark.data
@pytest.mark.parametrize("stages", ["one-task", "shuffles"])
def test_killing_a_worker_mid_job_gives_the_same_result(
    tmp_path: Path, client: Any, stages: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    later: tuple[str, ...] = (
        "part_keys",
        "group_candidates",
        "fetch",
        "verify_all",
        "keep_whole",
    )
    if stages == "shuffles":  # candidates, verification and keep stage by partition
        for bound in ("WHOLE_KEY_DOCS", "WHOLE_VERIFY_PAIRS", "WHOLE_KEEP_PAIRS"):
            monkeypatch.setattr(dask_stages, bound, -1)
        later = ("buckets-", "pairs-", "cc-")
    files = _shards(tmp_path, _rows("linux-doc-zh-revisions"), 8)
    opts = DedupOptions(threshold=0.5)
    write_result(dedup(files, options=opts, method="minhash-lsh"), tmp_path / "local")
    pids = client.run(os.getpid)
    box: dict[str, Any] = {}

    def job() -> None:
        try:
            box["summary"] = dedup_dask(
                files, tmp_path / "dask", options=opts, method="minhash-lsh", client=client
            )
        except BaseException as exc:
            box["error"] = exc

    thread = threading.Thread(target=job)
    thread.start()
    killed = _kill_during(client, pids, later, thread)
    thread.join(120)
    assert "error" not in box, box.get("error")
    assert killed, "the job ended before a worker could be killed"
    for name in FILES:
        assert (tmp_path / "dask" / name).read_text() == (tmp_path / "local" / name).read_text()


def _kill_during(
    client: Any, pids: dict[str, int], prefixes: tuple[str, ...], thread: threading.Thread
) -> str | None:
    """SIGKILL the worker that is running a task whose key starts with one of ``prefixes``;
    returns its address."""
    deadline = time.monotonic() + 60
    while thread.is_alive() and time.monotonic() < deadline:
        for addr, keys in client.processing().items():
            if addr in pids and any(str(k).startswith(prefixes) for k in keys):
                os.kill(pids[addr], signal.SIGKILL)
                return addr
        time.sleep(0.01)
    return None


@pytest.mark.data
def test_cli_dask_dedup_on_a_running_scheduler(tmp_path: Path, client: Any) -> None:
    from typer.testing import CliRunner

    from neardup.cli.main import app

    files = _shards(tmp_path, _rows("progit-ru-revisions"), 2)
    address = client.scheduler.address
    args = ["dedup", *files, "--engine", "dask", "--method", "minhash-lsh"]
    args += ["--out", str(tmp_path / "o"), "--scheduler", address, "--json"]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    local = dedup(files, method="minhash-lsh", options=DedupOptions(threshold=0.5))
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["clusters"] == local.summary["clusters"] > 0
    bad = CliRunner().invoke(app, [*args[:-1], "--method", "no-such-method"])
    assert bad.exit_code == 2  # ParameterError is a usage error


def _corpus_rows() -> list[dict[str, Any]]:
    """examples/corpus' Pro Git chapters (two revisions each) and Chekhov stories."""
    root = Path(__file__).resolve().parents[2] / "examples" / "corpus"
    paths = sorted(root.glob("progit/*/*.asc")) + sorted(root.glob("chekhov/*.txt"))
    return [{"id": p.relative_to(root).as_posix(), "text": p.read_text("utf-8")} for p in paths]


@pytest.mark.parametrize("method", ["minhash-lsh", "megashingles", "tf-ridf"])
def test_examples_corpus_gives_the_local_files_and_result(
    tmp_path: Path, client: Any, method: str
) -> None:
    files = _shards(tmp_path, _corpus_rows(), 3)
    summary = _same(tmp_path, files, client, method)
    assert summary["pairs"] > 0
    local = dedup(files, method=method, options=DedupOptions(threshold=0.5))
    result = dedup_dask(files, tmp_path / "again", method=method, client=client)
    assert isinstance(result, DedupResult)
    assert result.ids == local.ids
    assert list(result.pairs) == list(local.pairs)
    assert result.clusters == local.clusters and result.dropped == local.dropped
    assert {p.rule for p in result.pairs} <= {"resemblance >= 0.5 verified", *_own(method)}


def _own(method: str) -> set[str]:
    from neardup.methods.decision import rule_of
    from neardup.methods.registry import make_method

    meth = make_method(method)
    return {rule_of(meth).describe(meth, "resemblance", 0.5), "identical shingle sets"}


def test_cli_dask_with_no_method_and_kept_equal_to_the_local_kept(
    tmp_path: Path, client: Any
) -> None:
    from typer.testing import CliRunner

    from neardup.cli.main import app

    files = _shards(tmp_path, _corpus_rows(), 2)
    args = ["dedup", *files, "--engine", "dask", "--scheduler", client.scheduler.address]
    args += ["--out", str(tmp_path / "o"), "--kept", str(tmp_path / "dask.jsonl"), "--json"]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["method"] == "shingles-full" and summary["executor"]["name"] == "dask"
    assert summary["dropped"] > 0
    local = ["dedup", *files, "--kept", str(tmp_path / "local.jsonl")]
    assert CliRunner().invoke(app, [*local, "--json"]).exit_code == 0
    kept = (tmp_path / "dask.jsonl").read_bytes()
    assert kept == (tmp_path / "local.jsonl").read_bytes()
    ids = [json.loads(line)["id"] for line in kept.splitlines()]
    rows = [r["id"] for r in _corpus_rows()]
    assert ids == [i for i in rows if i in set(ids)]  # input order
    assert len(ids) == summary["kept"]


def test_cli_dask_needs_no_out_and_no_method(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from neardup.cli.main import app

    files = _shards(tmp_path, _corpus_rows(), 2)
    res = CliRunner().invoke(app, ["dedup", *files, "--engine", "dask", "--workers", "1", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["summary"]["method"] == "shingles-full"  # the local job's default
    assert out["summary"]["pairs"] == len(out["pairs"]) > 0


@pytest.mark.parametrize(
    ("extra", "flag"),
    [
        (["--memory-mib", "100"], "--memory-mib"),
        (["--passages", "--out", "s3://bucket/out"], "--passages"),
        (["--jobs", "2"], "--workers"),
        (["-"], "standard input"),
    ],
)
def test_cli_dask_refuses_at_parse_time_naming_the_alternative(
    tmp_path: Path, extra: list[str], flag: str
) -> None:
    from typer.testing import CliRunner

    from neardup.cli.main import app

    files = _shards(tmp_path, [{"id": "a", "text": "x y z w"}], 1)
    res = CliRunner().invoke(app, ["dedup", *files, "--engine", "dask", *extra])
    assert res.exit_code == 2
    text = " ".join(res.output.split())  # the message is wrapped to the terminal
    assert flag in text and "--engine local" in text


def test_shards_whose_ids_restart_lose_no_record_on_either_engine(
    tmp_path: Path, client: Any
) -> None:
    # ids restart in every shard (0, 1, 2 ... in each), shards in two subfolders with the
    # same file name: every record is kept or removed, named as the local job names it
    corpus = Path(__file__).resolve().parents[2] / "examples" / "corpus" / "chekhov"
    stories = [p.read_text(encoding="utf-8") for p in sorted(corpus.glob("*.txt"))[:8]]
    files = []
    for k in range(2):
        sub = tmp_path / f"part{k}"
        sub.mkdir()
        rows = [{"id": i, "text": stories[i] if k == 0 else stories[7 - i]} for i in range(8)]
        files.append(_shards(sub, rows, 1)[0])
    summary = _same(tmp_path, files, client)
    assert summary["read"] == 16 == summary["kept"] + summary["removed"] + summary["skipped"]
    assert summary["renamed_ids"] == 8 and summary["skipped"] == 0
    ids = {
        json.loads(x)["id"] for x in (tmp_path / "dask" / "dropped.jsonl").read_text().splitlines()
    }
    assert ids and all(i.startswith(f"{tmp_path / 'part1' / 'shard-00.jsonl'}:") for i in ids)


def test_cli_dask_passages_equal_to_the_local_ones(tmp_path: Path, client: Any) -> None:
    from typer.testing import CliRunner

    from neardup.cli.main import app

    files = _shards(tmp_path, _corpus_rows(), 2)
    dask = ["dedup", *files, "--engine", "dask", "--scheduler", client.scheduler.address]
    res = CliRunner().invoke(app, [*dask, "--out", str(tmp_path / "d"), "--passages", "--json"])
    assert res.exit_code == 0, res.output
    local = ["dedup", *files, "--out", str(tmp_path / "l"), "--passages", "--json"]
    assert CliRunner().invoke(app, local).exit_code == 0
    passages = (tmp_path / "d" / "passages.jsonl").read_bytes()
    assert passages and passages == (tmp_path / "l" / "passages.jsonl").read_bytes()


def test_local_cluster_binds_no_dashboard_port_and_warns_nothing() -> None:
    import socket
    import warnings

    from neardup.distributed.executor import local_cluster

    taken = socket.socket()
    try:
        taken.bind(("127.0.0.1", 8787))  # as another cluster's dashboard would
        taken.listen()
    except OSError:
        pass  # taken already
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with local_cluster(workers=1, processes=False) as cluster:
                http = cluster.scheduler.http_server
                assert (http.address, http.port != 8787) == ("127.0.0.1", True)
        assert not [w for w in caught if "8787" in str(w.message)], [str(w.message) for w in caught]
    finally:
        taken.close()
    with pytest.raises(ParameterError, match="workers"):
        local_cluster(workers=0)


def test_local_cluster_workers_run_without_the_profiler_and_malloc_trim() -> None:
    """...and the scheduler queues WORKER_SATURATION blocks a worker thread (Dask's 1.1
    left a worker idle while its link of the keys chain waited for a transfer)."""
    import distributed
    from neardup.distributed.executor import WORKER_SATURATION, local_cluster

    def worker_settings() -> tuple[bool, str | None]:
        import dask

        enabled = bool(dask.config.get("distributed.worker.profile.enabled"))
        return enabled, os.environ.get("MALLOC_TRIM_THRESHOLD_")

    with local_cluster(workers=1) as cluster, distributed.Client(cluster) as cli:
        assert list(cli.run(worker_settings).values()) == [(False, None)]
        assert cluster.scheduler.WORKER_SATURATION == WORKER_SATURATION == 2.0


def _mapped_while_holding_a_large_array() -> int:
    """Bytes glibc has mapped outside its heaps (``mallinfo2().hblkhd``) while this thread
    holds a fresh 100 MiB array, in a process that keeps freed heap (as the job's tasks)."""
    import ctypes

    import numpy as np

    from neardup._memory import keep_freed_heap

    class MallInfo2(ctypes.Structure):
        names = "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost"
        _fields_ = [(name, ctypes.c_size_t) for name in names.split()]

    libc = ctypes.CDLL(None)
    libc.mallinfo2.restype = MallInfo2
    keep_freed_heap()
    held = np.ones(100 << 20, dtype=np.uint8)
    mapped = int(libc.mallinfo2().hblkhd)
    del held
    return mapped


@pytest.mark.skipif(sys.platform != "linux", reason="glibc's malloc")
def test_own_cluster_tasks_take_large_arrays_from_the_reused_heap() -> None:
    """A task runs in a worker's thread; with one malloc arena (the fork server's
    environment) its 100 MiB array comes from the heap that keeps freed memory, not from a
    mapping made and unmade for it (a thread arena's heaps stop at 64 MiB)."""
    import distributed
    from neardup.distributed.executor import local_cluster

    with local_cluster(workers=1) as cluster, distributed.Client(cluster) as cli:
        mapped = cli.submit(_mapped_while_holding_a_large_array, pure=False).result()
    assert mapped < 100 << 20


def test_workers_of_the_own_cluster_drop_only_the_heartbeat_error_of_its_close(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A finished job's own LocalCluster does not end on the heartbeat traceback its
    close can race into (dask/distributed#7105); other worker errors still show."""
    import distributed
    from neardup.distributed.executor import local_cluster, quiet_heartbeat_at_close

    def logged() -> list[str]:
        import logging

        seen: list[str] = []
        handler = logging.Handler()
        handler.emit = lambda record: seen.append(record.getMessage())  # type: ignore[method-assign]
        log = logging.getLogger("distributed.worker")
        log.addHandler(handler)
        try:
            log.error("Failed to communicate with scheduler during heartbeat.")
            log.error("Compute Failed")
        finally:
            log.removeHandler(handler)
        return seen

    with local_cluster(workers=1) as cluster, distributed.Client(cluster) as cli:
        assert list(cli.run(logged).values()) == [
            ["Failed to communicate with scheduler during heartbeat.", "Compute Failed"]
        ]
        cli.run(quiet_heartbeat_at_close)
        assert list(cli.run(logged).values()) == [["Compute Failed"]]
    marker = tmp_path / "quieted"

    def mark() -> None:
        marker.write_text(str(os.getpid()))

    monkeypatch.setattr(dask_executor, "quiet_heartbeat_at_close", mark)
    with dask_executor._client(None, None, 1, []) as (cli, _):
        assert not marker.exists()  # only once the job is done
    assert int(marker.read_text()) != os.getpid()  # on the worker


def test_lines_are_counted_on_the_client_only_for_local_jsonl_within_the_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from neardup.distributed import io

    path = tmp_path / "c.jsonl"
    path.write_bytes(b"".join(b'{"text": "line %d"}\n' % i for i in range(1000)))
    blocks = io.make_blocks([str(path)], 997)
    assert len(blocks) > 10
    with dask_executor._lines_counted_here(blocks) as counted:
        assert counted is not None
        assert counted.result() == [io.count_lines(b) for b in blocks]
        assert sum(counted.result()) == 1000
    gz = tmp_path / "c.jsonl.gz"
    gz.write_bytes(gzip.compress(path.read_bytes()))
    with dask_executor._lines_counted_here([*blocks, *io.make_blocks([str(gz)], 997)]) as counted:
        assert counted is None  # a gzip block: the workers count
    monkeypatch.setattr(dask_executor, "COUNT_HERE_BYTES", path.stat().st_size - 1)
    with dask_executor._lines_counted_here(blocks) as counted:
        assert counted is None  # over the budget


def test_own_cluster_numbers_lines_as_the_local_job(tmp_path: Path) -> None:
    """On the job's own LocalCluster the lines of a local file are counted on the client
    (:func:`neardup.distributed.executor._lines_counted_here`): records without an id, repeated
    ids and bad lines in later 1 MiB blocks of the file are named ``FILE:LINE`` as the
    local job names them."""
    chekhov = Path(__file__).resolve().parents[2] / "examples" / "corpus" / "chekhov"
    whole = " ".join(p.read_text(encoding="utf-8") for p in sorted(chekhov.glob("*.txt")))
    texts = [whole[k * 1500 : k * 1500 + 2000] for k in range(40)]  # overlapping windows
    lines = []
    for i in range(1300):
        if i % 97 == 5:
            lines.append("not json")
        elif i % 3 == 0:
            lines.append(json.dumps({"text": texts[i % len(texts)]}))  # no id: FILE:LINE
        else:
            lines.append(json.dumps({"id": f"d{i % 700}", "text": texts[(i * 7) % len(texts)]}))
    path = tmp_path / "c.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    opts = DedupOptions(threshold=0.5)
    local = dedup([str(path)], method="minhash-lsh", options=opts)
    write_result(local, tmp_path / "local")
    got = dedup_dask(
        [str(path)], tmp_path / "dask", method="minhash-lsh", options=opts, workers=1,
        block_bytes=1 << 20,
    )  # fmt: skip
    assert got.summary["executor"]["partitions"] == -(-path.stat().st_size // (1 << 20)) >= 3
    for name in (*FILES, "skipped.jsonl"):
        assert (tmp_path / "dask" / name).read_text() == (tmp_path / "local" / name).read_text()
    assert got.summary["renamed_ids"] == local.summary["renamed_ids"] > 0
    assert local.summary["skipped"] > 0


def test_a_corrupt_gzip_is_a_skip_row_as_in_the_local_job(tmp_path: Path, client: Any) -> None:
    # the Dask engine ended in a traceback (the failed ingest hidden by a ValueError,
    # "Only use allow_other_workers= if using workers="); the local job has a skip row
    files = _shards(tmp_path, _corpus_rows(), 2)
    whole = gzip.compress(b'{"id": "z", "text": "a record of a broken stream"}\n' * 50)
    bad = tmp_path / "corrupt.jsonl.gz"
    bad.write_bytes(whole[:40] + b"garbage" * 10)
    summary = _same(tmp_path, [*files, str(bad)], client)
    rows = [json.loads(x) for x in (tmp_path / "dask" / "skipped.jsonl").read_text().splitlines()]
    assert [(r["id"], r["reason"]) for r in rows] == [("corrupt.jsonl.gz", "unreadable")]
    assert summary["skipped_by_reason"] == {"unreadable": 1}


def test_renamed_ids_of_a_relative_input_are_named_as_given(
    tmp_path: Path, client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # ids restart in each shard of a folder given by a relative path: a repeated id is
    # given its place FILE:LINE, FILE as given (the Dask engine named it by its absolute
    # path), though the workers run elsewhere (in their own working directory)
    rows = _corpus_rows()[:12]  # progit 2016, then its latest revisions
    for k in range(2):
        (tmp_path / "data" / f"part{k}").mkdir(parents=True)
        shard = [{"id": i, "text": r["text"]} for i, r in enumerate(rows[k * 6 : k * 6 + 6])]
        _shards(tmp_path / "data" / f"part{k}", shard, 1)
    monkeypatch.chdir(tmp_path)
    summary = _same(tmp_path, ["data"], client)
    assert summary["renamed_ids"] == 6
    pairs = (tmp_path / "dask" / "pairs.jsonl").read_text().splitlines()
    named = {i for line in pairs for i in (json.loads(line)["a"], json.loads(line)["b"])}
    renamed = {i for i in named if ":" in i}
    assert renamed and all(i.startswith("data/part1/shard-00.jsonl:") for i in renamed)


def test_the_keys_are_collected_on_one_worker_and_never_move(tmp_path: Path, client: Any) -> None:
    """minhash-lsh on 8 shards over 2 workers: every link of the chain that collects the
    partitions' keys (and id hashes) runs on one worker, so the growing list is never
    sent to the other (placed by the scheduler, it moved, a worker idle while it did);
    the job's files are the local job's."""
    from distributed import get_task_stream

    files = _shards(tmp_path, _corpus_rows(), 8)
    with get_task_stream(client) as stream:
        _same(tmp_path, files, client, "minhash-lsh")
    links = [t for t in stream.data if str(t["key"]).startswith("collect-")]
    assert len(links) >= 2 * 8  # the id hashes' chain and the keys' chain
    assert len({t["worker"] for t in links}) == 1
