"""Corpus-scale dedup end to end: neardup against rensa and datasketch on planted corpora.

Data: ``../shared/data/scale-corpus.py`` corpora (real English and Russian sentences, 10 %
planted near-duplicates with their exact word 5-shingle Jaccard in ``corpus-N.gold.jsonl``).
A corpus missing from ``--corpus-dir`` is cut from the head of a larger one there (gold rows
whose copy is among the first N documents), else made with ``scale-corpus.py``.

Contenders, each in its own process one after the other (whole-process wall seconds; peak
RSS from ``wait4``), on the same JSONL file:

* **neardup**: ``neardup dedup CORPUS --method minhash-lsh -t 0.5 --out DIR`` (the default
  job: 128 permutations, verification on the exact shingle sets, reading on every core).
  Stage seconds come from its ``summary.json``; peak memory is the main process plus the
  largest worker (a sum of peaks: an upper bound).
* **neardup-python**: the same job with ``NEARDUP_KERNEL=python`` (the numpy prepare path
  instead of the compiled kernel; up to ``--kernel-check-max`` documents): its
  ``pairs.jsonl`` must be the kernel's byte for byte (``same_pairs_with_numpy_kernel``).
  Each neardup row records the kernel that ran (``summary.json``'s ``kernel``).
* **rensa** (``RMinHash`` + ``RMinHashLSH``): ``json.loads`` per line, lower-cased ``\\w+``
  word 5-shingles made in Python, 128 permutations, bands chosen for t = 0.5 by
  datasketch's false-positive/false-negative rule among the divisors of 128, every document
  inserted then queried, candidates kept when rensa's estimated Jaccard >= 0.5.
  Only up to ``--rensa-max`` documents (default 1M: it holds 7.8 GB there, so 10M would
  not fit in this machine's 24 GiB).
* **datasketch** ``MinHash`` + ``MinHashLSH(threshold=0.5, num_perm=128)`` the same way
  (only up to ``--datasketch-max`` documents: it takes minutes at 100k).
* **previous release** (``--previous REV``, a git revision): the job of that revision
  (up to ``--previous-max`` documents), from a temporary worktree with its compiled
  modules (:mod:`previous`), run right after neardup's: its wall and its read + prepare
  ratio.

The corpus file is read once before the first contender, so that each finds it in the
page cache. Recall: the share of gold pairs with Jaccard >= 0.6 (and >= 0.8) that a
contender reports; neardup's misses at 0.6 are split by ``gold_misses.py`` into pairs that
never became candidates and pairs that its canonical form (stop words removed) puts below t.
Load: the 1-minute load average before and after each contender is recorded; figures taken
beside other work are not evidence.

Usage::

    .venv/bin/python benchmarks/bench_scale.py --docs 100000 1000000 \\
        --corpus-dir /tmp/neardup-scale [--previous c2749dc] [--out benchmarks/results/scale.json]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SHARED = REPO.parent / "shared" / "data"
THRESHOLD = 0.5
GOLD_MIN_JACCARD = 0.6
NUM_PERM = 128
_WORD = re.compile(r"\w+")


# -- corpora ------------------------------------------------------------------------------
def corpus(dir_: Path, n: int) -> tuple[Path, Path]:
    """``(corpus, gold)`` of ``n`` documents in ``dir_`` (cut or made when missing)."""
    path, gold = dir_ / f"corpus-{n}.jsonl", dir_ / f"corpus-{n}.gold.jsonl"
    if path.is_file() and gold.is_file():
        return path, gold
    sizes = [
        (int(p.stem.split("-")[1]), p)
        for p in dir_.glob("corpus-*.jsonl")
        if re.fullmatch(r"corpus-\d+\.jsonl", p.name)
    ]
    bigger = sorted((m, p) for m, p in sizes if m > n)
    if not bigger:
        dir_.mkdir(parents=True, exist_ok=True)
        script = SHARED / "scale-corpus.py"
        subprocess.run([sys.executable, str(script), str(dir_), str(n)], check=True)
        return path, gold
    m, src = bigger[0]
    with open(src, "rb") as f, open(path, "wb") as out:
        for _ in range(n):
            out.write(f.readline())
    with open(dir_ / f"corpus-{m}.gold.jsonl", "rb") as f, open(gold, "wb") as out:
        for line in f:
            if int(json.loads(line)["a"][1:]) < n:
                out.write(line)
    return path, gold


def gold_pairs(gold: Path, min_jaccard: float = GOLD_MIN_JACCARD) -> set[tuple[str, str]]:
    out = set()
    with open(gold, encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            if row["jaccard"] >= min_jaccard:
                out.add(tuple(sorted((row["a"], row["b"]))))
    return out  # type: ignore[return-value]


def recall(found: set[tuple[str, str]], gold: set[tuple[str, str]]) -> float:
    return len(found & gold) / len(gold) if gold else 1.0


# -- running one contender ------------------------------------------------------------------
class _RssSampler(threading.Thread):
    """Largest ``RssAnon`` (heap, arrays) and ``RssFile`` (mapped files: neardup's spilled
    sets and signatures, which the kernel reclaims under pressure) of process ``pid``, KiB,
    read from ``/proc/PID/status`` every 0.2 s until it ends."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid = pid
        self.peak = {"RssAnon": 0, "RssFile": 0}

    def run(self) -> None:
        status = Path(f"/proc/{self.pid}/status")
        while True:
            try:
                lines = status.read_text().splitlines()
            except OSError:  # ended (and reaped)
                return
            for line in lines:
                key, _, value = line.partition(":")
                if key in self.peak:
                    self.peak[key] = max(self.peak[key], int(value.split()[0]))
            if any(line.startswith("State:\tZ") for line in lines):
                return
            time.sleep(0.2)


