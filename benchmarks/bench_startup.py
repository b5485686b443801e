"""Start-up time of the `neardup` command (issue 17, item 4): the median wall time of
`neardup --version`, `neardup --help` and a one-file `neardup check` on a 100,000-document
SQLite collection, over N runs, with the machine load before and after; plus
`python -X importtime` of `neardup.cli.main` and of the modules a check loads.

    .venv/bin/python benchmarks/bench_startup.py --corpus /work/scale/corpus-100000.jsonl
        [--docs 100000] [--runs 11] [--cache DIR] [--base OLD/src] [--json-out FILE]

The collection (`minhash-lsh`, the default method) is built once from the first `--docs`
records of `--corpus` (JSONL with `id` and `text`) and reused from `--cache` (default:
`~/.cache/neardup-bench`); building it takes minutes, the timed runs do not include it.
Without `--corpus`, /work/scale/corpus-100000.jsonl is used, or the first 100,000 lines of
/work/scale/corpus-1000000.jsonl. The checked file is the text of one stored record (a
duplicate: exit code 1) with its words reordered at the end (not identical).

Targets: `--help` and `--version` under 0.3 s, the check under 0.7 s wall. Every command is
run once untimed first (warm file cache and .pyc files); the timed runs are sequential.
Take final figures on an idle machine only (the load is printed; above ~0.5 on 2 cores the
figures are not comparable). With `--base` the same runs are made with another source tree
first on PYTHONPATH (e.g. a checkout of an older commit's `src/`), for a before/after;
`--previous REV` makes that tree from a git revision in the same run (a temporary worktree
with its compiled kernel built, `previous.py`): issue 28's "`--version` and a one-file
`check` no slower than the release before".
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RUN = "from neardup.cli.main import run; run()"
SCALE = Path("/work/scale")
COLLECTION = "startup"


def _env(tree: Path) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(tree))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("NEARDUP_DB", None)
    return env


def load() -> str:
    """``uptime``'s load averages (1, 5, 15 min)."""
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


def time_command(
    cmd: list[str], envs: dict[str, dict[str, str]], runs: int, expect: int
) -> dict[str, dict[str, float]]:
    """Median (and min, max) wall and CPU seconds of ``cmd`` under each environment (a
    tree each) over ``runs`` runs, the trees taking turns run by run (a drift of the
    machine's speed during the call touches them alike; all of one tree's runs, then all
    of the other's, measured one tree 9-19 % slower or 11 % faster from one call to the
    next). One untimed run of each first (it writes the ``.pyc`` files), which must exit
    with ``expect``: a failing command is not timed."""
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    for env in envs.values():
        first = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if first.returncode != expect:
            sys.exit(
                f"{' '.join(cmd[3:])}: exit {first.returncode}, expected {expect}\n{first.stderr}"
            )
    wall: dict[str, list[float]] = {label: [] for label in envs}
    cpu: dict[str, list[float]] = {label: [] for label in envs}
    for _ in range(runs):
        for label, env in envs.items():
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            subprocess.run(cmd, env=env, **quiet)
            wall[label].append(time.perf_counter() - t0)
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu[label].append(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)
    return {
        label: {
            "wall_median_s": round(statistics.median(wall[label]), 4),
            "wall_min_s": round(min(wall[label]), 4),
            "wall_max_s": round(max(wall[label]), 4),
            "cpu_median_s": round(statistics.median(cpu[label]), 4),
        }
        for label in envs
    }


def importtime(code: str, env: dict[str, str], runs: int) -> dict[str, float]:
    """Median cumulative import time (ms) of each top-level package ``code`` imports,
    the 12 largest, plus ``total`` (the sum over top-level imports)."""
    totals: dict[str, list[float]] = {}
    for _ in range(runs):
        err = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", code], env=env, capture_output=True,
            text=True,
        ).stderr  # fmt: skip
        seen: dict[str, float] = {}
        for line in err.splitlines():
            if not line.startswith("import time:") or "|" not in line:
                continue
            _, cumulative, name = line.split("|")
            if name.startswith("  ") or not cumulative.strip().isdigit():
                continue  # a nested import: counted in its parent's cumulative time
            top = name.strip().split(".")[0]
            seen[top] = seen.get(top, 0.0) + int(cumulative) / 1000
        seen["total"] = sum(seen.values())
        for key, ms in seen.items():
            totals.setdefault(key, []).append(ms)
    med = {k: round(statistics.median(v), 1) for k, v in totals.items()}
    top = sorted((k for k in med if k != "total"), key=lambda k: -med[k])[:12]
    return {"total": med["total"], **{k: med[k] for k in top}}


def corpus_path(given: Path | None, docs: int, cache: Path) -> Path:
    """The corpus to build from: ``given``; else /work/scale/corpus-100000.jsonl; else the
    first ``docs`` lines of /work/scale/corpus-1000000.jsonl, cut once into ``cache``."""
    if given is not None:
        if not given.is_file():
            sys.exit(f"--corpus {given}: no such file")
        return given
    small = SCALE / f"corpus-{docs}.jsonl"
    if small.is_file():
        return small
    big = SCALE / "corpus-1000000.jsonl"
    if not big.is_file():
        sys.exit(f"no corpus: give --corpus (neither {small} nor {big} exists)")
    cut = cache / f"corpus-{docs}.jsonl"
    if not cut.is_file():
        tmp = cut.with_suffix(".part")
        with big.open("rb") as src, tmp.open("wb") as dst:
            for n, line in enumerate(src):
                if n >= docs:
                    break
                dst.write(line)
        tmp.replace(cut)
    return cut


