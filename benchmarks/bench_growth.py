"""Cost growth of the dedup job with corpus size: seconds and peak memory at 1k, 10k, 100k docs.

Corpus: the first ``n`` documents of the Debian-doc corpus (``/work/bench-corpus/corpus.jsonl``,
300-word English documents from linux-doc and python3.11-doc; past the ~38k disjoint ones,
windows at random offsets that overlap earlier documents; build it with
``bash ../shared/data/bench-corpus.sh DIR 100000``). Contenders, each in a fresh interpreter
per size (so peaks do not carry over):

* ``neardup minhash-lsh``: ``dedup(docs, method="minhash-lsh", options=DedupOptions(threshold=t))``;
* ``neardup shingles-full``: ``dedup(docs, method="shingles-full", ...)`` (exact Jaccard);
* ``datasketch MinHashLSH``: the datasketch pipeline of :mod:`bench_dedup` (same tokens,
  5-shingles, ``MinHash`` per document, insert all, query all, estimated J >= t).

Seconds run from the loaded documents to the pairs. Peak memory is the child's ``VmHWM``
(reset to the current RSS after the corpus is loaded, when the kernel allows it) minus its RSS
then, i.e. what the job adds on top of the texts; the whole process peak is reported too.
The fitted exponent is the least-squares slope of log seconds against log n (1.0 = linear).

Usage::

    .venv/bin/python benchmarks/bench_growth.py [--sizes 1000 10000 100000] [--json F]
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

CORPUS = Path("/work/bench-corpus/corpus.jsonl")
CONTENDERS = ("neardup minhash-lsh", "neardup shingles-full", "datasketch MinHashLSH")


def load(path: Path, n: int) -> list[Any]:
    """The first ``n`` documents of a ``{"id", "text"}`` JSONL corpus."""
    from neardup.text.types import Document

    docs = []
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if len(docs) == n:
                break
            row = json.loads(line)
            docs.append(Document(row["id"], row["text"]))
    if len(docs) < n:
        raise SystemExit(f"{path} has only {len(docs)} documents, {n} asked")
    return docs


def child(name: str, n: int, t: float, corpus: Path) -> dict[str, Any]:
    """Run one contender on ``n`` documents in this process; seconds and memory."""
    from bench_minhash import _reset_peak, _status_mb

    docs = load(corpus, n)
    if name == "datasketch MinHashLSH":
        from bench_dedup import run_datasketch

        run_datasketch(docs[:20], t)  # imports and stop words before the reset
        reset = _reset_peak()
        base = _status_mb("VmRSS")
        t0 = time.perf_counter()
        pairs, _, stages = run_datasketch(docs, t)
        seconds = time.perf_counter() - t0
        extra: dict[str, Any] = {"stages_s": stages}
    else:
        from neardup.job.pipeline import DedupOptions, dedup

        method = name.split()[1]
        opts = DedupOptions(threshold=t)
        dedup(docs[:20], method=method, options=opts)
        reset = _reset_peak()
        base = _status_mb("VmRSS")
        t0 = time.perf_counter()
        res = dedup(docs, method=method, options=opts)
        seconds = time.perf_counter() - t0
        pairs = res.pairs
        extra = {"stages_s": res.summary.get("seconds")}
    peak = _status_mb("VmHWM")
    return {
        "contender": name,
        "docs": n,
        "threshold": t,
        "seconds": seconds,
        "pairs": len(pairs),
        "peak_reset": reset,
        "rss_before_mb": base,
        "peak_rss_mb": peak,
        "job_peak_mb": peak - base,
        **extra,
    }


def measure(name: str, n: int, t: float, corpus: Path, timeout: float) -> dict[str, Any]:
    """:func:`child` in a fresh interpreter."""
    cmd = [sys.executable, __file__, "--child", name, str(n), "--threshold", str(t)]
    cmd += ["--corpus", str(corpus)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{name} at {n}: {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def exponent(points: Sequence[tuple[int, float]]) -> float | None:
    """Least-squares slope of log seconds against log n."""
    if len(points) < 2:
        return None
    xs = [math.log(n) for n, _ in points]
    ys = [math.log(max(s, 1e-6)) for _, s in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    den = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / den


def run(
    sizes: Sequence[int] = (1_000, 10_000, 100_000),
    t: float = 0.5,
    corpus: Path = CORPUS,
    datasketch_max: int = 10_000,
    budget_s: float = 300.0,
    log: Any = print,
) -> dict[str, Any]:
    """All contenders at all sizes, interleaved per size (smallest first).

    datasketch runs at sizes up to ``datasketch_max``, and above it only when its time
    extrapolated linearly from the previous size fits in ``budget_s``.
    """
    if not corpus.is_file():
        raise SystemExit(f"corpus missing: {corpus} (bash ../shared/data/bench-corpus.sh DIR)")
    rows: list[dict[str, Any]] = []
    skipped: list[dict[str, Any]] = []
    for n in sorted(sizes):
        for name in CONTENDERS:
            if name.startswith("datasketch") and n > datasketch_max:
                prev = [r for r in rows if r["contender"] == name]
                guess = prev[-1]["seconds"] * n / prev[-1]["docs"] if prev else math.inf
                if guess > budget_s:
                    why = f"extrapolated {guess:.0f} s > budget {budget_s:.0f} s"
                    skipped.append({"contender": name, "docs": n, "why": why})
                    log(f"  growth: {name} at {n:,} skipped ({why})")
                    continue
            row = measure(name, n, t, corpus, timeout=max(budget_s * 2, 600))
            rows.append(row)
            log(
                f"  growth: {name} at {n:,}: {row['seconds']:.2f} s, "
                f"+{row['job_peak_mb']:.0f} MB peak ({row['peak_rss_mb']:.0f} MB process), "
                f"{row['pairs']:,} pairs"
            )
    fits = {}
    for name in CONTENDERS:
        pts = [(r["docs"], r["seconds"]) for r in rows if r["contender"] == name]
        fits[name] = exponent(pts)
    return {
        "corpus": str(corpus),
        "threshold": t,
        "rows": rows,
        "exponent": fits,
        "skipped": skipped,
    }


def markdown(res: dict[str, Any]) -> str:
    """Growth table: seconds and job peak MB per size, fitted exponent."""
    sizes = sorted({r["docs"] for r in res["rows"]})
    head = "| contender | " + " | ".join(f"{n:,} docs: s / MB" for n in sizes)
    lines = [head + " | exponent: fit (per step) |", "|---" + "|---:" * (len(sizes) + 1) + "|"]
    for name in CONTENDERS:
        cells = []
        for n in sizes:
            r = next((r for r in res["rows"] if r["contender"] == name and r["docs"] == n), None)
            cells.append(f"{r['seconds']:.2f} / {r['job_peak_mb']:.0f}" if r else "-")
        e = res["exponent"].get(name)
        fit = f"{e:.2f}" if e is not None else "-"
        pts = [(r["docs"], r["seconds"]) for r in res["rows"] if r["contender"] == name]
        steps = [exponent(pts[i : i + 2]) for i in range(len(pts) - 1)]
        if len(steps) > 1:
            fit += " (" + ", ".join(f"{x:.2f}" for x in steps if x is not None) + ")"
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {fit} |")
    nd = {(r["contender"], r["docs"]): r["seconds"] for r in res["rows"]}
    ratios = []
    for n in sizes:
        a, b = nd.get(("neardup minhash-lsh", n)), nd.get(("datasketch MinHashLSH", n))
        if a and b:
            ratios.append(f"{n:,}: {b / a:.1f}x")
    if ratios:
        lines.append("")
        lines.append("datasketch MinHashLSH s / neardup minhash-lsh s: " + ", ".join(ratios))
    top = sizes[-1] if sizes else None
    lines += ["", f"Where the time goes at {top:,} documents (seconds per stage):", ""]
    for r in res["rows"]:
        if r["docs"] == top and r.get("stages_s"):
            st = ", ".join(f"{k} {v:.1f}" for k, v in r["stages_s"].items() if k != "total")
            lines.append(f"- {r['contender']}: {st}; {r['pairs']:,} pairs")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", nargs="*", type=int, default=[1_000, 10_000, 100_000])
    ap.add_argument("--threshold", type=float, default=0.5)
    ap.add_argument("--corpus", type=Path, default=CORPUS)
    ap.add_argument("--datasketch-max", type=int, default=10_000)
    ap.add_argument("--budget", type=float, default=300.0, help="datasketch above max, s")
    ap.add_argument("--child", nargs=2, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    if args.child:
        row = child(args.child[0], int(args.child[1]), args.threshold, args.corpus)
        print(json.dumps(row))
        return
    res = run(args.sizes, args.threshold, args.corpus, args.datasketch_max, args.budget)
    print(markdown(res))
    if args.json:
        args.json.write_text(json.dumps(res, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
