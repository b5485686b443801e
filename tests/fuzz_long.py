"""The long fuzz run: >= 10,000 cases per target, crashes, hangs and memory counted.

The targets, strategies and rules are the CI suite's (``tests/fuzz``): only the
``NeardupError`` family may escape a case, each case has a wall-clock deadline (SIGALRM),
and the growth of the peak resident set during a case is bounded. Each target runs in its
own worker process (address space capped with ``RLIMIT_AS``, so a runaway allocation is a
``MemoryError``, not a dead machine); the worker reports every case on a pipe, and a worker
silent for longer than ``--silence`` seconds (a hang in C code the alarm cannot interrupt)
is killed, counted as one hang and restarted with a new seed for the remaining cases.
Hypothesis runs in generation mode only (no shrinking: a failure is recorded and the run
goes on), not derandomized: ``--seed`` makes a run repeatable.

The PostgreSQL target gets a fresh database ``neardup_fuzz_<random>`` on
``$NEARDUP_TEST_PG`` (default ``postgresql+psycopg://postgres@127.0.0.1:5432/test``),
dropped at the end; it is left out (and the table says so) when the server is unreachable.

Usage::

    nice -n 10 .venv/bin/python tests/fuzz_long.py                   # every target
    .venv/bin/python tests/fuzz_long.py --cases 500 --targets extract,dedup
    .venv/bin/python tests/fuzz_long.py --json out/fuzz.json         # and failures

Prints a table ``target / cases / crashes / hangs / memory / seconds / peak RSS`` and the
first failures of each target (input repr truncated).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import selectors
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

#: Address-space cap of a worker, bytes.
ADDRESS_SPACE = 8 << 30


@dataclass
class Tally:
    """Outcomes of one target."""

    target: str
    cases: int = 0
    crashes: int = 0
    hangs: int = 0
    memory: int = 0
    seconds: float = 0.0
    peak_rss_mib: float = 0.0
    restarts: int = 0
    failures: list[dict[str, Any]] = field(default_factory=list)
    note: str = ""


# -- worker ------------------------------------------------------------------------------------
def worker(name: str, cases: int, seed: int, tmp: str, db_urls: dict[str, str]) -> None:
    """Run ``cases`` cases of target ``name``; one line per case on stdout (JSON)."""
    import resource as res

    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hseed

    from fuzz.guard import DEADLINE_S, run_case
    from fuzz.targets import BY_NAME, Context

    res.setrlimit(res.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))
    target = BY_NAME[name]
    ctx = Context(Path(tmp), dict(db_urls))
    out = sys.stdout

    @hseed(seed)
    @settings(
        max_examples=cases,
        deadline=None,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(value=target.strategy)
    def case(value: object) -> None:
        outcome = run_case(
            lambda: target.run(value, ctx), seconds=DEADLINE_S, memory_mib=target.memory_mib
        )
        row: dict[str, Any] = {"kind": outcome.kind, "s": round(outcome.seconds, 4)}
        if outcome.kind != "ok":
            row["detail"] = outcome.detail[-2000:]
            row["input"] = repr(value)[:1500]
        out.write(json.dumps(row) + "\n")
        out.flush()

    try:
        case()
    finally:
        ctx.close()
    peak = res.getrusage(res.RUSAGE_SELF).ru_maxrss / 1024
    out.write(json.dumps({"kind": "done", "peak_rss_mib": round(peak, 1)}) + "\n")
    out.flush()


# -- parent ------------------------------------------------------------------------------------
def run_target(name: str, args: argparse.Namespace, db_urls: dict[str, str], tmp: Path) -> Tally:
    """Run target ``name`` to ``args.cases`` cases in (restarted) worker processes."""
    tally = Tally(name)
    seed = args.seed
    t0 = time.perf_counter()
    while tally.cases < args.cases:
        left = args.cases - tally.cases
        done = _one_worker(name, left, seed, db_urls, tmp, args.silence, tally)
        if done:
            break
        tally.restarts += 1
        seed += 1_000_003
        if tally.restarts > args.max_restarts:
            tally.note = f"stopped after {tally.restarts} restarts"
            break
    tally.seconds = round(time.perf_counter() - t0, 1)
    return tally


def _one_worker(
    name: str,
    cases: int,
    seed: int,
    db_urls: dict[str, str],
    tmp: Path,
    silence: float,
    tally: Tally,
) -> bool:
    """One worker run; ``True`` when it finished (generation ended), ``False`` when killed
    or dead (the case it was on is counted)."""
    work = tmp / f"{name}-{uuid.uuid4().hex[:8]}"
    work.mkdir(parents=True)
    cmd = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--worker",
        name,
        "--cases",
        str(cases),
        "--seed",
        str(seed),
        "--tmp",
        str(work),
        "--db-urls",
        json.dumps(db_urls),
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        finished = _follow(name, proc, silence, tally)
    finally:
        if proc.poll() is None:  # killed as silent, or the parent is being stopped
            proc.kill()
    code = proc.wait()
    err = proc.stderr.read() if proc.stderr else ""
    if not finished and code not in (0, -9):
        tally.cases += 1
        tally.crashes += 1
        tally.failures.append({"kind": "worker died", "detail": f"exit {code}: {err[-2000:]}"})
    return finished


def _follow(name: str, proc: subprocess.Popen[str], silence: float, tally: Tally) -> bool:
    """Read the worker's case lines into ``tally``; ``True`` when it reported ``done``."""
    assert proc.stdout is not None
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    finished = False
    while True:
        if not sel.select(timeout=silence):
            tally.cases += 1
            tally.hangs += 1
            tally.failures.append({"kind": "hang", "detail": f"worker silent > {silence} s"})
            return False
        line = proc.stdout.readline()
        if not line:
            return finished
        row = json.loads(line)
        if row["kind"] == "done":
            tally.peak_rss_mib = max(tally.peak_rss_mib, row["peak_rss_mib"])
            finished = True
            continue
        tally.cases += 1
        if tally.cases % 1000 == 0:
            print(f"  {name}: {tally.cases} cases", file=sys.stderr, flush=True)
        if row["kind"] != "ok":
            setattr(tally, _FIELD[row["kind"]], getattr(tally, _FIELD[row["kind"]]) + 1)
            tally.failures.append(row)
            print(f"  {name}: {row['kind']}: {row.get('detail', '')[:2000]}\n  input: "
                  f"{row.get('input', '')[:1500]}", file=sys.stderr, flush=True)  # fmt: skip


