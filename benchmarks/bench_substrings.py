"""``neardup substrings`` at scale: time and peak memory on the planted corpus's text.

Takes the documents of a planted corpus (``../shared/data/scale-corpus.py``: documents of
8-20 real English and Russian sentences drawn from a shared pool, a tenth of them edited
copies) in order until their texts hold ``--bytes`` bytes of UTF-8, cycling through the
corpus again (ids suffixed ``~2``, ``~3``, ...) when it is shorter; writes them to one
JSONL file in ``--work`` (reused when present); and runs
:func:`neardup.repeated_substrings` on it in a fresh interpreter, so the peak resident
memory of the child (``ru_maxrss``) is the job's alone. The load average is recorded
before and after: on a shared machine the times are upper bounds.

Usage::

    .venv/bin/python benchmarks/bench_substrings.py --corpus /work/scale/corpus-1000000.jsonl \\
        --bytes 1000000000 [--min-bytes 100] [--work /tmp/bench-substrings] [--src OLD/src]
        [--json OUT]

``--src`` runs another checkout's neardup (e.g. ``git archive 87994a7 src | tar -x -C
/tmp/old``, then ``--src /tmp/old/src``) on the same file, for before/after rows.

A peer, text-dedup's ``suffix_array`` (Mou et al.), shells out to the Rust tool of Lee et
al. 2022 (google-research/deduplicate-text-datasets, ``cargo run``), which needs crates.io
to build; it is not run here.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

CHILD = """
import json, sys
import neardup
result = neardup.repeated_substrings(sys.argv[1], min_bytes=int(sys.argv[2]))
print(json.dumps(result.summary))
"""


def sample(corpus: Path, target: int, work: Path) -> tuple[Path, int, int]:
    """The JSONL file of ``target`` bytes of text taken from ``corpus``; its documents and
    text bytes."""
    out = work / f"text-{target}.jsonl"
    meta = work / f"text-{target}.json"
    if out.exists() and meta.exists():
        m = json.loads(meta.read_text())
        return out, int(m["documents"]), int(m["bytes"])
    work.mkdir(parents=True, exist_ok=True)
    size = docs = 0
    rounds = 1
    tmp = out.with_suffix(".part")
    with tmp.open("w", encoding="utf-8") as w:
        while size < target:
            with corpus.open(encoding="utf-8") as f:
                for line in f:
                    row = json.loads(line)
                    if rounds > 1:
                        row["id"] = f"{row['id']}~{rounds}"
                    w.write(json.dumps({"id": row["id"], "text": row["text"]}) + "\n")
                    size += len(row["text"].encode("utf-8")) + 1
                    docs += 1
                    if size >= target:
                        break
            rounds += 1
    tmp.rename(out)
    meta.write_text(json.dumps({"documents": docs, "bytes": size}))
    return out, docs, size


def run(path: Path, min_bytes: int, src: Path | None = None) -> dict[str, Any]:
    """The job in a child interpreter (importing neardup from ``src`` if given): its
    summary, wall and CPU seconds, peak memory."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    load0 = os.getloadavg()
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(src), env.get("PYTHONPATH")]))
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, str(path), str(min_bytes)],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    )
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {
        "summary": json.loads(proc.stdout.strip().splitlines()[-1]),
        "wall_seconds": round(wall, 1),
        "cpu_seconds": round(
            after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, 1
        ),
        "peak_rss_mib": round(after.ru_maxrss / 1024, 1),
        "load_before": [round(x, 2) for x in load0],
        "load_after": [round(x, 2) for x in os.getloadavg()],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", type=Path, required=True, help="a planted corpus JSONL")
    ap.add_argument("--bytes", type=int, default=10**9, help="text bytes to take")
    ap.add_argument("--min-bytes", type=int, default=100)
    ap.add_argument("--work", type=Path, default=Path("/tmp/bench-substrings"))
    ap.add_argument(
        "--src", type=Path, help="run the neardup of another checkout's src (before/after)"
    )
    ap.add_argument("--json", type=Path, help="write the result here")
    args = ap.parse_args(argv)
    path, docs, size = sample(args.corpus, args.bytes, args.work)
    result = {"corpus": str(args.corpus), "documents": docs, "text_bytes": size}
    result["src"] = str(args.src) if args.src else "this checkout"
    result |= run(path, args.min_bytes, args.src)
    s = result["summary"]
    result["bytes_of_memory_per_text_byte"] = round(
        result["peak_rss_mib"] * 2**20 / max(size, 1), 2
    )
    print(json.dumps(result, indent=2))
    print(
        f"{docs:,} documents, {size:,} text bytes: {s['spans']:,} spans, "
        f"{100 * s['removed_chars'] / max(s['chars'], 1):.0f}% of characters covered; "
        f"{result['wall_seconds']} s wall ({result['cpu_seconds']} s CPU; suffix array "
        f"{s['seconds']['suffix_array']} s), peak {result['peak_rss_mib']:,} MiB "
        f"({result['bytes_of_memory_per_text_byte']} bytes a text byte); load "
        f"{result['load_before'][0]} -> {result['load_after'][0]}",
        file=sys.stderr,
    )
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
