"""The long kill run: >= 100 SIGKILLs of ``neardup add``, ``dedup --out``, ``crawl``, ``serve``.

The harness is ``tests/crash/harness.py`` (what is checked after each kill and each
completed run is described there); this script runs it on the first 2000 documents of
``../shared/data/linux-doc-revisions`` (full texts, 22 MB) on SQLite and PostgreSQL, with
seeded random kill points, and prints the counts per process: kills, completed runs, lost
and doubled documents, inconsistent states. ``crawl`` crawls the fake library of
``tests/fake_library.py`` (90 article numbers, Russian prose from ``../shared/data/ruslit``)
served on 127.0.0.1 by this process, 5 kills per crawl into a new collection.

PostgreSQL: a fresh database ``neardup_kill_<random>`` on ``$NEARDUP_TEST_PG`` (default
``postgresql+psycopg://postgres@127.0.0.1:5432/test``), dropped at the end; its rows are
left out when the server is unreachable.

Usage::

    nice -n 10 .venv/bin/python tests/kill_harness.py              # 135 kills
    .venv/bin/python tests/kill_harness.py --scale 0.2             # a quick run
    .venv/bin/python tests/kill_harness.py --only crawl            # the crawl rows
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
import uuid
from pathlib import Path

#: (process, database, method, kills) of a full run.
PLAN = (
    ("add", "sqlite", "tf-ridf", 20),
    ("add", "sqlite", "minhash-lsh", 15),
    ("add", "postgresql", "tf-ridf", 15),
    ("add", "postgresql", "minhash-lsh", 10),
    ("dedup", "", "minhash-lsh", 20),
    ("crawl", "sqlite", "minhash-lsh", 15),
    ("crawl", "postgresql", "minhash-lsh", 10),
    ("serve", "sqlite", "minhash-lsh", 15),
    ("serve", "postgresql", "tf-ridf", 15),
)


def _pg_database() -> str | None:
    from sqlalchemy.exc import OperationalError

    from store._db import create_database

    try:
        return create_database("neardup_kill")
    except OperationalError:
        return None


def main(argv: list[str] | None = None) -> int:
    from crash.harness import (
        AddHarness,
        Counts,
        CrawlHarness,
        DedupHarness,
        ServeHarness,
        write_corpus,
    )
    from store._db import drop_database

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="Multiply every kill count.")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--docs", type=int, default=2000)
    parser.add_argument(
        "--only",
        action="append",
        choices=sorted({row[0] for row in PLAN}),
        help="Run only the rows of this process (repeatable; default: all).",
    )
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    pg = _pg_database()
    rows: list[tuple[Counts, float]] = []
    started = time.time()
    with tempfile.TemporaryDirectory(prefix="neardup-kill-") as tmp_name:
        tmp = Path(tmp_name)
        corpus = write_corpus(tmp / "docs.jsonl", docs=args.docs)
        try:
            for i, (process, db, method, kills) in enumerate(PLAN):
                if args.only and process not in args.only:
                    continue
                n = max(1, round(kills * args.scale))
                if db == "postgresql" and pg is None:
                    rows.append((Counts(f"{process} {method} postgresql (unreachable)"), 0.0))
                    continue
                url = pg if db == "postgresql" else f"sqlite:///{tmp / f'kill{i}.db'}"
                assert url is not None  # pg is None: skipped above
                tag = f"k{i}-{uuid.uuid4().hex[:6]}"
                t0 = time.monotonic()
                if process == "add":
                    estimate = 16.0 if method == "tf-ridf" else 8.0
                    counts = AddHarness(url, corpus, method, tag, estimate).run(
                        n, rng, timeout_s=3600
                    )
                elif process == "dedup":
                    work = tmp / f"dedup{i}"
                    work.mkdir()
                    counts = DedupHarness(corpus, work, method).run(n, rng, timeout_s=3600)
                elif process == "crawl":
                    with CrawlHarness(url, method, tag) as crawl:
                        counts = crawl.run(n, rng, timeout_s=3600)
                else:
                    harness = ServeHarness(str(url), corpus, method, tag, batch=50)
                    counts = harness.run(n, rng, timeout_s=3600)
                seconds = time.monotonic() - t0
                rows.append((counts, seconds))
                print(f"{counts.process}: {counts.kills} kills, {counts.completed} runs, "
                      f"{counts.lost} lost, {counts.doubled} doubled, {counts.inconsistent} "
                      f"inconsistent, {seconds:.0f} s", file=sys.stderr, flush=True)  # fmt: skip
        finally:
            if pg is not None:
                drop_database(pg)
    print(f"kill_harness: {args.docs} Linux-doc documents, seed {args.seed}, "
          f"{time.time() - started:.0f} s, load {os.getloadavg()[0]:.1f}\n")  # fmt: skip
    print("| process | kills | completed runs | lost | doubled | inconsistent | seconds |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for c, s in rows:
        print(f"| {c.process} | {c.kills} | {c.completed} | {c.lost} | {c.doubled} | "
              f"{c.inconsistent} | {s:.0f} |")  # fmt: skip
    total = [
        sum(getattr(c, k) for c, _ in rows) for k in ("kills", "lost", "doubled", "inconsistent")
    ]
    print(f"| **total** | {total[0]} | | {total[1]} | {total[2]} | {total[3]} | |")
    for c, _ in rows:
        for p in c.problems[:5]:
            print(f"{c.process}: {p}")
    return 0 if total[1:] == [0, 0, 0] else 1


if __name__ == "__main__":
    sys.exit(main())