_FIELD = {"crash": "crashes", "hang": "hangs", "memory": "memory"}


def _pg_database() -> tuple[str | None, str]:
    """A fresh PostgreSQL database URL (and a note), or ``None`` when unreachable."""
    from sqlalchemy.exc import OperationalError

    from store._db import create_database

    try:
        return create_database("neardup_fuzz"), ""
    except OperationalError as exc:
        return None, f"PostgreSQL unreachable: {str(exc).splitlines()[0]}"


def print_table(tallies: list[Tally]) -> None:
    """The result table (Markdown)."""
    print("| target | cases | crashes | hangs | memory | seconds | peak RSS MiB | note |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for t in tallies:
        print(
            f"| {t.target} | {t.cases} | {t.crashes} | {t.hangs} | {t.memory} | "
            f"{t.seconds:.0f} | {t.peak_rss_mib:.0f} | {t.note} |"
        )
    total = sum(t.cases for t in tallies)
    bad = sum(t.crashes + t.hangs + t.memory for t in tallies)
    print(f"\n{total} cases, {bad} failures")
    for t in tallies:
        for f in t.failures[:3]:
            print(f"\n--- {t.target}: {f['kind']}\n{f.get('detail', '')[:1500]}")
            if "input" in f:
                print(f"input: {f['input'][:800]}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=10_000, help="Cases per target.")
    parser.add_argument("--targets", default="", help="Comma-separated names (default: all).")
    parser.add_argument("--seed", type=int, default=20_240_901)
    parser.add_argument("--silence", type=float, default=180.0, help="Worker silence = hang, s.")
    parser.add_argument("--max-restarts", type=int, default=20)
    parser.add_argument("--json", type=Path, default=None, help="Write tallies and failures.")
    parser.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--tmp", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--db-urls", default="{}", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.worker, args.cases, args.seed, args.tmp, json.loads(args.db_urls))
        return 0
    from fuzz.targets import TARGETS

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # clean up (finally) on kill
    names = [n for n in args.targets.split(",") if n] or [t.name for t in TARGETS]
    needs = {t.name: t.needs for t in TARGETS}
    pg_url, pg_note = (None, "") if "store_postgresql" not in names else _pg_database()
    tallies: list[Tally] = []
    started = time.time()
    with tempfile.TemporaryDirectory(prefix="neardup-fuzz-") as tmp:
        db_urls = {"sqlite": f"sqlite:///{Path(tmp) / 'fuzz.db'}", "postgresql": pg_url or ""}
        try:
            for name in names:
                if needs[name] == "postgresql" and not pg_url:
                    tallies.append(Tally(name, note=pg_note))
                    continue
                tally = run_target(name, args, db_urls, Path(tmp))
                tallies.append(tally)
                print(
                    f"{name}: {tally.cases} cases, {tally.crashes} crashes, {tally.hangs} "
                    f"hangs, {tally.memory} memory, {tally.seconds:.0f} s",
                    file=sys.stderr,
                    flush=True,
                )
        finally:
            if pg_url:
                from store._db import drop_database

                drop_database(pg_url)
    print(
        f"fuzz_long: {args.cases} cases per target, seed {args.seed}, "
        f"{time.time() - started:.0f} s, load {os.getloadavg()[0]:.1f}, "
        f"worker RLIMIT_AS {ADDRESS_SPACE >> 30} GiB, "
        f"parent peak {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024} MiB\n"
    )
    print_table(tallies)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps([asdict(t) for t in tallies], indent=1), encoding="utf-8")
    return 1 if any(t.crashes or t.hangs or t.memory for t in tallies) else 0


if __name__ == "__main__":
    sys.exit(main())
