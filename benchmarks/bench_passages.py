"""Text alignment benchmark: PAN's measures per obfuscation type, and the 5,000-word timing.

Scores :func:`neardup.align_passages` **with its defaults** (the call users make) with PAN's
macro precision, recall, granularity and plagdet (Potthast et al. 2010) on

* PAN text-alignment corpus folders given with ``--pan DIR`` (e.g. the PAN 2013 test and
  training corpora: ``pairs``, ``susp/``, ``src/``, one XML folder per obfuscation type),
  per type, with the share of pairs without a case that get a detection;
* the planted set of :mod:`neardup.evaluate.planted` (linux docs in English, RusLit in
  Russian, four random-edit levels) and the Russian paraphrase set of
  :mod:`neardup.evaluate.paraphrase` (RusLit passages rewritten with synonyms, inflection,
  word-order changes, deletions, sentence splits and merges), both generated from
  ``../shared/data`` in the run;

and times one pair of 5,000-word documents (best of 5, wall and CPU). ``--old SRC`` also
runs the ``align_passages`` of another checkout's ``src`` (e.g. a worktree of the release
before, ``git worktree add /tmp/old-passages 2b454db``) on the same inputs in the same run,
for before/after rows; ``tiles`` (:func:`neardup.matched_passages`) is timed too.

Usage::

    .venv/bin/python benchmarks/bench_passages.py [--pan DIR ...] [--old SRC] [--jobs 2]
        [--pairs 25] [--seed 19] [--json OUT] [--markdown OUT]

The figures of ``benchmarks/results/passages_pan13.json``::

    .venv/bin/python benchmarks/bench_passages.py --pan ../pan/data/test_corpus \\
        --pan ../pan/data/train_corpus --old /tmp/old-passages/src --jobs 2 \\
        --json benchmarks/results/passages_pan13.json \\
        --markdown benchmarks/results/passages_pan13.md
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from neardup.evaluate.pan import Span, evaluate_pan_corpus, load_pan_corpus, pan_scores
from neardup.evaluate.planted import LEVELS, PlantedPair, build_set, shared_texts
from neardup.passages import align_passages, matched_passages

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
Aligner = Callable[[str, str], Sequence[Any]]


def old_aligner(src: Path) -> Aligner:
    """``align_passages`` of another checkout's ``src`` (its ``neardup/passages.py`` or
    ``neardup/passages/__init__.py``), loaded as module ``old_passages``."""
    path = src / "neardup" / "passages.py"
    if not path.is_file():
        path = src / "neardup" / "passages" / "__init__.py"
    spec = importlib.util.spec_from_file_location("old_passages", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules["old_passages"] = module  # workers forked later find it
    spec.loader.exec_module(module)
    return module.align_passages  # type: ignore[no-any-return]


def score(pairs: list[PlantedPair], fn: Aligner) -> dict[str, Any]:
    """PAN's measures of ``fn`` on generated pairs, with pairs/s."""
    cases = [
        Span(c.a, c.b, c.a_offset, c.a_length, c.b_offset, c.b_length)
        for p in pairs
        for c in p.cases
    ]
    found: list[Span] = []
    t0 = time.perf_counter()
    results = [fn(p.a_text, p.b_text) for p in pairs]
    seconds = time.perf_counter() - t0
    for p, passages in zip(pairs, results, strict=True):
        found += [
            Span(p.a, p.b, q.a_start, q.a_end - q.a_start, q.b_start, q.b_end - q.b_start)
            for q in passages
        ]
    s = pan_scores(cases, found)
    negatives = [p for p, r in zip(pairs, results, strict=True) if not p.cases]
    flagged = sum(1 for p, r in zip(pairs, results, strict=True) if not p.cases and r)
    return {
        **_rounded(s.as_dict()),
        "pairs": len(pairs),
        "negative_pairs": len(negatives),
        "flagged_negative_pairs": flagged,
        "pairs_per_s": round(len(pairs) / seconds, 1),
    }


def _rounded(d: dict[str, Any]) -> dict[str, Any]:
    return {k: round(v, 4) if isinstance(v, float) else v for k, v in d.items()}


def time_5000(
    texts: dict[str, list[tuple[str, str]]], algorithms: dict[str, Aligner], repeat: int = 5
) -> dict[str, float]:
    """Milliseconds (wall and CPU) to align a pair of 5,000-word documents, best of ``repeat``."""
    docs = [t for _, t in texts["en"] if len(t.split()) >= 4900][:2]
    a, b = docs[0], docs[1]
    half = len(b) // 2
    b = b[:half] + "\n\n" + a[1000:6000] + "\n\n" + b[half:]  # one shared passage
    out: dict[str, float] = {"words_a": len(a.split()), "words_b": len(b.split())}
    for name, fn in algorithms.items():
        for clock in ("perf_counter", "process_time"):
            best = min(_timed(fn, a, b, getattr(time, clock)) for _ in range(repeat))
            key = "ms" if clock == "perf_counter" else "cpu_ms"
            out[f"{name}_{key}"] = round(best * 1000, 2)
    return out


