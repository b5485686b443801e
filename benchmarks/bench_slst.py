"""SL+ST beside SpotSigs (and shingles-full) on linux-doc-revisions: wall time of the whole
``dedup`` job, rounds interleaved, and the ratio SL+ST / SpotSigs of each round.

Each run is a fresh process (``neardup dedup DOCS -m METHOD -t 0.5 --json -q``), so imports
and caches are paid alike; ``uptime`` is recorded before and after because the ratio is
the figure to read on a shared machine (both methods see the same load within a round).

Usage: python benchmarks/bench_slst.py [--data ../shared/data] [--rounds 3] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
METHODS = ("spotsigs", "sl-st", "shingles-full")


def run(docs: Path, method: str) -> tuple[float, int, dict]:
    """Seconds, pairs and the job's stage seconds of one ``neardup dedup`` process."""
    code = "import sys; from neardup.cli.main import run; sys.argv[0] = 'neardup'; run()"
    cmd = [sys.executable, "-c", code, "dedup", str(docs), "-m", method]
    cmd += ["-t", "0.5", "--json", "-q"]
    t0 = time.perf_counter()
    res = subprocess.run(cmd, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - t0
    if res.returncode not in (0, 1):
        raise SystemExit(f"{method}: exit {res.returncode}: {res.stderr[-500:]}")
    data = json.loads(res.stdout)
    return seconds, len(data["pairs"]), data["summary"].get("seconds", {})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    docs = args.data / "linux-doc-revisions" / "docs.jsonl"
    out: dict = {"uptime_before": _uptime(), "rounds": []}
    for r in range(args.rounds):
        row: dict = {}
        for method in METHODS:
            seconds, pairs, stages = run(docs, method)
            row[method] = {"seconds": round(seconds, 2), "pairs": pairs, "stages": stages}
        row["ratio_slst_spotsigs"] = round(row["sl-st"]["seconds"] / row["spotsigs"]["seconds"], 2)
        out["rounds"].append(row)
        times = "  ".join(f"{m} {row[m]['seconds']:.1f} s" for m in METHODS)
        print(f"round {r + 1}: {times}  SL+ST/SpotSigs {row['ratio_slst_spotsigs']}", flush=True)
    out["uptime_after"] = _uptime()
    print(out["uptime_before"], "|", out["uptime_after"])
    if args.out is not None:
        args.out.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")


def _uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


if __name__ == "__main__":
    main()
