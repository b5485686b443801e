"""The Dask engine against the local job, and 1 against 2 Dask workers, in one run.

Data: the planted corpora of ``../shared/data/scale-corpus.py`` (``corpus-N.jsonl`` in
``--corpus-dir``; a missing size is cut from the head of a larger one there, else made by
the script: :func:`bench_scale.corpus`). For each size, ``--repeat`` rounds (default 3) of
three runs one after the other, each ``neardup dedup`` run by its console script (the
``neardup`` beside this interpreter, :func:`neardup.cli.entry.run`, as a user runs it) in a
process of its own: whole-process wall seconds, so the Dask rows include starting and
closing the ``LocalCluster``:

* **local**: ``neardup dedup FILE --method M --threshold 0.5 --out DIR`` (the default job:
  reading on every core);
* **dask-2** and **dask-1**: the same with ``--engine dask --workers 2`` (then 1) and
  ``--block-mib``: a ``LocalCluster`` of worker processes of one thread each, forked from
  a fork server the command starts before its imports
  (:mod:`neardup.distributed.forkserver`);
* **external**: the same with ``--engine dask --scheduler tcp://127.0.0.1:PORT`` on a
  cluster of separate processes, as on a real cluster: a ``dask scheduler`` and 2 ``dask
  worker`` processes (``--nthreads 1``, each with its nanny) started once for the size,
  before its rounds, and stopped after them; its wall time is the job's alone (the cluster
  is up), its workers' peak memory the largest over every run so far (``ru_maxrss``);
* **previous-local** and **previous-dask-2** (``--previous REV``, a git revision): the
  local and the dask-2 runs of that revision, from a temporary worktree with its compiled
  kernel built (:mod:`previous`), in the same rounds: ``ratio_dask2_over_previous`` and
  ``ratio_local_over_previous`` (this tree's run over that revision's, paired by round;
  the target: <= 1/0.95). Their files are not compared (a revision may decide otherwise).

Every run uses ``--method`` (default ``shingles-full``, the default of both engines) at
t = 0.5. A row records, for each kind of run, the run of median wall time (its peak
memory: the process, for Dask also each worker's; the summary's counts and stage seconds)
with every round's wall seconds (``walls_s``); whether the four files (``pairs.jsonl``,
``clusters.jsonl``, ``dropped.jsonl``, ``skipped.jsonl``) are equal byte for byte across
every run; ``ratio_dask2_over_local``, the median of the rounds' paired ratios (each
round's Dask run over that round's local run, listed in ``ratios_dask2_over_local``; the
target: <= 1.5), ``scaling_dask1_over_dask2`` (dask-1 over dask-2: what the second worker
buys) and ``ratio_external_over_local`` likewise, and the 1-minute load average before and
after each run (figures taken beside other work are not evidence).

Usage::

    .venv/bin/python benchmarks/bench_dask.py --docs 100000 1000000 \\
        --corpus-dir /tmp/neardup-scale [--out benchmarks/results/dask.json] [--no-external]
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
FILES = ("pairs.jsonl", "clusters.jsonl", "dropped.jsonl", "skipped.jsonl")
COUNTS = ("documents", "skipped", "candidate_pairs", "pairs", "clusters", "kept", "dropped")
THRESHOLD = 0.5
#: The runs of one round, in this order: (name, engine, workers); "external": ``--engine
#: dask --scheduler`` on the separate scheduler and worker processes of
#: :func:`external_cluster`.
KINDS = (
    ("local", "local", 1),
    ("dask-2", "dask", 2),
    ("dask-1", "dask", 1),
    ("external", "external", 2),
)


def console() -> list[str]:
    """The ``neardup`` console script beside this interpreter (as a user runs it), else the
    same entry point through ``-c``."""
    script = Path(sys.executable).with_name("neardup")
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-c", "import sys; from neardup.cli.entry import run; sys.exit(run())"]


def summary_row(kind: str, out: Path) -> dict[str, Any]:
    """The counts, stages and peaks of the ``summary.json`` a run wrote into ``out``."""
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    # the executor's figures (top-level in the releases before the executors)
    workers = summary.get("executor", summary)["worker_peak_memory_mib"]
    if kind == "local":
        peak = {"client": summary["peak_memory_mib"], "largest_reader": workers["largest"]}
    else:
        peak = {"client": summary["peak_memory_mib"], **{f"worker{i}": v
                for i, v in enumerate(workers.values())}}  # fmt: skip
    return {
        "peak_mib": {k: round(v, 1) for k, v in peak.items()},
        "partitions": summary.get("executor", summary).get("partitions", 1),
        **{k: summary[k] for k in COUNTS},
        "stages_s": summary["seconds"],
    }


@contextlib.contextmanager
def external_cluster(workers: int, log_dir: Path) -> Iterator[str]:
    """A ``dask scheduler`` process and ``workers`` ``dask worker`` processes (one thread
    each, with their nannies) on free ports of 127.0.0.1, as on a real cluster; yields the
    scheduler's address once every worker has registered; stops them (SIGTERM to each
    process group, SIGKILL after 10 s) at the end."""
    from distributed import Client

    dask = [sys.executable, "-m", "dask"]  # the `dask` console script's entry point
    file = log_dir / "scheduler.json"
    procs: list[subprocess.Popen[bytes]] = []

    def start(*argv: str, log: str) -> None:
        with open(log_dir / log, "wb") as fh:
            procs.append(
                subprocess.Popen(
                    [*dask, *argv], stdout=fh, stderr=subprocess.STDOUT, start_new_session=True
                )
            )

    try:
        start("scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
              "--scheduler-file", str(file), log="scheduler.log")  # fmt: skip
        deadline = time.monotonic() + 60
        while True:
            try:
                address = str(json.loads(file.read_text())["address"])
                break
            except (FileNotFoundError, json.JSONDecodeError, KeyError):
                if procs[0].poll() is not None or time.monotonic() > deadline:
                    raise SystemExit("dask scheduler did not start") from None
                time.sleep(0.05)
        for i in range(workers):
            start("worker", address, "--nthreads", "1", "--host", "127.0.0.1",
                  "--no-dashboard", "--name", f"w{i}", log=f"worker{i}.log")  # fmt: skip
        with Client(address, timeout=60) as client:
            client.wait_for_workers(workers, timeout=60)
        yield address
    finally:
        for proc in reversed(procs):
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait(10)


def run(
    kind: str,
    workers: int,
    corpus: Path,
    out: Path,
    args: argparse.Namespace,
    src: Path | None = None,
) -> dict[str, Any]:
    """One ``neardup dedup`` run, its console script in a process of its own (``src``: a
    revision's ``src/`` put first on ``PYTHONPATH``, else this tree): wall seconds of the
    whole process, load before/after."""
    cmd = [*console(), "dedup", str(corpus), "--method", args.method, "--quiet"]
    cmd += ["--threshold", str(THRESHOLD), "--out", str(out)]
    if kind == "dask":
        cmd += ["--engine", "dask", "--workers", str(workers), "--block-mib", str(args.block_mib)]
    elif kind == "external":
        cmd += ["--engine", "dask", "--scheduler", args.scheduler]
        cmd += ["--block-mib", str(args.block_mib)]
    load_before = round(os.getloadavg()[0], 2)
    t0 = time.perf_counter()
    env = None if src is None else {**os.environ, "PYTHONPATH": str(src)}
    done = subprocess.run(cmd, capture_output=True, text=True, check=False, env=env)
    wall = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"{kind} run failed:\n{done.stderr[-3000:]}")
    digests = {n: hashlib.sha256((out / n).read_bytes()).hexdigest() for n in FILES}
    return {
        "wall_s": round(wall, 2),
        "workers": workers,
        **summary_row(kind, out),
        "load_before": load_before,
        "load_after": round(os.getloadavg()[0], 2),
        "_digests": digests,
    }


def bench_size(n: int, args: argparse.Namespace, work: Path) -> dict[str, Any]:
    """The three runs on the ``n``-document corpus: one result row."""
    from bench_scale import corpus

    path, _ = corpus(args.corpus_dir, n)
    with open(path, "rb") as f:  # the page cache holds it for every run alike
        while f.read(1 << 24):
            pass
    row: dict[str, Any] = {"docs": n, "method": args.method, "threshold": THRESHOLD}
    kinds = [k for k in KINDS if args.external or k[1] != "external"]
    if args.previous_src is not None:
        kinds += [("previous-local", "local", 1), ("previous-dask-2", "dask", 2)]
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name, _, _ in kinds}
    with contextlib.ExitStack() as stack:
        if args.external:
            logs = work / f"{n}-cluster"
            logs.mkdir()
            args.scheduler = stack.enter_context(external_cluster(2, logs))
        for r in range(args.repeat):
            for name, kind, workers in kinds:
                print(f"[{n:,}] {name} {r + 1}/{args.repeat} ...", flush=True)
                src = args.previous_src if name.startswith("previous") else None
                runs[name].append(run(kind, workers, path, work / f"{n}-{name}", args, src))
                print(f"[{n:,}] {name}: {runs[name][-1]['wall_s']} s", flush=True)
    digests = {
        json.dumps(x.pop("_digests"), sort_keys=True)
        for name, rs in runs.items()
        for x in rs
        if not name.startswith("previous")
    }
    for name, rs in runs.items():  # the run of median wall time, with every run's wall time
        row[name] = {**sorted(rs, key=lambda x: x["wall_s"])[len(rs) // 2],
                     "walls_s": [x["wall_s"] for x in rs]}  # fmt: skip
    row["same_files"] = len(digests) == 1
    paired = [d["wall_s"] / x["wall_s"] for d, x in zip(runs["dask-2"], runs["local"], strict=True)]
    scaling = [
        a["wall_s"] / b["wall_s"] for a, b in zip(runs["dask-1"], runs["dask-2"], strict=True)
    ]
    row["ratios_dask2_over_local"] = [round(v, 2) for v in paired]
    row["ratio_dask2_over_local"] = round(statistics.median(paired), 2)
    row["dask2_within_1_5x_local"] = row["ratio_dask2_over_local"] <= 1.5
    row["scalings_dask1_over_dask2"] = [round(v, 2) for v in scaling]
    row["scaling_dask1_over_dask2"] = round(statistics.median(scaling), 2)
    if args.external:
        ext = [
            e["wall_s"] / x["wall_s"] for e, x in zip(runs["external"], runs["local"], strict=True)
        ]
        row["ratios_external_over_local"] = [round(v, 2) for v in ext]
        row["ratio_external_over_local"] = round(statistics.median(ext), 2)
    if args.previous_src is not None:
        row["previous"] = args.previous
        for mine, theirs in (("dask-2", "previous-dask-2"), ("local", "previous-local")):
            ratios = [
                a["wall_s"] / b["wall_s"] for a, b in zip(runs[mine], runs[theirs], strict=True)
            ]
            key = f"ratio_{mine.replace('-', '')}_over_previous"
            row[key.replace("ratio_", "ratios_", 1)] = [round(v, 2) for v in ratios]
            row[key] = round(statistics.median(ratios), 2)
    return row


def table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| docs | run | wall s (median) | partitions | peak MiB | load before/after |",
        "|---:|---|---:|---:|---|---|",
    ]
    for row in rows:
        for name in ("local", "dask-2", "dask-1", "external", "previous-local", "previous-dask-2"):
            if name not in row:
                continue
            r = row[name]
            peaks = ", ".join(f"{k} {v:,.0f}" for k, v in r["peak_mib"].items())
            lines.append(
                f"| {row['docs']:,} | {name} | {r['wall_s']:.1f} | {r['partitions']} | {peaks} "
                f"| {r['load_before']}/{r['load_after']} |"
            )
        external = (
            f", external/local {row['ratio_external_over_local']}x"
            if "ratio_external_over_local" in row
            else ""
        )
        lines.append(
            f"|  | dask-2/local {row['ratio_dask2_over_local']}x, 1-vs-2-worker scaling "
            f"(dask-1/dask-2) {row['scaling_dask1_over_dask2']}x{external}, "
            f"same files: {row['same_files']} | | | | |"
        )
        if "previous" in row:
            lines.append(
                f"|  | against {row['previous']}: dask-2 {row['ratio_dask2_over_previous']}x, "
                f"local {row['ratio_local_over_previous']}x | | | | |"
            )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--corpus-dir", type=Path, default=Path("/tmp/neardup-scale"))
    parser.add_argument("--method", default="shingles-full")
    parser.add_argument("--block-mib", type=int, default=64, help="Dask JSONL block size")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "dask.json")
    parser.add_argument(
        "--repeat", type=int, default=3, help="rounds of the three runs (median reported)"
    )
    parser.add_argument(
        "--external",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="the external-cluster row: a `dask scheduler` and 2 `dask worker` processes",
    )
    parser.add_argument("--previous", default=None, help="git revision run beside this tree")
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    from previous import previous_tree

    rows = []
    with (
        tempfile.TemporaryDirectory(prefix="neardup-dask-bench-") as tmp,
        contextlib.ExitStack() as stack,
    ):
        args.previous_src = None
        if args.previous:
            args.previous_src = stack.enter_context(previous_tree(args.previous, Path(tmp)))
        for n in args.docs:
            rows.append(bench_size(n, args, Path(tmp)))
    result = {
        "machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]},
        "command": "python benchmarks/bench_dask.py " + " ".join(sys.argv[1:]),
        "rows": rows,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(table(rows))


if __name__ == "__main__":
    main()
