"""All benchmarks in one run: neardup and its peers on the same data, ratios printed.

1. MinHash signatures (``bench_minhash.py`` in a subprocess, ``--docs 10000``): neardup vs
   datasketch vs rensa, raw text -> 128-slot signatures, interleaved per chunk.
2. LSH dedup end to end (``bench_dedup.py``): neardup ``minhash-lsh`` vs datasketch
   ``MinHashLSH`` on the four labelled sets at t = 0.3, 0.5 (seconds, P/R/F1), and neardup's
   best method per set against the data README's reference F1.
3. SimHash fingerprints (functions of ``bench_simhash.py``): neardup vs the ``simhash``
   package, from text (each its own features) and from the same word features, interleaved
   per chunk of documents.
4. Cost growth (``bench_growth.py``): dedup at 1k, 10k, 100k documents of the Debian-doc
   corpus, fresh subprocess per size: seconds, peak memory, fitted exponent; datasketch
   MinHashLSH at 1k and 10k (100k when its extrapolated time fits the budget).
5. Corpus scale end to end (``bench_scale.py``, 100k planted documents): neardup's default
   ``minhash-lsh`` job from the JSONL file against rensa and datasketch, with recall of the
   planted pairs (``benchmarks/bench_scale.py --docs 100000 1000000`` runs the 1M size).

Every comparison runs the contenders one after the other on the same data in the same run,
so the ratios hold on a shared machine even when the absolute seconds do not. The load
average and the other processes' CPU use are sampled every 20 s and between the parts.
Writes ``benchmarks/results/bench.json`` and ``benchmarks/results/BENCHMARKS.md``.

Usage::

    .venv/bin/python benchmarks/run_all.py            # full run (< 15 min on 2 cores)
    .venv/bin/python benchmarks/run_all.py --quick    # smoke run (about 2 min), results
                                                      # in $TMPDIR/neardup-bench-quick
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import bench_dedup
import bench_growth
import bench_simhash

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
QUICK_OUT = Path(tempfile.gettempdir()) / "neardup-bench-quick"

FULL = {
    "minhash_args": ["--docs", "10000", "--pairs", "300"],
    "dedup_repeat": 2,
    "dedup_best_t": bench_dedup.BEST_T,
    "simhash_docs": 1500,
    "simhash_repeat": 3,
    "growth_sizes": [1_000, 10_000, 100_000],
    "growth_datasketch_max": 10_000,
    "growth_budget_s": 150.0,
    "scale_docs": ["100000"],
}
QUICK = {
    "minhash_args": ["--docs", "2000", "--pairs", "50", "--no-memory"],
    "dedup_repeat": 1,
    "dedup_best_t": (0.3, 0.5),
    "simhash_docs": 300,
    "simhash_repeat": 1,
    "growth_sizes": [1_000, 10_000],
    "growth_datasketch_max": 10_000,
    "growth_budget_s": 0.0,
    "scale_docs": ["5000"],
}


# -- machine load ----------------------------------------------------------------------------
def _proc_times() -> dict[int, tuple[int, float, str]]:
    """``{pid: (ppid, cpu seconds, command line)}`` of every process (Linux /proc)."""
    tick = os.sysconf("SC_CLK_TCK")
    out = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
            cmd = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        cmd = cmd.strip() or "[" + stat[stat.index("(") + 1 : stat.rindex(")")] + "]"  # kernel
        out[int(d.name)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / tick, cmd)
    return out


def machine_load(label: str, interval: float = 1.0) -> dict[str, Any]:
    """Load average and the processes outside this run using CPU now (sampled ``interval``)."""
    before = _proc_times()
    time.sleep(interval)
    after = _proc_times()
    ours = {os.getpid()}
    grew = True
    while grew:  # this run's descendants
        new = {p for p, (pp, _, _) in after.items() if pp in ours and p not in ours}
        ours |= new
        grew = bool(new)
    procs = []
    for pid, (_, cpu, cmd) in after.items():
        if pid in ours or pid not in before:
            continue
        pcpu = 100 * (cpu - before[pid][1]) / interval
        if pcpu >= 5.0:
            procs.append({"pid": pid, "pcpu": round(pcpu), "cmd": " ".join(cmd.split())[:110]})
    procs.sort(key=lambda p: -p["pcpu"])
    return {
        "at": label,
        "time": time.strftime("%H:%M:%S"),
        "loadavg": list(os.getloadavg()),
        "busy_processes": procs[:8],
    }


class LoadSampler:
    """Samples :func:`machine_load` every ``every`` seconds in a background thread."""

    def __init__(self, every: float = 20.0) -> None:
        import threading

        self.samples: list[dict[str, Any]] = []
        self._every = every
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> LoadSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(self._every):
            self.samples.append(machine_load("during"))

    def summary(self) -> dict[str, Any]:
        """Load average range and mean %CPU of the other processes over the samples."""
        n = len(self.samples)
        if not n:
            return {"samples": 0}
        cpu: dict[str, float] = {}
        for x in self.samples:
            for p in x["busy_processes"]:
                key = p["cmd"][:80]
                cpu[key] = cpu.get(key, 0.0) + p["pcpu"] / n
        one = [x["loadavg"][0] for x in self.samples]
        top = sorted(cpu.items(), key=lambda kv: -kv[1])[:10]
        return {
            "samples": n,
            "loadavg_1min_min_max": [min(one), max(one)],
            "other_processes_mean_pcpu": [{"cmd": k, "mean_pcpu": round(v)} for k, v in top],
            "other_cpu_mean_pcpu_total": round(sum(cpu.values())),
        }


# -- 1. MinHash signatures -------------------------------------------------------------------
def run_minhash(args: list[str]) -> dict[str, Any]:
    """``bench_minhash.py`` in a subprocess (its own RAYON setting); its JSON result."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "minhash.json"
        cmd = [sys.executable, str(HERE / "bench_minhash.py"), *args, "--out", str(out)]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        return json.loads(out.read_text(encoding="utf-8"))


