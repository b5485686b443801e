"""Benchmark: the Dask engine against the single-process job on a JSONL corpus.

Usage::

    python benchmarks/bench_dask.py CORPUS.jsonl --engine dask --workers 2 --out /tmp/o
    python benchmarks/bench_dask.py CORPUS.jsonl --engine local --out /tmp/o

Build a corpus with ``bash ../shared/data/bench-corpus.sh /tmp/bench 1000000`` (outside the
repository). Prints one JSON line: engine, documents, seconds (wall), peak memory (MiB;
per worker for Dask, the process for local), and the counts of the summary.
"""

from __future__ import annotations

import argparse
import json
import resource
import time


def main() -> None:
    """Run one benchmark and print its JSON line."""
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("--engine", choices=("local", "dask"), default="dask")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--method", default="minhash-lsh")
    ap.add_argument("--threshold", type=float, default=0.5)
    ap.add_argument("--block-mib", type=int, default=64)
    ap.add_argument("--memory-limit", default="10GiB", help="per Dask worker")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    from neardup.dedup import DedupOptions

    opts = DedupOptions(threshold=args.threshold)
    t0 = time.perf_counter()
    if args.engine == "local":
        from neardup.dedup import dedup
        from neardup.output import write_result

        result = dedup([args.corpus], method=args.method, options=opts)
        write_result(result, args.out)
        summary = result.summary
        peak = {"client": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
    else:
        from distributed import Client, LocalCluster
        from neardup.distributed import dedup_dask

        with (
            LocalCluster(
                n_workers=args.workers,
                threads_per_worker=1,
                processes=True,
                memory_limit=args.memory_limit,
                dashboard_address=None,
            ) as cluster,
            Client(cluster) as client,
        ):
            summary = dedup_dask(
                [args.corpus],
                args.out,
                method=args.method,
                options=opts,
                client=client,
                block_bytes=args.block_mib << 20,
            )
        peak = {**summary["worker_peak_memory_mib"], "client": summary["peak_memory_mib"]}
    seconds = time.perf_counter() - t0
    keys = ("documents", "candidate_pairs", "pairs", "clusters", "kept", "dropped")
    row = {
        "engine": args.engine,
        "workers": args.workers if args.engine == "dask" else 1,
        "seconds": round(seconds, 1),
        "peak_mib": {k: round(v, 1) for k, v in peak.items()},
        **{k: summary[k] for k in keys},
        "stages": summary["seconds"],
    }
    print(json.dumps(row))


if __name__ == "__main__":
    main()
