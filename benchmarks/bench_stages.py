"""CPU time of each stage of the dedup job, this tree against a previous revision in the same
run (issue 28, item 5: the single-process stages after the kernel).

The job runs in-process with ``clock=time.process_time``, so ``summary.json``'s
``seconds`` are the main process's CPU seconds per stage (its threads included: the
candidate stage's band threads count in full) rather than wall time, which a loaded
machine makes meaningless. Besides them: the worker processes' CPU (``RUSAGE_CHILDREN``),
the main process's CPU, the wall time, and the ratio of the wall time to
``worker CPU / cores`` (issue 28's target: within 1.5x at 1M, on an idle machine).
Each tree runs in its own process (``PYTHONPATH``), the previous revision from a temporary
worktree with its compiled kernel built (``previous.py``); both must write the same
``pairs.jsonl`` (its SHA-256 is compared).

With ``--wall``, each tree runs a second time with ``clock=time.perf_counter`` and a stage
table is printed (Markdown): per stage the wall seconds, the main process's CPU seconds
and, for ``read+prepare``, the worker processes' CPU (issue 43: where the wall time of
read+prepare goes besides the workers' CPU).

    .venv/bin/python benchmarks/bench_stages.py /tmp/scale/corpus-100000.jsonl \\
        [--previous 87994a7] [--method minhash-lsh] [--wall] [--out benchmarks/results/stages.json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from previous import REPO, previous_tree

#: The measured run (argv: corpus, method, out dir); prints one JSON line.
CODE = """
import hashlib, json, os, resource, sys, time
from neardup.job.pipeline import DedupOptions, dedup
from neardup.output import write_result

def cpu(who):
    r = resource.getrusage(who)
    return r.ru_utime + r.ru_stime

corpus, method, out, clock = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
t0 = time.perf_counter()
result = dedup([corpus], method=method, options=DedupOptions(threshold=0.5),
               clock=getattr(time, clock))
wall = time.perf_counter() - t0
written = write_result(result, out)
pairs = (written / "pairs.jsonl").read_bytes()
print(json.dumps({
    "stage_cpu_s": result.summary["seconds"],
    "kernel": result.summary.get("kernel", "python"),
    "wall_s": round(wall, 3),
    "main_cpu_s": round(cpu(resource.RUSAGE_SELF), 3),
    "worker_cpu_s": round(cpu(resource.RUSAGE_CHILDREN), 3),
    "worker_step_s": result.summary.get("worker_seconds", {}),
    "pairs": result.summary["pairs"],
    "pairs_sha256": hashlib.sha256(pairs).hexdigest(),
    "load": [round(x, 2) for x in os.getloadavg()],
}))
"""

#: The stages after read+prepare, run by the main process alone.
SINGLE = ("identical", "sign", "candidates", "verify", "cluster", "keep")


def run_tree(
    src: Path, corpus: Path, method: str, work: Path, clock: str = "process_time"
) -> dict[str, Any]:
    """One job by the tree ``src`` in its own process, its stages timed by ``clock``."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    out = work / f"out-{src.parent.name}"
    done = subprocess.run(
        [sys.executable, "-c", CODE, str(corpus), method, str(out), clock],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    row: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    cores = len(os.sched_getaffinity(0))
    row["single_stage_cpu_s"] = round(sum(row["stage_cpu_s"].get(s, 0.0) for s in SINGLE), 3)
    row["wall_over_worker_cpu_per_core"] = round(row["wall_s"] / (row["worker_cpu_s"] / cores), 2)
    return row


def stage_table(cpu: dict[str, Any], wall: dict[str, Any]) -> str:
    """Markdown: per stage, the wall seconds (``wall``'s run) and the main process's CPU
    seconds (``cpu``'s run); the workers' CPU beside read+prepare."""
    lines = [
        "| stage | wall s | main process CPU s | workers' CPU s |",
        "|---|---:|---:|---:|",
    ]
    for stage, seconds in wall["stage_cpu_s"].items():
        workers = f"{cpu['worker_cpu_s']:.2f}" if stage == "read+prepare" else ""
        main_cpu = cpu["stage_cpu_s"].get(stage, 0.0)
        lines.append(f"| {stage} | {seconds:.3f} | {main_cpu:.3f} | {workers} |")
    lines.append(
        f"| whole process | {wall['wall_s']:.2f} | {cpu['main_cpu_s']:.2f} | "
        f"{cpu['worker_cpu_s']:.2f} |"
    )
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus", type=Path)
    ap.add_argument("--method", default="minhash-lsh")
    ap.add_argument("--previous", help="git revision to run in the same run (worktree)")
    ap.add_argument("--src", type=Path, default=REPO / "src", help="the tree's src folder")
    ap.add_argument("--wall", action="store_true", help="also a wall-clock run: stage table")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    record: dict[str, Any] = {
        "benchmark": "bench_stages",
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "corpus": str(args.corpus),
        "method": args.method,
        "cores": len(os.sched_getaffinity(0)),
        "load_before": [round(x, 2) for x in os.getloadavg()],
    }
    with tempfile.TemporaryDirectory(prefix="neardup-stages-") as tmp:
        work = Path(tmp)
        record["this tree"] = run_tree(args.src, args.corpus, args.method, work)
        print(json.dumps({"this tree": record["this tree"]}), flush=True)
        if args.wall:
            wall = run_tree(args.src, args.corpus, args.method, work, "perf_counter")
            record["this tree, wall clock"] = wall
            record["stage table"] = stage_table(record["this tree"], wall)
            print(record["stage table"], flush=True)
        if args.previous:
            with previous_tree(args.previous, work) as src:
                prev = run_tree(src, args.corpus, args.method, work)
            record[f"previous {args.previous}"] = prev
            print(json.dumps({f"previous {args.previous}": prev}), flush=True)
            now = record["this tree"]
            record["same_pairs"] = prev["pairs_sha256"] == now["pairs_sha256"]
            record["stage_cpu_ratio_previous_over_this"] = {
                s: round(prev["stage_cpu_s"][s] / now["stage_cpu_s"][s], 2)
                for s in SINGLE
                if now["stage_cpu_s"].get(s) and prev["stage_cpu_s"].get(s)
            }
    record["load_after"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps({k: v for k, v in record.items() if "tree" not in k and "previous " not in k}))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