def minhash_markdown(res: dict[str, Any]) -> str:
    c = res["corpus"]
    lines = [
        f"{c['docs']:,} documents of {c['words_per_doc']} words ({c['megabytes_utf8']:.1f} MB), "
        "raw text -> 128-slot MinHash of word 5-shingles, same tokeniser for all.",
        "",
        "| contender | docs/s (raw text) | neardup speed-up | docs/s (from tokens) "
        "| neardup speed-up | mean abs. error of Ĵ |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    err = res.get("agreement", {}).get("mean_abs_error", {})
    for name, raw in res["throughput_raw_text"].items():
        tok = res["throughput_from_tokens"][name]
        e = err.get(name.split(" ")[0])
        lines.append(
            f"| {name} | {raw['docs_per_s']:,.0f} | {raw['neardup_speedup']:.1f}x | "
            f"{tok['docs_per_s']:,.0f} | {tok['neardup_speedup']:.1f}x | "
            f"{f'{e:.4f}' if e is not None else '-'} |"
        )
    mem = res.get("memory")
    if mem:
        lines += [
            "",
            f"neardup signing peak memory: {mem['pipeline_peak_mb_per_100k']:.0f} MB "
            f"per 100k documents (measured on {mem['scaled_from_docs']:,}).",
        ]
    return "\n".join(lines)


# -- 3. SimHash ------------------------------------------------------------------------------
def run_simhash(n: int, repeat: int, chunk: int = 100) -> dict[str, Any]:
    """neardup SimHash vs ``simhash.Simhash``, interleaved per chunk of documents.

    ``n`` documents sampled at an even stride from ``bench_simhash.load_texts(5000)`` (all
    four labelled sets and RusLit pieces). On each chunk the four runs go one after the
    other; the fast ones (neardup, simhash on word features) keep the best of ``repeat``
    rounds, simhash from text runs once (it is ~100x slower).
    """
    from neardup.methods.simhash import SimHash

    pool = bench_simhash.load_texts(5000)
    step = max(1, len(pool) // n)
    texts = pool[::step][:n]
    method = SimHash()
    canon = method.canonical
    tokens = [canon.tokens(t) for t in texts]
    runs: dict[str, Callable[[int, int], object]] = {
        "neardup from text": lambda a, b: method.fingerprint_batch(
            [canon.tokens(t) for t in texts[a:b]]
        ),
        "simhash from text": lambda a, b: [bench_simhash.pypi_from_text(t) for t in texts[a:b]],
        "neardup same words": lambda a, b: method.fingerprint_batch(tokens[a:b]),
        "simhash same words": lambda a, b: [
            bench_simhash.pypi_fingerprint(Counter(t)) for t in tokens[a:b]
        ],
    }
    for fn in runs.values():  # warm-up
        fn(0, 5)
    total = dict.fromkeys(runs, 0.0)
    for a in range(0, len(texts), chunk):
        b = min(a + chunk, len(texts))
        best = dict.fromkeys(runs, float("inf"))
        for r in range(repeat):
            for name, fn in runs.items():
                if r and name == "simhash from text":
                    continue
                t0 = time.perf_counter()
                fn(a, b)
                best[name] = min(best[name], time.perf_counter() - t0)
        for name in runs:
            total[name] += best[name]
    return {
        "docs": len(texts),
        "canonical_tokens": sum(map(len, tokens)),
        "characters": sum(map(len, texts)),
        "seconds": total,
        "docs_per_s": {k: len(texts) / v for k, v in total.items()},
        "speedup": {
            "from text (each its own features)": total["simhash from text"]
            / total["neardup from text"],
            "same word features": total["simhash same words"] / total["neardup same words"],
        },
    }


def simhash_markdown(res: dict[str, Any]) -> str:
    d = res["docs_per_s"]
    lines = [
        f"{res['docs']:,} documents ({res['characters'] / 1e6:.1f} M characters), 64-bit "
        "fingerprints.",
        "",
        "| comparison | neardup fp/s | simhash fp/s | neardup speed-up |",
        "|---|---:|---:|---:|",
    ]
    for label, ours, theirs in (
        ("from text (each its own features)", "neardup from text", "simhash from text"),
        ("same word features", "neardup same words", "simhash same words"),
    ):
        lines.append(
            f"| {label} | {d[ours]:,.0f} | {d[theirs]:,.0f} | {res['speedup'][label]:.1f}x |"
        )
    return "\n".join(lines)


# -- report ----------------------------------------------------------------------------------
def versions() -> dict[str, str | None]:
    from importlib.metadata import PackageNotFoundError, version

    out: dict[str, str | None] = {"python": platform.python_version()}
    for name in ("neardup", "numpy", "datasketch", "rensa", "simhash"):
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = None
    return out


def load_markdown(loads: Sequence[dict[str, Any]], during: dict[str, Any]) -> str:
    lines = []
    if during.get("samples"):
        lo, hi = during["loadavg_1min_min_max"]
        lines += [
            f"Sampled every 20 s ({during['samples']} samples): 1-min load average {lo:.1f} to "
            f"{hi:.1f} on {os.cpu_count()} CPUs; other processes used on average "
            f"{during['other_cpu_mean_pcpu_total']}% CPU (100% = one core), mostly (processes "
            "with the same command line summed):",
            "",
        ]
        for p in [p for p in during["other_processes_mean_pcpu"] if p["mean_pcpu"] >= 1][:6]:
            cmd = p["cmd"].replace("|", "\\|")
            lines.append(f"- `{cmd}`: {p['mean_pcpu']}%")
        lines += ["", "At the part boundaries:", ""]
    lines += ["| when | time | load avg (1 / 5 / 15 min) | other busy processes (%CPU) |"]
    lines.append("|---|---|---|---|")
    for x in loads:
        la = " / ".join(f"{v:.1f}" for v in x["loadavg"])
        procs = "; ".join(
            f"{p['cmd'][:60]} ({p['pcpu']:.0f}%)" for p in x["busy_processes"][:4]
        ).replace("|", "\\|")
        lines.append(f"| {x['at']} | {x['time']} | {la} | {procs or '-'} |")
    return "\n".join(lines)


def report(res: dict[str, Any]) -> str:
    m = res["meta"]
    parts = [
        "# neardup benchmarks",
        "",
        f"Generated by `benchmarks/run_all.py{' --quick' if m['quick'] else ''}` (`make bench`) "
        f"on {m['date']}: {m['machine']['platform']}, {m['machine']['cpus']} CPUs; total wall "
        f"time {m['wall_s'] / 60:.1f} min. Versions: "
        + ", ".join(f"{k} {v}" for k, v in m["versions"].items())
        + ".",
        "",
        "Every comparison runs neardup and its peers one after the other on the same data in "
        "the same run (interleaved per chunk or per threshold, fastest round kept), so the "
        "**ratios** are the figures to quote; absolute seconds depend on what else the "
        "machine was doing (see the load at the end).",
        "",
        "## 1. MinHash signatures (neardup vs datasketch vs rensa)",
        "",
        minhash_markdown(res["minhash"]),
        "",
        "## 2. LSH dedup end to end (neardup vs datasketch MinHashLSH), and F1",
        "",
        "Labelled sets of `../shared/data`; P/R/F1 with `neardup.evaluate.metrics.score_pairs` "
        "(scope `all` on the revision sets, `labelled` on clough-stevenson). datasketch: "
        "`CanonicalForm().tokens`, word 5-shingles joined by a space, `MinHash(num_perm=128)` "
        "per document, `MinHashLSH(threshold=t, num_perm=128)`, insert all, query all, keep "
        'estimated J >= t. neardup: `dedup(docs, method="minhash-lsh", '
        "options=DedupOptions(threshold=t))` (candidates verified on the exact shingle sets). "
        "Each library's figure is its best F1 over t in {0.3, 0.5}. neardup best: "
        "`shingles-full` at its best t in 0.1..0.7 over the preparations of "
        "`bench_dedup.PREPARATIONS` (revision sets); containment of "
        "1-shingles at t = 0.4 (clough-stevenson). README reference: the data README's exact "
        "Jaccard of 5-shingles over lower-cased `\\w+` tokens, best t (containment of "
        "2-shingles on clough-stevenson in brackets).",
        "",
        bench_dedup.markdown(res["dedup"]),
        "",
        "## 3. SimHash fingerprints (neardup vs the `simhash` package)",
        "",
        simhash_markdown(res["simhash"]),
        "",
        "## 4. Cost growth with corpus size (Debian-doc corpus, 300-word documents)",
        "",
        f"`dedup` at t = {res['growth']['threshold']}, fresh interpreter per size; seconds from "
        "the loaded documents to the pairs; MB = peak RSS (VmHWM) added by the job over the "
        "loaded corpus. Exponent: least-squares slope of log seconds against log n. Past the "
        "first ~38k (disjoint) documents the corpus holds overlapping windows, so pairs grow "
        "faster than n.",
        "",
        bench_growth.markdown(res["growth"]),
    ]
    for s in res["growth"].get("skipped", []):
        parts.append(f"\n- {s['contender']} at {s['docs']:,}: not run ({s['why']}).")
    parts += [
        "",
        "## Machine load during the run",
        "",
        load_markdown(m["load"], m["load_during"]),
        "",
    ]
    return "\n".join(parts)


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smoke run (about 2 minutes)")
    ap.add_argument(
        "--out",
        type=Path,
        default=None,
        help=f"results directory (default {RESULTS}; with --quick, {QUICK_OUT})",
    )
    args = ap.parse_args(argv)
    if args.out is None:  # a smoke run must not overwrite the published results
        args.out = QUICK_OUT if args.quick else RESULTS
    cfg = QUICK if args.quick else FULL
    start = time.perf_counter()
    loads = [machine_load("start")]
    parts_s: dict[str, float] = {}

    def part(name: str, fn: Callable[[], Any]) -> Any:
        print(f"== {name}", flush=True)
        t0 = time.perf_counter()
        out = fn()
        parts_s[name] = time.perf_counter() - t0
        loads.append(machine_load(f"after {name}"))
        print(f"   ({parts_s[name]:.0f} s)", flush=True)
        return out

    sampler = LoadSampler().__enter__()
    minhash = part("minhash", lambda: run_minhash(cfg["minhash_args"]))
    print(minhash_markdown(minhash), flush=True)
    dedup = part(
        "dedup",
        lambda: bench_dedup.run(best_t=cfg["dedup_best_t"], repeat=cfg["dedup_repeat"], log=_log),
    )
    print(bench_dedup.markdown(dedup), flush=True)
    simhash = part("simhash", lambda: run_simhash(cfg["simhash_docs"], cfg["simhash_repeat"]))
    print(simhash_markdown(simhash), flush=True)
    growth = part(
        "growth",
        lambda: bench_growth.run(
            cfg["growth_sizes"],
            datasketch_max=cfg["growth_datasketch_max"],
            budget_s=cfg["growth_budget_s"],
            log=_log,
        ),
    )
    print(bench_growth.markdown(growth), flush=True)
    scale = part("scale", lambda: run_scale(cfg["scale_docs"], args.out))
    wall = time.perf_counter() - start
    sampler.__exit__()
    res = {
        "meta": {
            "quick": args.quick,
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "wall_s": wall,
            "parts_s": parts_s,
            "config": {k: list(v) if isinstance(v, tuple) else v for k, v in cfg.items()},
            "versions": versions(),
            "machine": {"platform": platform.platform(), "cpus": os.cpu_count()},
            "load": loads,
            "load_during": sampler.summary(),
        },
        "minhash": minhash,
        "dedup": dedup,
        "dedup_summary": bench_dedup.summary_rows(dedup),
        "simhash": simhash,
        "growth": growth,
        "scale": scale,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "bench.json").write_text(json.dumps(res, indent=2) + "\n", encoding="utf-8")
    (args.out / "BENCHMARKS.md").write_text(report(res), encoding="utf-8")
    print(f"\ntotal wall time {wall:.0f} s; wrote {args.out / 'bench.json'} and BENCHMARKS.md")


def run_scale(docs: list[str], out: Path) -> Any:
    """``bench_scale.py`` in a subprocess (it times whole processes): neardup vs rensa and
    datasketch end to end on a planted corpus (made in a temporary folder when missing)."""
    corpus_dir = Path(os.environ.get("NEARDUP_SCALE_DIR", tempfile.gettempdir())) / "neardup-scale"
    target = out / "scale.json"
    cmd = [sys.executable, str(HERE / "bench_scale.py"), "--docs", *docs]
    cmd += ["--corpus-dir", str(corpus_dir), "--out", str(target)]
    subprocess.run(cmd, check=True)
    return json.loads(target.read_text(encoding="utf-8"))


def _log(msg: str) -> None:
    print(msg, flush=True)


if __name__ == "__main__":
    main()