def build_collection(
    corpus: Path, docs: int, cache: Path, env: dict[str, str], builder: str = ""
) -> str:
    """The SQLite URL of a collection of the first ``docs`` records of ``corpus``, built
    with the command line once and reused (a marker file records a finished build);
    ``builder`` names the tree that builds it (in the file name: a collection another
    tree built is not reused)."""
    db = cache / f"startup-{corpus.stem}-{docs}{builder}.db"
    done = db.with_suffix(".done")
    url = f"sqlite:///{db}"
    if done.is_file() and db.is_file():
        return url
    db.unlink(missing_ok=True)
    source = corpus
    if sum(1 for _ in corpus.open("rb")) > docs:
        source = cache / f"{corpus.stem}-first-{docs}.jsonl"
        with corpus.open("rb") as src, source.open("wb") as dst:
            for n, line in enumerate(src):
                if n >= docs:
                    break
                dst.write(line)
    py = [sys.executable, "-c", RUN]
    print(f"building {db} from {source} (once; minutes)", flush=True)
    t0 = time.perf_counter()
    subprocess.run([*py, "collection", "create", COLLECTION, "--db", url], env=env, check=True)
    subprocess.run([*py, "add", COLLECTION, str(source), "--db", url, "-q"], env=env, check=True)
    print(f"built in {time.perf_counter() - t0:.0f} s", flush=True)
    done.write_text(json.dumps({"corpus": str(corpus), "docs": docs}) + "\n")
    return url


def query_file(corpus: Path, cache: Path) -> Path:
    """A text file: the first record's text with its last 20 words reversed (a near-duplicate
    of a stored document, not an identical one)."""
    with corpus.open(encoding="utf-8") as fh:
        text = json.loads(fh.readline())["text"]
    words = text.split()
    path = cache / "startup-query.txt"
    path.write_text(" ".join(words[:-20] + words[-20:][::-1]) + "\n", encoding="utf-8")
    return path


def measure(
    trees: dict[str, Path], url: str, query: Path, runs: int
) -> dict[str, dict[str, object]]:
    """Each tree's figures: the commands' times (trees taking turns, :func:`time_command`)
    and the import times."""
    envs = {label: _env(tree) for label, tree in trees.items()}
    py = [sys.executable, "-c", RUN]
    cases = {  # name -> (arguments, expected exit code; check: 1 = a duplicate found)
        "neardup --version": (["--version"], 0),
        "neardup --help": (["--help"], 0),
        "neardup check (1 file, 100k collection)": (
            ["check", COLLECTION, str(query), "--db", url],
            1,
        ),
    }
    out: dict[str, dict[str, object]] = {label: {} for label in trees}
    for name, (args, expect) in cases.items():
        for label, figures in time_command([*py, *args], envs, runs, expect).items():
            out[label][name] = figures
    check_code = (
        "import neardup.cli.main, neardup.cli.check, neardup.store, neardup.text.read, "
        "neardup.methods.registry"
    )
    for label, env in envs.items():
        out[label]["importtime neardup.cli.main (ms)"] = importtime(
            "import neardup.cli.main", env, runs
        )
        out[label]["importtime check path (ms)"] = importtime(check_code, env, runs)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", type=Path, help="JSONL corpus (id, text) to build from")
    ap.add_argument("--docs", type=int, default=100_000, help="documents in the collection")
    ap.add_argument("--runs", type=int, default=11, help="timed runs per command")
    ap.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "neardup-bench")
    ap.add_argument("--tree", type=Path, default=REPO / "src", help="this tree's src/")
    ap.add_argument("--base", type=Path, help="another source tree (its src/) to compare")
    ap.add_argument("--json-out", type=Path, help="also write the figures here (JSON)")
    ap.add_argument("--previous", help="git revision to compare in the same run (worktree)")
    args = ap.parse_args()
    if args.base and args.previous:
        ap.error("--base and --previous: give one")
    with contextlib.ExitStack() as stack:
        if args.previous:
            from previous import previous_tree

            scratch = Path(stack.enter_context(tempfile.TemporaryDirectory()))
            args.base = stack.enter_context(previous_tree(args.previous, scratch))
        _run(args)


def _run(args: argparse.Namespace) -> None:
    args.cache.mkdir(parents=True, exist_ok=True)
    corpus = corpus_path(args.corpus, args.docs, args.cache)
    # with a tree to compare, that (older) tree builds the collection: this tree reads what
    # it stored (a text stored in a newer format would be a different check for it)
    builder = ("-base", args.base) if args.base else ("", args.tree)
    url = build_collection(corpus, args.docs, args.cache, _env(builder[1]), builder[0])
    query = query_file(corpus, args.cache)
    before = load()
    print(f"load before: {before}", flush=True)
    base = f"previous {args.previous}" if args.previous else "base"
    trees = {"this tree": args.tree, **({base: args.base} if args.base else {})}
    results = measure(trees, url, query, args.runs)
    after = load()
    print(f"load after: {after}")
    labels = list(results)
    print(f"\nmedian of {args.runs} runs | " + " | ".join(labels))
    for key in results[labels[0]]:
        if key.startswith("importtime"):
            cells = [f"{results[label][key]['total']:.0f} ms" for label in labels]  # type: ignore[index]
        else:
            cells = [
                f"{results[label][key]['wall_median_s']:.3f} s wall, "  # type: ignore[index]
                f"{results[label][key]['cpu_median_s']:.3f} s CPU"  # type: ignore[index]
                for label in labels
            ]
        print(f"{key} | " + " | ".join(cells))
    if args.json_out:
        record = {
            "benchmark": "bench_startup",
            "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
            "load_before": before,
            "load_after": after,
            "runs": args.runs,
            "collection": {"corpus": str(corpus), "documents": args.docs, "url": url},
            "results": results,
        }
        args.json_out.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
