"""Peak memory and wall time of ``neardup dedup`` on the same records as JSONL, Parquet and
CSV (issue 30: Parquet input cost 2.3-3x the memory of JSONL).

The JSONL file is converted once to Parquet and CSV in ``--workdir`` (with pyarrow); each
format is then deduplicated ``--repeat`` times in a fresh process (``--kept`` in the same
format when ``--kept`` is given), and the peak resident memory of the job's process and
of its largest worker (``getrusage``) and the wall time are printed as JSON lines, with
the machine load before each run. Usage, alone on the machine::

    python benchmarks/bench_input_formats.py ../shared/data/linux-doc-revisions/docs.jsonl \\
        --jobs 1 2 --kept
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

_RUN = """
import resource, sys
from neardup.cli.main import run
sys.argv = ["neardup", *sys.argv[1:]]
try:
    run()
except SystemExit:
    pass
own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print("PEAK", own, kids, file=sys.stderr)
"""


def convert(jsonl: Path, workdir: Path) -> dict[str, Path]:
    """``{format: path}`` of the records of ``jsonl`` as JSONL, Parquet and CSV."""
    import pyarrow.csv as pc
    import pyarrow.json as pj
    import pyarrow.parquet as pq

    table = pj.read_json(jsonl)
    out = {"jsonl": jsonl, "parquet": workdir / "docs.parquet", "csv": workdir / "docs.csv"}
    pq.write_table(table, out["parquet"])
    pc.write_csv(table, out["csv"])
    return out


def measure(path: Path, fmt: str, jobs: int, kept: Path | None) -> dict[str, object]:
    args = ["dedup", str(path), "-q", "-f", "json", "-j", str(jobs)]
    if kept is not None:
        args += ["--kept", str(kept.with_suffix(f".{fmt}"))]
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    res = subprocess.run(
        [sys.executable, "-c", _RUN, *args], capture_output=True, text=True, check=True
    )
    wall = time.perf_counter() - t0
    peak = next(line for line in res.stderr.splitlines() if line.startswith("PEAK"))
    own, kids = (int(x) for x in peak.split()[1:])
    summary = json.loads(res.stdout)["summary"]
    return {
        "format": fmt,
        "jobs": jobs,
        "kept": kept is not None,
        "peak_mib": round(own / 1024, 1),
        "largest_worker_mib": round(kids / 1024, 1),
        "wall_s": round(wall, 2),
        "documents": summary["documents"],
        "pairs": summary["pairs"],
        "load_before": round(load, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("jsonl", type=Path)
    parser.add_argument("--jobs", type=int, nargs="+", default=[1])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--kept", action="store_true", help="Also write --kept.")
    parser.add_argument("--formats", nargs="+", default=["jsonl", "parquet", "csv"])
    parser.add_argument("--workdir", type=Path, default=None)
    ns = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=ns.workdir) as tmp:
        files = convert(ns.jsonl, Path(tmp))
        kept = Path(tmp) / "kept" if ns.kept else None
        for _ in range(ns.repeat):
            for jobs in ns.jobs:
                for fmt in ns.formats:
                    print(json.dumps(measure(files[fmt], fmt, jobs, kept)), flush=True)


if __name__ == "__main__":
    main()