def _timed(fn: Aligner, a: str, b: str, clock: Callable[[], float]) -> float:
    t0 = clock()
    fn(a, b)
    return clock() - t0


def pan_rows(folder: Path, algorithms: dict[str, Aligner], jobs: int) -> list[dict[str, Any]]:
    """Per type rows of each algorithm on a PAN corpus folder."""
    corpus = load_pan_corpus(folder)
    rows = []
    for name, fn in algorithms.items():
        report = evaluate_pan_corpus(corpus, align=fn, jobs=jobs)
        groups = report.as_dict()["groups"]
        assert isinstance(groups, dict)
        for group, row in groups.items():
            rows.append({"set": folder.name, "type": group, "algorithm": name, **_rounded(row)})
        print(f"{folder.name} {name}: {report.seconds:.0f} s", flush=True)
    return rows


def generated_rows(
    algorithms: dict[str, Aligner], pairs_per_level: int, seed: int
) -> tuple[list[dict[str, Any]], dict[str, list[tuple[str, str]]]]:
    """Rows of the planted set (per language and level) and the Russian paraphrase set."""
    from neardup.evaluate.paraphrase import build_paraphrase_set

    texts = shared_texts(DATA)
    planted = build_set(texts, pairs_per_level=pairs_per_level, seed=seed)
    groups: list[tuple[str, str, list[PlantedPair]]] = [
        (f"planted-{lang}", level, [p for p in planted if p.language == lang and p.level == level])
        for lang in sorted(texts)
        for level in LEVELS
    ]
    paraphrased = build_paraphrase_set(texts["ru"], pairs=4 * pairs_per_level, seed=seed)
    groups.append(("ru-paraphrase", "paraphrase", paraphrased))
    rows = []
    for set_name, level, subset in groups:
        for name, fn in algorithms.items():
            row = {"set": set_name, "type": level, "algorithm": name, **score(subset, fn)}
            rows.append(row)
            print(_line(row), flush=True)
    return rows, texts


def _line(row: dict[str, Any]) -> str:
    return (
        f"{row['set']:16s} {row['type']:24s} {row['algorithm']:6s}"
        f" plagdet {row['plagdet']:.3f}  P {row['precision']:.3f}  R {row['recall']:.3f}"
        f"  G {row['granularity']:.3f}  ({row['cases']} cases, {row['pairs']} pairs)"
    )


def markdown(result: dict[str, Any]) -> str:
    """The table of ``result`` in Markdown."""
    head = (
        "| set | type | aligner | pairs | cases | flagged negatives | precision | recall "
        "| granularity | plagdet |\n|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n"
    )
    lines = []
    for r in result["table"]:
        flagged = f"{r['flagged_negative_pairs']}/{r['negative_pairs']}"
        lines.append(
            f"| {r['set']} | {r['type']} | {r['algorithm']} | {r['pairs']} | {r['cases']} "
            f"| {flagged} | {r['precision']:.3f} | {r['recall']:.3f} "
            f"| {r['granularity']:.3f} | **{r['plagdet']:.3f}** |"
        )
    timing = result["pair_5000_words"]
    times = ", ".join(f"{k} {v}" for k, v in timing.items())
    return (
        f"# Text alignment: PAN's measures per type\n\nCommand: `{result['command']}`\n\n"
        f"Load average {result['load']} -> {result['load_after']}.\n\n"
        + head
        + "\n".join(lines)
        + f"\n\nOne pair of 5,000-word documents: {times}.\n"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pan", type=Path, action="append", default=[], help="PAN corpus folder")
    ap.add_argument("--old", type=Path, help="src of a checkout to compare with (before)")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes for --pan")
    ap.add_argument("--pairs", type=int, default=25, help="generated pairs per level")
    ap.add_argument("--seed", type=int, default=19)
    ap.add_argument("--json", type=Path, help="write the figures here")
    ap.add_argument("--markdown", type=Path, help="write the table here")
    args = ap.parse_args()
    algorithms: dict[str, Aligner] = {"align": align_passages}
    if args.old is not None:
        algorithms["before"] = old_aligner(args.old)
    result: dict[str, Any] = {
        "command": " ".join(["benchmarks/bench_passages.py", *sys.argv[1:]]),
        "load": [round(x, 2) for x in os.getloadavg()],
    }
    table = []
    for folder in args.pan:
        table += pan_rows(folder, algorithms, args.jobs)
    rows, texts = generated_rows(algorithms, args.pairs, args.seed)
    table += rows
    result["table"] = table
    result["pair_5000_words"] = time_5000(texts, {**algorithms, "tiles": matched_passages})
    result["load_after"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(result["pair_5000_words"]), "load", result["load"])
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    if args.markdown:
        args.markdown.write_text(markdown(result), encoding="utf-8")


if __name__ == "__main__":
    main()