def timed(cmd: list[str], env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run ``cmd``; wall seconds, peak RSS (MiB, the process or its largest descendant),
    the load average before and after, and its stdout."""
    load0 = os.getloadavg()[0]
    t0 = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen(cmd, stdout=out, env=env)
        sampler = _RssSampler(proc.pid)
        sampler.start()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        sampler.join()
        out.seek(0)
        text = out.read().decode("utf-8", "replace")
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{cmd[:4]} failed ({status}): {text[-2000:]}")
    return {
        "wall_s": round(wall, 2),
        "peak_rss_mib": round(usage.ru_maxrss / 1024, 1),
        "peak_anon_mib": round(sampler.peak["RssAnon"] / 1024, 1),
        "peak_file_mib": round(sampler.peak["RssFile"] / 1024, 1),
        "load_before": round(load0, 2),
        "load_after": round(os.getloadavg()[0], 2),
        "stdout": text,
    }


def run_neardup(path: Path, work: Path, kernel: str = "auto") -> dict[str, Any]:
    """The default job; ``kernel``: NEARDUP_KERNEL (``python``: the numpy prepare path)."""
    import hashlib

    out_dir = work / "neardup-out"
    shutil.rmtree(out_dir, ignore_errors=True)
    cmd = [
        sys.executable, "-c", "from neardup.cli.main import run; run()", "dedup", str(path),
        "--method", "minhash-lsh", "-t", str(THRESHOLD), "--out", str(out_dir), "-q",
    ]  # fmt: skip
    r = timed(cmd, {**os.environ, "NEARDUP_KERNEL": kernel})
    summary = json.loads((out_dir / "summary.json").read_text(encoding="utf-8"))
    r["kernel"] = summary.get("kernel", "python")
    r["pairs_sha256"] = hashlib.sha256((out_dir / "pairs.jsonl").read_bytes()).hexdigest()
    pairs = set()
    with open(out_dir / "pairs.jsonl", encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            pairs.add(tuple(sorted((row["a"], row["b"]))))
    r.pop("stdout")
    r["stages_s"] = summary["seconds"]
    r["stages_cpu_s"] = summary.get("cpu_seconds", {})  # the main process's CPU a stage
    figures = summary.get("executor", summary)  # top-level in the releases before the executors
    r["worker_seconds"] = figures.get("worker_seconds", {})
    r["worker_cpu_s"] = figures.get("worker_cpu_seconds")  # the pool's workers' CPU, all
    r["main_peak_mib"] = summary["peak_memory_mib"]
    r["worker_peak_mib"] = figures.get("worker_peak_memory_mib", {}).get("largest", 0.0)
    r["peak_rss_mib"] = round(r["main_peak_mib"] + r["worker_peak_mib"], 1)
    r["pairs"] = summary["pairs"]
    r["candidate_pairs"] = summary["candidate_pairs"]
    r["verified_pairs"] = summary.get("verified_pairs")  # after the sketch prefilter
    r["lsh"] = summary.get("lsh")  # bands, rows and P(candidate) at t
    r["spilled_to_disk"] = bool(figures.get("spilled_to_disk", False))
    r["_found"] = pairs
    shutil.rmtree(out_dir, ignore_errors=True)
    return r


def run_peer(name: str, path: Path, work: Path) -> dict[str, Any]:
    pairs_file = work / f"{name}-pairs.jsonl"
    cmd = [sys.executable, __file__, "--contender", name, str(path), str(pairs_file)]
    r = timed(cmd)
    r.update(json.loads(r.pop("stdout").strip().splitlines()[-1]))
    with open(pairs_file, encoding="utf-8") as f:
        r["_found"] = {tuple(json.loads(line)) for line in f}
    pairs_file.unlink()
    return r


def run_previous(rev: str, path: Path, work: Path) -> dict[str, Any]:
    """The job of neardup at git revision ``rev`` (a temporary worktree with its compiled
    modules, :func:`previous.previous_tree`): wall, peak memory, its stage seconds and its
    read + prepare seconds."""
    from previous import previous_tree

    with previous_tree(rev, work) as src:
        out_dir = work / "prev-out"
        env = {**os.environ, "PYTHONPATH": str(src)}
        cmd = [
            sys.executable, "-c", "from neardup.cli.main import run; run()", "dedup",
            str(path), "--method", "minhash-lsh", "-t", str(THRESHOLD), "--out", str(out_dir),
            "-q",
        ]  # fmt: skip
        r = timed(cmd, env)
        r.pop("stdout")
        summary = json.loads((out_dir / "summary.json").read_text(encoding="utf-8"))
        s = summary["seconds"]
        r["stages_s"] = s
        # the stage is "read+prepare" since the stages were merged; "read" + "prepare" before
        both = s.get("read+prepare", s.get("read", 0) + s.get("prepare", 0))
        r["read_prepare_s"] = round(both, 2)
        r["kernel"] = summary.get("kernel", "python")
        shutil.rmtree(out_dir, ignore_errors=True)
        return r


# -- the peers, in their own process -----------------------------------------------------------
def _shingles(text: str) -> list[str]:
    toks = _WORD.findall(text.lower())
    if len(toks) < 5:
        return [" ".join(toks)] if toks else []
    return list({" ".join(toks[i : i + 5]) for i in range(len(toks) - 4)})


def _bands() -> tuple[int, int]:
    """(bands, rows) with bands * rows = 128, best for t = 0.5 by datasketch's rule."""
    from datasketch.lsh import _false_negative_probability, _false_positive_probability

    best = None
    for r in (1, 2, 4, 8, 16, 32):
        b = NUM_PERM // r
        err = 0.5 * _false_positive_probability(THRESHOLD, b, r) + 0.5 * (
            _false_negative_probability(THRESHOLD, b, r)
        )
        if best is None or err < best[0]:
            best = (err, b, r)
    assert best is not None
    return best[1], best[2]


def _lsh_pairs(
    path: Path, pairs_out: Path, new_sketch: Any, lsh: Any, encode: bool
) -> dict[str, Any]:
    """Load the JSONL, sketch and insert every document, query each, keep the candidates
    whose estimated Jaccard >= t; the pairs go to ``pairs_out``."""
    t0 = time.perf_counter()
    with open(path, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    t_load = time.perf_counter() - t0
    sketches = []
    for i, row in enumerate(rows):
        m = new_sketch()
        shingles = _shingles(row["text"])
        if encode:
            m.update_batch([s.encode("utf-8") for s in shingles])
        else:
            m.update(shingles)
        lsh.insert(i, m)
        sketches.append(m)
    found = []
    for i, m in enumerate(sketches):
        for j in lsh.query(m):
            if j > i and m.jaccard(sketches[j]) >= THRESHOLD:
                found.append(sorted((rows[i]["id"], rows[j]["id"])))
    with open(pairs_out, "w", encoding="utf-8") as f:
        f.writelines(json.dumps(p) + "\n" for p in found)
    return {"load_json_s": round(t_load, 2), "pairs": len(found)}


def contender_rensa(path: Path, pairs_out: Path) -> dict[str, Any]:
    from rensa import RMinHash, RMinHashLSH

    bands, _ = _bands()
    lsh = RMinHashLSH(threshold=THRESHOLD, num_perm=NUM_PERM, num_bands=bands)
    out = _lsh_pairs(
        path, pairs_out, lambda: RMinHash(num_perm=NUM_PERM, seed=42), lsh, encode=False
    )
    return {**out, "bands": bands}


def contender_datasketch(path: Path, pairs_out: Path) -> dict[str, Any]:
    from datasketch import MinHash, MinHashLSH

    proto = MinHash(num_perm=NUM_PERM, seed=1)

    def new() -> Any:
        return MinHash(
            num_perm=NUM_PERM, seed=1, permutations=proto.permutations, scheme=proto.scheme
        )

    lsh = MinHashLSH(threshold=THRESHOLD, num_perm=NUM_PERM)
    return _lsh_pairs(path, pairs_out, new, lsh, encode=True)


# -- the run -----------------------------------------------------------------------------------
def warm(path: Path) -> float:
    """Read ``path`` once, so that every contender finds it in the page cache (the first
    would otherwise pay the disk read alone); returns the seconds it took."""
    t0 = time.perf_counter()
    with open(path, "rb") as f:
        while f.read(1 << 24):
            pass
    return round(time.perf_counter() - t0, 2)


def bench_size(n: int, args: argparse.Namespace, work: Path) -> dict[str, Any]:
    path, gold_path = corpus(args.corpus_dir, n)
    gold = gold_pairs(gold_path)
    gold80 = gold_pairs(gold_path, 0.8)
    print(f"[{n:,}] page cache warmed in {warm(path)} s", flush=True)
    row: dict[str, Any] = {"docs": n, "gold_pairs_j60": len(gold), "bytes": path.stat().st_size}
    contenders: list[tuple[str, Any]] = [("neardup", lambda: run_neardup(path, work))]
    if args.previous and n <= args.previous_max:  # next to neardup: the same machine state
        contenders.append(("previous", lambda: run_previous(args.previous, path, work)))
    if n <= args.rensa_max:
        contenders.append(("rensa", lambda: run_peer("rensa", path, work)))
    if n <= args.datasketch_max:
        contenders.append(("datasketch", lambda: run_peer("datasketch", path, work)))
    if n <= args.kernel_check_max:
        contenders.append(("neardup-python", lambda: run_neardup(path, work, "python")))
    for name, fn in contenders:
        print(f"[{n:,}] {name} ...", flush=True)
        r = fn()
        found = r.pop("_found", None)
        if found is not None:
            r["recall_j60"] = round(recall(found, gold), 4)
            r["recall_j80"] = round(recall(found, gold80), 4)
        if found is not None and name == "neardup":  # which misses the canonical form chose
            from gold_misses import split_misses

            split = split_misses(path, gold_path, found, min_jaccard=GOLD_MIN_JACCARD,
                                 threshold=THRESHOLD)  # fmt: skip
            r["missed_j60"] = {k: split[k] for k in ("never_candidate", "below_t_canonical")}
        row[name] = r
        print(f"[{n:,}] {name}: {json.dumps(r)}", flush=True)
    nd = row["neardup"]["wall_s"]
    if "rensa" in row:
        row["ratio_rensa_over_neardup"] = round(row["rensa"]["wall_s"] / nd, 2)
    if "datasketch" in row:
        row["ratio_datasketch_over_neardup"] = round(row["datasketch"]["wall_s"] / nd, 2)
    if "neardup-python" in row:  # the compiled kernel's contract: the same pairs.jsonl
        row["same_pairs_with_numpy_kernel"] = (
            row["neardup-python"]["pairs_sha256"] == row["neardup"]["pairs_sha256"]
        )
        row["ratio_numpy_kernel_over_neardup"] = round(row["neardup-python"]["wall_s"] / nd, 2)
    if "previous" in row:
        row["ratio_previous_over_neardup"] = round(row["previous"]["wall_s"] / nd, 2)
        now = row["neardup"]["stages_s"].get("read+prepare", 0.0)
        row["read_prepare_now_s"] = now
        row["read_prepare_ratio_previous_over_now"] = (
            round(row["previous"]["read_prepare_s"] / now, 2) if now else None
        )
    return row


def table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| docs | contender | wall s | peak MiB | main anon / file MiB | recall J>=0.6 "
        "| load before/after |",
        "|---:|---|---:|---:|---:|---:|---|",
    ]
    for row in rows:
        for name in ("neardup", "neardup-python", "rensa", "datasketch", "previous"):
            if name in row:
                r = row[name]
                lines.append(
                    f"| {row['docs']:,} | {name} | {r['wall_s']:.1f} | {r['peak_rss_mib']:,.0f} "
                    f"| {r['peak_anon_mib']:,.0f} / {r['peak_file_mib']:,.0f} "
                    f"| {r.get('recall_j60', '')} | {r['load_before']}/{r['load_after']} |"
                )
        stages = ", ".join(f"{k} {v:.1f}" for k, v in row["neardup"]["stages_s"].items())
        spilled = " (spilled to disk)" if row["neardup"].get("spilled_to_disk") else ""
        lines.append(f"|  | neardup stages (s){spilled} | {stages} | | | | |")
    return "\n".join([*lines, "", *stage_table(rows)])


def stage_table(rows: list[dict[str, Any]]) -> list[str]:
    """Markdown lines: neardup's stages at each size, wall seconds against the main
    process's CPU seconds (all its threads), and the pool's workers' CPU seconds (issue 43:
    where the main process is in the workers' way)."""
    lines = ["| docs | stage | wall s | main CPU s | workers' CPU s |", "|---:|---|---:|---:|---:|"]
    for row in rows:
        r = row["neardup"]
        wall, cpu = r["stages_s"], r.get("stages_cpu_s", {})
        stages = [*[k for k in wall if k != "total"], *[k for k in cpu if k not in wall]]
        for stage in [*stages, "total"]:
            workers = r.get("worker_cpu_s") if stage in ("read+prepare", "total") else None
            cells = [wall.get(stage), cpu.get(stage), workers]
            shown = " | ".join("" if v is None else f"{v:.2f}" for v in cells)
            lines.append(f"| {row['docs']:,} | {stage} | {shown} |")
    return lines


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--contender":
        name, path, pairs = sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4])
        fn = contender_rensa if name == "rensa" else contender_datasketch
        print(json.dumps(fn(path, pairs)))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--corpus-dir", type=Path, default=Path("/tmp/neardup-scale"))
    parser.add_argument("--datasketch-max", type=int, default=100_000)
    parser.add_argument(
        "--rensa-max", type=int, default=1_000_000, help="(7.8 GB at 1M: 10M does not fit)"
    )
    parser.add_argument("--previous", default=None, help="git revision for read + prepare")
    parser.add_argument("--previous-max", type=int, default=100_000)
    parser.add_argument(
        "--kernel-check-max", type=int, default=100_000,
        help="sizes up to this also run with NEARDUP_KERNEL=python (same pairs.jsonl?)",
    )  # fmt: skip
    parser.add_argument("--out", type=Path, default=HERE / "results" / "scale.json")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="neardup-scale-") as tmp:
        for n in args.docs:
            rows.append(bench_size(n, args, Path(tmp)))
    result = {"machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]}, "rows": rows}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(table(rows))
    for row in rows:
        extra = ""
        if "ratio_datasketch_over_neardup" in row:
            extra = f", datasketch/neardup {row['ratio_datasketch_over_neardup']}x"
        if row.get("ratio_previous_over_neardup"):
            extra += f", previous/neardup {row['ratio_previous_over_neardup']}x"
        if row.get("read_prepare_ratio_previous_over_now"):
            extra += f", read+prepare previous/now {row['read_prepare_ratio_previous_over_now']}x"
        if "same_pairs_with_numpy_kernel" in row:
            extra += (
                f", pairs.jsonl with NEARDUP_KERNEL=python the same: "
                f"{row['same_pairs_with_numpy_kernel']}, numpy path/kernel wall "
                f"{row['ratio_numpy_kernel_over_neardup']}x"
            )
        rensa = row.get("ratio_rensa_over_neardup")
        head = f"rensa/neardup {rensa}x" if rensa else "neardup alone"
        print(f"{row['docs']:,}: {head}{extra}")


if __name__ == "__main__":
    main()
