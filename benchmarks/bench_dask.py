"""The Dask engine against the local job, and 1 against 2 Dask workers, in one run.

Data: the planted corpora of ``../shared/data/scale-corpus.py`` (``corpus-N.jsonl`` in
``--corpus-dir``; a missing size is cut from the head of a larger one there, else made by
the script: :func:`bench_scale.corpus`). For each size, three runs one after the other,
each in its own process (whole-process wall seconds, so the Dask rows include starting the
``LocalCluster``):

* **local**: :func:`neardup.dedup.dedup` on the file (the default job: reading on every
  core), then :func:`neardup.output.write_result`;
* **dask-2** and **dask-1**: :func:`neardup.distributed.dedup_dask` on a ``LocalCluster`` of
  2 (then 1) worker processes of one thread each (``--memory-limit`` each), ``--block-mib``
  blocks.

Every run uses ``--method`` (default ``shingles-full``, the default of both engines) at
t = 0.5. A row records each run's wall seconds, peak memory (the process; for Dask also
each worker's), the summary's counts and stage seconds, whether the four files
(``pairs.jsonl``, ``clusters.jsonl``, ``dropped.jsonl``, ``skipped.jsonl``) are equal byte
for byte across the three, ``ratio_dask2_over_local`` (the target: <= 1.5),
``scaling_dask1_over_dask2`` and the 1-minute load average before and after each run
(figures taken beside other work are not evidence).

Usage::

    .venv/bin/python benchmarks/bench_dask.py --docs 100000 1000000 \\
        --corpus-dir /tmp/neardup-scale [--out benchmarks/results/dask.json]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
FILES = ("pairs.jsonl", "clusters.jsonl", "dropped.jsonl", "skipped.jsonl")
COUNTS = ("documents", "skipped", "candidate_pairs", "pairs", "clusters", "kept", "dropped")
THRESHOLD = 0.5


def run_child(args: argparse.Namespace) -> dict[str, Any]:
    """One run in this process (``--child``): the summary's counts, stages and peaks."""
    from neardup.dedup import DedupOptions

    opts = DedupOptions(threshold=THRESHOLD)
    if args.child == "local":
        from neardup.dedup import dedup
        from neardup.output import write_result

        result = dedup([args.corpus], method=args.method, options=opts)
        write_result(result, args.out)
        summary = result.summary
        peak = {"client": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
        children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        peak["largest_reader"] = children
    else:
        from distributed import Client
        from neardup.distributed import dedup_dask
        from neardup.distributed.plan import local_cluster

        with (
            local_cluster(workers=args.workers, memory_limit=args.memory_limit) as cluster,
            Client(cluster) as client,
        ):
            summary = dedup_dask(
                [args.corpus],
                args.out,
                method=args.method,
                options=opts,
                client=client,
                block_bytes=args.block_mib << 20,
            ).summary
        workers = summary["worker_peak_memory_mib"]
        peak = {"client": summary["peak_memory_mib"], **{f"worker{i}": v
                for i, v in enumerate(workers.values())}}  # fmt: skip
    return {
        "peak_mib": {k: round(v, 1) for k, v in peak.items()},
        "partitions": summary.get("partitions", 1),
        **{k: summary[k] for k in COUNTS},
        "stages_s": summary["seconds"],
    }


def run(
    kind: str, workers: int, corpus: Path, out: Path, args: argparse.Namespace
) -> dict[str, Any]:
    """One run in its own process; wall seconds of the whole process, load before/after."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", kind, "--corpus", str(corpus)]
    cmd += ["--run-out", str(out), "--method", args.method, "--workers", str(workers)]
    cmd += ["--block-mib", str(args.block_mib), "--memory-limit", args.memory_limit]
    load_before = round(os.getloadavg()[0], 2)
    t0 = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"{kind} run failed:\n{done.stderr[-3000:]}")
    row = json.loads(done.stdout.strip().splitlines()[-1])
    digests = {n: hashlib.sha256((out / n).read_bytes()).hexdigest() for n in FILES}
    return {
        "wall_s": round(wall, 2),
        "workers": workers,
        **row,
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
    for name, kind, workers in (
        ("local", "local", 1),
        ("dask-2", "dask", 2),
        ("dask-1", "dask", 1),
    ):
        print(f"[{n:,}] {name} ...", flush=True)
        row[name] = run(kind, workers, path, work / f"{n}-{name}", args)
        print(f"[{n:,}] {name}: {row[name]['wall_s']} s", flush=True)
    digests = [row[k].pop("_digests") for k in ("local", "dask-2", "dask-1")]
    row["same_files"] = digests[0] == digests[1] == digests[2]
    row["ratio_dask2_over_local"] = round(row["dask-2"]["wall_s"] / row["local"]["wall_s"], 2)
    row["dask2_within_1_5x_local"] = row["ratio_dask2_over_local"] <= 1.5
    row["scaling_dask1_over_dask2"] = round(row["dask-1"]["wall_s"] / row["dask-2"]["wall_s"], 2)
    return row


def table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| docs | run | wall s | partitions | peak MiB | load before/after |",
        "|---:|---|---:|---:|---|---|",
    ]
    for row in rows:
        for name in ("local", "dask-2", "dask-1"):
            r = row[name]
            peaks = ", ".join(f"{k} {v:,.0f}" for k, v in r["peak_mib"].items())
            lines.append(
                f"| {row['docs']:,} | {name} | {r['wall_s']:.1f} | {r['partitions']} | {peaks} "
                f"| {r['load_before']}/{r['load_after']} |"
            )
        lines.append(
            f"|  | dask-2/local {row['ratio_dask2_over_local']}x, dask-1/dask-2 "
            f"{row['scaling_dask1_over_dask2']}x, same files: {row['same_files']} | | | | |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--corpus-dir", type=Path, default=Path("/tmp/neardup-scale"))
    parser.add_argument("--method", default="shingles-full")
    parser.add_argument("--block-mib", type=int, default=64, help="Dask JSONL block size")
    parser.add_argument("--memory-limit", default="10GiB", help="per Dask worker")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "dask.json")
    # one run in a child process
    parser.add_argument("--child", choices=("local", "dask"), help=argparse.SUPPRESS)
    parser.add_argument("--corpus", help=argparse.SUPPRESS)
    parser.add_argument("--run-out", help=argparse.SUPPRESS)
    parser.add_argument("--workers", type=int, default=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        args.out = args.run_out
        print(json.dumps(run_child(args)))
        return
    sys.path.insert(0, str(HERE))
    rows = []
    with tempfile.TemporaryDirectory(prefix="neardup-dask-bench-") as tmp:
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
