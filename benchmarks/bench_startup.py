"""Start-up time of the `neardup` command: `--version`, `--help`, `dedup --help` and a
one-file `check` on a small SQLite collection (the sample corpus), wall and CPU, plus
`python -X importtime` of `neardup.cli.main` and `neardup`; for one or two source trees
in the same run (a ratio needs both).

    .venv/bin/python benchmarks/bench_startup.py [--base OLD/src] [--runs 7]

The trees are put first on PYTHONPATH; .pyc files are written (as for an installed
package) and a warm-up run precedes the timed ones. Record the machine load (`uptime`).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RUN = "from neardup.cli.main import run; run()"


def _env(tree: Path) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(tree))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _time(cmd: list[str], env: dict[str, str], runs: int) -> tuple[float, float]:
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall, cpu = [], []
    for _ in range(runs):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time_now()
        subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wall.append(time_now() - t0)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)
    return statistics.median(wall), statistics.median(cpu)


def time_now() -> float:
    import time

    return time.perf_counter()


def _importtime(module: str, env: dict[str, str], runs: int) -> float:
    vals = []
    for _ in range(runs):
        err = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", f"import {module}"],
            env=env, capture_output=True, text=True,
        ).stderr  # fmt: skip
        line = [x for x in err.splitlines() if x.split("|")[-1].strip() == module][-1]
        vals.append(int(line.split("|")[1]) / 1000)
    return statistics.median(vals)


def measure(tree: Path, runs: int) -> dict[str, str]:
    env = _env(tree)
    py = [sys.executable, "-c", RUN]
    out: dict[str, str] = {}
    with tempfile.TemporaryDirectory() as tmp:
        db = f"sqlite:///{tmp}/c.db"
        subprocess.run([*py, "collection", "create", "stories", "--db", db], env=env,
                       stdout=subprocess.DEVNULL, check=True)  # fmt: skip
        add = [*py, "add", "stories", str(REPO / "examples/corpus"), "--db", db, "-q"]
        quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
        subprocess.run(add, env=env, check=True, **quiet)
        cases = {
            "neardup --version": ["--version"],
            "neardup --help": ["--help"],
            "neardup dedup --help": ["dedup", "--help"],
            "neardup check (1 file)": ["check", "stories",
                                       str(REPO / "examples/corpus/web/vanka.html"), "--db", db],
        }  # fmt: skip
        for name, args in cases.items():
            wall, cpu = _time([*py, *args], env, runs)
            out[name] = f"wall {wall:.3f} s, CPU {cpu:.3f} s"
    for module in ("neardup.cli.main", "neardup"):
        out[f"importtime {module}"] = f"{_importtime(module, env, runs):.0f} ms"
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", type=Path, help="another source tree (its src/) to compare")
    ap.add_argument("--tree", type=Path, default=REPO / "src", help="this tree's src/")
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    trees = {"this tree": args.tree, **({"base": args.base} if args.base else {})}
    results = {label: measure(path, args.runs) for label, path in trees.items()}
    print("| | " + " | ".join(results) + " |")
    print("|---" * (len(results) + 1) + "|")
    for key in next(iter(results.values())):
        print(f"| {key} | " + " | ".join(r[key] for r in results.values()) + " |")
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main()
